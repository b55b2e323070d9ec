"""The flow of a whole experiment, callable from Python (a notebook, a test) without click.

``mcboost run``, ``noise``, ``report`` and ``recheck`` are thin wrappers around these
functions: the command line parses options, prints what they return and turns it into an
exit status.

Map of the module
-----------------
``run_experiment``      load (or take) a config, narrow it, check every output location,
                        load its datasets, optionally export the splits, then either
                        describe the plan (``dry_run``) or import, execute and store the cells
                        and render the tables; returns an ``ExperimentResult``
``report_experiment``   render a config's tables from its store (or its results folder's
                        ``cells.csv`` alone) without running anything
``compare_experiment``  significance tests of a config's tables over their datasets
                        (Friedman, Nemenyi, Holm-corrected Wilcoxon) from the same results
                        ``report_experiment`` renders, running nothing; returns a
                        ``CompareResult``
``recheck_experiment``  re-run a fixed sample of a ``cells.csv``'s cells and list the numbers
                        that differ; returns a ``RecheckResult``
``load_experiment``     a config file (or config) with the quick budget and data sources
                        applied
``experiment_paths``    the store file and results folder a config writes to by default

Messages that are not results (a dataset that cannot be had, splits written, cells imported
or taken from ``cells.csv``) go to a ``log`` callable, one line per call. Its default prints
the line on standard error: these lines are for the person running the experiment, as on the
command line, and must show whatever the caller has set up (``warnings`` would show each text
once per process and add a source location; ``logging`` drops them until a handler is
configured). Pass ``log=lines.append`` to collect them, or a ``logging`` method to route them.

The flow sits at the top of the runner: it calls the report layer (tables, figures) to render
what it ran, imported lazily, as the command line did.

Process-level settings stay with the caller: the command line makes SIGTERM an interrupt
before calling ``run_experiment``; a notebook keeps its own handlers.
"""

from __future__ import annotations

import contextlib
import functools
import math
import numbers
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ..protocol.splits import POOLED
from .checkpoint import EVERY_SECONDS, CheckpointDir
from .config import ExperimentConfig

if TYPE_CHECKING:
    import pandas as pd

    from .execute import RunSummary
    from .reference import Mismatch

Log = Callable[[str], None]


def _print_to_stderr(line: str) -> None:
    # sys.stderr is looked up at each call, so a redirected stream (pytest, click's test
    # runner, a notebook) receives the line.
    print(line, file=sys.stderr)


@dataclass(frozen=True, eq=False)
class ExperimentResult:
    """What ``run_experiment`` or ``report_experiment`` did.

    Attributes
    ----------
    config : ExperimentConfig
        The config the tables show: the whole config (without the datasets that could not be
        had), also when only a part of it ran.
    store_path : Path
        The result store (for a dry run, where it would be; it is not created).
    results_dir : Path
        Where the tables, ``cells.csv`` and figures are written.
    summary : RunSummary or None
        Cells done, failed, timed out, skipped and pending, and whether Ctrl-C (or SIGTERM
        made an interrupt) stopped the run; None for a dry run and for a report.
    text : str
        The tables as shown on a terminal ("" for a dry run).
    paths : tuple of Path
        The files written (tables, ``cells.csv``, figures); empty for a dry run.
    tables : pandas.DataFrame or None
        The long summary of every table (one row per table, noise rate, dataset and
        algorithm: mean, std, folds done and planned, ...), as written to the CSV files;
        None for a dry run.
    plan : str or None
        For a dry run, the description of the plan: cells, done / failed / pending, what
        ``import_results`` would take, and the fits that continue from a checkpoint.
    """

    config: ExperimentConfig
    store_path: Path
    results_dir: Path
    summary: RunSummary | None = None
    text: str = ""
    paths: tuple[Path, ...] = ()
    tables: pd.DataFrame | None = None
    plan: str | None = None

    @property
    def exit_status(self) -> int:
        """The command line's exit status: 130 interrupted, 1 some cells failed or timed out,
        else 0."""
        if self.summary is None:
            return 0
        if self.summary.interrupted:
            return 130
        return 1 if self.summary.failed or self.summary.timeout else 0


@dataclass(frozen=True, eq=False)
class RecheckResult:
    """What ``recheck_experiment`` did.

    Attributes
    ----------
    cells_path : Path
        The per-cell results file whose cells were re-run.
    sample : pandas.DataFrame
        Its rows that were re-run.
    mismatches : tuple of reference.Mismatch
        Every number that differs (empty: all reproduced exactly).
    """

    cells_path: Path
    sample: pd.DataFrame
    mismatches: tuple[Mismatch, ...]

    def describe(self) -> str:
        """One line: how many cells of which algorithms and datasets, how many differences."""
        algorithms = ", ".join(sorted(set(self.sample["algorithm"])))
        datasets = ", ".join(sorted(set(self.sample["dataset"])))
        return (f"recheck: {len(self.sample)} cells of {self.cells_path} re-run "
                f"({algorithms} on {datasets}); {len(self.mismatches)} numbers differ")


