"""Degradation slopes: how fast each algorithm's test error grows with the label-noise rate.

A noise sweep (``configs/noise_sweep.yaml``) runs every column of a table at several label-noise
rates r. For each (dataset, column) the table reports, at every rate, the mean test error % of
the validation-selected fits over the folds (and seeds) (``report.tables.summarize``: the
grid point and round chosen on the — noisy — validation part at *that* rate). This module
fits a straight line through those means and reports its slope.

Units
-----
The slope is in **percentage points of test error per unit of noise rate** (the x axis is the
rate as a fraction in [0, 1), the y axis the test error in %): a slope of 20 means that going
from clean labels to 30% noise costs 0.3 x 20 = 6 points of test error. Anchors: 0 is a learner
that noise does not hurt (with labels flipped uniformly to the other classes, the Bayes
decision rule stays the same for r < (K - 1)/K); about 100 is a learner that reproduces the
training labels it saw, noise and all, near every test point (a 1-nearest-neighbour rule).
``SLOPE_UNIT`` is the phrase the tables print.

Map of the module
-----------------
``least_squares_slope``   slope and intercept of the least-squares line through (r, error)
``slope_rows``            one row per (dataset, column) of a table: the slope, the intercept,
                          the mean error at each rate, its rank among the columns on that
                          dataset, whether every rate's cell is complete
``summary_rows``          one row per column: the mean slope over the datasets where it has
                          one, and the mean rank over the datasets where every column has one
                          (Demsar's average ranks, ties sharing their average rank)
``slopes_frame``          both, as the long frame of the table's CSV file
``display_frame``         the printed table: a row per dataset, a column per algorithm, then
                          the summary rows

A slope is computed only when the mean error is known at every rate of the sweep (a rate
whose every fold kept no round, "no fit", leaves the slope undefined: a line through the other
rates would not be the same measure); it is marked ``†`` when some rate's cell is partial (folds
or grid points not all done) and ``‡`` when some rate's mean is over the folds that fitted
only, as the per-rate tables mark them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

SLOPE_UNIT = "percentage points of test error per unit of noise rate"
# The CSV's name of the slope column (the unit in the name, so the file says it alone).
SLOPE_COLUMN = "slope_pp_per_unit_rate"
SUMMARY_MEAN_SLOPE = "mean slope"
SUMMARY_MEAN_RANK = "mean rank"


def least_squares_slope(rates, errors) -> tuple[float, float]:
    """(slope, intercept) of the least-squares line ``error = intercept + slope * rate``.

    Parameters
    ----------
    rates : array-like (n,), the noise rates as fractions in [0, 1) (at least two distinct)
    errors : array-like (n,), the mean test errors in % at those rates

    Returns
    -------
    slope : float, percentage points per unit of noise rate (``SLOPE_UNIT``)
    intercept : float, the line's test error % at rate 0

    The closed form ``sum((r - mean r)(e - mean e)) / sum((r - mean r)^2)``; ``numpy.polyfit``
    of degree 1 gives the same numbers (tested).
    """
    x = np.asarray(rates, dtype=float)
    y = np.asarray(errors, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"rates and errors must be 1-d of one length; got shapes {x.shape} "
                         f"and {y.shape}")
    dx = x - x.mean()
    ss = float(np.dot(dx, dx))
    if x.size < 2 or ss == 0.0:
        raise ValueError(f"a slope needs at least two distinct noise rates; got {x.tolist()}")
    slope = float(np.dot(dx, y - y.mean()) / ss)
    return slope, float(y.mean() - slope * x.mean())


def _rate_column(rate: float) -> str:
    """The CSV column of the mean test error % at one rate, e.g. ``error_at_0.05``."""
    return f"error_at_{rate:g}"


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``values`` (1 = smallest), ties sharing their average rank."""
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(values.size, dtype=float)
    ranks[order] = np.arange(1, values.size + 1, dtype=float)
    for v in np.unique(values):
        tied = values == v
        ranks[tied] = ranks[tied].mean()
    return ranks


