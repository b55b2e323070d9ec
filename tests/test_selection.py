"""Model selection (``protocol.selection``): the round of a fit, the grid point of a fold.

The properties every paper protocol relies on: test errors never change a selection (round or
grid point), ties go to the earliest round and the first grid point, and ``select`` equals a
plain-loop reference on random plans (ties, missing and failed fits, fits without a
validation error, keys shared between tables).
"""

from __future__ import annotations

import math
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.algorithms.registry import get_algorithm
from mcboost_cli.protocol import selection
from mcboost_cli.protocol.selection import (
    GROUP, RULE_LAST, RULE_OWN, RULE_VALIDATION, plan_frame, reported_round, select,
    select_round,
)
from mcboost_cli.runner.cells import DONE, STATUSES
from mcboost_cli.runner.config import validate_config
from mcboost_cli.runner.plan import expand

# -- the module's place among the layers -----------------------------------------------------


def test_selection_imports_neither_runner_nor_report():
    code = ("import sys, mcboost_cli.protocol.selection; "
            "print(sorted(m for m in sys.modules if m.startswith(('mcboost_cli.runner', "
            "'mcboost_cli.report'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"


def test_done_is_the_stores_word_for_a_finished_fit():
    assert selection.DONE == DONE


# -- 1. the round of a fit --------------------------------------------------------------------


def test_reported_round_rules():
    est = SimpleNamespace(early_stopping=True, n_rounds_=4,
                          eval_errors_=[np.array([0.5, 0.2, 0.3, 0.2]), np.zeros(4)])
    # No validation part: eval_errors_[0] is then the test curve, and the last round counts.
    assert reported_round(est, has_validation=False) == (4, RULE_LAST)
    # With validation: first round of the minimum (1-based), not the last.
    assert reported_round(est, has_validation=True) == (2, RULE_VALIDATION)
    own = SimpleNamespace(early_stopping=False, best_round_=3, n_rounds_=9,
                          eval_errors_=[np.array([0.0] * 9)])
    for has_validation in (False, True):
        assert reported_round(own, has_validation) == (3, RULE_OWN)
    # best_round_ 0 (the fit ended before Phase II): the last round kept.
    assert reported_round(SimpleNamespace(early_stopping=False, best_round_=0, n_rounds_=7),
                          has_validation=True) == (7, RULE_OWN)
    assert (RULE_OWN, RULE_LAST, RULE_VALIDATION) == (
        "own stopping rule", "last round (no validation part)", "validation early stopping")


def _first_minimum(curve) -> int:
    """1-based round of the first minimum, by a plain loop."""
    best = 0
    for t in range(1, len(curve)):
        if curve[t] < curve[best]:
            best = t
    return best + 1


def test_round_ties_go_to_the_earliest_round():
    assert select_round(np.array([0.3, 0.1, 0.2, 0.1])) == 2
    assert select_round(np.full(6, 0.25)) == 1
    rng = np.random.default_rng(0)
    for _ in range(300):
        # Few distinct values, so most curves have a tied minimum.
        curve = rng.integers(0, 4, size=int(rng.integers(1, 30))) / 8.0
        assert select_round(curve) == _first_minimum(curve)


def _scrambled(curve, rng):
    """Other test curves of the same length: permuted, reversed, redrawn, constant."""
    return [rng.permutation(curve), curve[::-1].copy(), rng.random(curve.size),
            np.zeros(curve.size), 1.0 - curve]


def test_scrambled_test_curves_never_change_the_round():
    rng = np.random.default_rng(1)
    for _ in range(200):
        n = int(rng.integers(2, 40))
        valid, test = rng.integers(0, 5, n) / 10.0, rng.random(n)
        best_round = int(rng.integers(0, n + 1))
        for early_stopping in (True, False):
            for has_validation in (True, False):
                curves = [valid, test] if has_validation else [test]
                est = SimpleNamespace(early_stopping=early_stopping, n_rounds_=n,
                                      best_round_=best_round, eval_errors_=curves)
                chosen = reported_round(est, has_validation)
                for other in _scrambled(test, rng):
                    est.eval_errors_ = [valid, other] if has_validation else [other]
                    assert reported_round(est, has_validation) == chosen


@pytest.mark.parametrize("algorithm", ["samme", "dmcboost"])
def test_test_labels_change_no_fitted_curve_but_the_test_curve(algorithm):
    """A real fit: permuting the test labels changes the test curve and nothing the round
    is chosen from (training and validation curves, the own rule's best_round_)."""
    rng = np.random.default_rng(2)
    X = rng.integers(0, 6, size=(300, 4)).astype(float)
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 3, 300)) // 4).astype(int) % 3
    train, valid, test = np.split(np.arange(300), [180, 240])
    cls = get_algorithm(algorithm)
    fits = []
    for y_test in (y[test], rng.permutation(y[test]), (y[test] + 1) % 3):
        est = cls(**cls.test_params).fit(X[train], y[train],
                                         eval_set=[(X[valid], y[valid]), (X[test], y_test)])
        fits.append(est)
    first = fits[0]
    assert any(not np.array_equal(f.eval_errors_[1], first.eval_errors_[1]) for f in fits)
    for est in fits[1:]:
        assert est.n_rounds_ == first.n_rounds_
        np.testing.assert_array_equal(est.train_errors_, first.train_errors_)
        np.testing.assert_array_equal(est.eval_errors_[0], first.eval_errors_[0])
        assert reported_round(est, True) == reported_round(first, True)
        assert getattr(est, "best_round_", None) == getattr(first, "best_round_", None)