@dataclass(frozen=True, eq=False)
class CompareResult:
    """What ``compare_experiment`` did.

    Attributes
    ----------
    config : ExperimentConfig
    output_dir : Path
        Where the files went (``<results-dir>/significance`` unless given).
    alpha : float
    lines : tuple of str
        One line per table (and noise rate): the tests' outcome, or why it was skipped.
    paths : tuple of Path
        The files written: per compared table ``<id>.md``, ``<id>.csv`` and its CD diagram(s).
    """

    config: ExperimentConfig
    output_dir: Path
    alpha: float
    lines: tuple[str, ...]
    paths: tuple[Path, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


# -- config and locations ----------------------------------------------------------------------

def load_experiment(config: ExperimentConfig | str | os.PathLike, *, quick: bool = False,
                    sources: Mapping[str, str] | None = None) -> ExperimentConfig:
    """The experiment config, ready to plan.

    Parameters
    ----------
    config : ExperimentConfig or path
        A validated config, or the path of a YAML config file (loaded and validated; a bad
        file raises UserError naming it).
    quick : bool, default False
        Take the config's ``quick`` budget (UserError when it has none); a config that is
        already its quick variant is kept as it is.
    sources : mapping of dataset -> "auto" | "files" | "generator", optional
        Where some datasets' rows come from, over the config's ``sources``.
    """
    from .config import load_config, quick_variant, with_sources
    if not isinstance(config, ExperimentConfig):
        config = load_config(config)
    if quick and not config.is_quick:
        config = quick_variant(config)
    return with_sources(config, dict(sources)) if sources else config


def experiment_paths(config: ExperimentConfig, store_path=None,
                     results_dir=None) -> tuple[Path, Path]:
    """(store file, results folder): ``results/<experiment>[/quick]`` and its
    ``cells.sqlite`` unless given."""
    default = Path("results") / config.experiment
    if config.is_quick:
        default = default / "quick"
    out = Path(results_dir) if results_dir else default
    store = Path(store_path) if store_path else out / "cells.sqlite"
    return store, out


def _names(names) -> list[str] | None:
    """A list of names from a list, or from one comma-separated text as on the command line;
    None stays None (all)."""
    if names is None:
        return None
    if isinstance(names, str):
        names = names.split(",")
    return [n.strip() for n in names if n.strip()]


def _open_store(path: Path, *, create: bool = True):
    """The result store at ``path``; with ``create=False`` (a dry run) a store that does
    not exist yet is an empty one in a temporary folder, so nothing is created."""
    from .store import ResultStore
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
    from .store import ResultStore
    with tempfile.TemporaryDirectory(prefix="mcboost-dry-run-") as tmp:
        with ResultStore(Path(tmp) / "cells.sqlite") as store:
            yield store


@contextlib.contextmanager
def _mirror_in_environment(mirror: str | None):
    """``MCBOOST_MIRROR`` set to ``mirror`` for the duration (when given): local workers
    inherit the environment and read the cache that loading fills. The previous value comes
    back afterwards, so one call's mirror does not follow the next call in the same
    process."""
    if not mirror:
        yield
        return
    before = os.environ.get("MCBOOST_MIRROR")
    os.environ["MCBOOST_MIRROR"] = mirror
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("MCBOOST_MIRROR", None)
        else:
            os.environ["MCBOOST_MIRROR"] = before


# -- datasets and rendering --------------------------------------------------------------------

def _load_datasets(config, mirror, offline, log: Log):
    """Fetch and parse every dataset of the plan in this process before any work starts.

    Returns (config, datasets): a dataset that cannot be had (no internet, missing from the
    mirror) is dropped from the plan with one warning line and a note under the tables, so the
    others still run; when none can be had, that is an error."""
    from ..datasets import DatasetError, load_dataset
    from ..datasets.download import CachedFileChanged
    from .config import narrow
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
        log(f"warning: {name} is not run: {why}")
    if missing:
        config = narrow(config, [d for d in config.datasets if d in datasets])
        config = replace(config, notes=config.notes + tuple(
            f"Not run: {name} (data unavailable here: {why})" for name, why in missing.items()))
    pooled = {(d, p) for t in config.tables for d, p in t.protocols.items() if p in POOLED}
    for name, protocol in sorted(pooled):
        ds = datasets.get(name)
        if ds is not None and ds.test_mask is not None:
            log(f"note: {name} has a predefined train/test split; protocol {protocol} "
                f"pools its {ds.n_samples} rows into "
                + ("5 random parts" if protocol == "five_fold" else "5 random 50/25/25 splits"))
    return config, datasets


def _known_summary(config, planned, store, out_dir: Path, log: Log):
    """(results, summary) of the plan: every result known — the store's, and the done cells
    of ``out_dir``'s cells.csv that the store lacks (``store`` may be None: the file's only)
    — and the long summary of every table (``report.tables.summarize``)."""
    from ..report.tables import summarize
    from .reference import known_results
    from .store import empty_frame
    keys = [pc.cell.key for pc in planned]
    cells_path = out_dir / "cells.csv"
    # Tables and figures show everything known (the store, then the file), so a narrowed run
    # or a report on a partial store never writes a table with fewer cells than before.
    results, n_file = known_results(store.frame(keys=keys) if store is not None
                                    else empty_frame(), cells_path, keys)
    if n_file:
        log(f"note: {n_file} done cells of this plan are taken from {cells_path} (the "
            f"store lacks them); --import-results {cells_path} puts them in the store")
    return results, summarize(config, planned, results)


def _render(config, planned, store, out_dir: Path, log: Log):
    """Summary, terminal text and written files of the plan's results: the store's, and the
    done cells of ``out_dir``'s cells.csv that the store lacks (``store`` may be None: the
    file's only)."""
    from ..report.tables import render_terminal, selected_fits, write_outputs
    from .reference import cells_frame, current_cells, merged_cells, with_phase1_train_error
    from .store import empty_frame
    cells_path = out_dir / "cells.csv"
    stored = (with_phase1_train_error(store, store.frame()) if store is not None
              else empty_frame())
    results, summary_df = _known_summary(config, planned, store, out_dir, log)
    # cells.csv holds every done cell of the store (of the algorithms' current versions), so
    # configs that share an experiment (uci.yaml and noise.yaml) share one per-cell file; the
    # rows it already has for cells this store lacks are kept, not erased.
    cells, _ = merged_cells(cells_frame(current_cells(stored)), cells_path)
    try:
        paths = write_outputs(config, summary_df, out_dir, cells=cells,
                              selected=selected_fits(config, planned, results, cells))
        paths += _figures(config, planned, store, out_dir, results, summary_df)
    except OSError as e:
        # Checked before the run, so the folder went away or the disk filled up meanwhile.
        where = f"the store {store.path}" if store is not None else str(cells_path)
        raise UserError(f"cannot write the tables to {out_dir} ({e.strerror or e}); every "
                        f"result is in {where}: free the folder, then run "
                        f"`mcboost report {config.path}` with the same options") from None
    return summary_df, render_terminal(config, summary_df), tuple(paths)


def _figures(config, planned, store, out_dir, results=None, summary=None):
    if not getattr(config, "figures", None):
        return []
    from ..report.figures import write_figures
    return write_figures(config, planned, store, out_dir, results, summary)


def _checkpointed_lines(unique_cells, statuses, store_file: Path) -> list[str]:
    """Dry run: the pending fits that a run continues from a mid-fit checkpoint (a heading
    and one line each; nothing when there are none)."""
    from .progress import format_seconds
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
    return [f"{len(lines)} pending fit(s) continue from a checkpoint:"] + lines if lines else []


# -- the flows ---------------------------------------------------------------------------------

def run_experiment(config: ExperimentConfig | str | os.PathLike, *, jobs: int | None = None,
                   retry_failed: bool = False, fresh: bool = False, dry_run: bool = False,
                   mirror: str | None = None, offline: bool = False, store_path=None,
                   results_dir=None, export_splits=None, quick: bool = False,
                   import_results=None, datasets=None, algorithms=None, tables=None,
                   noise_rates=None, checkpoint_every: float = EVERY_SECONDS,
                   scheduler: str | None = None, sources: Mapping[str, str] | None = None,
                   progress: str = "auto", log: Log | None = None) -> ExperimentResult:
    """Run an experiment: the cells the store lacks, then its tables (``mcboost run``).

    Parameters
    ----------
    config : ExperimentConfig or path
        The experiment (a YAML file is loaded and validated first).
    jobs : int or None
        Worker processes (None: one per core; 1 runs in this process).
    retry_failed : bool
        Also rerun cells stored as failed or timed out.
    fresh : bool
        Forget the plan's stored results and checkpoints and compute them again.
    dry_run : bool
        Check everything and describe the plan (``ExperimentResult.plan``); run nothing and
        create no store (``export_splits`` is still written).
    mirror : str or None
        Dataset mirror (http(s) base URL or a folder laid out like the UCI archive); None:
        ``$MCBOOST_MIRROR``, else the official sites.
    offline : bool
        Never use the network.
    store_path, results_dir : path or None
        The result store and the tables' folder (default ``results/<experiment>[/quick]``).
    export_splits : path or None
        Also write the folds and noise masks as CSV files under this folder.
    quick : bool
        The config's reduced ``quick`` budget.
    import_results : path or None
        First take the plan's cells found in this ``cells.csv`` as done.
    datasets, algorithms, tables : list of str, comma-separated str, or None
        Run only these datasets, algorithm columns (labels or registry names) and tables
        (ids); the tables written still show the whole config.
    noise_rates : list of float or None
        Run these noise rates instead of the config's; the tables show the config's rates
        and these (``mcboost noise --rate``).
    checkpoint_every : float
        Seconds between saves of a running fit's state (0: never).
    scheduler : str or None
        A Dask scheduler's address, or "local"; None runs on local processes.
    sources : mapping of dataset -> "auto" | "files" | "generator", optional
        Where some datasets' rows come from, over the config's ``sources``.
    progress : {"auto", "bar", "plain", "quiet"}
        The progress display on standard error.
    log : callable or None
        Receives each warning or note as one line; None prints it on standard error.

    Returns
    -------
    ExperimentResult
        Also when Ctrl-C stopped the run (``summary.interrupted``): every result that had
        arrived is stored and the tables show them.

    Raises
    ------
    UserError
        Bad input (config, names, paths, files, mirror), one line, before any work starts
        where it can be known then; or tables that cannot be written after the run.
    """
    log = log or _print_to_stderr
    config = load_experiment(config, quick=quick, sources=sources)
    shown_rates = None
    if noise_rates is not None:
        run_rates = _noise_rates(noise_rates)
        # The tables show the config's rates and these (running a subset of rates does not
        # drop the other rates' sections from the committed tables).
        shown_rates = tuple(dict.fromkeys(tuple(map(float, config.noise_rates)) + run_rates))
        config = replace(config, noise_rates=run_rates)
    with _mirror_in_environment(mirror):
        return _run(config, shown_rates, jobs=jobs, retry_failed=retry_failed, fresh=fresh,
                    dry_run=dry_run, mirror=mirror, offline=offline, store_path=store_path,
                    results_dir=results_dir, export_splits=export_splits,
                    import_results=import_results, only_datasets=_names(datasets),
                    only_algorithms=_names(algorithms), only_tables=_names(tables),
                    checkpoint_every=checkpoint_every, scheduler=scheduler,
                    progress=progress, log=log,
                    report=_report_command(config, store_path, results_dir, sources))


def _noise_rates(rates) -> tuple[float, ...]:
    """The distinct rates, in order; UserError unless each is a number in [0, 1)."""
    out = []
    for r in rates:
        if isinstance(r, bool) or not isinstance(r, numbers.Real) or not 0.0 <= r < 1.0:
            raise UserError(f"noise_rates: {r!r} is not valid; expected numbers in [0, 1)")
        out.append(float(r))
    if not out:
        raise UserError("noise_rates: empty; expected at least one number in [0, 1)")
    return tuple(dict.fromkeys(out))


def _run(config, shown_rates, *, jobs, retry_failed, fresh, dry_run, mirror, offline,
         store_path, results_dir, export_splits, import_results, only_datasets,
         only_algorithms, only_tables, checkpoint_every, scheduler, progress, log,
         report="mcboost report"):
    from contextlib import ExitStack
    from functools import partial

    from .config import narrow
    from .execute import run_cells
    from .executors import check_dask_timeout, make_executor
    from .lock import store_lock
    from .plan import config_hash, expand
    from .preflight import check_run_paths
    from .work import run_cell

    full = config
    config = narrow(config, only_datasets, only_algorithms, only_tables)
    store_file, out_dir = experiment_paths(config, store_path, results_dir)
    # Every bad path or file the user gave fails here, before any download, computation or
    # change to the store.
    check_run_paths(store_file, out_dir, export_splits, store_given=store_path is not None,
                    results_given=results_dir is not None)
    imported = None
    if import_results:
        from .reference import read_cells
        imported = read_cells(import_results)
    config, datasets = _load_datasets(config, mirror, offline, log)
    # Datasets / algorithms / tables narrow what runs; the tables still show the whole config
    # (from the store). A dataset that could not be had keeps its row or column, marked
    # "not run" (the note under the tables says why), so the paper's layout stays whole.
    missing = set(only_datasets or full.datasets) - set(datasets)
    shown = replace(full, not_run=tuple(d for d in full.datasets if d in missing))
    # The shown datasets' notes (their data sources among them, even where only other
    # datasets ran), then what loading added ("Not run: ...").
    shown = replace(shown, notes=shown.notes + tuple(n for n in config.notes
                                                     if n not in shown.notes))
    if shown_rates:
        shown = replace(shown, noise_rates=shown_rates)
    planned = expand(config)
    cells = [pc.cell for pc in planned]
    # What the tables show: the whole config, beyond a --datasets/--algorithms/--tables
    # selection. --import-results takes the file's done cells of all of it, so that a narrowed
    # run leaves none of the tables' cells in the file only.
    shown_planned = expand(shown)
    if export_splits:
        from ..protocol.export import export_splits as _export
        try:
            n = len(_export(config, datasets, export_splits))
        except OSError as e:
            raise UserError(f"--export-splits {export_splits}: cannot write the split files "
                            f"({e.strerror or e}); give a writable folder") from None
        log(f"wrote {n} split files under {export_splits}")

    with _open_store(store_file, create=not dry_run) as store, ExitStack() as held:
        # Tables that share a fit plan its cell once per table: count each key once.
        unique = {c.key: c for c in cells}
        keys = list(unique)
        statuses = store.statuses(keys)
        if dry_run:
            plan = _describe_plan(config, store, store_file, shown_planned, unique,
                                  statuses, imported, import_results)
            return ExperimentResult(config=shown, store_path=store_file, results_dir=out_dir,
                                    plan=plan)
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
            from .reference import import_cells
            n_imp = import_cells(store, imported, shown_planned, config_hash(config))
            log(f"imported {n_imp} done cells from {import_results}")
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
                                progress=progress, checkpoints=active)
        finally:
            executor.shutdown(cancel_pending=True)
        final = store.statuses(keys) if active is not None else {}
        if active is not None and not summary.interrupted and all(
                final.get(k) == "done" for k in keys):
            # Every fit of the plan is stored: no sibling is left to start from a shared
            # prefix (a re-run computes none), so their states need not take disk space.
            active.discard_prefixes()
        if summary.interrupted:
            log(f"stopped: the fits in flight are dropped, the {summary.done} this run "
                f"finished are stored; writing the tables (Ctrl-C again skips them: "
                f"`{report}` writes them later)")
        try:
            summary_df, text, paths = _render(shown, shown_planned, store, out_dir, log)
        except KeyboardInterrupt:
            # Every result is in the store, and each table file is written whole or not at
            # all: stopping here loses nothing but the time to write them.
            summary.interrupted = True
            log(f"tables not written (interrupted); every result is in the store "
                f"{store_file}: `{report}` writes them")
            summary_df, text, paths = None, "", ()
    return ExperimentResult(config=shown, store_path=store_file, results_dir=out_dir,
                            summary=summary, text=text, paths=paths, tables=summary_df)


