"""Command-line interface (click). Thin: parse options, call the layers, print.

The run flow of ``run``, ``noise``, ``report``, ``compare`` and ``recheck`` is ``runner.experiment``'s
(callable from Python); here it gets its options, its warnings are printed on stderr, and
its result becomes the printed tables and the exit status.

Every user error (config, parameters, data files, network) is printed as one line
``error: ...`` on stderr with exit status 2 and no traceback; Ctrl-C exits with 130 after the
results already computed are safely stored.
"""

from __future__ import annotations

import os
import sys

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
      mcboost compare configs/uci.yaml    significance tests of its tables (CD diagrams)
    """


# -- shared options ----------------------------------------------------------------------------

_SOURCE_OPTION = click.option(
    "--source", "sources", multiple=True, metavar="DATASET=SOURCE",
    help="Take DATASET's rows from SOURCE: auto (default: the files, or an exact generator in "
         "their place), files, or generator (which may be an in-distribution stand-in, e.g. "
         "poker525k's test hands offline). Overrides the config's 'sources'; repeatable. "
         "Such cells have keys of their own and their rows are marked in the tables.")


def _source_mapping(sources) -> dict:
    """The ``--source DATASET=SOURCE`` options as {dataset: source}."""
    from .runner.config import DATA_SOURCES
    mapping = {}
    for text in sources:
        name, sep, source = text.partition("=")
        if not sep or not name.strip() or not source.strip():
            raise UserError(f"--source {text}: expected DATASET=SOURCE with SOURCE one of "
                            f"{', '.join(DATA_SOURCES)}, e.g. --source poker525k=generator")
        mapping[name.strip()] = source.strip()
    return mapping


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
                     help="First take the done cells of the config's tables found in this "
                          "per-cell results file (a cells.csv written by a run) as done, "
                          "also those outside --datasets/--algorithms/--tables, then run the "
                          "rest."),
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


def _execute(config_file, *, quiet, only_datasets=None, only_algorithms=None,
             only_tables=None, sources=(), **options):
    """``run`` and ``noise``: run the experiment, print its tables and summary, exit with
    130 when interrupted, 1 when cells failed or timed out."""
    from .runner.experiment import run_experiment
    _sigterm_as_interrupt()
    # The names stay comma-separated text: run_experiment splits them as the options do.
    result = run_experiment(config_file, datasets=only_datasets,
                            algorithms=only_algorithms, tables=only_tables,
                            sources=_source_mapping(sources),
                            progress="quiet" if quiet else "auto", log=_echo_err, **options)
    if result.plan is not None:
        click.echo(result.plan)
        return
    if result.text:
        click.echo(result.text)
    click.echo(f"{result.summary.describe()}", err=True)
    if result.paths:
        click.echo(f"tables: {', '.join(str(p) for p in result.paths)}", err=True)
    if result.exit_status:
        sys.exit(result.exit_status)


def _echo_err(line: str) -> None:
    """The runner's warnings and notes, one line each on stderr."""
    click.echo(line, err=True)


# -- commands ----------------------------------------------------------------------------------

@main.command()
@click.argument("config_file", metavar="CONFIG")
@_run_options
def run(config_file, **opts):
    """Run the experiment in CONFIG (a YAML file) and print its result table.

    Cells already in the result store are skipped, so re-running an interrupted command
    resumes it. Exit status: 0 all done, 1 some cells failed, 2 bad input, 130 interrupted.
    """
    _execute(config_file, **opts)


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
    for r in rates:
        if not 0.0 <= r < 1.0:
            raise UserError(f"--rate: {r!r} is not valid; expected a number in [0, 1)")
    # The run computes the given rates; its tables show the config's rates and these.
    _execute(config_file, noise_rates=rates, **opts)


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
    from .runner.experiment import report_experiment
    result = report_experiment(config_file, store_path=store_path, results_dir=results_dir,
                               quick=quick, sources=_source_mapping(sources), log=_echo_err)
    click.echo(result.text)
    click.echo(f"tables: {', '.join(str(p) for p in result.paths)}", err=True)


@main.command()
@click.argument("config_file", metavar="CONFIG")
@click.option("--table", "tables", multiple=True, metavar="ID",
              help="Compare only this table of the config (repeatable; default: the config's "
                   "stats.tables, else every table).")
@click.option("--algorithms", "only_algorithms", default=None, metavar="LABEL[,LABEL...]",
              help="Compare only these columns (labels as in the tables); leaving out an "
                   "algorithm without results on some datasets keeps those datasets.")
@click.option("--alpha", type=float, default=None, metavar="A",
              help="Significance level in (0, 1) (default: the config's stats.alpha, else "
                   "0.05).")
@click.option("--format", "fmt", type=click.Choice(["png", "svg"]), default=None,
              help="Format of the critical-difference diagrams (default: the config's "
                   "stats.format, else png).")
@click.option("--store", "store_path", type=click.Path(dir_okay=False), default=None,
              help="Result store (default: results/<experiment>/cells.sqlite).")
@click.option("--results-dir", type=click.Path(file_okay=False), default=None,
              help="Results folder whose cells.csv is read (default: results/<experiment>).")
@click.option("--output-dir", type=click.Path(file_okay=False), default=None,
              help="Where the files go (default: <results-dir>/significance).")