# -- 2. the grid point of a fold --------------------------------------------------------------

CONFIG = {
    "experiment": "t",
    "datasets": ["car"],
    "folds": [0, 1],
    "noise_rates": [0.0],
    "algorithms": [{"algorithm": "samme", "label": "S", "grid": {"max_depth": [1, 2, 3]}}],
}


def _planned():
    return expand(validate_config(CONFIG, "t.yaml", known_datasets=["car"]))


def _results(planned, valid, test, status=None):
    """valid/test: dict (fold, grid) -> error; status: dict (fold, grid) -> status."""
    status = status or {}
    return pd.DataFrame([{
        "key": pc.cell.key, "status": status.get((pc.cell.fold, pc.grid_index), DONE),
        "valid_error": valid[(pc.cell.fold, pc.grid_index)],
        "test_error": test[(pc.cell.fold, pc.grid_index)], "train_error": 0.0,
        "selected_round": 5,
    } for pc in planned])


def test_grid_ties_go_to_the_first_grid_point():
    planned = _planned()
    # Fold 0: all three tie, the later points have the better test errors. Fold 1: points 1
    # and 2 tie at the minimum.
    valid = {(0, 0): 0.2, (0, 1): 0.2, (0, 2): 0.2, (1, 0): 0.3, (1, 1): 0.1, (1, 2): 0.1}
    test = {(0, 0): 0.9, (0, 1): 0.1, (0, 2): 0.0, (1, 0): 0.0, (1, 1): 0.8, (1, 2): 0.1}
    sel = select(planned, _results(planned, valid, test)).set_index("fold")
    assert sel.loc[0, "grid_index"] == 0 and sel.loc[0, "test_error"] == 0.9
    assert sel.loc[1, "grid_index"] == 1 and sel.loc[1, "test_error"] == 0.8
    assert sel["complete_grid"].all() and (sel["grid_size"] == 3).all()


def test_no_validation_error_ranks_last_and_partial_grids_say_so():
    planned = _planned()
    nan = float("nan")
    valid = {(0, 0): nan, (0, 1): 0.4, (0, 2): nan, (1, 0): nan, (1, 1): nan, (1, 2): 0.1}
    test = dict.fromkeys(valid, 0.5)
    status = {(1, 2): "failed"}
    sel = select(planned, _results(planned, valid, test, status)).set_index("fold")
    assert sel.loc[0, "grid_index"] == 1 and sel.loc[0, "complete_grid"]
    # Fold 1: the only point with a validation error failed; the first of the others wins.
    assert sel.loc[1, "grid_index"] == 0 and not sel.loc[1, "complete_grid"]


def test_nothing_done_selects_nothing():
    planned = _planned()
    assert select(planned, pd.DataFrame()).empty
    valid = dict.fromkeys(((f, g) for f in (0, 1) for g in range(3)), 0.1)
    failed = dict.fromkeys(valid, "failed")
    sel = select(planned, _results(planned, valid, valid, failed))
    assert sel.empty and "complete_grid" in sel.columns


def test_planned_cells_and_their_plain_frame_select_alike():
    planned = _planned()
    rng = np.random.default_rng(3)
    keys = [(f, g) for f in (0, 1) for g in range(3)]
    valid = dict(zip(keys, rng.integers(0, 3, 6) / 4))
    test = dict(zip(keys, rng.random(6)))
    results = _results(planned, valid, test)
    from_cells = select(planned, results)
    pd.testing.assert_frame_equal(from_cells, select(plan_frame(planned), results))
    # Duck-typed planned cells (no runner class) give the same frame.
    ducks = [SimpleNamespace(cell=pc.cell, table_index=pc.table_index,
                             entry_index=pc.entry_index, grid_index=pc.grid_index)
             for pc in planned]
    pd.testing.assert_frame_equal(from_cells, select(ducks, results))