def _report_command(config, store_path, results_dir, sources) -> str:
    """The ``mcboost report`` command line that writes a run's tables: the run's config and
    the options of it that ``report`` shares (--quick, --store, --results-dir, --source)."""
    import shlex
    words = ["mcboost", "report", str(config.path)]
    if config.is_quick:
        words.append("--quick")
    if store_path:
        words += ["--store", str(store_path)]
    if results_dir:
        words += ["--results-dir", str(results_dir)]
    for name, source in (sources or {}).items():
        words += ["--source", f"{name}={source}"]
    return shlex.join(words)


def _describe_plan(config, store, store_file, shown_planned, unique, statuses, imported,
                   import_results) -> str:
    """A dry run's text: the plan's cells (``unique``) and their state in the store, what
    importing would take (of ``shown_planned``, the cells the tables show), and the pending
    fits that continue from a checkpoint."""
    keys = list(unique)
    n_done = sum(1 for k in keys if statuses.get(k) == "done")
    n_bad = sum(1 for k in keys if statuses.get(k) in ("failed", "timeout"))
    n_unique = len(keys)
    lines = [f"{config.path}: experiment {config.experiment!r}"
             + (" (QUICK)" if config.is_quick else "") + f": {n_unique} cells "
             f"({len(config.tables)} table(s), {len(config.datasets)} datasets × "
             f"{len(config.noise_rates)} noise rates × {len(config.seeds)} seeds × "
             f"folds × algorithm settings, shared fits counted once); {n_done} done, "
             f"{n_bad} failed/timed out, {n_unique - n_done - n_bad} pending; "
             f"store {store_file}"]
    if import_results:
        # What the run would take from the file (nothing is written in a dry run).
        from .reference import importable_cells
        pairs = importable_cells(store, imported, shown_planned)
        statuses = {**statuses, **{cell.key: "done" for cell, _ in pairs}}
        left = sum(1 for k in keys if statuses.get(k) != "done")
        outside = sum(1 for cell, _ in pairs if cell.key not in unique)
        lines.append(f"--import-results {import_results}: would import {len(pairs)} "
                     f"done cells" + (f" ({outside} of them outside this run's selection)"
                                      if outside else "") + f", leaving {left} not done")
    lines += _checkpointed_lines(unique.values(), statuses, store_file)
    return "\n".join(lines)


