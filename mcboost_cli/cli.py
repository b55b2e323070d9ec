"""Command-line interface (click). Thin: parse options, call the layers, print.

Every user error (config, parameters, data files, network) is printed as one line
``error: ...`` on stderr with exit status 2 and no traceback; Ctrl-C exits with 130 after the
results already computed are safely stored.
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import click

from . import __version__
from .errors import UserError
from .runner.checkpoint import EVERY_SECONDS

DEFAULT_NOISE_CONFIG = "configs/noise.yaml"


def _fail(message: str, code: int = 2):
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


class _Group(click.Group):
    """Turns UserError and click's usage errors into one-line messages and exit 2."""

    def main(self, args=None, prog_name=None, **extra):
        extra.pop("standalone_mode", None)
        try:
            rv = super().main(args, prog_name, standalone_mode=False, **extra)
        except click.exceptions.Abort:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except click.ClickException as e:
            hint = ""
            if isinstance(e, click.UsageError) and e.ctx is not None:
                hint = f" (see `{e.ctx.command_path} --help`)"
            _fail(e.format_message().replace("\n", " ") + hint, e.exit_code)
        sys.exit(rv if isinstance(rv, int) else 0)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except UserError as e:
            _fail(str(e).splitlines()[0] if str(e) else type(e).__name__, e.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mcboost")
def main():
    """mcboost: reproduce, compare and extend multi-class boosting experiments.

    \b
    Typical use:
      mcboost run configs/quick.yaml      run an experiment config, print its table
      mcboost noise --rate 0.2            the label-noise experiment at 20% noise
      mcboost report configs/quick.yaml   re-render tables from the result store
    """


# -- shared options ----------------------------------------------------------------------------

_SOURCE_OPTION = click.option(
    "--source", "sources", multiple=True, metavar="DATASET=SOURCE",
    help="Take DATASET's rows from SOURCE: auto (default: the files, or an exact generator in "
         "their place), files, or generator (which may be an in-distribution stand-in, e.g. "
         "poker525k's test hands offline). Overrides the config's 'sources'; repeatable. "
         "Such cells have keys of their own and their rows are marked in the tables.")


def _with_source_options(config, sources):
    """``config`` with the ``--source DATASET=SOURCE`` options applied."""
    if not sources:
        return config
    from .runner.config import DATA_SOURCES, with_sources
    mapping = {}
    for text in sources:
        name, sep, source = text.partition("=")
        if not sep or not name.strip() or not source.strip():
            raise UserError(f"--source {text}: expected DATASET=SOURCE with SOURCE one of "
                            f"{', '.join(DATA_SOURCES)}, e.g. --source poker525k=generator")
        mapping[name.strip()] = source.strip()
    return with_sources(config, mapping)


def _run_options(f):
    opts = [
        click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
                     help="Worker processes (default: number of cores; 1 = serial)."),
        click.option("--retry-failed", is_flag=True,
                     help="Also rerun cells stored as failed or timed out."),
        click.option("--fresh", is_flag=True,
                     help="Forget this plan's stored results and compute them again."),
        click.option("--dry-run", is_flag=True,
                     help="Validate and print the plan (cells to run / already done, and "
                          "the fits that continue from a checkpoint); run nothing."),
        click.option("--mirror", default=None, metavar="URL|DIR",
                     help="Dataset mirror: an http(s) base URL or a folder laid out like the "
                          "UCI archive (default: $MCBOOST_MIRROR, else the official UCI site)."),
        click.option("--offline", is_flag=True,
                     help="Never use the network; fail at once if a dataset is not cached."),
        click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
                     help="Result store (default: results/<experiment>/cells.sqlite)."),
        click.option("--results-dir", type=click.Path(file_okay=False), default=None,
                     help="Where tables are written (default: results/<experiment>)."),
        click.option("--export-splits", type=click.Path(file_okay=False), default=None,
                     metavar="DIR", help="Also write the folds and noise masks as CSV files."),
        click.option("--quiet", "-q", is_flag=True, help="No progress bar."),
        click.option("--tables", "only_tables", default=None, metavar="ID[,ID...]",
                     help="Run only the cells of these tables of the config (ids as in its "
                          "'tables:' list; the tables show all of it)."),
        click.option("--datasets", "only_datasets", default=None, metavar="NAME[,NAME...]",
                     help="Run only these datasets of the config (the tables show all of it)."),
        click.option("--algorithms", "only_algorithms", default=None,
                     metavar="LABEL[,LABEL...]",
                     help="Run only these algorithm columns (labels as in the tables, or "
                          "registry names)."),
        click.option("--quick", is_flag=True,
                     help="Run the config's reduced 'quick' budget (fewer datasets, folds and "
                          "rounds); outputs go to results/<experiment>/quick/, labelled QUICK."),
        click.option("--import-results", type=click.Path(dir_okay=False), default=None,
                     metavar="CELLS_CSV",
                     help="First take the plan's cells found in this per-cell results file "
                          "(a cells.csv written by a run) as done, then run the rest."),
        click.option("--scheduler", default=None, metavar="ADDRESS|local",
                     envvar="MCBOOST_SCHEDULER", show_envvar=True,
                     help="Run the cells on a Dask cluster: the address of its scheduler "
                          "(tcp://host:8786), or 'local' for a local cluster of --jobs worker "
                          "processes. Needs the 'cluster' extra (pip install "
                          "'mcboost-cli[cluster]'); workers fetch the datasets they lack."),
        _SOURCE_OPTION,
        click.option("--checkpoint-every", type=click.FloatRange(min=0), default=EVERY_SECONDS,
                     show_default=True, metavar="SECONDS",
                     help="Save each running fit's state this often (under checkpoints/ beside "
                          "the store), so a fit stopped midway continues when the command is "
                          "run again; 0 = never. A save waits at least 20 times as long as "
                          "the last one took. There too, the fits of a grid that share their "
                          "first rounds (DMCBoost's Phase I, the same for every n') take them "
                          "from the first of them to finish them (not with 0)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def _paths(config, store_path, results_dir):
    default = Path("results") / config.experiment
    if config.is_quick:
        default = default / "quick"
    out = Path(results_dir) if results_dir else default
    store = Path(store_path) if store_path else out / "cells.sqlite"
    return store, out


def _load(config_file, quick=False):
    from .runner.config import load_config, quick_variant
    config = load_config(config_file)
    return quick_variant(config) if quick else config


def _open_store(path: Path, *, create: bool = True):
    """The result store at ``path``; with ``create=False`` (``--dry-run``) a store that does
    not exist yet is an empty one in a temporary folder, so nothing is created."""
    from .runner.store import ResultStore
    if not create and not path.exists():
        return _empty_store()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"--store {path}: cannot create its folder {path.parent} "
                        f"({e.strerror or e}); give a writable file path with --store") from None
    return ResultStore(path)