def _random_plan(rng, n_tables=2, n_groups=12) -> pd.DataFrame:
    """A plan frame: groups of 1-5 grid points; table 1 shares some fits (keys) of table 0."""
    rows = []
    for g in range(n_groups):
        group = {"table_index": 0, "dataset": f"d{g % 3}", "noise_rate": [0.0, 0.1][g % 2],
                 "seed": int(rng.integers(0, 2)), "fold": g, "entry_index": int(g % 2)}
        for point in range(int(rng.integers(1, 6))):
            rows.append({**group, "grid_index": point, "key": f"k{g}-{point}"})
    for t in range(1, n_tables):
        for r in list(rows):
            if r["table_index"] == 0 and rng.random() < 0.5:
                rows.append({**r, "table_index": t})
    order = rng.permutation(len(rows))
    return pd.DataFrame([rows[i] for i in order])


def _random_results(rng, plan: pd.DataFrame) -> pd.DataFrame:
    keys = sorted(set(plan["key"])) + ["not-planned-1", "not-planned-2"]
    rows = []
    for key in keys:
        if rng.random() < 0.15:
            continue                                    # not run yet
        valid = float(rng.integers(0, 4)) / 10 if rng.random() < 0.85 else float("nan")
        rows.append({"key": key, "status": rng.choice(STATUSES, p=[0.8, 0.1, 0.1]),
                     "valid_error": valid, "test_error": float(rng.random()),
                     "train_error": float(rng.random()),
                     "selected_round": int(rng.integers(1, 100))})
    return pd.DataFrame(rows).sample(frac=1.0, random_state=int(rng.integers(1 << 30)))


def _reference_select(plan: pd.DataFrame, results: pd.DataFrame) -> dict:
    """GROUP values -> (selected key, complete_grid, grid_size), by plain loops: the lowest
    validation error, a missing one after every present one, the first grid point on ties."""
    by_key = {r["key"]: r for r in results.to_dict("records")}
    groups: dict[tuple, list[dict]] = {}
    for r in plan.to_dict("records"):
        groups.setdefault(tuple(r[c] for c in GROUP), []).append(r)
    out = {}
    for group, points in groups.items():
        best, best_valid, n_done = None, math.nan, 0
        for point in sorted(points, key=lambda p: p["grid_index"]):
            res = by_key.get(point["key"])
            if res is None or res["status"] != DONE:
                continue
            n_done += 1
            v = res["valid_error"]
            if best is None or (math.isnan(best_valid) and not math.isnan(v)) or v < best_valid:
                best, best_valid = point, v
        if best is not None:
            out[group] = (best["key"], n_done == len(points), len(points))
    return out


def _selection_of(sel: pd.DataFrame) -> dict:
    return {tuple(r[c] for c in GROUP): (r["key"], bool(r["complete_grid"]), r["grid_size"])
            for r in sel.to_dict("records")}


@pytest.mark.parametrize("seed", range(40))
def test_select_equals_a_plain_loop_reference(seed):
    rng = np.random.default_rng(seed)
    plan = _random_plan(rng)
    results = _random_results(rng, plan)
    sel = select(plan, results)
    assert _selection_of(sel) == _reference_select(plan, results)
    assert len(sel) == len(_reference_select(plan, results))
    # The selected rows carry their own fit's numbers.
    by_key = results.set_index("key")
    for r in sel.to_dict("records"):
        for c in ("valid_error", "test_error", "train_error", "selected_round"):
            a, b = r[c], by_key.loc[r["key"], c]
            assert a == b or (pd.isna(a) and pd.isna(b))


@pytest.mark.parametrize("seed", range(20))
def test_scrambled_test_errors_never_change_the_grid_point(seed):
    rng = np.random.default_rng(100 + seed)
    plan = _random_plan(rng)
    results = _random_results(rng, plan)
    chosen = _selection_of(select(plan, results))
    others = [rng.permutation(results["test_error"].to_numpy()),
              1.0 - results["test_error"].to_numpy(), np.zeros(len(results)),
              rng.random(len(results))]
    for test_error in others:
        scrambled = results.assign(test_error=test_error)
        sel = select(plan, scrambled)
        assert _selection_of(sel) == chosen
        # ... and the table reports the (scrambled) test error of the chosen fit.
        by_key = scrambled.set_index("key")["test_error"]
        np.testing.assert_array_equal(sel["test_error"].to_numpy(float),
                                      by_key.loc[sel["key"]].to_numpy(float))