def _mark_datasets_without_results(config, planned, store, out_dir: Path):
    """A report shows a dataset of which neither the store nor cells.csv holds any result as
    not run (as the run that could not get its data did: e.g. MNIST offline), with a note, so
    that its tables say so and a bars figure is drawn without it."""
    from .reference import known_results
    from .store import empty_frame
    keys = [pc.cell.key for pc in planned]
    results, _ = known_results(store.frame(keys=keys) if store is not None else empty_frame(),
                               out_dir / "cells.csv", keys)
    have = set(results["dataset"])
    absent = tuple(d for d in config.datasets if d not in have)
    if not absent:
        return config
    # One line for all of them (a partial run may lack most datasets of a config).
    them = "it" if len(absent) == 1 else "them"
    return replace(config, not_run=tuple(config.not_run) + absent, notes=config.notes + (
        f"Not run: {', '.join(absent)} (no result of {them} in the store or "
        f"{out_dir / 'cells.csv'})",))


def _with_committed_sources(config, store, out_dir: Path, sources, log: Log):
    """``config`` with the source of every dataset that has no result of its own source (in
    the store or ``out_dir``'s cells.csv) but whose committed cells all come from one other
    source (``committed_sources``: Poker525k's stand-in in a clean clone), so that report and
    compare render it from those cells, as the index lists it, rather than as not run. A
    ``--source`` given for the dataset wins; results of the config's own source win too."""
    from .plan import expand
    from .reference import current_cells, known_results, read_cells
    from .store import empty_frame
    cells_csv = out_dir / "cells.csv"
    if not cells_csv.exists():
        return config
    try:
        committed = current_cells(read_cells(cells_csv))
    except UserError:
        return config
    other = {d: s for d, s in committed_sources(config, committed).items()
             if d not in (sources or {})}
    if not other:
        return config
    keys = [pc.cell.key for pc in expand(config)]
    results, _ = known_results(store.frame(keys=keys) if store is not None else empty_frame(),
                               cells_csv, keys)
    other = {d: s for d, s in other.items() if d not in set(results["dataset"])}
    if not other:
        return config
    log("note: " + "; ".join(f"{d} is rendered from its committed cells of source {s!r} "
                             f"(as --source {d}={s})" for d, s in other.items()))
    return load_experiment(config, sources=other)


