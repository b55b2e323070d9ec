"""Experiment configs: YAML read with ``safe_load`` and validated whole before any work.

Every error is one line naming the file, the key path, the bad value and the valid choices,
e.g. ``configs/x.yaml: algorithms[1].params.max_depth: 0 is not valid; expected an integer in
[1, 30]``. Unknown keys are errors. The schema is documented in README.md ("Config reference").
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from typing import Any


from ..algorithms.coherence import BINARY_LOSSES
from ..algorithms.registry import get_algorithm, validate_params
from .._yaml import read_yaml
from ..errors import UserError, cut, quote
from ..protocol.noise import DEFAULT_NOISE_PARTS, NOISE_PARTS
from ..protocol.splits import MULTI_FOLD, NEEDS_SPLIT, PROTOCOLS, protocol_folds

TOP_KEYS = {
    "experiment": "name of the experiment (results go to results/<experiment>/)",
    "title": "title printed above the tables",
    "datasets": "list of catalog dataset names",
    "protocol": f"one of {', '.join(PROTOCOLS)}, or a mapping with 'default' and dataset "
                "names -> protocol",
    "folds": "subset of the folds 0..4 of the five_fold, random_splits and five_fold_train "
             "protocols to run (default: all)",
    "seeds": "list of integer seeds (default: [0])",
    "noise_rates": "list of label-noise rates in [0, 1) (default: [0.0])",
    "noise_parts": "which parts' labels the noise changes: a list of "
                   + ", ".join(NOISE_PARTS) + " (default: [train, valid]; test labels are "
                   "always clean)",
    "timeout": "seconds per cell before it is stopped and marked timeout (default: none)",
    "algorithms": "list of algorithm entries (one table; or give 'tables')",
    "tables": "list of tables, each with its own algorithm entries",
    "quick": "the reduced budget of --quick: datasets, folds, max_rounds",
    "figures": "list of figures drawn from the per-round curves",
    "sources": "where some datasets' rows come from: dataset -> auto, files or generator "
               "(default auto: the files, or an exact generator in their place)",
    "stats": "defaults of `mcboost compare` (significance tests): alpha, format, tables",
}
STATS_KEYS = {
    "alpha": "significance level in (0, 1) (default 0.05)",
    "format": "file format of the critical-difference diagrams: png (default) or svg",
    "tables": "ids of the tables compared (default: every table)",
}
STATS_FORMATS = ("png", "svg")
# Values of ``sources`` (``load_dataset``'s ``source``). "auto" is the default and is not
# stored: cells of default-source datasets keep the keys they had before ``sources`` existed.
DATA_SOURCES = ("auto", "files", "generator")
FIGURE_KEYS = {
    "id": "figure name; its files are <id>.png, <id>.svg, <id>.csv",
    "kind": "phase_curves (training and test error per round, Phase I / II marked), "
            "decision_regions (predicted classes over the plane of a 2-feature dataset at a "
            "few rounds, with the test error per round), error_curves (error per boosting "
            "round of a few columns of one table on one dataset and fold), bars (one table's test "
            "error % as grouped bars, a group per dataset, ours beside the published), "
            "noise_curves (one dataset's test error % against the label-noise rate, a line "
            "per column of one table) or loss_functions (the coherence function and other "
            "losses of the margin y f(x); no cells)",
    "title": "title above the figure",
    "table": "id of the table whose cells are drawn (phase_curves, decision_regions, "
             "error_curves, bars, noise_curves)",
    "dataset": "dataset (one of the table's)",
    "fold": "fold number",
    "algorithm": "label of the two-phase booster's column",
    "compare": "labels of other columns drawn beside it (phase_curves, error_curves)",
    "parts": "which errors are drawn, a panel each (error_curves): a list of train, test "
             "(default [test])",
    "x_scale": "the round axis of error_curves: linear (default) or log (as the REBEL paper's "
               "Figure 6 draws its iterations)",
    "rounds": "rounds whose decision regions are drawn (decision_regions; default: every "
              "recorded one: 1, 10, 100, the reported and the last round)",
    "temperatures": "temperatures T of the coherence curves (loss_functions; default "
                    "[1, 0.1, 0.01])",
    "losses": "other losses drawn beside them (loss_functions): a list of "
              + ", ".join(BINARY_LOSSES) + " (default: all)",
    "margin_range": "[low, high] of the margin axis y f(x) (loss_functions; default [-2, 2])",
}
FIGURE_KINDS = ("phase_curves", "decision_regions", "error_curves", "loss_functions", "bars",
                "noise_curves")
# The keys each kind needs.
FIGURE_REQUIRED = {"phase_curves": ("table", "dataset", "algorithm"),
                   "decision_regions": ("table", "dataset", "algorithm"),
                   "error_curves": ("table", "dataset", "algorithm"),
                   "bars": ("table",),
                   "noise_curves": ("table", "dataset"),
                   "loss_functions": ()}
# The keys a bars figure takes (it draws every column and dataset of its table).
FIGURE_BARS_KEYS = ("id", "kind", "title", "table")
# The keys a noise_curves figure takes (it draws every column of its table on one dataset,
# at every noise rate of the config).
FIGURE_NOISE_KEYS = ("id", "kind", "title", "table", "dataset")
# The keys a loss_functions figure takes (the last three are its own).
FIGURE_LOSS_KEYS = ("id", "kind", "title", "temperatures", "losses", "margin_range")
TABLE_KEYS = {
    "id": "table name; its files are <id>.md, <id>.csv, <id>.tex",
    "title": "title printed above the table",
    "published": "published numbers to show beside ours: <paper>/<table>",
    "datasets": "subset of the config's datasets (default: all)",
    "protocol": "protocol overrides for this table: a protocol name or dataset -> protocol",
    "algorithms": "list of algorithm entries (the table's columns)",
    "layout": "what the table shows and how it is oriented (see layout keys; default: rows "
              "datasets, a column per algorithm, test error % mean (std))",
    "not_built": "columns of the paper that are not run because the method cannot be built "
                 "faithfully: column label -> one-line reason (shown as 'not run', the reason "
                 "under the table)",
    "noise_parts": "which parts' labels the noise changes in this table's cells: a list of "
                   + ", ".join(NOISE_PARTS) + " (default: the config's noise_parts)",
}
# A table's layout (``report.layouts`` draws each kind). The names live here, with the rest of
# the config's schema, so that validating a config needs no presentation code.
LAYOUT_KEYS = {
    "kind": "datasets_by_algorithms (a row per dataset, a column per algorithm; default), "
            "algorithms_by_datasets (a row per algorithm, a column per dataset) or "
            "noise_slopes (a row per dataset, a column per algorithm, each cell the "
            "least-squares slope of the mean test error % against the noise rate, with the "
            "mean slope and mean rank over datasets; takes no other layout key)",
    "measure": "error (test error %, default) or accuracy (100 - test error %)",
    "spread": "std (mean (std) over folds and seeds, default) or none (the mean only)",
    "extra": "more numbers per cell, a list of: rounds (the reported round), rounds_run "
             "(the rounds the fit ran), cpu_seconds (CPU seconds of the fit), "
             "grid_cpu_seconds (CPU seconds of every grid point's fit, summed); means over "
             "folds and seeds",
    "noise_rates": "tables (one table per noise rate, default) or rows (one table, the noise "
                   "rate a row key)",
}
LAYOUT_CHOICES = {
    "kind": ("datasets_by_algorithms", "algorithms_by_datasets", "noise_slopes"),
    "measure": ("error", "accuracy"),
    "spread": ("std", "none"),
    "extra": ("rounds", "rounds_run", "cpu_seconds", "grid_cpu_seconds"),
    "noise_rates": ("tables", "rows"),
}
QUICK_KEYS = {
    "datasets": "subset of the config's datasets to run",
    "folds": "subset of the five_fold, random_splits and five_fold_train protocols' folds",
    "max_rounds": "cap on every entry's n_rounds",
}
ALGO_KEYS = {
    "algorithm": "registry name (see `mcboost algorithms`)",
    "label": "column name in the tables (default: the algorithm name)",
    "params": "fixed hyper-parameters",
    "grid": "hyper-parameters to select on validation per fold: name -> list of values",
    "per_dataset": "parameter overrides for some datasets: dataset -> {name: value} (a grid "
                   "parameter given here is fixed for that dataset)",
}
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class AlgorithmEntry:
    """One column of the tables: an algorithm with fixed params and an optional grid."""

    algorithm: str
    label: str
    params: dict
    grid: dict                # name -> list of values (validated)
    per_dataset: dict = None  # dataset -> {name: value} overriding params (validated)

    def grid_points(self, dataset: str | None = None, max_rounds: int | None = None
                    ) -> list[dict]:
        """Every combination of the grid merged into the fixed params (with the dataset's
        overrides, which also fix a grid parameter for that dataset), in grid order;
        ``max_rounds`` caps n_rounds (the --quick budget)."""
        base = dict(self.params)
        overrides = (self.per_dataset or {}).get(dataset, {})
        base.update(overrides)
        names = [n for n in self.grid if n not in overrides]
        out = []
        for values in itertools.product(*(self.grid[n] for n in names)):
            p = dict(base)
            p.update(zip(names, values))
            if max_rounds is not None:
                default = {s.name: s.default for s in get_algorithm(self.algorithm).param_specs}
                if "n_rounds" in default:   # not for a single tree (CART): it has one round
                    p["n_rounds"] = min(int(p.get("n_rounds", default["n_rounds"])),
                                        max_rounds)
            out.append(p)
        return out


@dataclass(frozen=True)
class TableLayout:
    """What a table shows and how it is oriented (``LAYOUT_KEYS``); the defaults are the
    DMCBoost paper's layout: a row per dataset, a column per algorithm, test error % as
    mean (std), one table per noise rate."""

    kind: str = "datasets_by_algorithms"
    measure: str = "error"
    spread: str = "std"
    extra: tuple[str, ...] = ()
    noise_rates: str = "tables"


@dataclass(frozen=True)
class TableSpec:
    """One result table: its algorithm entries over its datasets.

    ``protocols`` maps each of the table's datasets to its protocol. ``published`` names the
    paper's table shown beside ours (``report.published``), or None. ``layout`` says how the
    table is drawn (``TableLayout``).
    """

    id: str
    title: str
    published: str | None
    datasets: tuple[str, ...]
    protocols: dict
    algorithms: tuple[AlgorithmEntry, ...]
    layout: TableLayout = TableLayout()
    # Columns shown as "not run": (label, why the method cannot be built), after the entries.
    not_built: tuple[tuple[str, str], ...] = ()
    # The parts whose labels carry the noise (``protocol.noise.NOISE_PARTS`` order).
    noise_parts: tuple[str, ...] = DEFAULT_NOISE_PARTS

    @property
    def column_labels(self) -> tuple[str, ...]:
        """Every column: the entries' labels, then the not-built ones."""
        return tuple(e.label for e in self.algorithms) + tuple(lab for lab, _ in self.not_built)

    def folds_for(self, dataset: str, five_fold_folds: tuple[int, ...]) -> tuple[int, ...]:
        """The folds of ``dataset``: the config's folds under five_fold, random_splits and
        five_fold_train (``MULTI_FOLD``), (0,) otherwise."""
        protocol = self.protocols[dataset]
        return tuple(five_fold_folds) if protocol in MULTI_FOLD else protocol_folds(protocol)