@contextlib.contextmanager
def _empty_store():
    import tempfile

    from .runner.store import ResultStore
    with tempfile.TemporaryDirectory(prefix="mcboost-dry-run-") as tmp:
        with ResultStore(Path(tmp) / "cells.sqlite") as store:
            yield store


def _load_datasets(config, mirror, offline):
    """Fetch and parse every dataset of the plan in this process before any work starts.

    Returns (config, datasets): a dataset that cannot be had (no internet, missing from the
    mirror) is dropped from the plan with one warning line and a note under the tables, so the
    others still run; when none can be had, that is an error."""
    from dataclasses import replace

    from .datasets import DatasetError, load_dataset
    from .datasets.download import CachedFileChanged
    from .runner.config import narrow
    if mirror:
        # Workers inherit the environment; they read the cache this fills.
        os.environ["MCBOOST_MIRROR"] = mirror
    datasets, missing = {}, {}
    for name in config.datasets:
        try:
            datasets[name] = load_dataset(name, mirror=mirror, offline=offline,
                                          source=config.source_of(name) or None)
        except CachedFileChanged:
            raise           # running without it would hide a damaged cache: the user fixes it
        except DatasetError as e:
            missing[name] = str(e).splitlines()[0]
    if not datasets:
        # One line that says it all (not a warning per dataset, then the same as an error).
        raise UserError(f"no dataset of {config.path} can be had: "
                        + "; ".join(f"{k}: {v}" for k, v in missing.items()))
    for name, why in missing.items():
        click.echo(f"warning: {name} is not run: {why}", err=True)
    if missing:
        config = narrow(config, [d for d in config.datasets if d in datasets])
        config = replace(config, notes=config.notes + tuple(
            f"Not run: {name} (data unavailable here: {why})" for name, why in missing.items()))
    pooled = {d for t in config.tables for d, p in t.protocols.items() if p == "five_fold"}
    for name, ds in datasets.items():
        if ds.test_mask is not None and name in pooled:
            click.echo(f"note: {name} has a predefined train/test split; protocol five_fold "
                       f"pools its {ds.n_samples} rows into 5 random parts", err=True)
    return config, datasets