@click.option("--quick", is_flag=True, help="The results of the --quick run.")
@_SOURCE_OPTION
def compare(config_file, tables, only_algorithms, alpha, fmt, store_path, results_dir, output_dir, quick,
            sources):
    """Significance tests of CONFIG's tables over their datasets (Demšar 2006).

    For each table (and noise rate): average ranks of the algorithms' mean test errors,
    Friedman's test with Iman-Davenport's F, Nemenyi's critical difference (with a CD
    diagram) and Wilcoxon signed-ranks tests, Holm-corrected, of the best-ranked algorithm
    against each other and of all pairs. Reads the same results as `mcboost report`; fits
    nothing. A dataset lacking a complete result of some algorithm is left out (and named).
    """
    from .runner.experiment import compare_experiment
    result = compare_experiment(config_file, tables=list(tables) or None,
                                algorithms=only_algorithms, alpha=alpha,
                                fmt=fmt, store_path=store_path, results_dir=results_dir,
                                output_dir=output_dir, quick=quick,
                                sources=_source_mapping(sources), log=_echo_err)
    click.echo(result.text, nl=False)
    if result.paths:
        click.echo(f"wrote {len(result.paths)} files to {result.output_dir}", err=True)


@main.command()
@click.argument("config_file", metavar="CONFIG")
@click.option("--cells", "cells_file", type=click.Path(dir_okay=False), default=None,
              help="Per-cell results to check (default: results/<experiment>/cells.csv).")
@click.option("--sample", "n_sample", type=click.IntRange(min=1), default=12, show_default=True,
              help="How many cells to re-run (a fixed, varied sample of cheap cells).")
@click.option("--max-seconds", type=click.FloatRange(min=0), default=5.0, show_default=True,
              help="Only sample cells whose recorded fit took at most this long.")
@click.option("--all", "every", is_flag=True,
              help="Re-run every recorded cell (after --datasets/--algorithms), not a sample.")
@click.option("--datasets", "only_datasets", default=None, metavar="A,B",
              help="Only cells of these datasets.")
@click.option("--algorithms", "only_algorithms", default=None, metavar="L1,L2",
              help="Only cells of these algorithm columns (labels or registry names).")
@click.option("--retime", is_flag=True,
              help="Write the re-run's fit and CPU seconds into the file for every cell that "
                   "reproduced all its numbers (what the fits cost with today's code), a "
                   "group of fits sharing their first rounds (DMCBoost's n') at a time.")
@click.option("--untimed", is_flag=True,
              help="Only cells recorded without a CPU time (fits from before 2026-11-25); "
                   "with --all --retime, measure what they cost.")
@click.option("--mirror", default=None, metavar="URL|DIR", help="Dataset mirror.")
@click.option("--offline", is_flag=True, help="Never use the network.")
@_SOURCE_OPTION
def recheck(config_file, cells_file, n_sample, max_seconds, every, only_datasets,
            only_algorithms, retime, untimed, mirror, offline, sources):
    """Re-run a fixed sample of CONFIG's committed cells; exit 1 if any number differs.

    Every re-run cell must reproduce its reported round, its number of rounds and its
    training, validation and test errors exactly (float64 equality).
    """
    from .runner.experiment import recheck_experiment
    _sigterm_as_interrupt()       # a killed --retime still writes what it measured
    result = recheck_experiment(config_file, cells_file=cells_file, n_sample=n_sample,
                                max_seconds=max_seconds, mirror=mirror, offline=offline,
                                sources=_source_mapping(sources), only_datasets=only_datasets,
                                only_algorithms=only_algorithms, every=every, retime=retime,
                                untimed=untimed, log=_echo_err)
    for m in result.mismatches:
        click.echo(f"differs: {m.describe}: {m.column} committed {m.committed or 'none'}, "
                   f"re-run {m.rerun or 'none'}")
    click.echo(result.describe(), err=True)
    if result.mismatches:
        sys.exit(1)


@main.command()
@click.argument("config_files", metavar="CONFIG...", nargs=-1, required=True)
@click.option("--output", default="results/README.md", show_default=True,
              type=click.Path(dir_okay=False),
              help="The Markdown file whose generated index section is rewritten.")
def index(config_files, output):
    """Index every table and figure of the CONFIGs' committed results, with agreement and CPU
    hours, in OUTPUT (the text around the generated section is kept)."""
    from .runner.experiment import index_experiments
    path = index_experiments(config_files, output=output, log=_echo_err)
    click.echo(f"index: {path}", err=True)


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


def console_main():
    """The ``mcboost`` command (``[project.scripts]``): ``main`` in a process whose algorithms,
    and its workers' (they inherit the environment), are imported without scikit-learn's
    estimator bases: the command never hands an estimator to scikit-learn, and importing it
    cost 2.2-2.4 s per process (``algorithms._estimator_api``, "The cost of the
    inheritance"). The same numbers either way; a user's explicit ``MCBOOST_SKLEARN_BASES``
    is kept."""
    # Before the algorithms are imported; the name is _estimator_api.SKLEARN_BASES_ENV (not
    # imported from there: that import would come first). A test runs this entry point.
    os.environ.setdefault("MCBOOST_SKLEARN_BASES", "0")
    main()


if __name__ == "__main__":  # pragma: no cover
    console_main()