@dataclass(frozen=True)
class FigureSpec:
    """A figure of per-round curves of the cells of one table, dataset and fold; or, for
    kind loss_functions, of loss functions (no cells: table, dataset and algorithm empty)."""

    id: str
    kind: str
    title: str
    table: str
    dataset: str
    fold: int
    algorithm: str
    compare: tuple[str, ...] = ()
    rounds: tuple[int, ...] = ()     # decision_regions: the rounds drawn (empty: all recorded)
    parts: tuple[str, ...] = ()      # error_curves: "train" and/or "test", a panel each
    x_scale: str = "linear"          # error_curves: the round axis, linear or log
    temperatures: tuple[float, ...] = ()        # loss_functions: the coherence curves' T
    losses: tuple[str, ...] = ()                # loss_functions: other losses drawn
    margin_range: tuple[float, float] = (-2.0, 2.0)   # loss_functions: the z axis


@dataclass(frozen=True)
class QuickSpec:
    """The reduced budget of ``--quick``: datasets and folds to keep, a cap on n_rounds."""

    datasets: tuple[str, ...] | None
    folds: tuple[int, ...] | None
    max_rounds: int | None

    def describe(self) -> str:
        parts = []
        if self.datasets:
            parts.append("datasets " + ", ".join(self.datasets))
        if self.folds:
            parts.append(f"folds {', '.join(map(str, self.folds))}")
        if self.max_rounds:
            parts.append(f"at most {self.max_rounds} rounds")
        return "; ".join(parts)