def _render(config, planned, store, out_dir):
    """Summaries, files and terminal text of the plan's results: the store's, and the done
    cells of ``out_dir``'s cells.csv that the store lacks (``store`` may be None: the file's
    only)."""
    from .report.tables import render_terminal, selected_fits, summarize, write_outputs
    from .runner.reference import (cells_frame, current_cells, known_results, merged_cells,
                                   with_phase1_train_error)
    from .runner.store import empty_frame
    keys = [pc.cell.key for pc in planned]
    cells_path = out_dir / "cells.csv"
    stored = (with_phase1_train_error(store, store.frame()) if store is not None
              else empty_frame())
    # Tables and figures show everything known (the store, then the file), so a narrowed run
    # or a report on a partial store never writes a table with fewer cells than before.
    results, n_file = known_results(store.frame(keys=keys) if store is not None
                                    else empty_frame(), cells_path, keys)
    if n_file:
        click.echo(f"note: {n_file} done cells of this plan are taken from {cells_path} (the "
                   f"store lacks them); --import-results {cells_path} puts them in the store",
                   err=True)
    summary_df = summarize(config, planned, results)
    # cells.csv holds every done cell of the store (of the algorithms' current versions), so
    # configs that share an experiment (uci.yaml and noise.yaml) share one per-cell file; the
    # rows it already has for cells this store lacks are kept, not erased.
    cells, _ = merged_cells(cells_frame(current_cells(stored)), cells_path)
    try:
        paths = write_outputs(config, summary_df, out_dir, cells=cells,
                              selected=selected_fits(config, planned, results, cells))
        paths += _figures(config, planned, store, out_dir, results)
    except OSError as e:
        # Checked before the run, so the folder went away or the disk filled up meanwhile.
        where = f"the store {store.path}" if store is not None else str(cells_path)
        raise UserError(f"cannot write the tables to {out_dir} ({e.strerror or e}); every "
                        f"result is in {where}: free the folder, then run "
                        f"`mcboost report {config.path}` with the same options") from None
    return render_terminal(config, summary_df), paths


def _figures(config, planned, store, out_dir, results=None):
    if not getattr(config, "figures", None):
        return []
    from .report.figures import write_figures
    return write_figures(config, planned, store, out_dir, results)


def _echo_checkpointed(unique_cells, statuses, store_file) -> None:
    """``--dry-run``: the pending fits that a run continues from a mid-fit checkpoint."""
    from .runner.checkpoint import CheckpointDir
    from .runner.progress import format_seconds
    ckdir = CheckpointDir(store_file.parent.resolve() / "checkpoints")
    lines = []
    for c in unique_cells:
        if statuses.get(c.key) == "done":
            continue
        got = ckdir.progress(c.key)
        if got is None:
            continue
        if not got:
            lines.append(f"  {c.describe()}: unreadable (the fit will start afresh)")
            continue
        cpu = got["cpu_seconds"]
        lines.append(f"  {c.describe()}: round {got['rounds']:,}, fit time "
                     f"{format_seconds(got['seconds'])}"
                     + (f" (CPU {format_seconds(cpu)})" if cpu is not None else ""))
    if lines:
        click.echo(f"{len(lines)} pending fit(s) continue from a checkpoint:")
        click.echo("\n".join(lines))


