"""Table layouts: how one result table of a paper is drawn from the summary of its cells.

A config table's ``layout`` (``runner.config.TableLayout``) says what the table shows; the
papers differ in every part of it:

=============  ==========================================================================
key            values
=============  ==========================================================================
kind           ``datasets_by_algorithms``: a row per dataset, a column per algorithm (the
               DMCBoost paper's Tables 2-4; the default); ``algorithms_by_datasets``: a
               row per algorithm, a column per dataset (the MCBoost paper's Tables 1-2);
               ``noise_slopes``: a row per dataset, a column per algorithm, each cell the
               slope of the mean test error % against the noise rate, then the mean slope
               and mean rank over datasets (``report.noise_slopes``; one table for all
               rates, no other key)
measure        ``error`` (test error %) or ``accuracy`` (100 - test error %)
spread         ``std``: mean (std) over folds and seeds; ``none``: the mean only (one run)
extra          more numbers per cell: ``rounds`` (the reported round), ``rounds_run`` (the
               rounds the fit ran), ``cpu_seconds`` (of the selected fit),
               ``grid_cpu_seconds`` (of all the cell's grid points, summed)
noise_rates    ``tables``: one table per noise rate; ``rows``: the rate is a row key
=============  ==========================================================================

Map of the module
-----------------
``LAYOUTS``             kind -> the function drawing it, dispatched as ``report.figures``
                        dispatches figure kinds; each returns ``[(noise rate or None,
                        DataFrame)]``, one display frame per printed table (``noise_slopes``:
                        one, for every rate)
``display_tables``      the dispatch, with the published comparison shared by every kind
``cell_text``           our cell in the layout's measure and spread, with the partial (``†``)
                        and no-fit (``‡``) marks
``heading``             the line above a printed table
``noise_parts_text``    how a heading or figure names the noisy parts when they are not the
                        default

Whatever the orientation, the published numbers sit beside ours: a ``"<label> paper"``
column after each algorithm's column (``datasets_by_algorithms``), a ``"<label> paper"`` row
after each algorithm's row (``algorithms_by_datasets``). They are shown as printed when the
paper's metric is the layout's measure, and converted (``100 - x``) otherwise. The agreement
counts do not depend on the layout (``report.published.compare`` works in error %). Where the
paper also prints an extra measure of the layout (its ``measures``: the DirectBoost paper's
iterations and seconds), it is shown beside ours: a ``"<label> <measure> paper"`` column
after ours, or in the ``"<label> paper"`` row under ours; never compared.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MEASURE_NAMES = {"error": "test error %", "accuracy": "accuracy %"}
EXTRA_NAMES = {"rounds": "rounds", "rounds_run": "rounds run", "cpu_seconds": "CPU s",
               "grid_cpu_seconds": "grid CPU s"}
# The summary column behind each extra measure (``report.tables.summarize``).
EXTRA_COLUMNS = {"rounds": "mean_selected_round", "rounds_run": "mean_rounds_run",
                 "cpu_seconds": "mean_cpu_seconds", "grid_cpu_seconds": "mean_grid_cpu_seconds"}
# Extra measures that count rounds (printed without decimals).
_COUNTS = ("rounds", "rounds_run")


def measure_value(mean_error: float, measure: str) -> float:
    """A test error % in the layout's measure."""
    return 100.0 - mean_error if measure == "accuracy" else mean_error


def cell_text(r, layout, not_run=()) -> str:
    """Our number of one summary row ``r`` (``report.tables.summarize``) in the layout's
    measure and spread: ``mean (std)`` or ``mean``, ``–`` without a result (``not run`` when
    the dataset is in ``not_run``: its data could not be had), ``no fit`` when no fold
    fitted; ``†`` marks a partial cell, ``‡`` a mean over the folds that fitted."""
    if r["n"] == 0:
        return "not run" if r["dataset"] in not_run else "–"
    mark = ("" if r["complete"] else "†") + ("‡" if r["n_no_fit"] else "")
    if r["n_no_fit"] == r["n"]:
        return "no fit" + mark.replace("‡", "")
    mean = measure_value(r["mean"], layout.measure)
    if layout.spread == "none":
        return f"{mean:.2f}{mark}"
    std = "–" if np.isnan(r["std"]) else f"{r['std']:.2f}"
    return f"{mean:.2f} ({std}){mark}"


def extra_text(r, what: str) -> str:
    """An extra measure of one summary row: the mean over the folds, ``–`` without one."""
    value = r.get(EXTRA_COLUMNS[what], np.nan) if r["n"] else np.nan
    if value is None or pd.isna(value):
        return "–"
    return f"{value:.0f}" if what in _COUNTS else f"{value:.2f}"


