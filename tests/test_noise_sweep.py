"""The noise sweep (issue 35): the figure kind ``noise_curves``, the table layout
``noise_slopes`` (``report.noise_slopes``) and ``configs/noise_sweep.yaml``.

The slope is the least-squares slope of the mean test error % (of the fits validation selected
at each rate) against the noise rate, in percentage points per unit of noise rate. The tests
check it against ``numpy.polyfit`` on the rendered numbers, and on synthetic results whose
errors are known lines — with a grid point whose test error is lower but whose validation
error is higher, so that a selection by test error, a selection across rates, or a slope in
other units gives other numbers.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.errors import UserError
from mcboost_cli.report.figures import NOISE_CURVES_COLUMNS, write_figures
from mcboost_cli.report.noise_slopes import (SLOPE_COLUMN, display_frame, least_squares_slope,
                                             slopes_frame)
from mcboost_cli.report.tables import summarize, write_outputs
from mcboost_cli.runner.config import load_config, validate_config
from mcboost_cli.runner.plan import expand

from .test_cli import invoke, mirror_env  # noqa: F401 (a fixture)


# -- the slope itself ---------------------------------------------------------------------


def test_least_squares_slope_is_numpy_polyfit():
    rng = np.random.default_rng(35)
    for n in (2, 3, 5, 9):
        x = np.sort(rng.uniform(0.0, 0.9, n))
        y = rng.uniform(0.0, 60.0, n)
        slope, intercept = least_squares_slope(x, y)
        ref = np.polyfit(x, y, 1)
        assert slope == pytest.approx(ref[0], rel=1e-10, abs=1e-9)
        assert intercept == pytest.approx(ref[1], rel=1e-10, abs=1e-9)
    # An exact line is recovered: error % = 12 + 35 r.
    rates = [0.0, 0.05, 0.1, 0.2, 0.3]
    assert least_squares_slope(rates, [12 + 35 * r for r in rates]) == pytest.approx((35, 12))


@pytest.mark.parametrize("rates, errors, message", [
    ([0.1], [5.0], "at least two distinct noise rates"),
    ([0.2, 0.2], [5.0, 7.0], "at least two distinct noise rates"),
    ([0.0, 0.1], [5.0], "1-d of one length"),
])
def test_least_squares_slope_refuses_what_has_no_slope(rates, errors, message):
    with pytest.raises(ValueError, match=message) as e:
        least_squares_slope(rates, errors)
    assert "\n" not in str(e.value)


# -- synthetic results with known lines ----------------------------------------------------

RATES = [0.0, 0.1, 0.3]
SYNTHETIC = {
    "experiment": "syn", "datasets": ["zoo", "glass"], "folds": [0, 1, 2],
    "noise_rates": RATES,
    "tables": [
        {"id": "sweep", "algorithms": [
            {"algorithm": "samme", "label": "A", "params": {"n_rounds": 10},
             "grid": {"max_depth": [1, 2]}},
            {"algorithm": "adaboost_mh", "label": "B", "params": {"n_rounds": 10}},
            {"algorithm": "cd_mcboost", "label": "C", "params": {"n_rounds": 10}},
            {"algorithm": "gd_mcboost", "label": "D", "params": {"n_rounds": 10}}]},
    ],
}
SYNTHETIC["tables"].append({"id": "slopes", "layout": {"kind": "noise_slopes"},
                            "algorithms": SYNTHETIC["tables"][0]["algorithms"]})
# Test error (a fraction) of each column as a function of the rate, per dataset. Column A's
# first grid point (max_depth 1) has the lower validation error at every rate, so it is the
# selected one; its second grid point has a lower, flat test error that a selection by test
# error (or one fit for all rates) would report instead.
SLOPE_A = {"zoo": 20.0, "glass": 40.0}          # percentage points per unit of noise rate


def _synthetic_results(planned):
    rows = []
    for pc in planned:
        c, r = pc.cell, pc.cell.noise_rate
        fold_wobble = 0.001 * (c.fold - 1)        # mean over folds 0, 1, 2 is 0
        if c.label == "A":
            base = 0.10 if c.dataset == "zoo" else 0.20
            if pc.grid_index == 0:
                valid, test = 0.1, base + SLOPE_A[c.dataset] / 100.0 * r + fold_wobble
            else:
                valid, test = 0.3, 0.05
        elif c.label == "B":
            valid, test = 0.2, 0.30 - 0.10 * r + fold_wobble
        elif c.label == "C":
            valid, test = 0.2, 0.25 + fold_wobble
        else:
            valid, test = 0.2, 0.15
        rows.append({"key": c.key, "status": "done", "valid_error": valid, "test_error": test,
                     "train_error": 0.0, "selected_round": 5, "n_rounds": 10,
                     "cpu_seconds": 0.01})
    return pd.DataFrame(rows).drop_duplicates("key")


@pytest.fixture
def synthetic():
    config = validate_config(SYNTHETIC, "syn.yaml")
    planned = expand(config)
    return config, planned, _synthetic_results(planned)


def test_slopes_of_known_lines(synthetic, tmp_path):
    config, planned, results = synthetic
    summary = summarize(config, planned, results)
    table = config.tables[1]
    frame = slopes_frame(table, summary[summary["table"] == "slopes"], config.noise_rates)
    per = frame[frame["row"] == "dataset"].set_index(["dataset", "algorithm"])
    for d in ("zoo", "glass"):
        # The selected grid point's line, in points per unit of rate (not 0.2 per unit, not
        # per point of noise, not the flat line of the unselected grid point).
        assert per.loc[(d, "A"), SLOPE_COLUMN] == pytest.approx(SLOPE_A[d], abs=1e-9)
        assert per.loc[(d, "B"), SLOPE_COLUMN] == pytest.approx(-10.0, abs=1e-9)
        assert per.loc[(d, "C"), SLOPE_COLUMN] == pytest.approx(0.0, abs=1e-9)
        assert per.loc[(d, "D"), SLOPE_COLUMN] == pytest.approx(0.0, abs=1e-9)
        # Ranks on the dataset: 1 = flattest (most negative), ties share 2.5.
        assert [per.loc[(d, a), "rank"] for a in "ABCD"] == [4.0, 1.0, 2.5, 2.5]
        # The mean test error % at each rate, as the per-rate table has it.
        for r in RATES:
            assert per.loc[(d, "A"), f"error_at_{r:g}"] == pytest.approx(
                (10.0 if d == "zoo" else 20.0) + SLOPE_A[d] * r, abs=1e-9)
    assert per["complete"].all() and (per["status"] == "ok").all()
    assert per.loc[("zoo", "A"), "intercept_percent"] == pytest.approx(10.0)
    summ = frame[frame["row"] == "summary"].set_index("algorithm")
    assert summ.loc["A", SLOPE_COLUMN] == pytest.approx(30.0)          # mean of 20 and 40
    assert summ.loc["B", SLOPE_COLUMN] == pytest.approx(-10.0)
    assert summ["rank"].tolist() == [4.0, 1.0, 2.5, 2.5]
    assert summ["n_datasets"].tolist() == [2] * 4 and summ["n_ranked"].tolist() == [2] * 4

    # The printed table: a row per dataset, then mean slope and mean rank.
    wide = display_frame(config, table, summary[summary["table"] == "slopes"],
                         config.noise_rates)
    assert list(wide.index) == ["zoo", "glass", "mean slope", "mean rank"]
    assert wide.loc["zoo", "A"] == "+20.00" and wide.loc["glass", "B"] == "-10.00"
    assert wide.loc["mean slope", "A"] == "+30.00" and wide.loc["mean rank", "C"] == "2.50"

    # The files: slopes.csv is the frame; polyfit on sweep.csv's per-rate means gives it.
    write_outputs(config, summary, tmp_path)
    csv = pd.read_csv(tmp_path / "slopes.csv")
    sweep = pd.read_csv(tmp_path / "sweep.csv")
    for _, row in csv[csv["row"] == "dataset"].iterrows():
        means = sweep[(sweep["dataset"] == row["dataset"])
                      & (sweep["algorithm"] == row["algorithm"])].sort_values("noise_rate")
        assert means["noise_rate"].tolist() == RATES
        ref = np.polyfit(means["noise_rate"], means["mean"], 1)[0]
        assert row[SLOPE_COLUMN] == pytest.approx(ref, abs=1e-5)
    md = (tmp_path / "slopes.md").read_text()
    assert "percentage points of test error per unit of noise rate" in md
    assert "mean rank" in md and "mean slope" in md


def _zoo_figure():
    """The synthetic sweep with one noise-curves figure (zoo): config, plan, results."""
    config = validate_config({**SYNTHETIC, "figures": [
        {"id": "f_zoo", "kind": "noise_curves", "table": "sweep", "dataset": "zoo"}]},
        "syn.yaml")
    planned = expand(config)
    return config, planned, _synthetic_results(planned)


def test_noise_curves_figure_plots_the_selected_means(synthetic, tmp_path):
    config, planned, results = _zoo_figure()
    paths = write_figures(config, planned, None, tmp_path, results)
    assert sorted(p.name for p in paths) == ["f_zoo.csv", "f_zoo.png", "f_zoo.svg"]
    csv = pd.read_csv(tmp_path / "f_zoo.csv")
    assert list(csv.columns) == NOISE_CURVES_COLUMNS
    assert csv["algorithm"].tolist() == [a for a in "ABCD" for _ in RATES]
    a = csv[csv["algorithm"] == "A"]
    # The selected grid point at every rate: 10 + 20 r (the other grid point is 5 % flat).
    np.testing.assert_allclose(a["mean_error_percent"], [10.0 + 20.0 * r for r in RATES],
                               atol=1e-9)
    np.testing.assert_allclose(a["std_error_percent"], 0.1, atol=1e-9)   # fold wobble ±0.1
    assert (csv["n"] == 3).all() and (csv["n_no_fit"] == 0).all()
    # polyfit on the plotted numbers is the slopes table's number.
    assert np.polyfit(a["noise_rate"], a["mean_error_percent"], 1)[0] == pytest.approx(20.0)
    # Drawing again gives the same files; so does drawing from the tables' summary of the
    # whole plan (what a report passes) instead of summarizing the figure's dataset itself.
    first = {p.name: p.read_bytes() for p in paths}
    again = write_figures(config, planned, None, tmp_path, results)
    assert {p.name: p.read_bytes() for p in again} == first
    given = write_figures(config, planned, None, tmp_path / "given", results,
                          summarize(config, planned, results))
    assert {p.name: p.read_bytes() for p in given} == first


def test_a_figure_interrupted_while_written_leaves_the_previous_files(synthetic, tmp_path,
                                                                      monkeypatch):
    # Ctrl-C while a report writes its figures: each file is the previous one or the new
    # one, never a truncated one, and no temporary file is left behind.
    from matplotlib.figure import Figure
    config, planned, results = _zoo_figure()
    paths = write_figures(config, planned, None, tmp_path, results)
    before = {p.name: p.read_bytes() for p in paths}
    real = Figure.savefig

    def interrupted_svg(self, fname, *args, **kwargs):
        if kwargs.get("format") == "svg":
            Path(fname).write_bytes(b"<svg half")       # half a file, then Ctrl-C
            raise KeyboardInterrupt
        return real(self, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", interrupted_svg)
    with pytest.raises(KeyboardInterrupt):
        write_figures(config, planned, None, tmp_path, results)
    assert {p.name: p.read_bytes() for p in paths} == before
    assert not list(tmp_path.glob("*.tmp"))


def test_partial_and_no_fit_cells(synthetic, tmp_path, caplog):
    config = validate_config({**SYNTHETIC, "figures": [
        {"id": "f_zoo", "kind": "noise_curves", "table": "sweep", "dataset": "zoo"},
        {"id": "f_glass", "kind": "noise_curves", "table": "sweep", "dataset": "glass"}]},
        "syn.yaml")
    planned = expand(config)
    results = _synthetic_results(planned)
    keys = {(pc.cell.dataset, pc.cell.label, pc.cell.noise_rate, pc.cell.fold,
             pc.grid_index): pc.cell.key for pc in planned}
    # zoo: column A's second grid point at rate 0.1, fold 2, not done -> A's cell partial.
    results = results[results["key"] != keys[("zoo", "A", 0.1, 2, 1)]].copy()
    # glass: column B kept no round on any fold at rate 0.3 -> no slope for B on glass.
    for fold in range(3):
        at = results["key"] == keys[("glass", "B", 0.3, fold, 0)]
        results.loc[at, ["valid_error", "test_error", "selected_round"]] = [np.nan, np.nan, 0]
    summary = summarize(config, planned, results)
    part = summary[summary["table"] == "slopes"]
    frame = slopes_frame(config.tables[1], part, config.noise_rates)
    per = frame[frame["row"] == "dataset"].set_index(["dataset", "algorithm"])
    assert not per.loc[("zoo", "A"), "complete"]
    assert per.loc[("zoo", "A"), SLOPE_COLUMN] == pytest.approx(20.0)   # its done folds
    assert per.loc[("glass", "B"), "status"] == "no fit at some rate"
    assert np.isnan(per.loc[("glass", "B"), SLOPE_COLUMN])
    assert per.loc[("glass", "B"), "n_no_fit"] == 3
    assert per.xs("glass")["rank"].isna().all()          # glass is not ranked at all
    # The summary counts complete slopes only: A's partial zoo slope is in neither its mean
    # slope nor a ranking (zoo is ranked per row but left out of the mean ranks).
    summ = frame[frame["row"] == "summary"].set_index("algorithm")
    assert per.xs("zoo")["rank"].tolist() == [4.0, 1.0, 2.5, 2.5]
    assert summ["n_ranked"].tolist() == [0] * 4 and summ["rank"].isna().all()
    assert summ.loc["B", "n_datasets"] == 1 and summ.loc["A", "n_datasets"] == 1
    assert summ.loc["A", SLOPE_COLUMN] == pytest.approx(per.loc[("glass", "A"), SLOPE_COLUMN])
    wide = display_frame(config, config.tables[1], part, config.noise_rates)
    assert wide.loc["zoo", "A"] == "+20.00†" and wide.loc["glass", "B"] == "no fit"
    # The figures: zoo waits for its partial cell (nothing written, the reason logged);
    # glass is drawn, B without a point at 0.3.
    with caplog.at_level(logging.INFO, logger="mcboost_cli.report.figures"):
        paths = write_figures(config, planned, None, tmp_path, results)
    assert sorted(p.name for p in paths) == ["f_glass.csv", "f_glass.png", "f_glass.svg"]
    assert "figure f_zoo is not drawn: 1 cells of zoo in table sweep are not all done " \
           "(A at 0.1)" in caplog.text
    glass = pd.read_csv(tmp_path / "f_glass.csv")
    b = glass[glass["algorithm"] == "B"].set_index("noise_rate")
    assert np.isnan(b.loc[0.3, "mean_error_percent"]) and b.loc[0.3, "n_no_fit"] == 3


# -- end to end: a tiny sweep through the CLI ----------------------------------------------

TINY = """\
experiment: tiny_sweep
datasets: [zoo, balance-scale]
folds: [0, 1]
noise_rates: [0.0, 0.1, 0.3]
tables:
  - id: sweep
    algorithms: &algos
      - {algorithm: samme, label: SAMME, params: {n_rounds: 15}, grid: {max_depth: [1, 3]}}
      - {algorithm: adaboost_mh, label: MH, params: {n_rounds: 15, max_depth: 2}}
  - id: slopes
    layout: {kind: noise_slopes}
    algorithms: *algos