def _execute(config, *, jobs, retry_failed, fresh, dry_run, mirror, offline, store_path,
             results_dir, export_splits, quiet, quick=False, import_results=None,
             only_datasets=None, only_algorithms=None, only_tables=None,
             checkpoint_every=EVERY_SECONDS, scheduler=None, sources=(), shown_noise_rates=None):
    from contextlib import ExitStack
    from functools import partial

    from .runner.checkpoint import CheckpointDir
    from .runner.execute import run_cells
    from .runner.executors import check_dask_timeout, make_executor
    from .runner.lock import store_lock
    from .runner.plan import config_hash, expand
    from .runner.preflight import check_run_paths
    from .runner.work import run_cell

    from dataclasses import replace

    from .runner.config import narrow
    _sigterm_as_interrupt()
    config = _with_source_options(config, sources)
    full = config
    config = narrow(config, _names(only_datasets), _names(only_algorithms),
                    _names(only_tables))
    store_file, out_dir = _paths(config, store_path, results_dir)
    # Every bad path or file the user gave fails here, before any download, computation or
    # change to the store.
    check_run_paths(store_file, out_dir, export_splits, store_given=store_path is not None,
                    results_given=results_dir is not None)
    imported = None
    if import_results:
        from .runner.reference import read_cells
        imported = read_cells(import_results)
    config, datasets = _load_datasets(config, mirror, offline)
    # --tables / --datasets / --algorithms narrow what runs; the tables still show the whole config
    # (from the store), without the datasets that could not be had.
    missing = set(_names(only_datasets) or full.datasets) - set(datasets)
    shown = narrow(full, [d for d in full.datasets if d not in missing])
    # The shown datasets' notes (their data sources among them, even where --datasets ran
    # others), then what loading added ("Not run: ...").
    shown = replace(shown, notes=shown.notes + tuple(n for n in config.notes
                                                     if n not in shown.notes))
    if shown_noise_rates:      # `noise --rate`: the tables keep the config's other rates too
        shown = replace(shown, noise_rates=tuple(shown_noise_rates))
    planned = expand(config)
    cells = [pc.cell for pc in planned]
    if export_splits:
        from .protocol.export import export_splits as _export
        try:
            n = len(_export(config, datasets, export_splits))
        except OSError as e:
            raise UserError(f"--export-splits {export_splits}: cannot write the split files "
                            f"({e.strerror or e}); give a writable folder") from None
        click.echo(f"wrote {n} split files under {export_splits}", err=True)

    with _open_store(store_file, create=not dry_run) as store, ExitStack() as held:
        # Tables that share a fit plan its cell once per table: count each key once.
        unique = {c.key: c for c in cells}
        keys = list(unique)
        statuses = store.statuses(keys)
        n_done = sum(1 for k in keys if statuses.get(k) == "done")
        n_bad = sum(1 for k in keys if statuses.get(k) in ("failed", "timeout"))
        n_unique = len(keys)
        if dry_run:
            click.echo(f"{config.path}: experiment {config.experiment!r}"
                       + (" (QUICK)" if config.is_quick else "") + f": {n_unique} cells "
                       f"({len(config.tables)} table(s), {len(config.datasets)} datasets × "
                       f"{len(config.noise_rates)} noise rates × {len(config.seeds)} seeds × "
                       f"folds × algorithm settings, shared fits counted once); {n_done} done, "
                       f"{n_bad} failed/timed out, {n_unique - n_done - n_bad} pending; "
                       f"store {store_file}")
            if import_results:
                # What the run would take from the file (nothing is written in a dry run).
                from .runner.reference import importable_cells
                pairs = importable_cells(store, imported, planned)
                statuses = {**statuses, **{cell.key: "done" for cell, _ in pairs}}
                left = sum(1 for k in keys if statuses.get(k) != "done")
                click.echo(f"--import-results {import_results}: would import {len(pairs)} "
                           f"done cells, leaving {left} not done")
            _echo_checkpointed(unique.values(), statuses, store_file)
            return
        # One run per store (a second would compute the same cells): it stops here with one
        # line naming the holder. Dry runs and reports only read, and take no lock.
        held.enter_context(store_lock(store_file))
        try:    # before anything is deleted or imported
            check_dask_timeout(scheduler, config.timeout)
        except ValueError as e:
            raise UserError(f"--scheduler {scheduler}: {config.path}: {e}") from None
        # Mid-fit checkpoints live beside the store (a checkpoint depends only on its cell);
        # an absolute path, as cluster workers may run elsewhere (on a shared file system).
        checkpoints = CheckpointDir(store_file.parent.resolve() / "checkpoints",
                                    checkpoint_every)
        checkpoints.remove_stale_temps()      # of saves that a kill interrupted
        if fresh:
            store.delete([c.key for c in cells])
            checkpoints.discard(c.key for c in cells)
        if import_results:
            from .runner.reference import import_cells
            n_imp = import_cells(store, imported, planned, config_hash(config))
            click.echo(f"imported {n_imp} done cells from {import_results}", err=True)
        try:
            executor = make_executor(jobs, scheduler, config.timeout)
        except (ValueError, RuntimeError, OSError) as e:
            raise UserError(f"--scheduler {scheduler}: {e}") from None
        active = checkpoints if checkpoint_every > 0 else None
        try:
            kwargs = {}
            if active is not None:
                kwargs["checkpoints"] = active
            if scheduler:
                # Workers fetch what their cache lacks, from the same place as this process.
                source = mirror or os.environ.get("MCBOOST_MIRROR")
                if source and "://" not in source:
                    source = str(Path(source).resolve())
                kwargs.update(fetch=True, mirror=source)
            work = partial(run_cell, **kwargs) if kwargs else run_cell
            summary = run_cells(cells, store, work, executor, retry_failed=retry_failed,
                                timeout=config.timeout, config_hash=config_hash(config),
                                progress="quiet" if quiet else "auto",
                                checkpoints=active)
        finally:
            executor.shutdown(cancel_pending=True)
        final = store.statuses(keys) if active is not None else {}
        if active is not None and not summary.interrupted and all(
                final.get(k) == "done" for k in keys):
            # Every fit of the plan is stored: no sibling is left to start from a shared
            # prefix (a re-run computes none), so their states need not take disk space.
            active.discard_prefixes()
        text, paths = _render(shown, expand(shown), store, out_dir)
    click.echo(text)
    click.echo(f"{summary.describe()}", err=True)
    click.echo(f"tables: {', '.join(str(p) for p in paths)}", err=True)
    if summary.interrupted:
        sys.exit(130)
    if summary.failed or summary.timeout:
        sys.exit(1)