@dataclass(frozen=True)
class StatsSpec:
    """The config's ``stats:`` section: defaults of ``mcboost compare`` (each overridden by
    its option)."""

    alpha: float = 0.05
    format: str = "png"
    tables: tuple[str, ...] | None = None     # None: every table


@dataclass(frozen=True)
class ExperimentConfig:
    path: str
    experiment: str
    title: str
    datasets: tuple[str, ...]
    folds: tuple[int, ...]
    seeds: tuple[int, ...]
    noise_rates: tuple[float, ...]
    timeout: float | None
    tables: tuple[TableSpec, ...]
    text: str                 # the file's text (its hash is recorded with every cell)
    quick: QuickSpec | None = None
    is_quick: bool = False    # this is the --quick variant (outputs are labelled so)
    max_rounds: int | None = None   # cap on every entry's n_rounds (the --quick budget)
    notes: tuple[str, ...] = ()     # printed under every table (e.g. datasets not run)
    figures: tuple[FigureSpec, ...] = ()
    sources: tuple[tuple[str, str], ...] = ()   # (dataset, "files" | "generator"), non-default
    not_run: tuple[str, ...] = ()   # datasets whose data could not be had: shown as "not run"
    stats: StatsSpec = StatsSpec()  # the ``stats:`` section (defaults of `mcboost compare`)

    def source_of(self, dataset: str) -> str:
        """Where ``dataset``'s rows come from: "files", "generator", or "" (the default)."""
        return dict(self.sources).get(dataset, "")

    @property
    def algorithms(self) -> tuple[AlgorithmEntry, ...]:
        """Every algorithm entry of every table, in order."""
        return tuple(e for t in self.tables for e in t.algorithms)

    def protocols_used(self) -> set[str]:
        return {p for t in self.tables for p in t.protocols.values()}


def _err(path, keypath, msg):
    keypath = cut(str(keypath), 160)     # keys are the user's text too
    return UserError(f"{path}: {keypath}: {msg}" if keypath else f"{path}: {msg}")


def _check_unknown(path, keypath, mapping, known):
    for k in mapping:
        if k not in known:
            where = f"{keypath}.{cut(str(k))}" if keypath else cut(str(k))
            raise _err(path, where, f"unknown key; valid keys: {', '.join(known)}")


def _list_of(path, keypath, value, kind, check=None, choices_text=""):
    if not isinstance(value, list) or not value:
        raise _err(path, keypath, f"{quote(value)} is not valid; expected a non-empty list"
                   + (f" of {choices_text}" if choices_text else ""))
    out = []
    for i, v in enumerate(value):
        ok = isinstance(v, kind) and not (kind in (int, (int, float)) and isinstance(v, bool))
        if not ok or (check and not check(v)):
            raise _err(path, f"{keypath}[{i}]", f"{quote(v)} is not valid; expected {choices_text}")
        out.append(v)
    if len(set(map(repr, out))) != len(out):
        raise _err(path, keypath, f"{quote(value)} has duplicates")
    return out


def load_config(path, *, known_datasets=None) -> ExperimentConfig:
    """Read and validate an experiment config; raises UserError (one line) on any problem."""
    text, data = read_yaml(path, "config file")
    return validate_config(data, str(path), text, known_datasets=known_datasets)


