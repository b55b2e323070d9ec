"""Decision regions: the mesh a two-feature fit stores when it runs (``runner.work
.decision_mesh``) and the figure kind ``decision_regions`` drawn from it
(``report.figures``), on the MCBoost paper's synthetic data (``mcboost-gaussians``)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.algorithms.registry import get_algorithm
from mcboost_cli.datasets import load_dataset
from mcboost_cli.datasets.generators.mcboost_gaussians import bayes_predict
from mcboost_cli.errors import UserError
from mcboost_cli.runner import work
from mcboost_cli.runner.cells import Cell
from mcboost_cli.runner.config import validate_config
from mcboost_cli.runner.reference import cells_frame
from mcboost_cli.runner.store import ResultStore

from .test_cli import invoke


def _cell(dataset="mcboost-gaussians", protocol="predefined", n_rounds=12, fold=0):
    return Cell(experiment="t", dataset=dataset, protocol=protocol, fold=fold, noise_rate=0.0,
                seed=0, algorithm="cd_mcboost",
                algorithm_version=get_algorithm("cd_mcboost").version,
                params=(("max_depth", 1), ("n_rounds", n_rounds)))


@pytest.fixture
def fitted(monkeypatch):
    """run_cell's result, with the estimator it fitted (caught at construction)."""
    made = []
    real = work.get_algorithm

    def catching(name):
        cls = real(name)

        def make(**params):
            made.append(cls(**params))
            return made[-1]
        return make
    monkeypatch.setattr(work, "get_algorithm", catching)
    result = work.run_cell(_cell())
    return result, made[-1]


def test_stored_mesh_is_the_estimators_staged_prediction(fitted, tmp_path):
    result, est = fitted
    mesh = result.extra["mesh"]
    assert mesh["rounds"] == [1, 10, 12] and mesh["size"] == 120
    assert mesh["classes"] == ["1", "2", "3"]
    # Through the store and back, as the figure reads it.
    with ResultStore(tmp_path / "s.sqlite") as store:
        store.put(_cell(), result)
        _, stored = store.get(_cell().key)
        frame = store.frame()
    curves = stored.curves
    x1, x2 = np.array(curves["mesh_x1"]), np.array(curves["mesh_x2"])
    g1, g2 = np.meshgrid(x1, x2)
    points = np.column_stack([g1.ravel(), g2.ravel()])
    staged = [p.copy() for p in est.staged_predict(points)]
    assert len(staged) == 12
    for r in mesh["rounds"]:
        assert np.array_equal(np.array(curves[f"mesh_round_{r}"]), staged[r - 1]), r
    # The rounds differ from each other (the test compares something that changes).
    assert not np.array_equal(staged[0], staged[11])
    # The mesh: the data's bounding box widened by 5% of its extent on each side.
    ds = load_dataset("mcboost-gaussians")
    lo, hi = ds.X.min(axis=0), ds.X.max(axis=0)
    np.testing.assert_allclose([x1[0], x1[-1]], [lo[0] - 0.05 * (hi[0] - lo[0]),
                                                 hi[0] + 0.05 * (hi[0] - lo[0])])
    np.testing.assert_allclose([x2[0], x2[-1]], [lo[1] - 0.05 * (hi[1] - lo[1]),
                                                 hi[1] + 0.05 * (hi[1] - lo[1])])
    # The test points are the test part's rows.
    assert np.array_equal(np.column_stack([curves["test_x1"], curves["test_x2"]]),
                          ds.X[ds.test_mask])
    assert np.array_equal(np.array(curves["test_y"]), ds.y[ds.test_mask])
    # Not in the committed per-cell text.
    row = cells_frame(frame).iloc[0]
    assert not any("mesh" in str(v) for v in row.to_dict().values())


def test_mesh_record_is_deterministic(fitted):
    result, _ = fitted
    again = work.run_cell(_cell())
    assert again.curves == result.curves and again.extra["mesh"] == result.extra["mesh"]


def test_no_mesh_without_two_numeric_features():
    result = work.run_cell(_cell("balance-scale", "five_fold", n_rounds=3))
    assert "mesh" not in result.extra
    assert set(result.curves) == {"train", "valid", "test"}


# ----------------------------------------------------------------------------- config

BASE = {
    "experiment": "g", "datasets": ["mcboost-gaussians", "balance-scale"],
    "protocol": {"default": "five_fold", "mcboost-gaussians": "predefined"},
    "algorithms": [{"algorithm": "cd_mcboost", "label": "CD",
                    "params": {"n_rounds": 5}}],
}


def _figure(**kw):
    f = {"id": "f", "kind": "decision_regions", "table": "results",
         "dataset": "mcboost-gaussians", "algorithm": "CD"}
    f.update(kw)
    return validate_config(dict(BASE, figures=[f]), "c.yaml")