# -- commands ----------------------------------------------------------------------------------

@main.command()
@click.argument("config_file", metavar="CONFIG")
@_run_options
def run(config_file, **opts):
    """Run the experiment in CONFIG (a YAML file) and print its result table.

    Cells already in the result store are skipped, so re-running an interrupted command
    resumes it. Exit status: 0 all done, 1 some cells failed, 2 bad input, 130 interrupted.
    """
    _execute(_load(config_file, opts["quick"]), **opts)


def _sigterm_as_interrupt():
    """A scheduler's or `kill`'s SIGTERM takes the same clean path as Ctrl-C."""
    import signal
    signal.signal(signal.SIGTERM, signal.default_int_handler)


@main.command()
@click.option("--rate", "rates", type=float, multiple=True, required=True,
              help="Label-noise rate in [0, 1) on training and validation labels; repeat for "
                   "several.")
@click.option("--config", "config_file",
              default=DEFAULT_NOISE_CONFIG, show_default=True, type=str,
              help="The noise experiment config whose noise_rates --rate replaces.")
@_run_options
def noise(rates, config_file, **opts):
    """Run the label-noise experiment at the given rates (test labels stay clean)."""
    from dataclasses import replace

    for r in rates:
        if not 0.0 <= r < 1.0:
            raise UserError(f"--rate: {r!r} is not valid; expected a number in [0, 1)")
    config = _load(config_file, opts["quick"])
    run_rates = tuple(dict.fromkeys(float(r) for r in rates))
    # The run computes the given rates; its tables show the config's rates and these (a
    # subset of rates does not drop the other rates' sections from the committed tables).
    shown_rates = tuple(dict.fromkeys(tuple(map(float, config.noise_rates)) + run_rates))
    config = replace(config, noise_rates=run_rates)
    _execute(config, shown_noise_rates=shown_rates, **opts)


def _names(text):
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]


@main.command()
@click.argument("config_file", metavar="CONFIG")
@click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
              help="Result store (default: results/<experiment>/cells.sqlite).")
@click.option("--results-dir", type=click.Path(file_okay=False), default=None,
              help="Where tables are written (default: results/<experiment>).")
