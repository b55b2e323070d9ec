"""BrownBoost (``algorithms/brownboost``): the kernels against their numpy twins; one round's
step (Freund's ODE with solve_ivp) against an independent solver of the same two equations;
Freund's invariants on whole fits, read from the public outputs only (the remaining time
falls every round and the fit ends when it is used up, the potential keeps its initial value
after every round, the new weights are uncorrelated (to nu) with the round's tree, the final
training error is at most 1 - erf(sqrt(c))); the large-c limit, AdaBoost (SAMME for two
classes) with a quarter of its vote weights; the cutoff readings; one-line errors."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import erf, erfinv

from mcboost_cli.algorithms.adaboost import SAMME
from mcboost_cli.algorithms.brownboost import (
    END_CORRELATION,
    END_TIME,
    BrownBoost,
    _brown_weights,
    brown_weights_naive,
    correlation,
    correlation_naive,
    potential,
    potential_naive,
    solve_round,
    time_budget,
)

from ._synthetic import ordinal_classes


def _binary(seed=0, n=300, noise=0.6, flip=0.0):
    X, y = ordinal_classes(seed, n=n, K=2, noise=noise)
    if flip:
        rng = np.random.default_rng(seed + 100)
        y = np.where(rng.random(n) < flip, 1 - y, y)
    return X, y


def _round_case(rng, n=200, S=1.0, edge=0.3):
    """A round's a = (r + s)/sqrt(c), b = h y: margins spread as after some rounds, and a
    hypothesis whose correlation with the weights e^{-a^2} is above 0.02 (a weak learner's)."""
    while True:
        a = S + rng.normal(scale=0.7, size=n)
        b = np.where(rng.random(n) < (1 + edge) / 2, 1.0, -1.0)
        if correlation(a, b, 0.0, 0.0) > 0.02:
            return a, b


# -- kernels ------------------------------------------------------------------------------------


def test_kernels_equal_their_numpy_twins():
    rng = np.random.default_rng(0)
    a, b = _round_case(rng)
    for A, T in ((0.0, 0.0), (0.3, 0.1), (1.7, 0.9)):
        assert correlation(a, b, A, T) == pytest.approx(correlation_naive(a, b, A, T),
                                                        rel=1e-12, abs=1e-14)
        assert potential(a, b, A, T) == pytest.approx(potential_naive(a, b, A, T), rel=1e-13)
    r = rng.normal(scale=0.5, size=100)
    w = np.empty(100)
    _brown_weights(r, 0.8, 1.3, w)
    np.testing.assert_allclose(w, brown_weights_naive(r, 0.8, 1.3), rtol=1e-12)


def test_shifted_kernels_survive_where_every_weight_underflows():
    # (r + s)^2 / c about 1000 for every example: exp underflows to 0, the shifted forms
    # do not (neighbouring weights differ by about e^2).
    r = np.array([0.0, 1.0, -1.0, 2.0])
    assert np.all(np.exp(-(r + 1000.0) ** 2 / 1000.0) == 0.0)
    w = np.empty(4)
    _brown_weights(r, 1000.0, 1000.0, w)
    assert np.all(np.isfinite(w)) and w.sum() == pytest.approx(1.0)
    assert np.argmax(w) == 2 and w[3] < w[0] < w[2]      # the smallest (r + s)^2 weighs most
    b = np.array([1.0, -1.0, 1.0, -1.0])
    assert np.isfinite(correlation(1000.0 + r, b, 0.0, 0.0))


# -- one round ----------------------------------------------------------------------------------


def _curve_solver(a, b, S, nu):
    """Independent solution of the round: T(A) from conserving the potential (brentq; the
    potential falls strictly in T), then A scanned from 0 in steps of S/200 for the first
    point where gamma(A, T(A)) <= nu or T(A) >= S, refined by brentq."""
    p0 = potential_naive(a, b, 0.0, 0.0)

    def T_of(A):
        f = lambda T: potential_naive(a, b, A, T) - p0  # noqa: E731
        lo, hi = -1.0, 1.0
        while f(hi) > 0:
            hi *= 2
        while f(lo) < 0:
            lo *= 2
        return brentq(f, lo, hi, xtol=1e-14, rtol=1e-14)

    def g(A):
        return correlation_naive(a, b, A, T_of(A)) - nu

    def k(A):
        return T_of(A) - S

    A0, h = 0.0, S / 200
    while True:
        A1 = A0 + h
        if k(A1) >= 0 and (g(A1) > 0 or brentq(k, A0, A1) <= brentq(g, A0, A1)):
            return brentq(k, A0, A1, xtol=1e-14), S, END_TIME
        if g(A1) <= 0:
            A = brentq(g, A0, A1, xtol=1e-14)
            return A, T_of(A), END_CORRELATION
        A0 = A1


@pytest.mark.parametrize("seed,S,edge,nu", [(1, 2.0, 0.2, 0.01), (2, 0.05, 0.4, 0.01),
                                            (3, 1.0, 0.1, 1e-6), (4, 0.5, 0.6, 0.05)])
def test_round_matches_an_independent_solver_of_freunds_two_equations(seed, S, edge, nu):
    rng = np.random.default_rng(seed)
    a, b = _round_case(rng, S=S, edge=edge)
    sol = solve_round(a, b, S, nu)
    A, T, end = _curve_solver(a, b, S, nu)
    assert sol.end == end
    assert sol.A == pytest.approx(A, rel=1e-7, abs=1e-9)
    assert sol.T == pytest.approx(T, rel=1e-7, abs=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_step_conserves_the_potential_and_ends_uncorrelated_or_out_of_time(seed):
    rng = np.random.default_rng(seed)
    S = [0.02, 0.3, 1.0, 2.5, 4.0, 8.0][seed]
    a, b = _round_case(rng, n=150, S=S, edge=0.05 + 0.1 * seed)
    nu = 1e-6
    sol = solve_round(a, b, S, nu)
    # (2) conservation, to the integrator's tolerance (rtol 1e-10 on T).
    assert abs(potential(a, b, sol.A, sol.T) - potential(a, b, 0.0, 0.0)) < 1e-7
    assert sol.A > 0 and 0 < sol.T <= S
    if sol.end == END_CORRELATION:
        # (3) the correlation at the new point is nu (~0): the round's equation.
        assert correlation(a, b, sol.A, sol.T) == pytest.approx(nu, abs=1e-9)
        assert sol.T < S
    else:
        assert sol.end == END_TIME and sol.T == S
        assert correlation(a, b, sol.A, sol.T) >= nu - 1e-9


def test_both_ends_occur():
    rng = np.random.default_rng(7)
    a, b = _round_case(rng, S=3.0, edge=0.2)
    assert solve_round(a, b, 3.0, 0.01).end == END_CORRELATION
    a, b = _round_case(rng, S=0.01, edge=0.2)
    assert solve_round(a, b, 0.01, 0.01).end == END_TIME


def test_time_crossing_inside_the_correlation_step_is_found():
    # The case that made solve_ivp's event on T = S fail: the step holding gamma = nu runs
    # past gamma = 0, where T falls back below S (measured on ionosphere, ALGORITHMS.md).
    rng = np.random.default_rng(11)
    for _ in range(30):
        S = float(rng.uniform(0.0005, 0.01))     # little time left, margins spread
        a, b = _round_case(rng, n=80, S=S, edge=rng.uniform(0.05, 0.3))
        sol = solve_round(a, b, S, 0.01)
        assert sol.T <= S
        A, T, end = _curve_solver(a, b, S, 0.01)
        assert sol.end == end
        assert sol.A == pytest.approx(A, rel=1e-6, abs=1e-9)


# -- whole fits ---------------------------------------------------------------------------------


def _staged_margins(est, X, y):
    """r_k = y sum_{j<=k} alpha_j h_j(x) after every round k, y in {-1, +1}."""
    ypm = np.where(y == est.classes_[1], 1.0, -1.0)
    return [ypm * (F[:, 1] - F[:, 0]) for F in est.staged_class_scores(X)]


@pytest.mark.parametrize("cutoff,cutoff_is,depth", [(2.0, "time", 2), (0.1, "target_error", 1),
                                                    (0.2, "target_error", 3)])
def test_fit_keeps_freunds_invariants(cutoff, cutoff_is, depth):
    X, y = _binary(3, flip=0.1)
    est = BrownBoost(cutoff=cutoff, cutoff_is=cutoff_is, max_depth=depth).fit(X, y)
    assert est.n_rounds_ >= 5
    c = est.c_
    # (1) the remaining time falls strictly every round and the fit ends when it is used up.
    s = np.array(est.remaining_time_)
    assert len(s) == est.n_rounds_ < est.n_rounds
    assert est.stop_reason_ == "remaining time used up"
    assert s[0] < c and np.all(np.diff(s) < 0) and s[-1] == 0.0
    assert np.all(np.array(est.round_time_) > 0)
    np.testing.assert_allclose(np.cumsum(est.round_time_), c - s, rtol=1e-12, atol=1e-15)
    assert est.round_end_[-1] == END_TIME
    # (2) the potential sum erf((r + s)/sqrt(c)) keeps its initial value n erf(sqrt(c)).
    margins = _staged_margins(est, X, y)
    sq = math.sqrt(c)
    p0 = len(y) * erf(sq)
    for r, s_k in zip(margins, s):
        assert np.sum(erf((r + s_k) / sq)) == pytest.approx(p0, abs=1e-6)
    # (3) rounds that ended on the correlation: the new weights' correlation with the round's
    # tree is nu. h_k y = sign of the round's change of the margins.
    prev = np.zeros(len(y))
    for k, (r, s_k) in enumerate(zip(margins, s)):
        if est.round_end_[k] == END_CORRELATION:
            b = np.sign(r - prev)
            z2 = (r + s_k) ** 2 / c
            w = np.exp(-(z2 - z2.min()))
            assert np.sum(w * b) / np.sum(w) == pytest.approx(est.nu, abs=1e-7)
        prev = r
    # Freund's bound: at s = 0 every mistake (r <= 0) holds potential 1 - erf(r/sqrt(c)) >= 1.
    assert est.train_errors_[-1] <= 1.0 - erf(sq) + 1e-9


def test_target_error_reading_meets_its_error_bound_on_noisy_labels():
    X, y = _binary(5, n=400, flip=0.15)
    for eps in (0.3, 0.2, 0.1):
        est = BrownBoost(cutoff=eps, cutoff_is="target_error", max_depth=2).fit(X, y)
        assert est.c_ == pytest.approx(erfinv(1 - eps) ** 2)
        assert 1 - erf(math.sqrt(est.c_)) == pytest.approx(eps)
        assert est.stop_reason_ == "remaining time used up"
        assert est.train_errors_[-1] <= eps


def test_time_budget_readings():
    assert time_budget(0.2, "time") == 0.2
    assert time_budget(0.1, "target_error") == pytest.approx(1.3528, abs=1e-4)


def test_large_c_is_adaboost_with_a_quarter_of_its_vote_weights():
    # (4) derived in ALGORITHMS.md: with r = 0, s = c the weights exp(-(r + s)^2/c) are
    # proportional to exp(-2 r) up to O(r t / c), and the round's equation becomes
    # sum W b e^{-2 alpha b} = 0: alpha -> ln((1 - err)/err) / 4, t -> -ln(2 sqrt(err(1-err)))/2.
    X, y = _binary(2)
    rounds = 6
    brown = BrownBoost(cutoff=1e6, nu=1e-10, max_depth=2, n_rounds=rounds).fit(X, y)
    ada = SAMME(n_rounds=rounds, max_depth=2, split_criterion="error").fit(X, y)
    assert brown.n_rounds_ == ada.n_rounds_ == rounds
    fb, fa = brown.forest_, ada.forest_
    n = fa.n_nodes_total
    assert fb.n_nodes_total == n
    for arr in ("feature", "threshold", "left", "leaf_label"):
        np.testing.assert_array_equal(getattr(fb, arr)[:n], getattr(fa, arr)[:n])
    np.testing.assert_allclose(np.array(fb.alpha) / np.array(fa.alpha), 0.25, rtol=1e-4)
    gamma0 = brown.round_edge_[0]
    assert brown.round_time_[0] == pytest.approx(-0.5 * math.log(math.sqrt(1 - gamma0 ** 2)),
                                                 rel=1e-4)
    np.testing.assert_array_equal(brown.predict(X), ada.predict(X))


def test_a_tree_without_edge_ends_the_fit_with_no_round():
    # Constant features: the tree is one leaf; with balanced labels its edge is 0 <= nu.
    X = np.ones((40, 3))
    y = np.repeat([0, 1], 20)
    est = BrownBoost(cutoff=1.0).fit(X, y)
    assert est.n_rounds_ == 0 and "nu" in est.stop_reason_


def test_small_time_budget_ends_in_the_first_round():
    # The time reading with a grid value: a tree with edge gamma uses up c below about
    # 2 gamma^2 in one round (ALGORITHMS.md) -- the step then ends on the time, not nu.
    X, y = _binary(4, noise=0.2)
    est = BrownBoost(cutoff=0.01, max_depth=3).fit(X, y)
    assert est.round_edge_[0] ** 2 * 2 > 0.01
    assert est.n_rounds_ == 1 and est.round_end_ == [END_TIME]


def test_gini_trees_can_stall_with_their_edge_at_nu_before_the_time_is_used_up():
    # Measured (ALGORITHMS.md, "Weak learner"): the Gini-best tree's edge on W falls to nu;
    # the step then ends at once, the next round grows the same tree: the fit stops with
    # time left. The least-error tree of the same depth (largest edge) uses the time up.
    X, y = _binary(5, n=400, flip=0.15)
    gini = BrownBoost(cutoff=0.2, cutoff_is="target_error", max_depth=1,
                      split_criterion="gini").fit(X, y)
    assert gini.remaining_time_[-1] > 0.5 * gini.c_
    assert "is at nu" in gini.stop_reason_ or "<= nu" in gini.stop_reason_
    assert gini.round_edge_[-1] < 2 * gini.nu
    error = BrownBoost(cutoff=0.2, cutoff_is="target_error", max_depth=1).fit(X, y)
    assert error.remaining_time_[-1] == 0.0 and error.train_errors_[-1] <= 0.2


# -- bad input ----------------------------------------------------------------------------------


@pytest.mark.parametrize("params,fragment", [
    ({"cutoff": 0.0}, "cutoff must be a positive number"),
    ({"cutoff": -1.0}, "cutoff must be a positive number"),
    ({"cutoff": 1.0, "cutoff_is": "target_error"}, "must be in (0, 1)"),
    ({"cutoff_is": "rounds"}, "cutoff_is must be one of"),
    ({"nu": 0.0}, "nu must be in (0, 1)"),
    ({"nu": 1.5}, "nu must be in (0, 1)"),
    ({"split_criterion": "entropy"}, "split_criterion must be one of"),
])
def test_bad_parameters_are_one_line_errors(params, fragment):
    X, y = _binary()
    with pytest.raises(ValueError) as info:
        BrownBoost(**params).fit(X, y)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_more_than_two_classes_is_a_one_line_error():
    X, y = ordinal_classes(0, K=3)
    with pytest.raises(ValueError, match="two-class booster: y has 3 classes") as info:
        BrownBoost().fit(X, y)
    assert "\n" not in str(info.value)