def test_config_decision_regions_keys():
    assert _figure().figures[0].rounds == ()
    assert _figure(rounds=[100, 10, 10]).figures[0].rounds == (10, 100)
    cases = [
        (dict(dataset="balance-scale"), "figures[0].dataset: 'balance-scale' has 4 features"),
        (dict(rounds=[0]), "figures[0].rounds: [0] is not valid; expected a list of positive"),
        (dict(rounds="10"), "figures[0].rounds"),
        (dict(compare=["CD"]), "figures[0].compare: is not valid for kind decision_regions"),
        (dict(kind="phase_curves", rounds=[1]), "figures[0].rounds: is only valid for kind "
                                                "decision_regions"),
        # results.csv would be the table's and the figure's file at once
        (dict(id="results"), "figures[0].id: 'results' is used twice (a table or a figure "
                             "has it)"),
    ]
    for kw, message in cases:
        with pytest.raises(UserError) as info:
            _figure(**kw)
        text = str(info.value)
        assert message in text and "\n" not in text, (kw, text)


# ----------------------------------------------------------------------------- end to end

CONFIG = """\
experiment: gauss
title: "MCBoost synthetic example, tiny"
datasets: [mcboost-gaussians]
protocol: predefined
algorithms:
  - algorithm: cd_mcboost
    label: CD-MCBoost
    params: {n_rounds: 30, max_depth: 1}
figures:
  - id: figure2
    kind: decision_regions
    title: "Figure 2 tiny"
    table: results
    dataset: mcboost-gaussians
    algorithm: CD-MCBoost
"""
NAMES = ("figure2.png", "figure2.svg", "figure2.csv")


def test_decision_regions_figure_end_to_end(tmp_path):
    cfg = tmp_path / "g.yaml"
    cfg.write_text(CONFIG)
    out, store = tmp_path / "results", tmp_path / "cells.sqlite"
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--results-dir", str(out),
                "--store", str(store)], tmp_path)
    assert r.exit_code == 0, r.output
    drawn = {name: (out / name).read_bytes() for name in NAMES}
    assert all(drawn.values())
    csv = pd.read_csv(out / "figure2.csv")
    test = csv[csv["series"] == "test_error_percent"]
    assert test["round"].tolist() == list(range(1, 31))
    table = pd.read_csv(out / "results.csv")
    assert test["value"].iloc[-1] == pytest.approx(float(table["mean"].iloc[0]), abs=1e-9)
    # The Bayes line: the closed-form rule's error on the test set.
    ds = load_dataset("mcboost-gaussians")
    bayes = 100 * np.mean(bayes_predict(ds.X[ds.test_mask]) != ds.y[ds.test_mask])
    assert csv.loc[csv["series"] == "bayes_test_error_percent", "value"].item() == \
        pytest.approx(bayes, abs=1e-6)
    disagree = csv[csv["series"] == "mesh_disagreement_with_bayes_percent"]
    assert disagree["round"].tolist() == [1, 10, 30]

    # Re-rendered from the store: the same bytes (fixed metadata).
    r = invoke(["report", str(cfg), "--results-dir", str(out), "--store", str(store)],
               tmp_path)
    assert r.exit_code == 0, r.output
    assert {name: (out / name).read_bytes() for name in NAMES} == drawn

    # rounds: only those recorded are drawn.
    cfg2 = tmp_path / "g2.yaml"
    cfg2.write_text(CONFIG + "    rounds: [10, 500]\n")
    r = invoke(["report", str(cfg2), "--results-dir", str(tmp_path / "r2"),
                "--store", str(store)], tmp_path)
    assert r.exit_code == 0, r.output
    csv2 = pd.read_csv(tmp_path / "r2" / "figure2.csv")
    assert csv2.loc[csv2["series"] == "mesh_disagreement_with_bayes_percent",
                    "round"].tolist() == [10]

    # A cell without the mesh record: the figure is not drawn, its files stay as they are.
    with sqlite3.connect(store) as conn:
        (extra,) = conn.execute("SELECT extra FROM results").fetchone()
        extra = json.loads(extra)
        del extra["mesh"]
        conn.execute("UPDATE results SET extra = ?", (json.dumps(extra),))
    for name in NAMES:
        (out / name).write_bytes(b"old")
    r = invoke(["report", str(cfg), "--results-dir", str(out), "--store", str(store)],
               tmp_path)
    assert r.exit_code == 0, r.output
    assert all((out / name).read_bytes() == b"old" for name in NAMES)
    assert not any(Path(p).name in NAMES for p in r.stderr.split(", "))