@contextlib.contextmanager
def _results_store(config, store_file: Path, out_dir: Path, quick: bool):
    """The result store to render from, read only; None when there is none but the results
    folder has a ``cells.csv`` (a clean clone renders the committed per-cell results alone,
    and no store is created); UserError when there is neither."""
    if store_file.exists():
        with _open_store(store_file) as store:
            yield store
        return
    if not (out_dir / "cells.csv").exists():
        raise UserError(f"{store_file}: no result store (nor {out_dir / 'cells.csv'}); "
                        f"run `mcboost run {config.path}" + (" --quick" if quick else "")
                        + "` first")
    yield None


def report_experiment(config: ExperimentConfig | str | os.PathLike, *, store_path=None,
                      results_dir=None, quick: bool = False,
                      sources: Mapping[str, str] | None = None,
                      log: Log | None = None) -> ExperimentResult:
    """Render a config's tables (and figures) from its result store, running nothing
    (``mcboost report``; also while a run is writing the store).

    Without a store, the results folder's ``cells.csv`` alone is rendered (a clean clone),
    and no store is created. Parameters are those of ``run_experiment``.

    Returns
    -------
    ExperimentResult
        With ``summary`` None.

    Raises
    ------
    UserError
        Bad config, a results folder that cannot be written, or neither a store nor a
        ``cells.csv`` to render from.
    """
    from .plan import expand
    from .preflight import check_output_dir
    log = log or _print_to_stderr
    config = load_experiment(config, quick=quick, sources=sources)
    store_file, out_dir = experiment_paths(config, store_path, results_dir)
    check_output_dir(out_dir, f"--results-dir {out_dir}" if results_dir
                     else f"results folder {out_dir}", "give a writable folder with --results-dir")
    with _results_store(config, store_file, out_dir, quick) as store:
        config = _with_committed_sources(config, store, out_dir, sources, log)
        planned = expand(config)
        config = _mark_datasets_without_results(config, planned, store, out_dir)
        summary_df, text, paths = _render(config, planned, store, out_dir, log)
    return ExperimentResult(config=config, store_path=store_file, results_dir=out_dir,
                            text=text, paths=paths, tables=summary_df)