def validate_config(data: Any, path: str, text: str = "", *, known_datasets=None,
                    split_datasets=None) -> ExperimentConfig:
    """Validate a parsed config. ``known_datasets`` (catalog names) and ``split_datasets``
    (those with a predefined train/test split) default to the catalog's."""
    if data is None:
        raise _err(path, "", f"config file is empty: expected a mapping with keys "
                             f"{', '.join(TOP_KEYS)} (experiment, datasets and algorithms "
                             "at least)")
    if not isinstance(data, dict):
        raise _err(path, "", f"the top level must be a mapping with keys "
                             f"{', '.join(TOP_KEYS)}; got {type(data).__name__}")
    _check_unknown(path, "", data, TOP_KEYS)
    for req in ("experiment", "datasets"):
        if req not in data:
            raise _err(path, req, f"missing required key ({TOP_KEYS[req]})")
    if ("algorithms" in data) == ("tables" in data):
        raise _err(path, "algorithms", "give either 'algorithms' (one table) or 'tables' "
                                       "(several), not both and not neither")

    experiment = data["experiment"]
    if not isinstance(experiment, str) or not _NAME_RE.match(experiment):
        raise _err(path, "experiment", f"{quote(experiment)} is not valid; expected a name of "
                                       "letters, digits, '_', '-', '.'")
    title = data.get("title", experiment)
    if not isinstance(title, str):
        raise _err(path, "title", f"{quote(title)} is not valid; expected a string")

    if known_datasets is None or split_datasets is None:
        from ..datasets import list_datasets
        catalog = list_datasets()
        if known_datasets is None:
            known_datasets = [d["name"] for d in catalog]
        if split_datasets is None:
            split_datasets = [d["name"] for d in catalog if d["split"] == "predefined"]
    known = sorted(known_datasets)
    datasets = _list_of(path, "datasets", data["datasets"], str,
                        check=lambda v: v in known,
                        choices_text="catalog dataset names: " + ", ".join(known))
    base_protocols = _protocols(path, "protocol", data.get("protocol", "five_fold"), datasets,
                                set(split_datasets), {d: "five_fold" for d in datasets})

    all_folds = protocol_folds("five_fold")
    folds = _list_of(path, "folds", data.get("folds", list(all_folds)), int,
                     check=lambda v: v in all_folds,
                     choices_text=f"fold numbers among {list(all_folds)}")
    seeds = _list_of(path, "seeds", data.get("seeds", [0]), int,
                     check=lambda v: 0 <= v < 2**31, choices_text="integers in [0, 2^31)")
    rates = _list_of(path, "noise_rates", data.get("noise_rates", [0.0]), (int, float),
                     check=lambda v: 0.0 <= v < 1.0, choices_text="numbers in [0, 1)")
    rates = [float(r) for r in rates]
    noise_parts = _noise_parts(path, "noise_parts", data.get("noise_parts",
                                                             list(DEFAULT_NOISE_PARTS)))
    timeout = data.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or timeout <= 0):
        raise _err(path, "timeout", f"{quote(timeout)} is not valid; expected a positive number of "
                                    "seconds")

    if "algorithms" in data:
        entries = _entries(path, "algorithms", data["algorithms"], datasets)
        tables = [TableSpec("results", title, None, tuple(datasets), base_protocols,
                            tuple(entries), noise_parts=noise_parts)]
    else:
        tables = _tables(path, data["tables"], datasets, set(split_datasets), base_protocols,
                         noise_parts)
    for i, table in enumerate(tables):
        _check_selection(path, table, "algorithms" if "algorithms" in data
                         else f"tables[{i}].algorithms")
        if table.layout.kind == "noise_slopes" and len(rates) < 2:
            raise _err(path, f"tables[{i}].layout.kind", "noise_slopes fits a line through the "
                       f"noise rates and noise_rates has {len(rates)}; give at least 2 rates, "
                       "e.g. [0.0, 0.05, 0.1, 0.2, 0.3]")
    quick = _quick(path, data.get("quick"), datasets, all_folds) if "quick" in data else None
    figures = _figures(path, data.get("figures", []), tables, all_folds, rates)
    stats = _stats(path, data["stats"], tables) if "stats" in data else StatsSpec()

    config = ExperimentConfig(
        path=path, experiment=experiment, title=title, datasets=tuple(datasets),
        folds=tuple(folds), seeds=tuple(seeds), noise_rates=tuple(rates),
        timeout=float(timeout) if timeout is not None else None, tables=tuple(tables),
        text=text, quick=quick, figures=tuple(figures), stats=stats,
    )
    if "sources" in data:
        raw = data["sources"]
        if not isinstance(raw, dict) or not raw:
            raise _err(path, "sources", f"{quote(raw)} is not valid; expected a mapping of dataset "
                                        f"name -> {', '.join(DATA_SOURCES)}")
        config = with_sources(config, raw, lambda name, src: f"{path}: sources.{name}")
    return config


def with_sources(config: ExperimentConfig, sources: dict, where=None) -> ExperimentConfig:
    """``config`` with some datasets' rows taken from another source (``sources``: dataset ->
    auto, files or generator), each named in a note under every table. ``where(name,
    source)`` names the setting in error messages (the config key or the command-line
    option); the default names the option ``--source``."""
    where = where or (lambda name, src: f"--source {name}={src}")
    from ..datasets import get_spec
    current = dict(config.sources)
    for name, source in sources.items():
        at = where(name, source)
        if name not in config.datasets:
            raise UserError(f"{at}: {quote(name)} is not one of this config's datasets: "
                            f"{', '.join(config.datasets)}")
        if source not in DATA_SOURCES:
            raise UserError(f"{at}: {quote(source)} is not valid; expected one of "
                            f"{', '.join(DATA_SOURCES)}")
        spec = get_spec(name)
        gen = spec.generator or (get_spec(spec.derived.base).generator
                                 if spec.derived is not None else None)
        if source == "generator" and spec.source != "generator" and gen is None:
            raise UserError(f"{at}: {quote(name)} has no generator; its files are its "
                            f"only source (use auto or files)")
        if source == "files" and spec.source == "generator":
            raise UserError(f"{at}: {quote(name)} is generated and has no files (use "
                            f"auto or generator)")
        if source == "auto":
            current.pop(name, None)
        else:
            current[name] = source
    kept = tuple(n for n in config.notes if not n.startswith(_SOURCE_NOTE))
    pairs = tuple((d, current[d]) for d in config.datasets if d in current)
    notes = tuple(f"{_SOURCE_NOTE} {d}: {_SOURCE_TEXT[s]} (rows marked [{s}])."
                  for d, s in pairs)
    return replace(config, sources=pairs, notes=kept + notes)


_SOURCE_NOTE = "Data source of"
_SOURCE_TEXT = {
    "files": "the archive's files only (no generator stands in for them)",
    "generator": "the catalog's generator, not the archive's files; an in-distribution "
                 "generator draws other rows than the files hold, so these numbers estimate, "
                 "not repeat, the published ones",
}


def _protocols(path, keypath, value, datasets, split_datasets, base) -> dict:
    """dataset -> protocol: ``base`` updated by ``value`` (a protocol name for every dataset,
    or a mapping with an optional 'default' and dataset names)."""
    choices = f"one of {', '.join(PROTOCOLS)}"
    if isinstance(value, str):
        value = {"default": value}
    if not isinstance(value, dict) or not value:
        raise _err(path, keypath, f"{quote(value)} is not valid; expected {choices}, or a mapping "
                                  "of 'default' / dataset name -> protocol")
    out = dict(base)
    for key, proto in value.items():
        where = f"{keypath}.{key}"
        if key != "default" and key not in datasets:
            raise _err(path, where, f"{quote(key)} is not one of this config's datasets: "
                                    f"{', '.join(datasets)} (or 'default')")
        if proto not in PROTOCOLS:
            raise _err(path, where, f"{quote(proto)} is not valid; expected {choices}")
    if "default" in value:
        out = {d: value["default"] for d in datasets}
    for key, proto in value.items():
        if key != "default":
            out[key] = proto
    for d, proto in out.items():
        if proto in NEEDS_SPLIT and d not in split_datasets:
            where = f"{keypath}.{d}" if d in value else f"{keypath}.default"
            raise _err(path, where, f"{quote(proto)} needs a predefined train/test split, and {d} "
                                    "has none; use five_fold or random_splits for it")
    return out


