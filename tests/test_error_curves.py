"""The figure kind ``error_curves`` (the coherence paper's Figure 3): error per boosting round
of a few columns of one table, drawn from the curves the cells stored when they ran."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.errors import UserError
from mcboost_cli.runner.config import validate_config

from .test_cli import invoke

# Two boosters with different round counts on the generated three-Gaussian data (no files).
CONFIG = """\
experiment: curves
title: "error curves, tiny"
datasets: [mcboost-gaussians]
protocol: predefined
algorithms:
  - algorithm: gentleboost_c
    label: GentleBoost.C
    params: {n_rounds: 12, max_leaves: 4}
  - algorithm: samme
    label: SAMME
    params: {n_rounds: 7, max_depth: 2}
  - algorithm: cd_mcboost
    label: CD-MCBoost
    params: {n_rounds: 9, max_depth: 1}
figures:
  - id: figure3
    kind: error_curves
    title: "Figure 3 tiny"
    table: results
    dataset: mcboost-gaussians
    algorithm: GentleBoost.C
    compare: [SAMME]
"""
NAMES = ("figure3.png", "figure3.svg", "figure3.csv")


def test_error_curves_end_to_end(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(CONFIG)
    out, store = tmp_path / "results", tmp_path / "cells.sqlite"
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--results-dir", str(out),
                "--store", str(store)], tmp_path)
    assert r.exit_code == 0, r.output
    drawn = {name: (out / name).read_bytes() for name in NAMES}
    assert all(drawn.values())
    csv = pd.read_csv(out / "figure3.csv")
    # Only the figure's columns (CD-MCBoost is in the table, not in the figure), test only.
    assert list(dict.fromkeys(csv["algorithm"])) == ["GentleBoost.C", "SAMME"]
    assert set(csv["part"]) == {"test"}
    cells = pd.read_csv(out / "cells.csv")
    for label, algorithm, n in (("GentleBoost.C", "gentleboost_c", 12), ("SAMME", "samme", 7)):
        line = csv[csv["algorithm"] == label]
        assert line["round"].tolist() == list(range(1, n + 1))
        # The last point is the error the table reports for that cell (round H, no early
        # stopping under the predefined protocol).
        cell = cells[cells["algorithm"] == algorithm].iloc[0]
        assert line["error_percent"].iloc[-1] == pytest.approx(100 * cell["test_error"],
                                                               abs=1e-6)
    # The curves change from round to round (the test compares something that moves).
    assert csv[csv["algorithm"] == "GentleBoost.C"]["error_percent"].nunique() > 1
    # A row per line in <id>_lines.csv: its grid point (params once, not on every round) and
    # as many rounds as the line has points.
    lines_bytes = (out / "figure3_lines.csv").read_bytes()
    lines = pd.read_csv(out / "figure3_lines.csv")
    assert lines[["algorithm", "part"]].values.tolist() == [["GentleBoost.C", "test"],
                                                            ["SAMME", "test"]]
    assert lines["n_rounds"].tolist() == [12, 7]
    assert "max_depth=2" in lines["params"].iloc[1] and "n_rounds=7" in lines["params"].iloc[1]
    assert "params" not in csv.columns

    # Re-rendered from the store: the same bytes; training and test panels on request.
    r = invoke(["report", str(cfg), "--results-dir", str(out), "--store", str(store)],
               tmp_path)
    assert r.exit_code == 0, r.output
    assert {name: (out / name).read_bytes() for name in NAMES} == drawn
    assert (out / "figure3_lines.csv").read_bytes() == lines_bytes
    cfg2 = tmp_path / "c2.yaml"
    cfg2.write_text(CONFIG + "    parts: [train, test]\n")
    r = invoke(["report", str(cfg2), "--results-dir", str(tmp_path / "r2"),
                "--store", str(store)], tmp_path)
    assert r.exit_code == 0, r.output
    csv2 = pd.read_csv(tmp_path / "r2" / "figure3.csv")
    assert list(dict.fromkeys(csv2["part"])) == ["train", "test"]
    train = csv2[(csv2["part"] == "train") & (csv2["algorithm"] == "SAMME")]
    cell = cells[cells["algorithm"] == "samme"].iloc[0]
    assert train["error_percent"].iloc[-1] == pytest.approx(100 * cell["train_error"],
                                                            abs=1e-6)
    test2 = csv2[csv2["part"] == "test"].reset_index(drop=True)
    assert np.array_equal(test2["error_percent"].to_numpy(), csv["error_percent"].to_numpy())
    # A logarithmic round axis draws the same numbers on a different axis.
    cfg3 = tmp_path / "c3.yaml"
    cfg3.write_text(CONFIG + "    x_scale: log\n")
    r = invoke(["report", str(cfg3), "--results-dir", str(tmp_path / "r3"),
                "--store", str(store)], tmp_path)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "r3" / "figure3.csv").read_bytes() == drawn["figure3.csv"]
    assert (tmp_path / "r3" / "figure3.svg").read_bytes() != drawn["figure3.svg"]


BASE = {
    "experiment": "g", "datasets": ["mcboost-gaussians"], "protocol": "predefined",
    "algorithms": [{"algorithm": "cd_mcboost", "label": "CD", "params": {"n_rounds": 5}},
                   {"algorithm": "samme", "label": "SAMME", "params": {"n_rounds": 5}}],
}


def _figure(**kw):
    f = {"id": "f", "kind": "error_curves", "table": "results",
         "dataset": "mcboost-gaussians", "algorithm": "CD"}
    f.update(kw)
    return validate_config(dict(BASE, figures=[f]), "c.yaml")


def test_config_error_curves_keys():
    assert _figure().figures[0].parts == ("test",)
    assert _figure().figures[0].x_scale == "linear"
    assert _figure(x_scale="log").figures[0].x_scale == "log"
    assert _figure(parts=["train", "test"], compare=["SAMME"]).figures[0].parts == \
        ("train", "test")
    cases = [
        (dict(parts=["valid"]), "figures[0].parts[0]: 'valid' is not valid; expected names "
                                "among train, test"),
        (dict(parts=[]), "figures[0].parts: [] is not valid; expected a non-empty list"),
        (dict(parts=["test", "test"]), "figures[0].parts: ['test', 'test'] has duplicates"),
        (dict(compare=["AdaBoost"]), "figures[0].compare[0]: 'AdaBoost' is not valid; "
                                     "expected a label of table results: CD, SAMME"),
        (dict(kind="phase_curves", parts=["test"]), "figures[0].parts: is only valid for "
                                                    "kind error_curves"),
        (dict(rounds=[1]), "figures[0].rounds: is only valid for kind decision_regions"),
        (dict(x_scale="logit"), "figures[0].x_scale: 'logit' is not valid; expected one of "
                                "linear, log"),
        (dict(kind="phase_curves", x_scale="log"), "figures[0].x_scale: is only valid for "
                                                   "kind error_curves"),
    ]
    for kw, message in cases:
        with pytest.raises(UserError) as info:
            _figure(**kw)
        text = str(info.value)
        assert message in text and "\n" not in text, (kw, text)
    with pytest.raises(UserError) as info:
        validate_config(
            dict(BASE, figures=[{"id": "f", "kind": "error_curves", "table": "results",
                                 "dataset": "mcboost-gaussians"}]), "c.yaml")
    assert "figures[0].algorithm: missing required key" in str(info.value)
