"""Paper-style result tables: the selected fit of every fold, summarized per table cell (mean
and std of the test error % over folds and seeds), drawn in each table's layout
(``report.layouts``; by default rows = datasets, columns = algorithms, one table per noise
rate).

Map of the module
-----------------
``summarize``       long frame of mean / std / folds done per table cell
``wide_tables``     display tables in the table's layout (``report.layouts``: orientation,
                    measure, spread, extra measures, noise rates as tables or rows), the
                    published numbers beside ours when the config table names them
                    (``report.published``)
``selected_fits``   the selected fit of every table cell's fold, with what the fit recorded
                    (reported round, Phase I length and its training error)
``render_terminal`` / ``write_outputs``
                    the terminal text; Markdown, CSV and LaTeX files (one set per table, named
                    by its id), ``<id>_selected.csv`` (``selected_fits``) and ``cells.csv``,
                    the per-cell results of the plan

Selection: ``protocol.selection.select`` (its docstring states the papers' rules; test errors
never choose anything).

A report can be rendered from a partial store: a cell with fewer folds than planned is marked
``†`` with the count in a footnote, and a cell with none shows ``–``.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

from ..protocol.selection import select

# What a selected fit recorded, from ``cells.csv`` (its text, so floats keep every digit).
SELECTED_FACTS = ("params", "selected_round", "n_rounds", "train_error", "valid_error",
                  "test_error", "n_phase1_rounds", "phase1_train_error", "stop_reason",
                  "cpu_seconds")


def selected_fits(config, planned, results: pd.DataFrame, cells: pd.DataFrame) -> pd.DataFrame:
    """One row per (table, noise rate, dataset, seed, fold, algorithm entry): the grid point
    validation selected (``select``) and what its fit recorded in ``cells`` (a ``cells.csv``
    frame, as text). It answers "which n' / depth was chosen, how long did Phase I last and
    where did it leave the training error" for every number of the tables."""
    sel = select(planned, results)
    cols = ["table", "dataset", "noise_rate", "seed", "fold", "algorithm", "key",
            *SELECTED_FACTS]
    if sel.empty:
        return pd.DataFrame(columns=cols)
    ids = {ti: t.id for ti, t in enumerate(config.tables)}
    labels = {(ti, e): entry.label for ti, t in enumerate(config.tables)
              for e, entry in enumerate(t.algorithms)}
    out = pd.DataFrame({
        "table": sel["table_index"].map(ids), "dataset": sel["dataset"],
        "noise_rate": sel["noise_rate"], "seed": sel["seed"], "fold": sel["fold"],
        "algorithm": [labels[(ti, e)] for ti, e in zip(sel["table_index"], sel["entry_index"])],
        "key": sel["key"], "order": sel["table_index"] * 1000 + sel["entry_index"]})
    facts = cells.drop_duplicates("key", keep="last").set_index("key")
    for c in SELECTED_FACTS:
        out[c] = out["key"].map(facts[c]).fillna("")
    out = out.sort_values(["order", "noise_rate", "dataset", "seed", "fold"], kind="stable")
    return out[cols].reset_index(drop=True)


def _millisecond(v) -> float:
    """``v`` seconds rounded as cells.csv writes them (NaN stays NaN)."""
    from ..runner.reference import seconds_text
    text = seconds_text(v)
    return float(text) if text else np.nan