def slope_rows(table, part_t: pd.DataFrame, rates) -> pd.DataFrame:
    """One row per (dataset, column) of ``table``: dataset, algorithm, the slope
    (``SLOPE_COLUMN``), intercept_percent, rank (among the columns on that dataset, 1 = the
    flattest; NaN unless every column has a slope there), complete (every rate's cell has
    every planned fold and grid point), n_no_fit (folds without a fit, over the rates),
    status (``ok``, or why there is no slope) and the mean test error % at each rate.

    Parameters
    ----------
    table : TableSpec
    part_t : DataFrame, the table's rows of ``report.tables.summarize``
    rates : sequence of float, the sweep's noise rates, in the config's order
    """
    rates = [float(r) for r in rates]
    by_key = {(r["dataset"], r["algorithm"], float(r["noise_rate"])): r
              for _, r in part_t.iterrows()}
    labels = [e.label for e in table.algorithms]
    rows = []
    for d in table.datasets:
        for label in labels:
            cells = [by_key.get((d, label, r)) for r in rates]
            means = np.array([np.nan if c is None or c["n"] == 0 else float(c["mean"])
                              for c in cells])
            row = {"dataset": d, "algorithm": label, SLOPE_COLUMN: np.nan,
                   "intercept_percent": np.nan, "rank": np.nan,
                   "complete": all(c is not None and bool(c["complete"]) for c in cells),
                   "n_no_fit": int(sum(int(c["n_no_fit"]) for c in cells if c is not None)),
                   "status": "ok"}
            row.update({_rate_column(r): m for r, m in zip(rates, means)})
            if len(rates) < 2:
                row["status"] = "fewer than 2 noise rates"
            elif any(c is None or c["n"] == 0 for c in cells):
                row["status"] = "not every rate has a done fold"
            elif np.isnan(means).any():
                row["status"] = "no fit at some rate"
            else:
                row[SLOPE_COLUMN], row["intercept_percent"] = least_squares_slope(rates, means)
            rows.append(row)
    frame = pd.DataFrame(rows, columns=["dataset", "algorithm", SLOPE_COLUMN,
                                        "intercept_percent", "rank", "complete", "n_no_fit",
                                        "status", *[_rate_column(r) for r in rates]])
    for d in table.datasets:
        at = frame["dataset"] == d
        slopes = frame.loc[at, SLOPE_COLUMN].to_numpy(dtype=float)
        if slopes.size and not np.isnan(slopes).any():
            frame.loc[at, "rank"] = _average_ranks(slopes)
    return frame


def summary_rows(table, slopes: pd.DataFrame) -> pd.DataFrame:
    """One row per column of ``table``: algorithm, mean_slope (over the datasets where it has
    a complete slope), n_datasets (their number), mean_rank (over the datasets where every
    column has a complete slope, ``rank`` of ``slope_rows``), n_ranked (their number).

    A partial slope (a cell with folds or grid points still to run, marked † in the table) is
    left out of both: a grid that has run only some of its points (DMCBoost's n′ = 1 before
    the siblings that continue from its Phase I) can have a slope far from the whole grid's."""
    complete = slopes["complete"].astype(bool)
    ranked = (slopes.assign(ok=slopes["rank"].notna() & complete)
              .groupby("dataset")["ok"].all())
    ranked_datasets = set(ranked[ranked].index)
    rows = []
    for e in table.algorithms:
        mine = slopes[slopes["algorithm"] == e.label]
        have = mine.loc[complete[mine.index], SLOPE_COLUMN].dropna()
        in_ranking = mine[mine["dataset"].isin(ranked_datasets)]
        rows.append({"algorithm": e.label,
                     "mean_slope": float(have.mean()) if len(have) else np.nan,
                     "n_datasets": int(len(have)),
                     "mean_rank": float(in_ranking["rank"].mean()) if len(in_ranking)
                     else np.nan,
                     "n_ranked": int(len(in_ranking))})
    return pd.DataFrame(rows, columns=["algorithm", "mean_slope", "n_datasets", "mean_rank",
                                       "n_ranked"])


