"""The measuring helper of ``benchmarks/bench_directboost.py`` (``CallTimer``): it records one
time per call of what it wraps, so its counts equal the rounds the estimators report, it
changes no result, and it leaves the classes and modules it patched as they were. No timing
is asserted (benchmarks report; tests never time)."""

import numpy as np
import pytest

from benchmarks.bench_directboost import CallTimer
from mcboost_cli.algorithms import lpboost
from mcboost_cli.algorithms.directboost import DirectBoostEpsAvg
from mcboost_cli.algorithms.dmcboost import DirectBoosting

from ._synthetic import ordinal_classes

PHASES = ["_boost_phase1", "_boost_phase2"]


@pytest.fixture(scope="module")
def binary_data():
    return ordinal_classes(seed=0, n=200, K=2)


@pytest.mark.parametrize("n_rounds", [10, 200])
def test_one_lp_solve_timed_per_kept_lpboost_round(binary_data, n_rounds):
    X, y = binary_data
    master = lpboost.RestrictedMasterLP
    original = vars(master)["add_column_and_solve"]
    with CallTimer(master, ["add_column_and_solve"]) as timer:
        timed = lpboost.LPBoost(n_rounds=n_rounds, max_depth=2).fit(X, y)
    assert vars(master)["add_column_and_solve"] is original
    plain = lpboost.LPBoost(n_rounds=n_rounds, max_depth=2).fit(X, y)
    # 10: the budget ends the fit; 200: the optimality test does (its round solves no LP).
    assert timed.converged_ == (n_rounds == 200)
    assert len(timer.calls["add_column_and_solve"]) == timed.n_rounds_ == plain.n_rounds_
    assert len(timed.lp_seconds_) == timed.n_rounds_
    np.testing.assert_array_equal(timed.train_errors_, plain.train_errors_)
    np.testing.assert_array_equal(timed.soft_margins_, plain.soft_margins_)


@pytest.mark.parametrize("n_rounds", [20, 500])
def test_phase_calls_match_the_rounds_directboost_reports(binary_data, n_rounds):
    X, y = binary_data
    with CallTimer(DirectBoostEpsAvg, PHASES) as timer:
        timed = DirectBoostEpsAvg(n_rounds=n_rounds, max_depth=2).fit(X, y)
    plain = DirectBoostEpsAvg(n_rounds=n_rounds, max_depth=2).fit(X, y)
    n1 = timed.n_phase1_rounds_
    n2 = timed.n_rounds_ - n1
    assert n1 > 0 and n2 > 0
    # Phase I's last call hands over (keeps no round); Phase II's last call, when its own
    # rule ends the fit (500) rather than the budget (20), keeps none either.
    stopped_by_rule = timed.stop_reason_.startswith("phase II")
    assert stopped_by_rule == (n_rounds == 500)
    assert len(timer.calls["_boost_phase1"]) == n1 + 1
    assert len(timer.calls["_boost_phase2"]) == n2 + int(stopped_by_rule)
    assert all(s >= 0.0 for s in timer.calls["_boost_phase1"] + timer.calls["_boost_phase2"])
    np.testing.assert_array_equal(timed.train_errors_, plain.train_errors_)
    np.testing.assert_array_equal(timed.objective_, plain.objective_)
    assert timed.n_rounds_ == plain.n_rounds_


def test_inherited_methods_are_wrapped_on_the_subclass_and_removed_after():
    base = {name: vars(DirectBoosting)[name] for name in PHASES}
    with CallTimer(DirectBoostEpsAvg, PHASES):
        assert all(name in vars(DirectBoostEpsAvg) for name in PHASES)
        assert all(vars(DirectBoosting)[name] is fn for name, fn in base.items())
    assert not any(name in vars(DirectBoostEpsAvg) for name in PHASES)
    assert all(vars(DirectBoosting)[name] is fn for name, fn in base.items())


def test_an_unknown_name_fails_and_patches_nothing():
    original = lpboost.solve_restricted_master
    with pytest.raises(AttributeError, match="no_such_function"):
        with CallTimer(lpboost, ["solve_restricted_master", "no_such_function"]):
            pass
    assert lpboost.solve_restricted_master is original
    assert "no_such_function" not in vars(lpboost)