figures:
  - {id: curves_zoo, kind: noise_curves, table: sweep, dataset: zoo, title: "zoo"}
  - {id: curves_bs, kind: noise_curves, table: sweep, dataset: balance-scale}
"""


def _selected_means_from_cells(cells: pd.DataFrame) -> dict:
    """(dataset, algorithm name, rate) -> mean test error % over folds of the fit with the
    lowest validation error among each fold's grid points (the first max_depth on ties),
    computed here from cells.csv without the package's selection code."""
    cells = cells.assign(depth=cells["params"].map(lambda p: json.loads(p)["max_depth"]))
    out = {}
    for (d, a, r), part in cells.groupby(["dataset", "algorithm", "noise_rate"]):
        errs = []
        for _, fold in part.groupby("fold"):
            best = fold.sort_values(["valid_error", "depth"], kind="mergesort").iloc[0]
            errs.append(100.0 * best["test_error"])
        out[(d, a, float(r))] = float(np.mean(errs))
    return out


def test_tiny_sweep_end_to_end(tmp_path, mirror_env):
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(TINY)
    out = tmp_path / "out"
    args = ["--results-dir", str(out), "--store", str(tmp_path / "cells.sqlite")]
    r = invoke(["run", str(cfg), "-j", "1", "-q", *args], tmp_path)
    assert r.exit_code == 0, r.output
    assert "slope of the mean test error % over 2 folds against the label-noise rate" in r.output
    cells = pd.read_csv(out / "cells.csv")
    selected = _selected_means_from_cells(cells)
    slopes = pd.read_csv(out / "slopes.csv")
    names = {"SAMME": "samme", "MH": "adaboost_mh"}
    for fig, d in (("curves_zoo", "zoo"), ("curves_bs", "balance-scale")):
        curve = pd.read_csv(out / f"{fig}.csv")
        assert curve["dataset"].eq(d).all() and len(curve) == 2 * 3
        for label in ("SAMME", "MH"):
            line = curve[curve["algorithm"] == label].sort_values("noise_rate")
            assert line["noise_rate"].tolist() == [0.0, 0.1, 0.3]
            # Each point: the validation-selected fit of each fold at that rate, averaged.
            for rate, mean in zip(line["noise_rate"], line["mean_error_percent"]):
                assert mean == pytest.approx(selected[(d, names[label], rate)], abs=1e-6)
            # The slope table's number is polyfit's on the plotted means, in points per unit.
            row = slopes[(slopes["row"] == "dataset") & (slopes["dataset"] == d)
                         & (slopes["algorithm"] == label)].iloc[0]
            ref = np.polyfit(line["noise_rate"], line["mean_error_percent"], 1)[0]
            assert row[SLOPE_COLUMN] == pytest.approx(ref, abs=1e-5)
            assert row["status"] == "ok" and bool(row["complete"])
    summary = slopes[slopes["row"] == "summary"].set_index("algorithm")
    per = slopes[slopes["row"] == "dataset"]
    for label in ("SAMME", "MH"):
        assert summary.loc[label, SLOPE_COLUMN] == pytest.approx(
            per.loc[per["algorithm"] == label, SLOPE_COLUMN].mean(), abs=1e-5)
    # Rendered again from the store: the same bytes.
    drawn = {p.name: p.read_bytes() for p in out.iterdir() if p.suffix in (".csv", ".svg")}
    r = invoke(["report", str(cfg), *args], tmp_path)
    assert r.exit_code == 0, r.output
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.name in drawn} == drawn