def summarize(config, planned, results: pd.DataFrame) -> pd.DataFrame:
    """Long table: table, dataset, noise_rate, algorithm (label), mean, std (in %), n (done),
    n_planned, ... — one row per (table, noise rate, dataset, entry)."""
    from ..protocol.selection import GROUP, plan_frame
    sel = select(planned, results)
    # The fits' CPU seconds and rounds run, for layouts that show them (``extra``).
    # Rounded to the millisecond, as cells.csv keeps them, so that tables rendered from the
    # store and from the file are the same.
    cpu = (dict(zip(results["key"],
                    (_millisecond(v) for v in pd.to_numeric(results["cpu_seconds"],
                                                            errors="coerce"))))
           if "cpu_seconds" in results.columns else {})
    ran = (dict(zip(results["key"], pd.to_numeric(results["n_rounds"], errors="coerce")))
           if "n_rounds" in results.columns else {})
    machines = dict(zip(results["key"], machine_column(results))) if len(results) else {}
    if len(sel):
        sel = sel.assign(cpu_seconds=sel["key"].map(cpu).astype(float),
                         rounds_run=sel["key"].map(ran).astype(float),
                         machine=sel["key"].map(machines).fillna(""))
        # Every grid point's CPU seconds of the selection's group, summed (NaN unless each
        # has one): what choosing among them cost (fits that shared a sibling's first rounds
        # count their own work only, so the sum counts the shared part once).
        plan = plan_frame(planned)
        plan = plan.assign(cpu_seconds=plan["key"].map(cpu).astype(float))
        grid = plan.groupby(GROUP)["cpu_seconds"].agg(
            lambda v: float(v.sum()) if v.notna().all() else np.nan).rename("grid_cpu_seconds")
        sel = sel.merge(grid.reset_index(), on=GROUP, how="left")
    # Each row's selected fits, in the selection's order (one grouping, not a mask per row:
    # a noise sweep has thousands of rows), as positions into the selection's columns, read
    # once as arrays.
    groups = (sel.groupby(["table_index", "dataset", "noise_rate", "entry_index"],
                          sort=False).indices if len(sel) else {})
    cols = _SummaryColumns(sel)
    empty = np.empty(0, dtype=np.intp)
    rows = []
    for ti, table in enumerate(config.tables):
        for rate in config.noise_rates:
            for ds in table.datasets:
                n_planned = len(config.seeds) * len(table.folds_for(ds, config.folds))
                for e, entry in enumerate(table.algorithms):
                    at = groups.get((ti, ds, rate, e), empty)
                    rows.append(_summary_row(table.id, ds, rate, entry.label, cols, at,
                                             n_planned))
    return pd.DataFrame(rows)


class _SummaryColumns:
    """The selection's columns that a summary row reads, as arrays (None when absent)."""

    def __init__(self, sel: pd.DataFrame):
        def column(name, dtype=float):
            return sel[name].to_numpy(dtype=dtype) if name in sel else None
        self.test_error = column("test_error")
        self.complete_grid = column("complete_grid", bool)
        self.selected_round = column("selected_round")
        self.cpu_seconds = column("cpu_seconds")
        self.rounds_run = column("rounds_run")
        self.grid_cpu_seconds = column("grid_cpu_seconds")
        self.machine = column("machine", object)


def _summary_row(table_id, ds, rate, label, cols: _SummaryColumns, at: np.ndarray,
                 n_planned) -> dict:
    n = len(at)
    errs = 100.0 * cols.test_error[at] if n else np.empty(0)
    # Done cells without a classifier (no weak learner accepted) have no error.
    n_no_fit = int(np.isnan(errs).sum())
    errs = errs[~np.isnan(errs)]
    complete_grid = cols.complete_grid[at] if n else None
    return {
        "table": table_id, "dataset": ds, "noise_rate": rate, "algorithm": label,
        "mean": float(np.mean(errs)) if len(errs) else np.nan,
        # Sample standard deviation over folds (and seeds), ddof = 1.
        "std": float(np.std(errs, ddof=1)) if len(errs) > 1 else np.nan,
        "n": n, "n_no_fit": n_no_fit, "n_planned": n_planned,
        "complete": bool(n == n_planned and complete_grid.all()) if n else False,
        # Folds whose selection saw only part of the grid (a grid point not run or failed).
        "n_partial_grid": int((~complete_grid).sum()) if n else 0,
        "mean_selected_round": _mean_of(cols.selected_round, at),
        "mean_cpu_seconds": _mean_of(cols.cpu_seconds, at),
        "mean_rounds_run": _mean_of(cols.rounds_run, at),
        "mean_grid_cpu_seconds": _mean_of(cols.grid_cpu_seconds, at),
        # The machines the selected fits ran on (times are only comparable on one).
        "machines": ("; ".join(sorted({m for m in cols.machine[at] if m}))
                     if n and cols.machine is not None else ""),
    }