def heading(config, table, rate) -> str:
    """The line above a printed table; ``rate`` None for a table with the noise rates as
    rows."""
    layout = table.layout
    folds = sorted({len(table.folds_for(d, config.folds)) for d in table.datasets})
    # The REBEL paper's protocol draws its folds as independent random splits.
    unit = "split" if set(table.protocols.values()) == {"random_splits"} else "fold"
    fold_text = " or ".join(map(str, folds)) + (f" {unit}" if folds == [1] else f" {unit}s")
    if layout.kind == "noise_slopes":
        from .noise_slopes import SLOPE_UNIT
        rates = ", ".join(f"{r:g}" for r in config.noise_rates)
        return (f"{table.title} — slope of the mean test error % over {fold_text}"
                + (f" × {len(config.seeds)} seeds" if len(config.seeds) > 1 else "")
                + f" against the label-noise rate ({rates}){noise_parts_text(table)}, in "
                f"{SLOPE_UNIT}")
    what = "mean (std)" if layout.spread == "std" else "mean"
    text = (f"{table.title} — {MEASURE_NAMES[layout.measure]} {what} over {fold_text}"
            + (f" × {len(config.seeds)} seeds" if len(config.seeds) > 1 else ""))
    parts = noise_parts_text(table)
    if rate is None:
        rates = ", ".join(f"{r:g}" for r in config.noise_rates)
        return text + f", label noise {rates} (rows){parts}"
    return text + f", label noise {rate:g}" + (parts if rate else "")


# How a heading names the noisy parts when they are not the default (training and
# validation labels).
_PART_NAMES = {"train": "training", "valid": "validation"}


def noise_parts_text(table) -> str:
    from ..protocol.noise import DEFAULT_NOISE_PARTS
    parts = tuple(getattr(table, "noise_parts", DEFAULT_NOISE_PARTS))
    if parts == DEFAULT_NOISE_PARTS:
        return ""
    return " on the " + " and ".join(_PART_NAMES[p] for p in parts) + " labels only"


def _source_of(config, dataset) -> str:
    return config.source_of(dataset) if hasattr(config, "source_of") else ""


def _dataset_name(config, dataset) -> str:
    """Rows from another source than the catalog default say so (a note names it)."""
    source = _source_of(config, dataset)
    return f"{dataset} [{source}]" if source else dataset


def _published_texts(table, comparison, published, labels, rate) -> dict:
    """(dataset, label) -> the published cell's display text at ``rate``, converted to the
    layout's measure when the paper printed the other one."""
    from .published import side_by_side
    datasets = list(table.datasets)
    shown = side_by_side(comparison, datasets, labels, rate)
    out = {(d, label): shown.loc[d, f"{label} paper"] for d in datasets for label in labels}
    if published.metric == table.layout.measure:
        return out
    rows = comparison.rows
    at_rate = rows[(rows["noise_rate"] - rate).abs() < 1e-9]
    for r in at_rate.itertuples(index=False):
        if r.status == "ok" and not pd.isna(r.published_mean):
            value = measure_value(r.published_mean, table.layout.measure)
            out[(r.dataset, r.algorithm)] = f"{value:.2f}{r.flag}"
    return out


def _measure_texts(table, published, labels, rate) -> dict:
    """(dataset, label, extra) -> the paper's number of that extra measure, for the layout's
    extras the published table prints (none without published numbers)."""
    if published is None or not getattr(published, "measures", ()):
        return {}
    from .published import measure_texts
    return measure_texts(published, list(table.datasets), labels, rate, table.layout.extra)


def _rows_by_key(part: pd.DataFrame) -> dict:
    return {(r["dataset"], r["algorithm"]): r for _, r in part.iterrows()}