# -- config validation ------------------------------------------------------------------------

BASE = {"experiment": "x", "datasets": ["zoo", "glass"], "noise_rates": [0.0, 0.2],
        "tables": [{"id": "t", "algorithms": [{"algorithm": "samme", "label": "S"}]}]}


@pytest.mark.parametrize("figure, extra, message", [
    ({"fold": 1}, {}, "figures[0].fold: is not valid for kind noise_curves (it draws every "
                      "column of its table on one dataset at every noise rate; its keys: id, "
                      "kind, title, table, dataset); remove it"),
    ({"algorithm": "S"}, {}, "figures[0].algorithm: is not valid for kind noise_curves"),
    ({"compare": ["S"]}, {}, "figures[0].compare: is not valid for kind noise_curves"),
    ({"dataset": "car"}, {}, "figures[0].dataset: 'car' is not valid; expected one of zoo, "
                             "glass"),
    ({"dataset": None}, {}, "figures[0].dataset: missing required key"),
    ({"table": "nope"}, {}, "figures[0].table: 'nope' is not valid; expected one of t"),
    ({}, {"noise_rates": [0.2]}, "figures[0].kind: noise_curves draws the test error against "
                                 "the noise rate and noise_rates has 1; give at least 2 rates"),
    ({"temperatures": [1]}, {}, "figures[0].temperatures: is only valid for kind "
                                "loss_functions"),
])
def test_noise_curves_config_errors_are_one_line(figure, extra, message):
    fig = {"id": "f", "kind": "noise_curves", "table": "t", "dataset": "zoo", **figure}
    fig = {k: v for k, v in fig.items() if v is not None}
    with pytest.raises(UserError) as e:
        validate_config({**BASE, **extra, "figures": [fig]}, "c.yaml")
    assert message in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith("c.yaml: ")