def _noise_parts(path, keypath, raw) -> tuple[str, ...]:
    """A ``noise_parts`` list, in ``NOISE_PARTS`` order."""
    parts = _list_of(path, keypath, raw, str, check=lambda v: v in NOISE_PARTS,
                     choices_text="part names among " + ", ".join(NOISE_PARTS)
                                  + " (test labels are always clean)")
    return tuple(p for p in NOISE_PARTS if p in parts)


def _tables(path, raw, datasets, split_datasets, base_protocols,
            noise_parts=DEFAULT_NOISE_PARTS) -> list[TableSpec]:
    if not isinstance(raw, list) or not raw:
        raise _err(path, "tables", f"{quote(raw)} is not valid; expected a non-empty list of "
                                   "tables with keys " + ", ".join(TABLE_KEYS))
    tables, ids = [], set()
    for i, t in enumerate(raw):
        where = f"tables[{i}]"
        if not isinstance(t, dict):
            raise _err(path, where, f"{quote(t)} is not valid; expected a mapping with keys "
                                    + ", ".join(TABLE_KEYS))
        _check_unknown(path, where, t, TABLE_KEYS)
        for req in ("id", "algorithms"):
            if req not in t:
                raise _err(path, f"{where}.{req}", f"missing required key ({TABLE_KEYS[req]})")
        tid = t["id"]
        if not isinstance(tid, str) or not _NAME_RE.match(tid):
            raise _err(path, f"{where}.id", f"{quote(tid)} is not valid; expected a name of "
                                            "letters, digits, '_', '-', '.'")
        if tid in ids:
            raise _err(path, f"{where}.id", f"{quote(tid)} is used twice; table ids name files and "
                                            "must be unique")
        ids.add(tid)
        title = t.get("title", tid)
        if not isinstance(title, str):
            raise _err(path, f"{where}.title", f"{quote(title)} is not valid; expected a string")
        published = t.get("published")
        if published is not None:
            from ..datasets.published import load_published
            if not isinstance(published, str):
                raise _err(path, f"{where}.published", f"{quote(published)} is not valid; expected "
                                                       "<paper>/<table>")
            try:
                load_published(published)
            except UserError as e:
                raise _err(path, f"{where}.published", str(e)) from None
        tdatasets = _list_of(path, f"{where}.datasets", t.get("datasets", list(datasets)), str,
                             check=lambda v: v in datasets,
                             choices_text="names among the config's datasets: "
                                          + ", ".join(datasets))
        protocols = base_protocols
        if "protocol" in t:
            protocols = _protocols(path, f"{where}.protocol", t["protocol"], tdatasets,
                                   split_datasets, {d: base_protocols[d] for d in tdatasets})
        protocols = {d: protocols[d] for d in tdatasets}
        entries = _entries(path, f"{where}.algorithms", t["algorithms"], tdatasets)
        layout = _layout(path, f"{where}.layout", t["layout"]) if "layout" in t \
            else TableLayout()
        if layout.kind == "noise_slopes" and published is not None:
            raise _err(path, f"{where}.published", "is not valid with layout kind "
                       "noise_slopes (no paper prints slopes against the noise rate); give the "
                       "published numbers to a table of per-rate means instead")
        not_built = _not_built(path, f"{where}.not_built", t.get("not_built", {}),
                               [e.label for e in entries])
        parts = (_noise_parts(path, f"{where}.noise_parts", t["noise_parts"])
                 if "noise_parts" in t else noise_parts)
        tables.append(TableSpec(tid, title, published, tuple(tdatasets), protocols,
                                tuple(entries), layout, not_built, parts))
    return tables


def _not_built(path, keypath, raw, labels) -> tuple[tuple[str, str], ...]:
    """A table's ``not_built``: label -> a one-line reason, no label of a run column."""
    if not isinstance(raw, dict):
        raise _err(path, keypath, f"{quote(raw)} is not valid; expected a mapping of column "
                                  "label -> one-line reason")
    out = []
    for label, why in raw.items():
        if not isinstance(label, str) or not label.strip():
            raise _err(path, keypath, f"{quote(label)} is not valid; expected a column label")
        if label in labels:
            raise _err(path, f"{keypath}.{label}", "is also the label of a run column; a "
                                                   "column is either run or not built")
        if not isinstance(why, str) or not why.strip() or "\n" in why.strip():
            raise _err(path, f"{keypath}.{label}", f"{quote(why)} is not valid; expected a "
                                                   "one-line reason")
        out.append((label, why.strip()))
    return tuple(out)


def _layout(path, keypath, raw) -> TableLayout:
    if not isinstance(raw, dict):
        raise _err(path, keypath, f"{quote(raw)} is not valid; expected a mapping with keys "
                                  + ", ".join(LAYOUT_KEYS))
    _check_unknown(path, keypath, raw, LAYOUT_KEYS)
    if raw.get("kind") == "noise_slopes":
        # One number per (dataset, column): the slope of the mean test error % (the other
        # keys choose among ways of printing per-rate means, which this kind does not print).
        for key in raw:
            if key != "kind":
                raise _err(path, f"{keypath}.{key}", "is not valid for kind noise_slopes (its "
                           "cells are slopes of the mean test error % against the noise "
                           "rate; it takes only 'kind'); remove it")
    values = {}
    for key, value in raw.items():
        choices = LAYOUT_CHOICES[key]
        if key == "extra":
            values[key] = tuple(_list_of(path, f"{keypath}.extra", value, str,
                                         check=lambda v: v in choices,
                                         choices_text="names among " + ", ".join(choices)))
        elif value not in choices:
            raise _err(path, f"{keypath}.{key}", f"{quote(value)} is not valid; expected one of "
                                                 + ", ".join(choices))
        else:
            values[key] = value
    return TableLayout(**values)


def _check_selection(path, table: TableSpec, keypath: str):
    """A grid needs a validation part to select on; the predefined protocol has none."""
    for e, entry in enumerate(table.algorithms):
        for d in table.datasets:
            if table.protocols[d] == "predefined" and len(entry.grid_points(d)) > 1:
                where = f"{keypath}[{e}].grid"
                raise _err(path, where, f"{d} uses protocol 'predefined', which has no "
                                        "validation part to select a grid point on; fix the "
                                        f"values for {d} in per_dataset, or use "
                                        "predefined_holdout")


