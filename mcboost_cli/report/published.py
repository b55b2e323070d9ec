"""Our numbers beside the papers' published numbers: tolerance, agreement and display.

The published numbers themselves are data of the datasets layer
(:mod:`mcboost_cli.datasets.published`: :class:`PublishedTable`, :func:`load_published`, the
YAML files); this module only compares and presents.

Data
----
Comparison
    Result of :func:`compare`: a long frame with one row per compared cell plus the
    agreement counts; ``summary_line()`` says it in one sentence.

Functions
---------
tolerance(cell)
    Agreement tolerance in percentage points: 2 x the printed std, 1.5 when none is printed.
compare(ours, table, datasets, algorithms_map, noise_rates)
    Put our mean (std) beside the published numbers and count agreement.
side_by_side(comparison, datasets, labels, noise_rate)
    Display strings for one noise rate: our cell and the paper's cell per label.

Agreement
---------
Our mean agrees with a published mean when ``|ours - published| <= tolerance(cell)``, both
taken as test error % (an accuracy table is turned into error as ``100 - accuracy``, see
:meth:`PublishedTable.error_mean`). Only cells whose published status is ``ok`` and for which
we have a mean are compared. Cells with a published confidence other than ``high`` are flagged
(``~`` medium, ``?`` low) wherever they are shown, as the transcript requires: a reconstructed
number must not be used silently. An ``ambiguous`` cell (one of several printed values that
could not be assigned) is shown as its candidates, ``{1.47(0.7), 2.62(0.8)}?``, and counted
apart ("shown, not compared"); the other measures of a table (iterations, seconds) are shown
beside ours (``report.layouts``) and never compared: they were measured on another machine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..datasets.published import (
    NOT_IN_PAPER,
    PublishedCell,
    PublishedTable,
    parse_printed,
    rate_key,
)
from ..errors import UserError

__all__ = [
    "NO_STD_TOLERANCE",
    "STD_MULTIPLIER",
    "Comparison",
    "compare",
    "measure_texts",
    "side_by_side",
    "tolerance",
]

#: Agreement within this many published standard deviations ...
STD_MULTIPLIER = 2.0
#: ... or within this many percentage points where the paper prints no std.
NO_STD_TOLERANCE = 1.5

# Published numbers have at most a few decimals, so an agreement test this close to the
# tolerance is a rounding artefact and counts as agreeing.
_EPS = 1e-9


# --------------------------------------------------------------------------------------------
# Tolerance


def tolerance(cell: PublishedCell) -> float:
    """Agreement tolerance of a published cell, in percentage points.

    ``STD_MULTIPLIER`` (2) x the printed std, or ``NO_STD_TOLERANCE`` (1.5) when no std is
    printed. A printed std of zero stands for "less than half a unit of its last digit", so it
    counts as that half unit: ``0.0`` -> 0.05 (tolerance 0.1), ``0`` -> 0.5 (tolerance 1.0).

    Parameters
    ----------
    cell : PublishedCell

    Returns
    -------
    float
        NaN for a cell without a published mean (status other than ``ok``).

    Raises
    ------
    ValueError
        A zero std whose printed text shows no std, so its precision is unknown.
    """
    if cell.status != "ok" or cell.mean is None:
        return math.nan
    if cell.std is None:
        return NO_STD_TOLERANCE
    if cell.std > 0:
        return STD_MULTIPLIER * cell.std
    parsed = parse_printed(cell.printed)
    if parsed is None or parsed[1] is None:
        raise ValueError(f"{cell.dataset}/{cell.algorithm}: std 0 but the printed text "
                         f"{cell.printed!r} shows no std, so its precision is unknown")
    std_text = parsed[1]
    decimals = len(std_text.partition(".")[2])
    return STD_MULTIPLIER * 0.5 / 10 ** decimals


# --------------------------------------------------------------------------------------------
# Comparison

ROW_COLUMNS = [
    "dataset", "noise_rate", "algorithm", "paper_algorithm", "ours_mean", "ours_std", "n",
    "published_printed", "published_mean", "published_std", "status", "confidence", "flag",
    "delta", "tolerance", "agrees",
]


@dataclass(frozen=True)
class Comparison:
    """Our numbers beside one published table.

    Attributes
    ----------
    table : PublishedTable
    rows : pandas.DataFrame
        One row per (noise rate, dataset, our label), in that nesting order, with columns
        ``dataset, noise_rate, algorithm`` (our label), ``paper_algorithm`` (the paper's
        column, None when the paper has none), ``ours_mean, ours_std, n``,
        ``published_printed``, ``published_mean, published_std`` (as test error %),
        ``status`` (the published cell's, or ``not_in_paper``), ``confidence``, ``flag``
        ('~' medium, '?' low, '' otherwise), ``delta`` (ours - published), ``tolerance``
        and ``agrees`` (nullable boolean: NA unless both numbers exist).
    n_compared : int
        Cells with both a published and our number.
    n_agree : int
        Of those, cells that agree within the tolerance.
    largest : list of tuple
        Up to 3 ``(dataset, noise_rate, algorithm, delta)`` with the largest ``|delta|``,
        largest first.
    n_flagged : int
        Compared cells whose published confidence is medium or low.
    n_published_only : int
        Published numbers in the comparison for which we have no result yet.
    not_compared : tuple of (str, str)
        ``(dataset, reason)`` for rows shown beside the paper but left out of every count
        (e.g. rows computed from another data source than the paper's).
    n_ambiguous : int
        Published cells of status ``ambiguous`` in the comparison (their candidates are
        shown; none is compared).
    """

    table: PublishedTable
    rows: pd.DataFrame
    n_compared: int
    n_agree: int
    largest: list[tuple[str, float, str, float]]
    n_flagged: int = 0
    n_published_only: int = 0
    not_compared: tuple[tuple[str, str], ...] = ()
    n_ambiguous: int = 0

    def summary_line(self) -> str:
        """One sentence: how many cells agree, the largest differences, flagged cells."""
        label = self.table.label
        if self.table.metric == "none":
            # Only other measures (iterations, seconds): shown beside ours, never compared.
            return (f"{label}: the paper prints {' and '.join(self.table.measures)} only; "
                    "shown beside ours, not compared (another machine and implementation).")
        tolerance_text = (f"within {STD_MULTIPLIER:g} published std ({NO_STD_TOLERANCE:g} "
                          "points where no std is printed)")
        if self.n_compared == 0:
            text = f"{label}: no cell has both a published and a reproduced number"
        else:
            cells = "cell" if self.n_compared == 1 else "cells"
            verb = "agrees" if self.n_compared == 1 else "agree"
            text = (f"{label}: {self.n_agree} of {self.n_compared} {cells} with a published "
                    f"number {verb} {tolerance_text}")
            several_rates = self.rows["noise_rate"].round(6).nunique() > 1
            diffs = [f"{ds}/{alg}" + (f" (noise {rate:g})" if several_rates else "")
                     + f" {delta:+.2f}" for ds, rate, alg, delta in self.largest]
            text += ("; largest difference: " if len(diffs) == 1
                     else "; largest differences: ") + ", ".join(diffs)
        if self.n_flagged:
            text += (f"; {self.n_flagged} published "
                     + ("cell is" if self.n_flagged == 1 else "cells are")
                     + " flagged medium/low confidence")
        if self.n_published_only:
            text += (f"; {self.n_published_only} published "
                     + ("number has" if self.n_published_only == 1 else "numbers have")
                     + " no result of ours yet")
        if self.not_compared:
            text += "; not counted: " + ", ".join(f"{d} ({why})" for d, why in self.not_compared)
        if self.n_ambiguous:
            one = self.n_ambiguous == 1
            text += (f"; {self.n_ambiguous} published "
                     + ("cell is ambiguous (its" if one else "cells are ambiguous (their")
                     + " candidates shown, not compared)")
        return text + "."


def _ours_lookup(ours: pd.DataFrame) -> dict[tuple[str, float, str], Any]:
    needed = ["dataset", "noise_rate", "algorithm", "mean", "std", "n"]
    missing = [c for c in needed if c not in ours.columns]
    if missing:
        raise ValueError(f"ours lacks columns {missing}; expected {needed}")
    lookup = {}
    for row in ours.itertuples(index=False):
        key = (row.dataset, rate_key(row.noise_rate), row.algorithm)
        if key in lookup:
            raise ValueError(f"ours has two rows for {key}")
        lookup[key] = row
    return lookup


def _nan_if_none(value) -> float:
    return math.nan if value is None or pd.isna(value) else float(value)


def compare(ours: pd.DataFrame, table: PublishedTable, datasets: Sequence[str],
            algorithms_map: Mapping[str, str | None], noise_rates: Sequence[float],
            not_compared: Mapping[str, str] | None = None) -> Comparison:
    """Put our results beside a published table and count agreement.

    Parameters
    ----------
    ours : pandas.DataFrame
        Columns ``dataset, noise_rate, algorithm`` (our column label), ``mean, std`` (test
        error %, NaN when there is none) and ``n`` (folds with a result), one row per cell;
        :func:`mcboost_cli.report.tables.summarize` gives this frame.
    table : PublishedTable
    datasets : sequence of str
        Catalog names, in display order.
    algorithms_map : mapping of str to str or None
        Our column label -> the paper's column name, or None for a column the paper lacks;
        its order is the display order.
    noise_rates : sequence of float
    not_compared : mapping of str to str, optional
        Dataset -> why its rows must not count (e.g. "rows from source 'generator', not the
        paper's"). Both numbers are still listed, but with no delta and no agreement, and
        the summary line names the dataset and the reason.

    Returns
    -------
    Comparison

    Raises
    ------
    UserError
        ``algorithms_map`` names a column the table does not have.
    ValueError
        ``ours`` lacks a column or has two rows for one cell.
    """
    for label, paper_algorithm in algorithms_map.items():
        if paper_algorithm is not None and paper_algorithm not in table.algorithms:
            raise UserError(f"{label}: {paper_algorithm!r} is not a column of {table.ref}; its "
                            f"columns: {', '.join(table.algorithms)}")
    lookup = _ours_lookup(ours)
    not_compared = {d: why for d, why in (not_compared or {}).items() if d in datasets}
    records = []
    for rate in noise_rates:
        for dataset in datasets:
            for label, paper_algorithm in algorithms_map.items():
                mine = lookup.get((dataset, rate_key(rate), label))
                ours_mean = math.nan if mine is None else _nan_if_none(mine.mean)
                ours_std = math.nan if mine is None else _nan_if_none(mine.std)
                n = 0 if mine is None or pd.isna(mine.n) else int(mine.n)
                cell = (table.cell(dataset, rate, paper_algorithm)
                        if paper_algorithm is not None else None)
                status = (cell.status if cell is not None
                          else table.absent_status(dataset, rate, paper_algorithm))
                published_mean = table.error_mean(cell)
                comparable = (status == "ok" and not math.isnan(ours_mean)
                              and not math.isnan(published_mean)
                              and dataset not in not_compared)
                delta = ours_mean - published_mean if comparable else math.nan
                cell_tolerance = tolerance(cell) if status == "ok" else math.nan
                printed = cell.printed if cell is not None else None
                if cell is not None and cell.status == "ambiguous":
                    printed = cell.candidates_text
                records.append({
                    "dataset": dataset, "noise_rate": float(rate), "algorithm": label,
                    "paper_algorithm": paper_algorithm, "ours_mean": ours_mean,
                    "ours_std": ours_std, "n": n,
                    "published_printed": printed,
                    "published_mean": published_mean,
                    "published_std": table.error_std(cell), "status": status,
                    "confidence": cell.confidence if cell is not None else None,
                    "flag": cell.flag if cell is not None else "",
                    "delta": delta, "tolerance": cell_tolerance,
                    "agrees": abs(delta) <= cell_tolerance + _EPS if comparable else pd.NA,
                })
    rows = pd.DataFrame(records, columns=ROW_COLUMNS)
    rows["agrees"] = rows["agrees"].astype("boolean")
    rows["n"] = rows["n"].astype(int)
    compared = rows[rows["agrees"].notna()]
    # sorted() is stable, so equal differences keep the table's order.
    by_size = sorted(compared.itertuples(index=False), key=lambda r: -abs(r.delta))
    largest = [(r.dataset, r.noise_rate, r.algorithm, float(r.delta)) for r in by_size[:3]]
    published_only = rows[(rows["status"] == "ok") & rows["ours_mean"].isna()
                          & ~rows["dataset"].isin(list(not_compared))]
    return Comparison(
        table=table, rows=rows, n_compared=len(compared),
        n_agree=int(compared["agrees"].sum()), largest=largest,
        n_flagged=int((compared["flag"] != "").sum()),
        n_published_only=len(published_only),
        # Named only where the paper has a number the row would have been compared with.
        not_compared=tuple((d, not_compared[d]) for d in datasets if d in not_compared
                           and (rows.loc[rows["dataset"] == d, "status"] == "ok").any()),
        n_ambiguous=int((rows["status"] == "ambiguous").sum()))


def _ours_text(row) -> str:
    if row is None or pd.isna(row.ours_mean):
        return "–"
    std = "–" if pd.isna(row.ours_std) else f"{row.ours_std:.2f}"
    return f"{row.ours_mean:.2f} ({std})"


def _published_text(row) -> str:
    if row is None or row.status in (NOT_IN_PAPER, "missing_from_source", "not_printed"):
        return "n/a"
    if row.status == "not_reported":
        return row.published_printed or "-"
    if row.status == "unreadable":
        return "unreadable"
    # ok: the printed value; ambiguous: its candidates in braces (compare() put them there).
    return f"{row.published_printed}{row.flag}"


def measure_texts(table: PublishedTable, datasets: Sequence[str], labels: Sequence[str],
                  noise_rate: float, measures: Sequence[str]) -> dict:
    """Display strings of the paper's other measures at one noise rate.

    Parameters
    ----------
    table : PublishedTable
    datasets, labels : sequence of str
        Catalog names and our column labels (a label is the paper's column of that name).
    noise_rate : float
    measures : sequence of str
        Measure names (:data:`~mcboost_cli.datasets.published.MEASURES`), e.g. a layout's
        extra measures; those the table does not print are left out.

    Returns
    -------
    dict
        ``(dataset, label, measure) -> text``: the number as printed with its confidence flag
        (``117852~``), or ``n/a`` where the paper prints none, for every measure the table
        prints.
    """
    out = {}
    for name in measures:
        if name not in table.measures:
            continue
        for dataset in datasets:
            for label in labels:
                cell = (table.cell(dataset, noise_rate, label) if label in table.algorithms
                        else None)
                m = cell.measures.get(name) if cell is not None else None
                out[(dataset, label, name)] = "n/a" if m is None else f"{m.printed}{m.flag}"
    return out


def side_by_side(comparison: Comparison, datasets: Sequence[str], labels: Sequence[str],
                 noise_rate: float) -> pd.DataFrame:
    """Display strings of ours beside the paper's numbers at one noise rate.

    Parameters
    ----------
    comparison : Comparison
    datasets : sequence of str
        The rows, in order.
    labels : sequence of str
        Our column labels, in order.
    noise_rate : float
        Compared after rounding to 6 decimals.

    Returns
    -------
    pandas.DataFrame
        Index ``dataset``; per label a column ``"<label>"`` with our ``mean (std)`` (2
        decimals, ``–`` when we have no result) and ``"<label> paper"`` with the printed
        value and its confidence flag (``n/a`` when the paper lacks the cell or its source
        lost it, ``-`` when the paper prints ``-``).
    """
    rows = comparison.rows
    at_rate = rows[rows["noise_rate"].map(rate_key) == rate_key(noise_rate)]
    by_key = {(r.dataset, r.algorithm): r for r in at_rate.itertuples(index=False)}
    columns = [name for label in labels for name in (label, f"{label} paper")]
    out = pd.DataFrame(index=pd.Index(list(datasets), name="dataset"), columns=columns,
                       dtype=object)
    for dataset in datasets:
        for label in labels:
            row = by_key.get((dataset, label))
            out.loc[dataset, label] = _ours_text(row)
            out.loc[dataset, f"{label} paper"] = _published_text(row)
    return out