def datasets_by_algorithms(config, table, part_t, comparison, published, rates):
    """A row per dataset; per algorithm its column, its extra measures' columns, and the
    published column when the table has published numbers."""
    layout = table.layout
    labels = list(table.column_labels)
    not_built = {lab for lab, _ in table.not_built}
    not_run = getattr(config, "not_run", ())
    frames = []
    for rate in rates:
        rows = _rows_by_key(part_t[part_t["noise_rate"] == rate])
        paper = (_published_texts(table, comparison, published, labels, rate)
                 if published is not None else None)
        measures = _measure_texts(table, published, labels, rate)
        printed = {x for (_, _, x) in measures}
        columns = []
        for label in labels:
            columns.append(label)
            for x in layout.extra:
                columns.append(f"{label} {EXTRA_NAMES[x]}")
                if x in printed:
                    columns.append(f"{label} {EXTRA_NAMES[x]} paper")
            if paper is not None:
                columns.append(f"{label} paper")
        wide = pd.DataFrame(index=list(table.datasets), columns=columns, dtype=object)
        for d in table.datasets:
            for label in labels:
                r = rows.get((d, label))
                wide.loc[d, label] = ("not run" if label in not_built else
                                      "–" if r is None else cell_text(r, layout, not_run))
                for x in layout.extra:
                    wide.loc[d, f"{label} {EXTRA_NAMES[x]}"] = \
                        "–" if r is None else extra_text(r, x)
                    if x in printed:
                        wide.loc[d, f"{label} {EXTRA_NAMES[x]} paper"] = measures[(d, label, x)]
                if paper is not None:
                    wide.loc[d, f"{label} paper"] = paper[(d, label)]
        wide.index = [_dataset_name(config, d) for d in wide.index]
        wide.index.name = "dataset"
        frames.append((rate, wide))
    return frames


def algorithms_by_datasets(config, table, part_t, comparison, published, rates):
    """A row per algorithm (and a ``"<label> paper"`` row after it when the table has
    published numbers), a column per dataset and one per extra measure of each dataset."""
    layout = table.layout
    labels = list(table.column_labels)
    not_built = {lab for lab, _ in table.not_built}
    not_run = getattr(config, "not_run", ())
    columns = []
    for d in table.datasets:
        name = _dataset_name(config, d)
        columns.append(name)
        columns += [f"{name} {EXTRA_NAMES[x]}" for x in layout.extra]
    frames = []
    for rate in rates:
        rows = _rows_by_key(part_t[part_t["noise_rate"] == rate])
        paper = (_published_texts(table, comparison, published, labels, rate)
                 if published is not None else None)
        measures = _measure_texts(table, published, labels, rate)
        index, records = [], []
        for label in labels:
            ours = []
            for d in table.datasets:
                r = rows.get((d, label))
                ours.append("not run" if label in not_built else
                            "–" if r is None else cell_text(r, layout, not_run))
                ours += ["–" if r is None else extra_text(r, x) for x in layout.extra]
            index.append(label)
            records.append(ours)
            if paper is not None:
                theirs = []
                for d in table.datasets:
                    theirs.append(paper[(d, label)])
                    theirs += [measures.get((d, label, x), "") for x in layout.extra]
                index.append(f"{label} paper")
                records.append(theirs)
        wide = pd.DataFrame(records, index=index, columns=columns, dtype=object)
        wide.index.name = "algorithm"
        frames.append((rate, wide))
    return frames


def noise_slopes(config, table, part_t, comparison, published, rates):
    """One table for all rates: a row per dataset, a column per algorithm, each cell the
    least-squares slope of its mean test error % against the noise rate, then the mean-slope
    and mean-rank rows (``report.noise_slopes.display_frame``). A noise_slopes table has no
    published numbers (``runner.config`` refuses them)."""
    from .noise_slopes import display_frame
    return [(None, display_frame(config, table, part_t, rates))]


LAYOUTS = {
    "datasets_by_algorithms": datasets_by_algorithms,
    "algorithms_by_datasets": algorithms_by_datasets,
    "noise_slopes": noise_slopes,
}


def display_tables(config, table, part_t: pd.DataFrame, comparison=None, published=None
                   ) -> list[tuple[float | None, pd.DataFrame]]:
    """The printed tables of one config table: ``[(noise rate, frame)]``, one per noise rate,
    or ``[(None, frame)]`` with the noise rate as the first column when the layout puts the
    rates in the rows.

    Parameters
    ----------
    config : ExperimentConfig
    table : TableSpec
    part_t : pandas.DataFrame
        The table's rows of ``report.tables.summarize``.
    comparison : Comparison, optional
        Ours beside the published table (``report.tables._comparison``); None without one.
    published : PublishedTable, optional
    """
    draw = LAYOUTS[table.layout.kind]
    frames = draw(config, table, part_t, comparison, published, list(config.noise_rates))
    if table.layout.noise_rates == "tables" or table.layout.kind == "noise_slopes":
        return frames
    stacked = []
    for rate, frame in frames:
        frame = frame.copy()
        frame.insert(0, "noise", f"{rate:g}")
        stacked.append(frame)
    both = pd.concat(stacked)
    return [(None, both)]