def compare_experiment(config: ExperimentConfig | str | os.PathLike, *, tables=None,
                       algorithms=None, alpha: float | None = None, fmt: str | None = None, store_path=None,
                       results_dir=None, output_dir=None, quick: bool = False,
                       sources: Mapping[str, str] | None = None,
                       log: Log | None = None) -> CompareResult:
    """Significance tests of the algorithms of a config's tables over their datasets
    (``mcboost compare``): for each table (and noise rate), Friedman's test with Iman and
    Davenport's F, Nemenyi's critical difference and Holm-corrected Wilcoxon tests, on the
    mean test errors of the results ``report_experiment`` renders (the store, then the
    results folder's ``cells.csv``). Nothing is fitted and the tables are not rewritten.

    Parameters
    ----------
    config : ExperimentConfig or path
    tables : list of str, or one comma-separated str, optional
        Table ids (default: the config's ``stats.tables``, else every table).
    algorithms : list of str, or one comma-separated str, optional
        Column labels: compare only these algorithms (default: every column). Leaving out
        an algorithm that lacks results on some datasets keeps those datasets.
    alpha : float, optional
        Significance level in (0, 1) (default: the config's ``stats.alpha``, else 0.05).
    fmt : "png" or "svg", optional
        Format of the critical-difference diagrams (default: ``stats.format``, else png).
    store_path, results_dir, quick, sources, log
        As for ``report_experiment``.
    output_dir : path, optional
        Where the files go (default ``<results-dir>/significance``).

    Raises
    ------
    UserError
        Bad config, table id, alpha or format; an output folder that cannot be written;
        neither a store nor a ``cells.csv`` to read.
    """
    from ..report.significance import DIAGRAM_FORMATS, write_comparisons
    from .plan import expand
    from .preflight import check_output_dir
    log = log or _print_to_stderr
    config = load_experiment(config, quick=quick, sources=sources)
    alpha = config.stats.alpha if alpha is None else alpha
    if (isinstance(alpha, bool) or not isinstance(alpha, numbers.Real)
            or not 0.0 < float(alpha) < 1.0):
        raise UserError(f"--alpha: {alpha!r} is not valid; expected a number in (0, 1), "
                        f"e.g. 0.05")
    fmt = config.stats.format if fmt is None else fmt
    if fmt not in DIAGRAM_FORMATS:
        raise UserError(f"--format: {fmt!r} is not valid; expected one of "
                        f"{', '.join(DIAGRAM_FORMATS)}")
    chosen = _names(tables) if tables is not None else config.stats.tables
    ids = [t.id for t in config.tables]
    for name in chosen or ():
        if name not in ids:
            raise UserError(f"--table {name}: not a table of {config.path}; its tables: "
                            f"{', '.join(ids)}")
    labels = _names(algorithms)
    if labels is not None:
        known = {e.label for t in config.tables if chosen is None or t.id in chosen
                 for e in t.algorithms}
        for label in labels:
            if label not in known:
                raise UserError(f"--algorithms {label}: not a column of the compared tables "
                                f"of {config.path}; their columns: {', '.join(sorted(known))}")
    store_file, out_dir = experiment_paths(config, store_path, results_dir)
    target = Path(output_dir) if output_dir else out_dir / "significance"
    check_output_dir(target, f"--output-dir {target}" if output_dir
                     else f"significance folder {target}",
                     "give a writable folder with --output-dir")
    with _results_store(config, store_file, out_dir, quick) as store:
        config = _with_committed_sources(config, store, out_dir, sources, log)
        planned = expand(config)
        _, summary = _known_summary(config, planned, store, out_dir, log)
    try:
        lines, paths = write_comparisons(config, summary, target, chosen, float(alpha), fmt,
                                         labels)
    except OSError as e:
        raise UserError(f"cannot write the significance files to {target} "
                        f"({e.strerror or e}); give a writable folder with --output-dir") \
            from None
    return CompareResult(config=config, output_dir=target, alpha=float(alpha),
                         lines=tuple(lines), paths=tuple(paths))