def _figures(path, raw, tables, all_folds, noise_rates=(0.0,)) -> list[FigureSpec]:
    if not isinstance(raw, list):
        raise _err(path, "figures", f"{quote(raw)} is not valid; expected a list of figures with "
                                    "keys " + ", ".join(FIGURE_KEYS))
    out = []
    for i, f in enumerate(raw):
        where = f"figures[{i}]"
        if not isinstance(f, dict):
            raise _err(path, where, f"{quote(f)} is not valid; expected a mapping with keys "
                                    + ", ".join(FIGURE_KEYS))
        _check_unknown(path, where, f, FIGURE_KEYS)
        for req in ("id", "kind"):
            if req not in f:
                raise _err(path, f"{where}.{req}", f"missing required key ({FIGURE_KEYS[req]})")
        if not isinstance(f["id"], str) or not _NAME_RE.match(f["id"]):
            raise _err(path, f"{where}.id", f"{quote(f['id'])} is not valid; expected a name of "
                                            "letters, digits, '_', '-', '.'")
        if f["id"] in {t.id for t in tables} or f["id"] in {g.id for g in out}:
            raise _err(path, f"{where}.id", f"{quote(f['id'])} is used twice (a table or a "
                                            "figure has it); ids name files and must be unique")
        if f["kind"] not in FIGURE_KINDS:
            raise _err(path, f"{where}.kind", f"{quote(f['kind'])} is not valid; expected one of "
                                              + ", ".join(FIGURE_KINDS))
        for key in f:        # compare and rounds on the wrong cell kind: checked below
            if f["kind"] == "loss_functions" and key not in FIGURE_LOSS_KEYS:
                raise _err(path, f"{where}.{key}", "is not valid for kind loss_functions (it is "
                           "drawn from the loss functions, not from cells; its keys: "
                           f"{', '.join(FIGURE_LOSS_KEYS)}); remove it")
            if f["kind"] != "loss_functions" and key in FIGURE_LOSS_KEYS[3:]:
                raise _err(path, f"{where}.{key}", "is only valid for kind loss_functions; "
                                                   "remove it")
        for req in FIGURE_REQUIRED[f["kind"]]:
            if req not in f:
                raise _err(path, f"{where}.{req}", f"missing required key ({FIGURE_KEYS[req]})")
        if f["kind"] == "loss_functions":
            out.append(_loss_functions_figure(path, where, f))
            continue
        table = next((t for t in tables if t.id == f["table"]), None)
        if table is None:
            raise _err(path, f"{where}.table", f"{quote(f['table'])} is not valid; expected one of "
                                               + ", ".join(t.id for t in tables))
        if f["kind"] == "bars":
            out.append(_bars_figure(path, where, f, noise_rates))
            continue
        if f["kind"] == "noise_curves":
            out.append(_noise_curves_figure(path, where, f, table, noise_rates))
            continue
        if f["dataset"] not in table.datasets:
            raise _err(path, f"{where}.dataset", f"{quote(f['dataset'])} is not valid; "
                                                 f"expected one of {', '.join(table.datasets)}")
        labels = [e.label for e in table.algorithms]
        compare = f.get("compare", [])
        for k, lab in [("algorithm", f["algorithm"])] + [(f"compare[{j}]", c)
                                                         for j, c in enumerate(compare)]:
            if lab not in labels:
                raise _err(path, f"{where}.{k}", f"{quote(lab)} is not valid; expected a label of "
                                                 f"table {table.id}: {', '.join(labels)}")
        fold = f.get("fold", 0)
        if fold not in table.folds_for(f["dataset"], all_folds):
            raise _err(path, f"{where}.fold", f"{quote(fold)} is not valid; expected one of "
                       f"{list(table.folds_for(f['dataset'], all_folds))}")
        rounds = _figure_rounds(path, where, f)
        parts = _figure_parts(path, where, f)
        out.append(FigureSpec(f["id"], f["kind"], str(f.get("title", f["id"])), f["table"],
                              f["dataset"], int(fold), f["algorithm"], tuple(compare),
                              rounds, parts, x_scale=_figure_x_scale(path, where, f)))
    return out


def _bars_figure(path, where, f, noise_rates) -> FigureSpec:
    """A bars figure: its keys checked (the table was checked by the caller)."""
    for key in f:
        if key not in FIGURE_BARS_KEYS:
            raise _err(path, f"{where}.{key}", "is not valid for kind bars (it draws every "
                       f"dataset and column of its table; its keys: {', '.join(FIGURE_BARS_KEYS)}"
                       "); remove it")
    if 0.0 not in noise_rates:
        raise _err(path, f"{where}.kind", "bars draws the test errors at noise rate 0, and "
                                          "noise_rates lacks 0.0; add it to noise_rates")
    return FigureSpec(f["id"], "bars", str(f.get("title", f["id"])), f["table"], "", 0, "")


def _noise_curves_figure(path, where, f, table, noise_rates) -> FigureSpec:
    """A noise_curves figure: its keys and dataset checked (the table was checked by the
    caller), and at least two noise rates to draw a curve through."""
    for key in f:
        if key not in FIGURE_NOISE_KEYS:
            raise _err(path, f"{where}.{key}", "is not valid for kind noise_curves (it draws "
                       "every column of its table on one dataset at every noise rate; its "
                       f"keys: {', '.join(FIGURE_NOISE_KEYS)}); remove it")
    if f["dataset"] not in table.datasets:
        raise _err(path, f"{where}.dataset", f"{quote(f['dataset'])} is not valid; expected one "
                                             f"of {', '.join(table.datasets)}")
    if len(noise_rates) < 2:
        raise _err(path, f"{where}.kind", "noise_curves draws the test error against the noise "
                   f"rate and noise_rates has {len(noise_rates)}; give at least 2 rates, e.g. "
                   "[0.0, 0.05, 0.1, 0.2, 0.3]")
    return FigureSpec(f["id"], "noise_curves", str(f.get("title", f["id"])), f["table"],
                      f["dataset"], 0, "")