def machine_column(results: pd.DataFrame) -> list[str]:
    """The machine each row of a store frame or cells file ran on ("" when not recorded):
    the ``machine`` column of a cells file, or the store's ``versions``."""
    if "machine" in results.columns:
        return [m if isinstance(m, str) else "" for m in results["machine"]]
    if "versions" in results.columns:
        return [(v or {}).get("machine", "") if isinstance(v, dict) else ""
                for v in results["versions"]]
    return [""] * len(results)


TIMED = ("cpu_seconds", "grid_cpu_seconds")


def _machine_note(table, part: pd.DataFrame) -> str | None:
    """For layouts that show times: the machine(s) they were measured on (the DirectBoost
    paper's Table 2 names its own, so ours is named beside it)."""
    if not any(x in TIMED for x in table.layout.extra) or "machines" not in part:
        return None
    names = sorted({m for v in part["machines"] for m in str(v).split("; ") if m})
    if not names:
        return None
    return ("Our times (CPU seconds of the fit's thread) were measured on: "
            + "; ".join(names) + ".")


def _mean_of(values: np.ndarray | None, at: np.ndarray) -> float:
    """The mean of a selection's column over its folds ``at``, leaving out those without a
    value (NaN when none has one) — as pandas' ``Series.mean`` sums: the missing values as
    zeros, divided by the count of the others (pandas without bottleneck), so that the
    numbers stay those of the committed tables."""
    if values is None or not len(at):
        return np.nan
    v = values[at]
    missing = np.isnan(v)
    if missing.all():
        return np.nan
    return float(np.where(missing, 0.0, v).sum() / (len(v) - missing.sum()))


def _published(table):
    if table.published is None:
        return None
    from ..datasets.published import load_published
    return load_published(table.published)


def _comparison(config, table, summary_t: pd.DataFrame, published):
    """Compare only complete cells (every planned fold and grid point done): a partial mean
    is shown in the table (marked †) but does not count as agreeing or not. Nor do rows taken
    from another data source than the catalog default (``--source``): they are not the
    paper's rows."""
    from .published import compare
    summary_t = summary_t.copy()
    summary_t.loc[~summary_t["complete"].astype(bool), ["mean", "std"]] = np.nan
    amap = {label: (label if label in published.algorithms else None)
            for label in table.column_labels}
    other_source = {d: f"rows from source '{_source_of(config, d)}', not the paper's data"
                    for d in table.datasets if _source_of(config, d)}
    return compare(summary_t, published, list(table.datasets), amap, list(config.noise_rates),
                   not_compared=other_source)


def wide_tables(config, summary: pd.DataFrame, table=None
                ) -> list[tuple[float | None, pd.DataFrame]]:
    """The printed tables of ``table`` (default: the first) in its layout
    (``report.layouts``): ``[(noise rate, display frame)]``, the rate None when the layout
    puts the rates in the rows. With published numbers, each of our numbers has the paper's
    beside it ("<label> paper")."""
    from .layouts import display_tables
    table = table or config.tables[0]
    part_t = summary[summary["table"] == table.id]
    published = _published(table)
    comparison = (_comparison(config, table, part_t, published)
                  if published is not None else None)
    return display_tables(config, table, part_t, comparison, published)


def _source_of(config, dataset) -> str:
    return config.source_of(dataset) if hasattr(config, "source_of") else ""


def agreement_lines(config, summary: pd.DataFrame) -> dict[str, str]:
    """table id -> its one-line agreement summary (tables with published numbers only)."""
    out = {}
    for table in config.tables:
        published = _published(table)
        if published is not None:
            comp = _comparison(config, table, summary[summary["table"] == table.id],
                               published)
            out[table.id] = comp.summary_line()
    return out


def _heading(config, table, rate) -> str:
    from .layouts import heading
    return heading(config, table, rate)


def _where(r) -> str:
    table = "" if r.table == "results" else f"{r.table} "
    return f"{table}{r.dataset}/{r.algorithm} at noise {r.noise_rate:g}"