def recheck_experiment(config: ExperimentConfig | str | os.PathLike, *, cells_file=None,
                       n_sample: int = 12, max_seconds: float = 5.0, mirror: str | None = None,
                       offline: bool = False, sources: Mapping[str, str] | None = None,
                       only_datasets=None, only_algorithms=None, every: bool = False,
                       retime: bool = False, untimed: bool = False,
                       log: Log | None = None) -> RecheckResult:
    """Re-run a fixed sample of a config's recorded cells (``mcboost recheck``).

    Every re-run cell must reproduce its reported round, its number of rounds and its
    training, validation and test errors exactly (float64 equality).

    Parameters
    ----------
    config : ExperimentConfig or path
        The experiment whose cells are checked (only cells of its plan are sampled).
    cells_file : path or None
        The per-cell results (default ``results/<experiment>/cells.csv``).
    n_sample : int
        How many cells to re-run (a fixed, varied sample of cheap cells).
    max_seconds : float
        Only sample cells whose recorded fit took at most this long.
    only_datasets, only_algorithms : list of str, optional
        Re-run only cells of these datasets / algorithm columns (as ``run``'s filters).
    every : bool
        Re-run every recorded cell of the (narrowed) plan instead of a sample.
    retime : bool
        Write the re-run's timings (fit and CPU seconds, machine) into the file for every
        cell that reproduced all its numbers (``reference.write_timings``): the file then
        says what the fits cost today, e.g. after a speed-up that changed no number.
    untimed : bool
        Only cells recorded without a CPU time (fits from before CPU time was recorded).
    mirror, offline, sources, log
        As for ``run_experiment``.

    Raises
    ------
    UserError
        Bad config or file, or no cell cheap enough to re-run.
    """
    from .config import narrow
    from .plan import expand
    from .reference import group_contiguous, read_cells, recheck, sample_cells
    from .work import run_cell
    log = log or _print_to_stderr
    config = load_experiment(config, sources=sources)
    path = Path(cells_file) if cells_file else experiment_paths(config)[1] / "cells.csv"
    frame = read_cells(path)
    plan = narrow(config, _names(only_datasets), _names(only_algorithms))
    plan_keys = {pc.cell.key for pc in expand(plan)}
    frame = frame[frame["key"].isin(plan_keys)]
    if untimed:
        import pandas as pd
        frame = frame[pd.to_numeric(frame["cpu_seconds"], errors="coerce").isna()]
    # Key order, each prefix group's cells together (``group_contiguous``): a re-time
    # interrupted midway leaves whole groups re-timed (``reference.recheck``).
    sample = (group_contiguous(frame.sort_values("key", kind="stable")) if every
              else sample_cells(frame, n_sample, max_seconds))
    if sample.empty:
        if every:
            which = " without a CPU time" if untimed else ""
            raise UserError(f"{path}: no recorded cell{which} of {config.path} among the "
                            "datasets and algorithms asked for; check --datasets and "
                            "--algorithms" + (" (or leave out --untimed)" if untimed else ""))
        raise UserError(f"{path}: no cell of {config.path} with a recorded fit time of at most "
                        f"{max_seconds:g} s to re-run; raise --max-seconds")
    datasets = sorted(set(sample["dataset"]))
    timings = {} if retime else None
    with _mirror_in_environment(mirror), tempfile.TemporaryDirectory(
            prefix="mcboost-recheck-") as tmp:
        _load_datasets(narrow(config, datasets), mirror, offline, log)
        # Sibling fits share their first rounds as in a run (DMCBoost's Phase I for every
        # n', algorithms.base "Shared prefixes"): the first re-run fit of a group computes
        # them once, the others start from them, so a re-timed cell costs what it cost in
        # the run (its cpu_seconds leave the shared part out) and the re-run takes no
        # longer. No mid-fit checkpoints: nothing is resumed.
        shared = CheckpointDir(tmp, every_seconds=math.inf)
        saved = SavedTimings(path, timings)
        try:
            mismatches = recheck(sample, config.experiment,
                                 functools.partial(run_cell, checkpoints=shared), timings,
                                 after_cell=saved.save_if_due)
        finally:
            # Interrupted (Ctrl-C, SIGTERM) or not, what was measured is kept.
            n = saved.save()
            if n:
                log(f"retime: the timings of {n} reproduced cells written to {path}")
    return RecheckResult(cells_path=path, sample=sample, mismatches=tuple(mismatches))


class SavedTimings:
    """``recheck --retime``'s measured timings, written into the per-cell file as they come:
    at most every ``every_seconds`` (a re-time of a dataset's DMCBoost fits runs for hours;
    the file is rewritten whole, a few hundred ms) and once at the end, so an interrupted
    re-time loses at most that much of its measurements. ``timings`` None: nothing to save."""

    def __init__(self, path, timings: dict | None, every_seconds: float = 60.0):
        self.path = path
        self.timings = timings
        self.every_seconds = float(every_seconds)
        self._last = time.monotonic()
        self._saved = 0

    def save_if_due(self) -> None:
        if time.monotonic() - self._last >= self.every_seconds:
            self.save()

    def save(self) -> int:
        """Write every timing measured so far (again: writing is idempotent); return how
        many cells have one."""
        from .reference import write_timings
        if self.timings and len(self.timings) != self._saved:
            write_timings(self.path, self.timings)
            self._saved = len(self.timings)
        self._last = time.monotonic()
        return self._saved


def _friedman_per_rate(config, table, summary) -> tuple:
    """(rate, N, k, Iman-Davenport p, Friedman chi² p, best label) of a table at each noise
    rate of the config, as ``mcboost compare`` computes them (``report.significance``); the
    p values are None where fewer than 2 datasets or columns can be compared."""
    from ..report.significance import compare, error_matrix, table_labels
    out = []
    k = len(table_labels(table))
    for rate in config.noise_rates:
        matrix, _ = error_matrix(summary, table, rate)
        if len(matrix) < 2 or k < 2:
            out.append((float(rate), len(matrix), k, None, None, ""))
            continue
        comp = compare(matrix, config.stats.alpha)
        out.append((float(rate), len(matrix), k, float(comp.friedman.f_p),
                    float(comp.friedman.chi2_p), comp.best))
    return tuple(out)


def committed_sources(config: ExperimentConfig, cells) -> dict[str, str]:
    """Datasets of ``config`` whose committed cells (a ``cells.csv`` frame, or None) all come
    from one other source than the config's, e.g. Poker525k's in-distribution stand-in
    (``--source poker525k=generator``) where its files cannot be had offline: dataset ->
    that source. Their cells have keys of their own, so a plan with the config's sources
    would count them as not run (and their CPU hours as none)."""
    if cells is None or not len(cells) or "data_source" not in cells.columns:
        return {}
    out = {}
    for name in config.datasets:
        used = set(cells.loc[cells["dataset"] == name, "data_source"].fillna(""))
        if len(used) == 1 and next(iter(used)) not in ("", config.source_of(name)):
            out[name] = next(iter(used))
    return out


def _cost_groups(group_of: dict, seen_cpu: dict, seen_untimed: dict) -> tuple:
    """The index's "where the hours go": one entry per (dataset, algorithm) of the distinct
    planned fits, (dataset, algorithm, fits done, fits planned, CPU seconds, fits without a
    CPU time), the costliest first (ties by name)."""
    groups: dict[tuple[str, str], list] = {}
    for key, group in group_of.items():
        g = groups.setdefault(group, [0, 0, 0.0, 0])
        g[1] += 1
        if key in seen_cpu:
            g[0] += 1
            g[2] += seen_cpu[key]
            g[3] += key in seen_untimed
    return tuple(sorted(((d, a, *g) for (d, a), g in groups.items()),
                        key=lambda e: (-e[4], e[0], e[1])))