def _loss_functions_figure(path, where, f) -> FigureSpec:
    """A loss_functions figure: its temperatures, losses and margin range, checked."""
    temperatures = _list_of(path, f"{where}.temperatures", f.get("temperatures", [1, 0.1, 0.01]),
                            (int, float), check=lambda v: 0 < v < float("inf"),
                            choices_text="positive numbers (temperatures T)")
    losses = _list_of(path, f"{where}.losses", f.get("losses", list(BINARY_LOSSES)), str,
                      check=lambda v: v in BINARY_LOSSES,
                      choices_text="loss names among " + ", ".join(BINARY_LOSSES))
    span = f.get("margin_range", [-2, 2])
    if (not isinstance(span, list) or len(span) != 2
            or any(isinstance(v, bool) or not isinstance(v, (int, float))
                   or not abs(v) < float("inf") for v in span) or not span[0] < span[1]):
        raise _err(path, f"{where}.margin_range", f"{quote(span)} is not valid; expected "
                                                  "[low, high], two finite numbers, low < high")
    return FigureSpec(f["id"], "loss_functions", str(f.get("title", f["id"])), "", "", 0, "",
                      temperatures=tuple(float(t) for t in temperatures),
                      losses=tuple(losses),
                      margin_range=(float(span[0]), float(span[1])))


ERROR_PARTS = ("train", "test")


def _figure_parts(path, where, f) -> tuple[str, ...]:
    """The ``parts`` of an error_curves figure (default: the test error only)."""
    if f["kind"] != "error_curves":
        if "parts" in f:
            raise _err(path, f"{where}.parts", "is only valid for kind error_curves; remove it")
        return ()
    # _list_of rejects an empty list and duplicates.
    return tuple(_list_of(path, f"{where}.parts", f.get("parts", ["test"]), str,
                          check=lambda v: v in ERROR_PARTS,
                          choices_text="names among " + ", ".join(ERROR_PARTS)))


X_SCALES = ("linear", "log")


def _figure_x_scale(path, where, f) -> str:
    """The ``x_scale`` of an error_curves figure (default linear)."""
    if f["kind"] != "error_curves":
        if "x_scale" in f:
            raise _err(path, f"{where}.x_scale", "is only valid for kind error_curves; remove it")
        return "linear"
    scale = f.get("x_scale", "linear")
    if scale not in X_SCALES:
        raise _err(path, f"{where}.x_scale", f"{quote(scale)} is not valid; expected one of "
                                             + ", ".join(X_SCALES))
    return scale


def _figure_rounds(path, where, f) -> tuple[int, ...]:
    """The ``rounds`` of a decision_regions figure (checked against its kind and dataset)."""
    if f["kind"] != "decision_regions":
        if "rounds" in f:
            raise _err(path, f"{where}.rounds", "is only valid for kind decision_regions; "
                                                "remove it")
        return ()
    if f.get("compare"):
        raise _err(path, f"{where}.compare", "is not valid for kind decision_regions (it draws "
                                             "one column); remove it")
    from ..datasets import get_spec
    from ..datasets.catalog import DatasetError
    try:
        n_features = get_spec(f["dataset"]).n_features
    except DatasetError:
        n_features = None          # a dataset known to the caller only (tests): not checked
    if n_features is not None and n_features != 2:
        raise _err(path, f"{where}.dataset", f"{quote(f['dataset'])} has {n_features} features; "
                                             "decision_regions needs a dataset of 2 features")
    raw = f.get("rounds", [])
    if (not isinstance(raw, list) or any(isinstance(r, bool) or not isinstance(r, int)
                                         or r < 1 for r in raw)):
        raise _err(path, f"{where}.rounds", f"{quote(raw)} is not valid; expected a list of "
                                            "positive integers")
    return tuple(sorted(set(raw)))


def _stats(path, raw, tables) -> StatsSpec:
    """The ``stats:`` section: alpha in (0, 1), a diagram format, existing table ids."""
    if not isinstance(raw, dict):
        raise _err(path, "stats", f"{quote(raw)} is not valid; expected a mapping with keys "
                                  f"{', '.join(STATS_KEYS)}")
    _check_unknown(path, "stats", raw, STATS_KEYS)
    alpha = raw.get("alpha", StatsSpec.alpha)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise _err(path, "stats.alpha", f"{quote(alpha)} is not valid; expected a number in "
                                        "(0, 1), e.g. 0.05")
    fmt = raw.get("format", StatsSpec.format)
    if fmt not in STATS_FORMATS:
        raise _err(path, "stats.format", f"{quote(fmt)} is not valid; expected one of "
                                         f"{', '.join(STATS_FORMATS)}")
    ids = [t.id for t in tables]
    chosen = None
    if "tables" in raw:
        chosen = tuple(_list_of(path, "stats.tables", raw["tables"], str,
                                check=lambda v: v in ids,
                                choices_text="table ids of this config: " + ", ".join(ids)))
    return StatsSpec(alpha=float(alpha), format=fmt, tables=chosen)


def _quick(path, raw, datasets, all_folds) -> QuickSpec:
    if not isinstance(raw, dict):
        raise _err(path, "quick", f"{quote(raw)} is not valid; expected a mapping with keys "
                                  + ", ".join(QUICK_KEYS))
    _check_unknown(path, "quick", raw, QUICK_KEYS)
    qd = qf = qr = None
    if "datasets" in raw:
        qd = tuple(_list_of(path, "quick.datasets", raw["datasets"], str,
                            check=lambda v: v in datasets,
                            choices_text="names among the config's datasets: "
                                         + ", ".join(datasets)))
    if "folds" in raw:
        qf = tuple(_list_of(path, "quick.folds", raw["folds"], int,
                            check=lambda v: v in all_folds,
                            choices_text=f"fold numbers among {list(all_folds)}"))
    if "max_rounds" in raw:
        qr = raw["max_rounds"]
        if isinstance(qr, bool) or not isinstance(qr, int) or qr < 1:
            raise _err(path, "quick.max_rounds", f"{quote(qr)} is not valid; expected a positive "
                                                 "integer")
    return QuickSpec(qd, qf, qr)