@pytest.mark.parametrize("table, extra, message", [
    ({"layout": {"kind": "noise_slopes", "spread": "none"}}, {},
     "tables[0].layout.spread: is not valid for kind noise_slopes (its cells are slopes of the "
     "mean test error % against the noise rate; it takes only 'kind'); remove it"),
    ({"layout": {"kind": "noise_slopes", "measure": "accuracy"}}, {},
     "tables[0].layout.measure: is not valid for kind noise_slopes"),
    ({"layout": {"kind": "noise_slopes"}}, {"noise_rates": [0.1]},
     "tables[0].layout.kind: noise_slopes fits a line through the noise rates and noise_rates "
     "has 1; give at least 2 rates"),
    ({"layout": {"kind": "noise_slopes"}, "published": "dmcboost_kdd14/table4"}, {},
     "tables[0].published: is not valid with layout kind noise_slopes"),
    ({"layout": {"kind": "noise_slope"}}, {},
     "tables[0].layout.kind: 'noise_slope' is not valid; expected one of "
     "datasets_by_algorithms, algorithms_by_datasets, noise_slopes"),
])
def test_noise_slopes_config_errors_are_one_line(table, extra, message):
    t = {"id": "t", "algorithms": [{"algorithm": "samme", "label": "S"}], **table}
    with pytest.raises(UserError) as e:
        validate_config({**BASE, **extra, "tables": [t]}, "c.yaml")
    assert message in str(e.value) and "\n" not in str(e.value)