@click.option("--quick", is_flag=True, help="The tables of the --quick run.")
@_SOURCE_OPTION
def report(config_file, store_path, results_dir, quick, sources):
    """Re-render CONFIG's tables (and figures) from the result store (also mid-run)."""
    from .runner.plan import expand

    config = _with_source_options(_load(config_file, quick), sources)
    planned = expand(config)
    store_file, out_dir = _paths(config, store_path, results_dir)
    from .runner.preflight import check_output_dir
    check_output_dir(out_dir, f"--results-dir {out_dir}" if results_dir
                     else f"results folder {out_dir}", "give a writable folder with --results-dir")
    if not store_file.exists():
        if not (out_dir / "cells.csv").exists():
            raise UserError(f"{store_file}: no result store (nor {out_dir / 'cells.csv'}); "
                            f"run `mcboost run {config_file}" + (" --quick" if quick else "")
                            + "` first")
        # A clean clone: render from the committed per-cell results alone.
        text, paths = _render(config, planned, None, out_dir)
    else:
        with _open_store(store_file) as store:
            text, paths = _render(config, planned, store, out_dir)
    click.echo(text)
    click.echo(f"tables: {', '.join(str(p) for p in paths)}", err=True)


@main.command()
@click.argument("config_file", metavar="CONFIG")
@click.option("--cells", "cells_file", type=click.Path(dir_okay=False), default=None,
              help="Per-cell results to check (default: results/<experiment>/cells.csv).")
@click.option("--sample", "n_sample", type=click.IntRange(min=1), default=12, show_default=True,
              help="How many cells to re-run (a fixed, varied sample of cheap cells).")
@click.option("--max-seconds", type=click.FloatRange(min=0), default=5.0, show_default=True,
              help="Only sample cells whose recorded fit took at most this long.")
@click.option("--mirror", default=None, metavar="URL|DIR", help="Dataset mirror.")
@click.option("--offline", is_flag=True, help="Never use the network.")
@_SOURCE_OPTION
def recheck(config_file, cells_file, n_sample, max_seconds, mirror, offline, sources):
    """Re-run a fixed sample of CONFIG's committed cells; exit 1 if any number differs.

    Every re-run cell must reproduce its reported round, its number of rounds and its
    training, validation and test errors exactly (float64 equality).
    """
    from .runner.config import load_config
    from .runner.plan import expand
    from .runner.reference import read_cells, recheck as _recheck, sample_cells
    from .runner.work import run_cell

    config = _with_source_options(load_config(config_file), sources)
    path = Path(cells_file) if cells_file else _paths(config, None, None)[1] / "cells.csv"
    frame = read_cells(path)
    plan_keys = {pc.cell.key for pc in expand(config)}
    frame = frame[frame["key"].isin(plan_keys)]
    sample = sample_cells(frame, n_sample, max_seconds)
    if sample.empty:
        raise UserError(f"{path}: no cell of {config_file} with a recorded fit time of at most "
                        f"{max_seconds:g} s to re-run; raise --max-seconds")
    datasets = sorted(set(sample["dataset"]))
    from .runner.config import narrow
    _load_datasets(narrow(config, datasets), mirror, offline)
    bad = _recheck(sample, config.experiment, run_cell)
    for m in bad:
        click.echo(f"differs: {m.describe}: {m.column} committed {m.committed or 'none'}, "
                   f"re-run {m.rerun or 'none'}")
    click.echo(f"recheck: {len(sample)} cells of {path} re-run "
               f"({', '.join(sorted(set(sample['algorithm'])))} on {', '.join(datasets)}); "
               f"{len(bad)} numbers differ", err=True)
    if bad:
        sys.exit(1)


@main.command()
def algorithms():
    """List the algorithms: name, family, paper reference, parameters."""
    from tabulate import tabulate

    from .algorithms.registry import all_algorithms
    rows = []
    for name, cls in all_algorithms().items():
        params = "; ".join(f"{s.name}={s.default!r} ({s.describe_range()})"
                           for s in cls.param_specs)
        rows.append([name, cls.family, cls.reference, params])
    click.echo(tabulate(rows, headers=["name", "family", "reference", "parameters"],
                        tablefmt="simple", maxcolwidths=[None, None, 40, 60]))


@main.group()
def datasets():
    """Dataset catalog, cache and downloads.

    \b
    The cache is $MCBOOST_DATA (default ~/.cache/mcboost); mirrors come from --mirror or
    $MCBOOST_MIRROR (http(s) base URLs or folders laid out like the UCI archive).
    """