def index_experiments(config_files, output="results/README.md",
                      log: Log | None = None) -> Path:
    """Write the index of the reproduction configs' committed results (``mcboost index``).

    For every config, its tables (complete cells, agreement with the published numbers),
    figures and compute are read from its results folder's ``cells.csv`` only — not from the
    local result store — so a clean clone writes the same index (``report.index``).

    Parameters
    ----------
    config_files : sequence of path
        The configs, in the order the index lists them.
    output : path
        The Markdown file whose generated section is (re)written; the rest is kept.

    Raises
    ------
    UserError
        A bad config, or an output that cannot be written.
    """
    import pandas as pd

    from ..report.index import (ExperimentEntry, Index, TableEntry, render_index,
                                write_index)
    from ..report.tables import _comparison, _published, summarize, table_files
    from .plan import expand
    from .reference import DONE, current_cells, known_results, read_cells
    from .store import empty_frame
    log = log or _print_to_stderr
    output = Path(output)
    entries, seen_cpu, seen_untimed, seen_planned, machines = [], {}, {}, set(), []
    group_of: dict[str, tuple[str, str]] = {}   # fit key -> (dataset, algorithm)
    for config_file in config_files:
        config = load_experiment(config_file)
        _, out_dir = experiment_paths(config)
        cells_path = out_dir / "cells.csv"
        try:
            done = current_cells(read_cells(cells_path))
        except UserError:
            log(f"note: {cells_path}: no committed results; {config.path} is listed empty")
            done = None
        stand_ins = committed_sources(config, done)
        if stand_ins:
            # Listed as `mcboost report CONFIG --source D=S` renders them (marked there).
            config = load_experiment(config_file, sources=stand_ins)
        planned = expand(config)
        keys = [pc.cell.key for pc in planned]
        if done is not None:
            done = done[done["key"].isin(set(keys))]
            done = done[done["status"] == DONE] if "status" in done.columns else done
            done = done.drop_duplicates("key", keep="last")
        results, _ = known_results(empty_frame(), cells_path, keys)
        config = _mark_datasets_without_results(config, planned, None, out_dir)
        summary = summarize(config, planned, results)
        rel = Path(os.path.relpath(out_dir.resolve(), output.parent.resolve()))
        tables = []
        for table in config.tables:
            part = summary[summary["table"] == table.id]
            n_complete = int(part["complete"].astype(bool).sum())
            published = _published(table)
            n_compared = n_agree = None
            note = ""
            if published is not None:
                if published.metric == "none":
                    note = f"{' and '.join(published.measures)} beside the paper's, not compared"
                else:
                    comp = _comparison(config, table, part, published)
                    n_compared, n_agree = comp.n_compared, comp.n_agree
            md = table_files(out_dir, table)[0]
            sig_md = out_dir / "significance" / f"{table.id}.md"
            tables.append(TableEntry(id=table.id, title=table.title, link=str(rel / md.name),
                                     n_cells=len(part), n_complete=n_complete,
                                     n_compared=n_compared, n_agree=n_agree,
                                     compared_note=note,
                                     significance=_friedman_per_rate(config, table, summary),
                                     significance_link=(str(rel / "significance" / sig_md.name)
                                                        if sig_md.exists() else None)))
        figures = []
        for fig in config.figures:
            files = sorted(p.name for ext in ("png", "svg")
                           for p in out_dir.glob(f"{fig.id}.{ext}"))
            figures.append((fig.id, fig.title, tuple(str(rel / f) for f in files)))
        cpu = untimed_wall = 0.0
        n_done = n_untimed = 0
        if done is not None and len(done):
            cpu_seconds = pd.to_numeric(done["cpu_seconds"], errors="coerce")
            seconds = cpu_seconds.fillna(0.0)
            cpu = float(seconds.sum())
            n_done = len(done)
            seen_cpu.update(zip(done["key"], seconds))
            # Fits recorded before CPU time was (2026-11-25) have only their wall clock: kept
            # apart, so the CPU hours are not understated silently.
            untimed = cpu_seconds.isna()
            n_untimed = int(untimed.sum())
            wall = pd.to_numeric(done.loc[untimed, "fit_seconds"], errors="coerce").fillna(0.0)
            untimed_wall = float(wall.sum())
            seen_untimed.update(zip(done.loc[untimed, "key"], wall))
            machines += [m for m in done["machine"].unique() if m and m not in machines]
        seen_planned.update(keys)
        group_of.update((pc.cell.key, (pc.cell.dataset, pc.cell.algorithm)) for pc in planned)
        readme = out_dir / "README.md"
        entries.append(ExperimentEntry(
            config_path=str(config.path), experiment=config.experiment, title=config.title,
            tables=tuple(tables), figures=tuple(figures), n_fits_done=n_done,
            n_fits_planned=len(set(keys)), cpu_seconds=cpu, n_fits_untimed=n_untimed,
            untimed_wall_seconds=untimed_wall, stand_ins=tuple(sorted(stand_ins.items())),
            readme=str(rel / "README.md") if readme.exists() else None))
    index = Index(experiments=tuple(entries), total_cpu_seconds=float(sum(seen_cpu.values())),
                  total_fits_done=len(seen_cpu), total_fits_planned=len(seen_planned),
                  total_fits_untimed=len(seen_untimed),
                  total_untimed_wall_seconds=float(sum(seen_untimed.values())),
                  machines=tuple(machines),
                  cost_groups=_cost_groups(group_of, seen_cpu, seen_untimed))
    try:
        return write_index(output, render_index(index))
    except OSError as e:
        raise UserError(f"cannot write the index {output} ({e.strerror or e}); give a "
                        "writable file with --output") from None
