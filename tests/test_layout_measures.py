"""Extra measures of a table layout added for the DirectBoost paper's Table 2: ``rounds_run``
(the rounds a fit ran) and ``grid_cpu_seconds`` (every grid point's CPU seconds of a cell,
summed) beside ``rounds`` and ``cpu_seconds``; and the paper's own numbers of those measures
(iterations, seconds) shown beside ours in both orientations, never compared."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.report.tables import _table_csv, summarize, wide_tables
from mcboost_cli.runner.config import validate_config
from mcboost_cli.runner.plan import expand

LABELS = ["AdaBoost", "LPBoost", "DirectBoost_eps_avg"]


def _config(layout, folds=(0, 1)):
    data = {
        "experiment": "t2", "datasets": ["adult-10000", "car"], "folds": list(folds),
        "protocol": {"default": "five_fold", "adult-10000": "predefined_test_halves"},
        "tables": [{
            "id": "table2", "title": "T2", "published": "directboost_nips13/table2",
            "layout": layout,
            "algorithms": [
                {"algorithm": "samme", "label": "AdaBoost", "params": {"n_rounds": 9}},
                {"algorithm": "samme", "label": "LPBoost", "params": {"n_rounds": 7},
                 "grid": {"max_depth": [1, 2, 3]}},
                {"algorithm": "adaboost_m1", "label": "DirectBoost_eps_avg",
                 "params": {"n_rounds": 5}, "grid": {"max_depth": [1, 2]}},
            ]}],
    }
    return validate_config(data, "c.yaml")


def _results(planned, drop_cpu_of=()):
    """Known numbers per fit: grid point g of entry e on fold f: validation error chooses the
    last grid point; n_rounds = 100 e + 10 g + f; cpu = 1 + e + g + f / 10."""
    rows = []
    for pc in planned:
        e, g, f = pc.entry_index, pc.grid_index, pc.cell.fold
        rows.append({"key": pc.cell.key, "status": "done", "valid_error": 0.5 - 0.1 * g,
                     "test_error": 0.1 + 0.01 * e, "train_error": 0.0,
                     "selected_round": 1 + g, "n_rounds": 100 * e + 10 * g + f,
                     "cpu_seconds": np.nan if (e, g) in drop_cpu_of else 1.0 + e + g + f / 10})
    return pd.DataFrame(rows)


def test_summary_of_rounds_run_and_grid_cpu_seconds():
    config = _config({"extra": ["rounds", "rounds_run", "cpu_seconds", "grid_cpu_seconds"]})
    planned = expand(config)
    s = summarize(config, planned, _results(planned)).set_index(["dataset", "algorithm"])
    car_lp = s.loc[("car", "LPBoost")]
    # Selected: grid point 2 (validation 0.3) on folds 0 and 1.
    assert car_lp["mean_selected_round"] == 3
    assert car_lp["mean_rounds_run"] == pytest.approx((120 + 121) / 2)
    assert car_lp["mean_cpu_seconds"] == pytest.approx((4.0 + 4.1) / 2)
    # Every grid point summed per fold, then the mean over folds: (2+3+4) + (2.1+3.1+4.1).
    assert car_lp["mean_grid_cpu_seconds"] == pytest.approx((9.0 + 9.3) / 2)
    # Without a grid the grid sum is the fit's own time.
    ada = s.loc[("adult-10000", "AdaBoost")]
    assert ada["mean_grid_cpu_seconds"] == ada["mean_cpu_seconds"] == 1.0
    assert ada["mean_rounds_run"] == 0
    # A grid point without a recorded CPU time leaves the grid sum unknown (not a part sum).
    partial = summarize(config, planned, _results(planned, drop_cpu_of={(1, 0)}))
    row = partial.set_index(["dataset", "algorithm"]).loc[("car", "LPBoost")]
    assert np.isnan(row["mean_grid_cpu_seconds"]) and row["mean_cpu_seconds"] == \
        pytest.approx(4.05)


def test_the_papers_measures_beside_ours_by_datasets():
    config = _config({"extra": ["rounds_run", "cpu_seconds", "grid_cpu_seconds"],
                      "spread": "none"})
    planned = expand(config)
    summary = summarize(config, planned, _results(planned))
    (rate, wide), = wide_tables(config, summary, config.tables[0])
    assert list(wide.columns) == [
        c for label in LABELS for c in (
            label, f"{label} rounds run", f"{label} rounds run paper", f"{label} CPU s",
            f"{label} CPU s paper", f"{label} grid CPU s", f"{label} paper")]
    assert wide.loc["adult-10000", "AdaBoost rounds run paper"] == "117852~"
    assert wide.loc["adult-10000", "LPBoost rounds run paper"] == "286"
    assert wide.loc["adult-10000", "DirectBoost_eps_avg CPU s paper"] == "606?"
    assert wide.loc["adult-10000", "LPBoost rounds run"] == "120"
    assert wide.loc["adult-10000", "LPBoost grid CPU s"] == "9.00"
    assert wide.loc["car", "AdaBoost CPU s paper"] == "n/a"       # not in the paper
    assert wide.loc["adult-10000", "AdaBoost paper"] == "n/a"     # the paper prints no error


def test_the_papers_measures_beside_ours_by_algorithms():
    config = _config({"kind": "algorithms_by_datasets", "spread": "none",
                      "extra": ["rounds_run", "cpu_seconds"]}, folds=(0,))
    planned = expand(config)
    summary = summarize(config, planned, _results(planned))
    (_, wide), = wide_tables(config, summary, config.tables[0])
    assert list(wide.index) == [n for label in LABELS for n in (label, f"{label} paper")]
    assert list(wide.columns) == ["adult-10000", "adult-10000 rounds run", "adult-10000 CPU s",
                                  "car", "car rounds run", "car CPU s"]
    assert list(wide.loc["AdaBoost paper"]) == ["n/a", "117852~", "31168~", "n/a", "n/a", "n/a"]
    assert wide.loc["DirectBoost_eps_avg paper", "adult-10000 rounds run"] == "1737?"
    assert wide.loc["LPBoost", "adult-10000 rounds run"] == "120"


def test_table_csv_carries_the_extra_measures_it_shows_only():
    shown = _config({"extra": ["rounds_run", "grid_cpu_seconds"]})
    planned = expand(shown)
    summary = summarize(shown, planned, _results(planned))
    header = _table_csv(shown, shown.tables[0], summary).splitlines()[0].split(",")
    assert "mean_rounds_run" in header and "mean_grid_cpu_seconds" in header
    assert "mean_cpu_seconds" not in header and "mean_selected_round" in header
    plain = _config({"spread": "std"})
    header = _table_csv(plain, plain.tables[0], summary).splitlines()[0].split(",")
    assert not {"mean_rounds_run", "mean_grid_cpu_seconds", "mean_cpu_seconds"} & set(header)


def test_cpu_seconds_summarized_from_the_store_equal_those_from_cells_csv():
    """cells.csv writes CPU seconds to the millisecond; the summary of the store's raw seconds
    rounds the same way, also on the half-millisecond values where numpy's half-to-even
    rounding of ``v * 1000`` and the decimal rounding of the written text disagree (0.0025
    reads 0.002 under one and 0.003 under the other)."""
    from mcboost_cli.runner.reference import seconds_text
    config = _config({"extra": ["cpu_seconds", "grid_cpu_seconds"]})
    planned = expand(config)
    raw = _results(planned)
    halves = [0.0005 + 0.001 * k for k in range(len(raw))]
    assert any(np.round(v, 3) != float(seconds_text(v)) for v in halves)
    raw["cpu_seconds"] = halves
    from_file = raw.assign(cpu_seconds=[float(seconds_text(v)) for v in halves])
    cols = ["mean_cpu_seconds", "mean_grid_cpu_seconds"]
    pd.testing.assert_frame_equal(summarize(config, planned, raw)[cols],
                                  summarize(config, planned, from_file)[cols])