def _entries(path, keypath, algos_raw, datasets) -> list[AlgorithmEntry]:
    if not isinstance(algos_raw, list) or not algos_raw:
        raise _err(path, keypath, f"{quote(algos_raw)} is not valid; expected a non-empty list "
                                  "of entries with keys " + ", ".join(ALGO_KEYS))
    entries = []
    labels = set()
    for i, a in enumerate(algos_raw):
        where = f"{keypath}[{i}]"
        if isinstance(a, str):
            a = {"algorithm": a}
        if not isinstance(a, dict):
            raise _err(path, where, f"{quote(a)} is not valid; expected a mapping with keys "
                                    + ", ".join(ALGO_KEYS))
        _check_unknown(path, where, a, ALGO_KEYS)
        if "algorithm" not in a:
            raise _err(path, f"{where}.algorithm", "missing required key")
        try:
            cls = get_algorithm(a["algorithm"], where=f"{where}.algorithm")
        except UserError as e:
            raise UserError(f"{path}: {e}") from None
        label = a.get("label", cls.name)
        if not isinstance(label, str) or not label:
            raise _err(path, f"{where}.label", f"{quote(label)} is not valid; expected a string")
        if label in labels:
            raise _err(path, f"{where}.label", f"{quote(label)} is used twice; labels name table "
                                               "columns and must be unique")
        labels.add(label)
        params = a.get("params", {}) or {}
        if not isinstance(params, dict):
            raise _err(path, f"{where}.params", f"{quote(params)} is not valid; expected a mapping")
        grid = a.get("grid", {}) or {}
        if not isinstance(grid, dict):
            raise _err(path, f"{where}.grid", f"{quote(grid)} is not valid; expected a mapping of "
                                              "parameter -> list of values")
        try:
            params = validate_params(cls, params, f"{where}.params")
            vgrid = {}
            for k, values in grid.items():
                if k in params:
                    raise UserError(f"{where}.grid.{k}: also given in params; give it in one "
                                    "place")
                if not isinstance(values, list) or not values:
                    raise UserError(f"{where}.grid.{k}: {quote(values)} is not valid; expected a "
                                    "non-empty list of values")
                vgrid[k] = [validate_params(cls, {k: v}, f"{where}.grid")[k] for v in values]
            per_dataset = a.get("per_dataset", {}) or {}
            if not isinstance(per_dataset, dict):
                raise UserError(f"{where}.per_dataset: {quote(per_dataset)} is not valid; "
                                "expected a mapping of dataset -> {parameter: value}")
            vper = {}
            for ds, overrides in per_dataset.items():
                w = f"{where}.per_dataset.{ds}"
                if ds not in datasets:
                    raise UserError(f"{w}: {quote(ds)} is not one of this config's datasets: "
                                    f"{', '.join(datasets)}")
                if not isinstance(overrides, dict):
                    raise UserError(f"{w}: {quote(overrides)} is not valid; expected a mapping of "
                                    "parameter -> value")
                vper[ds] = validate_params(cls, overrides, w)
        except UserError as e:
            raise UserError(f"{path}: {e}") from None
        entries.append(AlgorithmEntry(cls.name, label, params, vgrid, vper))
    return entries


QUICK_LABEL = "QUICK (reduced budget, not the paper's protocol)"


def quick_variant(config: ExperimentConfig) -> ExperimentConfig:
    """The config on its ``quick`` budget: fewer datasets and folds, capped rounds, every
    title labelled QUICK. Raises UserError when the config has no ``quick`` section."""
    q = config.quick
    if q is None:
        raise UserError(f"{config.path}: --quick needs a 'quick' section in the config "
                        f"({', '.join(f'{k}: {v}' for k, v in QUICK_KEYS.items())})")
    datasets = tuple(d for d in config.datasets if not q.datasets or d in q.datasets)
    tables = []
    for t in config.tables:
        keep = tuple(d for d in t.datasets if d in datasets)
        if keep:
            tables.append(replace(t, datasets=keep, title=f"{QUICK_LABEL}: {t.title}",
                                  protocols={d: t.protocols[d] for d in keep}))
    quick = replace(config, datasets=datasets, folds=q.folds or config.folds,
                    tables=tuple(tables), is_quick=True, max_rounds=q.max_rounds,
                    title=f"{QUICK_LABEL}: {config.title} ({q.describe()})")
    return with_sources(quick, {})   # only the kept datasets' source notes


def narrow(config: ExperimentConfig, datasets=None, algorithms=None,
           tables=None) -> ExperimentConfig:
    """The config restricted to some tables (ids), datasets and algorithm columns (labels or
    registry names); None keeps all. Raises UserError naming the valid choices."""
    if tables is not None:
        ids = [t.id for t in config.tables]
        bad = [t for t in tables if t not in ids]
        if bad or not tables:
            raise UserError(f"--tables: {', '.join(bad) or '(empty)'} is not valid; expected "
                            f"table ids among {', '.join(ids)}")
        kept = tuple(t for t in config.tables if t.id in tables)
        used = {d for t in kept for d in t.datasets}
        config = replace(config, tables=kept,
                         datasets=tuple(d for d in config.datasets if d in used),
                         # a loss_functions figure draws no table's cells: always kept
                         figures=tuple(f for f in config.figures
                                       if f.table in tables or f.kind == "loss_functions"))
    if datasets is not None:
        bad = [d for d in datasets if d not in config.datasets]
        if bad or not datasets:
            raise UserError(f"--datasets: {', '.join(bad) or '(empty)'} is not valid; expected "
                            f"names among {', '.join(config.datasets)}")
        keep = tuple(d for d in config.datasets if d in datasets)
        tables = []
        for t in config.tables:
            tds = tuple(d for d in t.datasets if d in keep)
            if tds:
                tables.append(replace(t, datasets=tds, protocols={d: t.protocols[d] for d in tds}))
        config = replace(config, datasets=keep, tables=tuple(tables))
    if algorithms is not None:
        known = {n for e in config.algorithms for n in (e.label, e.algorithm)}
        bad = [a for a in algorithms if a not in known]
        if bad or not algorithms:
            raise UserError(f"--algorithms: {', '.join(bad) or '(empty)'} is not valid; expected "
                            f"labels or names among {', '.join(sorted(known))}")
        tables = []
        for t in config.tables:
            entries = tuple(e for e in t.algorithms
                            if e.label in algorithms or e.algorithm in algorithms)
            if entries:
                tables.append(replace(t, algorithms=entries))
        config = replace(config, tables=tuple(tables))
    return with_sources(config, {})    # only the kept datasets' source notes