_OFFLINE_LEGEND = ("offline: cache = in the cache; mirror = in a local-folder mirror; "
                   "generator = exact generator (or generated entry); generator~ = "
                   "in-distribution generator only (--source generator); no = download only")


def _split_text(d: dict) -> str:
    return "-" if d["split_sizes"] is None else f"{d['split_sizes'][0]}/{d['split_sizes'][1]}"


@datasets.command("list")
@click.option("--mirror", default=None, metavar="URL|DIR",
              help="Mirror(s) to check for the offline column (default $MCBOOST_MIRROR).")
def datasets_list(mirror):
    """List the catalog: shape, split, papers, cached, available offline."""
    from tabulate import tabulate

    from .datasets import list_datasets
    items = list_datasets(mirror=mirror)
    rows = [[d["name"], d["rows"], d["features"], d["classes"], _split_text(d),
             ", ".join(d["papers"]), "-" if d["source"] == "generator" else
             ("yes" if d["cached"] else "no"), d["offline"]] for d in items]
    click.echo(tabulate(rows, headers=["name", "rows", "features", "classes", "split (train/test)",
                                       "papers", "cached", "offline"], tablefmt="simple",
                        disable_numparse=True))
    click.echo(f"\n{len(items)} datasets; {_OFFLINE_LEGEND}")


@datasets.command("fetch")
@click.argument("names", nargs=-1)
@click.option("--all", "fetch_all", is_flag=True, help="Fetch every dataset of the catalog.")
@click.option("--mirror", default=None, metavar="URL|DIR",
              help="Dataset mirror(s), tried in order (default $MCBOOST_MIRROR, else the "
                   "official sites).")
@click.option("--offline", is_flag=True,
              help="Never use the network: copy only from local-folder mirrors.")
@click.option("--verify", "reverify", is_flag=True,
              help="Re-hash files already cached; fetch a bad one again.")
def datasets_fetch(names, fetch_all, mirror, offline, reverify):
    """Download, verify and cache datasets (NAME... or --all)."""
    from .datasets import fetch, get_spec, list_datasets
    if fetch_all:
        names = [d["name"] for d in list_datasets(mirror=mirror)]
    if not names:
        raise UserError("datasets fetch: name at least one dataset, or give --all")
    specs = [get_spec(n) for n in names]        # unknown names fail before any download
    failed = []
    for spec in specs:
        if spec.source == "generator":
            click.echo(f"{spec.name}: generated on demand ({spec.generator.describe()}); "
                       f"nothing to download")
            continue
        try:
            paths = fetch(spec.name, mirror=mirror, offline=offline, verify=reverify)
        except UserError as exc:
            if len(specs) == 1:
                raise       # its one line says it all
            failed.append(spec.name)
            click.echo(f"{spec.name}: FAILED: {exc}", err=True)
            continue
        click.echo(f"{spec.name}: {', '.join(str(p) for p in paths)}")
    if failed:
        raise UserError(f"datasets fetch: {len(failed)} of {len(specs)} datasets could not be "
                        f"fetched: {', '.join(failed)}")


@datasets.command("verify")
@click.argument("names", nargs=-1)
def datasets_verify(names):
    """Re-check every cached file against its checksum (exit 1 if any is bad)."""
    from .datasets import data_home, download, get_spec, verify_cache
    where = data_home() / "uci"
    for name in names:          # an unknown name fails here, before anything is hashed
        spec = get_spec(name)
        files = get_spec(spec.derived.base).files if spec.derived else spec.files
        if not files:
            click.echo(f"{name}: generated on demand; no files to verify")
        elif not any(download.is_cached(f.path) for f in files):
            click.echo(f"{name}: not cached in {where}; nothing to verify (`mcboost datasets "
                       f"fetch {name}` downloads it)")
    results = verify_cache(names or None)
    if not results:
        if not names:
            click.echo(f"nothing cached in {where}")
        return
    bad = 0
    for name, f, r in results:
        if r.status == "ok":
            click.echo(f"ok         {f.path}  ({r.origin} {r.algorithm} {r.expected[:12]}...)")
        elif r.status == "bad":
            bad += 1
            click.echo(f"BAD        {f.path}  {r.algorithm} {r.actual}, expected {r.expected} "
                       f"({r.origin}); run `mcboost datasets fetch {name} --verify`")
        else:
            click.echo(f"unchecked  {f.path}  (no published or recorded checksum)")
    click.echo(f"{len(results)} cached files, {bad} bad")
    if bad:
        sys.exit(1)