# -- the sweep's config ------------------------------------------------------------------------

# The left-out algorithms and datasets, each with its reason in configs/noise_sweep.yaml.
NOT_BOOSTERS = {"svm", "mlp"}
NOT_OFFLINE_OR_DUPLICATE = {"connect-4", "isolet", "mnist", "poker", "poker525k",
                            "letter-16000", "waveform-300"}


def test_noise_sweep_config_covers_every_multiclass_algorithm_and_dataset():
    """A new multi-class algorithm or offline multi-class dataset must be added to the sweep
    (or to the documented exclusions here and in the config): the sweep says "every"."""
    from mcboost_cli.algorithms.registry import all_algorithms
    from mcboost_cli.datasets import list_datasets
    path = Path(__file__).resolve().parents[1] / "configs" / "noise_sweep.yaml"
    config = load_config(path)
    multi = {n for n, cls in all_algorithms().items() if not cls.binary_only}
    assert {e.algorithm for e in config.tables[0].algorithms} == multi - NOT_BOOSTERS
    multi_ds = {d["name"] for d in list_datasets() if d["classes"] > 2}
    assert set(config.datasets) == multi_ds - NOT_OFFLINE_OR_DUPLICATE
    # The slopes table has the same columns (the same cells), and a figure per dataset.
    assert config.tables[1].layout.kind == "noise_slopes"
    assert config.tables[1].algorithms == config.tables[0].algorithms
    assert [f.dataset for f in config.figures if f.kind == "noise_curves"] == \
        list(config.datasets)
    assert config.noise_rates == (0.0, 0.05, 0.1, 0.2, 0.3)
    text = path.read_text()
    for name in NOT_BOOSTERS | NOT_OFFLINE_OR_DUPLICATE:
        assert name in text, f"{name}: its exclusion is not explained in the config"