def _partial_text(r) -> str:
    """Why a cell is partial: "3 of 5 folds", and "2 of them on part of the grid" when a
    fold's selection lacked grid points (not yet run, or failed)."""
    text = f"{r.n} of {r.n_planned} folds"
    k = int(getattr(r, "n_partial_grid", 0) or 0)
    if k:
        text += ", on part of the grid" if k == r.n else f", {k} of them on part of the grid"
    return text


def _footnote(summary) -> str:
    notes = []
    partial = summary[(summary["n"] > 0) & (~summary["complete"])]
    if not partial.empty:
        notes.append("† partial (folds done of planned, or a grid not fully run): " + "; ".join(
            f"{_where(r)}: {_partial_text(r)}" for r in partial.itertuples()))
    nofit = summary[summary["n_no_fit"] > 0]
    if not nofit.empty:
        notes.append("no fit: no weak learner was accepted (e.g. AdaBoost.M1 stops when its "
                     "first tree's weighted error is already >= 1/2), so there is no classifier "
                     "to score; ‡: the mean is over the folds that fitted. Folds without a fit: "
                     + "; ".join(f"{_where(r)}: {r.n_no_fit} of {r.n}"
                                 for r in nofit.itertuples()))
    return "\n".join(notes)


_PAPER_NOTE = ("\"<label> paper\": the published value as printed (~ medium, ? low confidence "
               "of the transcription; n/a: not in the paper or lost from every available copy; "
               "-: printed as '-').")


_AMBIGUOUS_NOTE = ("\"{a, b, ...}\": the transcription could not assign the printed values "
                   "to columns; the cell is one of these candidates (shown, not compared).")


def _protocol_note(config, table) -> str:
    by = {}
    for d, p in table.protocols.items():
        by.setdefault(p, []).append(d)
    return "Protocol: " + "; ".join(f"{p}: {', '.join(ds)}" for p, ds in by.items()) + "."


def render_terminal(config, summary) -> str:
    parts = []
    lines = agreement_lines(config, summary)
    for table in config.tables:
        for rate, wide in wide_tables(config, summary, table):
            parts.append(_heading(config, table, rate))
            parts.append(tabulate(wide, headers="keys", tablefmt="simple", stralign="right",
                                  disable_numparse=True))
            parts.append("")
        if table.id in lines:
            parts.append(lines[table.id])
            parts.append("")
        for line in _layout_notes(config, table, summary[summary["table"] == table.id]):
            parts += [line, ""]
        machine = _machine_note(table, summary[summary["table"] == table.id])
        if machine:
            parts += [machine, ""]
    foot = _footnote(summary)
    if foot:
        parts.append(foot)
    parts += list(config.notes)
    return "\n".join(parts).rstrip() + "\n"


def table_files(out_dir: Path, table) -> list[Path]:
    return [out_dir / f"{table.id}.{ext}" for ext in ("md", "csv", "tex")]