def slopes_frame(table, part_t: pd.DataFrame, rates) -> pd.DataFrame:
    """The long frame of a noise_slopes table's CSV file: the ``slope_rows`` (``row`` =
    ``dataset``), then the ``summary_rows`` (``row`` = ``summary``, ``dataset`` empty, the mean
    slope in ``SLOPE_COLUMN`` and the mean rank in ``rank``)."""
    per = slope_rows(table, part_t, rates)
    summary = summary_rows(table, per)
    per.insert(0, "row", "dataset")
    per["n_datasets"] = np.nan
    per["n_ranked"] = np.nan
    tail = pd.DataFrame({"row": "summary", "dataset": "", "algorithm": summary["algorithm"],
                         SLOPE_COLUMN: summary["mean_slope"], "rank": summary["mean_rank"],
                         "n_datasets": summary["n_datasets"], "n_ranked": summary["n_ranked"]})
    out = pd.concat([per, tail], ignore_index=True)[list(per.columns)]
    # Whole numbers and flags stay so in the file (the summary rows leave them empty).
    for c in ("n_no_fit", "n_datasets", "n_ranked"):
        out[c] = pd.array(out[c], dtype="Int64")
    out["complete"] = pd.array(out["complete"], dtype="boolean")
    return out


def _slope_text(r) -> str:
    if r["status"] != "ok":
        return "no fit" if r["status"] == "no fit at some rate" else "–"
    mark = ("" if r["complete"] else "†") + ("‡" if r["n_no_fit"] else "")
    return f"{r[SLOPE_COLUMN]:+.2f}{mark}"


def display_frame(config, table, part_t: pd.DataFrame, rates) -> pd.DataFrame:
    """The printed noise_slopes table: a row per dataset (``dataset [source]`` for rows from
    another source, ``not run`` cells for datasets whose data could not be had), a column per
    algorithm, each cell the slope with its marks; then a ``mean slope`` row and a
    ``mean rank`` row (1 = the flattest)."""
    per = slope_rows(table, part_t, rates)
    summary = summary_rows(table, per).set_index("algorithm")
    labels = [e.label for e in table.algorithms]
    not_run = set(getattr(config, "not_run", ()))
    source = getattr(config, "source_of", lambda d: "")
    index = [f"{d} [{source(d)}]" if source(d) else d for d in table.datasets]
    wide = pd.DataFrame(index=index + [SUMMARY_MEAN_SLOPE, SUMMARY_MEAN_RANK], columns=labels,
                        dtype=object)
    for name, d in zip(index, table.datasets):
        for _, r in per[per["dataset"] == d].iterrows():
            wide.loc[name, r["algorithm"]] = ("not run" if d in not_run and r["status"] != "ok"
                                              else _slope_text(r))
    for label in labels:
        s = summary.loc[label]
        wide.loc[SUMMARY_MEAN_SLOPE, label] = ("–" if np.isnan(s["mean_slope"]) else
                                               f"{s['mean_slope']:+.2f}")
        wide.loc[SUMMARY_MEAN_RANK, label] = ("–" if np.isnan(s["mean_rank"]) else
                                              f"{s['mean_rank']:.2f}")
    wide.index.name = "dataset"
    return wide


def note(table, part_t: pd.DataFrame, rates) -> str:
    """The line under a noise_slopes table: the unit, what the summary rows average over."""
    per = slope_rows(table, part_t, rates)
    summary = summary_rows(table, per)
    n_ranked = int(summary["n_ranked"].max()) if len(summary) else 0
    rates_text = ", ".join(f"{float(r):g}" for r in rates)
    return (f"Slopes: the least-squares line through the mean test error % of the "
            f"validation-selected fits at each noise rate ({rates_text}), in {SLOPE_UNIT} "
            "(+20 = 6 more points of test error at 30% noise than without noise). Mean slope: "
            "over the datasets where the column has a complete slope (a partial one, marked †, "
            "is left out); mean rank: the columns ranked on each dataset by slope (1 = "
            f"flattest, ties share their average rank), averaged over the {n_ranked} datasets "
            "where every column has a complete slope.")