@datasets.command("info")
@click.argument("name")
@click.option("--mirror", default=None, metavar="URL|DIR",
              help="Mirror(s) (default $MCBOOST_MIRROR); only local folders are read.")
@click.option("--source", type=click.Choice(["auto", "files", "generator"]), default="auto",
              show_default=True, help="Which source to count classes from.")
def datasets_info(name, mirror, source):
    """Describe a dataset: files, URLs, checksums, shape, features, class counts, credits."""
    import numpy as np

    from .datasets import availability, download, get_spec, load_dataset
    spec = get_spec(name)
    out = [f"{spec.name}: {spec.title}"]

    def field(key, value):
        out.append(f"  {key + ':':<12}{value}")

    split = ("none" if spec.split_sizes is None
             else f"predefined, {spec.split_sizes[0]} train / {spec.split_sizes[1]} test")
    field("shape", f"{spec.rows} rows, {spec.n_features} features, {spec.n_classes} classes; "
                   f"split: {split}")
    field("papers", ", ".join(spec.papers) or "-")
    field("offline", availability(spec.name, mirror=mirror))
    if spec.source == "files":
        repo = spec.repository
        field("source", f"files from {repo.label} ({', '.join(repo.urls)}); mirror folder "
                        f"{repo.prefix or '<root>'}")
        for f in spec.files:
            recorded = download.recorded_sha256(f.path)
            digest = (f"{f.digest[0]} {f.digest[1]}" if f.digest
                      else f"sha256 {recorded} (recorded at first download)" if recorded
                      else "no published checksum")
            state = "cached" if download.is_cached(f.path) else "not cached"
            role = f", {f.split}" if f.split else ""
            field("file", f"{f.path}: {f.rows} rows{role}; {digest}; {state}")
            urls = [u for alt in f.alternatives
                    for u in ([alt.path] if alt.is_url else repo.official_urls(alt.path))]
            members = {alt.path: alt.member for alt in f.alternatives if alt.member}
            field("  from", "; ".join(u + (f" (member {members[u]})" if u in members else "")
                                      for u in urls))
    elif spec.source == "derived":
        args = ", ".join(f"{k}={v!r}" for k, v in spec.derived.params)
        field("source", f"derived from {spec.derived.base} by {spec.derived.rule}({args})")
    if spec.generator is not None:
        label = "generator" if spec.source == "generator" else "alt source"
        field(label, spec.generator.describe())
    field("licence", spec.license)
    field("citation", spec.citation)
    if spec.notes:
        field("notes", spec.notes)
    try:
        ds = load_dataset(spec.name, mirror=mirror, offline=True, source=source)
    except UserError as exc:
        field("features", ", ".join(f.name + (" (categorical)" if f.categorical else "")
                                     for f in spec.features[:40])
              + (", ..." if len(spec.features) > 40 else "") if spec.features else "-")
        field("classes", f"{', '.join(spec.classes) or '-'} (counts need the data: {exc})")
    else:
        n_cat = int(ds.categorical.sum())
        shown = [f"{n}{' (categorical)' if c else ''}"
                 for n, c in zip(ds.feature_names[:40], ds.categorical[:40])]
        field("features", f"{ds.n_features - n_cat} numeric, {n_cat} categorical: "
                          + ", ".join(shown) + (", ..." if ds.n_features > 40 else ""))
        missing = int(np.isnan(ds.X).sum())
        if missing:
            field("missing", f"{missing} cells")
        counts = np.bincount(ds.y, minlength=ds.n_classes)
        field("classes", ", ".join(f"{c} {k}" for c, k in zip(ds.classes, counts.tolist())))
        if ds.test_mask is not None:
            test = np.bincount(ds.y[ds.test_mask], minlength=ds.n_classes)
            field("test part", ", ".join(f"{c} {k}" for c, k in zip(ds.classes, test.tolist())))
        field("loaded", ds.source)
    click.echo("\n".join(out))


if __name__ == "__main__":  # pragma: no cover
    main()