def write_outputs(config, summary, out_dir: Path, cells: pd.DataFrame | None = None,
                  selected: pd.DataFrame | None = None) -> list[Path]:
    """Write Markdown, CSV and LaTeX files per table under ``out_dir`` (and ``cells.csv``, the
    plan's per-cell results, when ``cells`` is given; ``<id>_selected.csv`` per table, the
    selected fits, when ``selected`` is given); returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = agreement_lines(config, summary)
    paths = []
    for table in config.tables:
        part = summary[summary["table"] == table.id]
        md, tex = [f"# {table.title}\n"], [f"% {table.title}"]
        if config.is_quick:
            md.append(f"**{config.title}**\n")
            tex.append(f"% {config.title}")
        for rate, wide in wide_tables(config, summary, table):
            md.append(f"## {_heading(config, table, rate)}\n")
            md.append(tabulate(wide, headers="keys", tablefmt="pipe", stralign="right",
                                  disable_numparse=True))
            md.append("")
            tex.append(f"% {_heading(config, table, rate)}")
            tex.append(tabulate(wide, headers="keys", tablefmt="latex_booktabs",
                                stralign="right", disable_numparse=True))
            tex.append("")
        notes = [_protocol_note(config, table), *_layout_notes(config, table, part),
                 *config.notes]
        notes += [f"Not run: {label}: {why}" for label, why in table.not_built]
        if table.id in lines:
            notes += [f"**Agreement.** {lines[table.id]}", _PAPER_NOTE]
            if any(c.status == "ambiguous" for c in _published(table).cells.values()):
                notes.append(_AMBIGUOUS_NOTE)
        machine = _machine_note(table, part)
        if machine:
            notes.append(machine)
        foot = _footnote(part)
        if foot:
            notes.append(foot)
        md += [n + "\n" for n in notes]
        tex += ["% " + n.replace("\n", " ") for n in notes]
        md_p, csv_p, tex_p = table_files(out_dir, table)
        _atomic_write(md_p, "\n".join(md))
        _atomic_write(csv_p, _table_csv(config, table, part))
        _atomic_write(tex_p, "\n".join(tex) + "\n")
        paths += [md_p, csv_p, tex_p]
        if selected is not None:
            sel_p = out_dir / f"{table.id}_selected.csv"
            _atomic_write(sel_p, selected[selected["table"] == table.id]
                          .drop(columns=["table"]).to_csv(index=False))
            paths.append(sel_p)
    if cells is not None:
        from ..runner.reference import file_frame
        p = out_dir / "cells.csv"
        _atomic_write(p, file_frame(cells).to_csv(index=False))
        paths.append(p)
    return paths


def _layout_notes(config, table, part: pd.DataFrame) -> list[str]:
    """Lines a layout kind puts under its table (noise_slopes: the slope's unit and what the
    summary rows average over)."""
    if table.layout.kind != "noise_slopes":
        return []
    from .noise_slopes import note
    return [note(table, part, config.noise_rates)]


def _table_csv(config, table, part: pd.DataFrame) -> str:
    """Long format: our numbers, and the published ones beside them when there are any
    (noise_slopes: a row per dataset and column with its slope and its mean test error at
    each rate, then a summary row per column, ``report.noise_slopes.slopes_frame``)."""
    if table.layout.kind == "noise_slopes":
        from .noise_slopes import slopes_frame
        df = slopes_frame(table, part, config.noise_rates)
        if config.is_quick:
            df.insert(0, "budget", "quick")
        return df.to_csv(index=False, float_format="%.6f")
    published = _published(table)
    df = part.drop(columns=["table", "machines"], errors="ignore")
    # The extra measures the layout does not show are left out (mean_selected_round stays).
    from .layouts import EXTRA_COLUMNS
    df = df.drop(columns=[c for x, c in EXTRA_COLUMNS.items()
                          if x != "rounds" and x not in table.layout.extra], errors="ignore")
    if table.layout.measure == "accuracy":
        # The printed measure beside the error the comparison uses.
        df.insert(list(df.columns).index("mean"), "accuracy_mean", 100.0 - df["mean"])
    if published is not None:
        comp = _comparison(config, table, part, published).rows
        keep = ["dataset", "noise_rate", "algorithm", "published_printed", "published_mean",
                "published_std", "status", "confidence", "delta", "tolerance", "agrees"]
        df = df.merge(comp[[c for c in keep if c in comp.columns]],
                      on=["dataset", "noise_rate", "algorithm"], how="left")
    if getattr(config, "sources", ()):
        df.insert(list(df.columns).index("dataset") + 1, "data_source",
                  df["dataset"].map(lambda d: _source_of(config, d)))
    if config.is_quick:
        df.insert(0, "budget", "quick")
    return df.to_csv(index=False, float_format="%.6f")


def _atomic_write(path: Path, text: str):
    """Write ``text`` to ``path`` whole or not at all (``_replacing``)."""
    with _replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


@contextmanager
def _replacing(path: Path):
    """Yield a temporary path beside ``path``; what was written there replaces ``path`` when
    the block ends without an exception, and is removed otherwise. Every table, figure and
    CD diagram is written so: a Ctrl-C while a report is written leaves each file as it was
    or as it is now, never half of one."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
