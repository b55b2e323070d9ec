"""DirectBoost (binary): the K = 2 reduction against an independent implementation of the
paper's binary Alg. 1, the exact n'-th order line search, the constrained and relaxed Phase II
variants, and agreement with DMCBoost's first Phase I choices."""

import numpy as np
import pytest

from mcboost_cli.algorithms.directboost import (
    DirectBoostAvg,
    DirectBoostEpsAvg,
    DirectBoostOrder,
)
from mcboost_cli.algorithms.dmcboost import DMCBoost
from mcboost_cli.learners import line_search as ls
from mcboost_cli.learners import naive_zero_one as nz
from mcboost_cli.learners.margin_search_exhaustive import OBJ_BOTTOM_AVG, OBJ_ORDER
from mcboost_cli.learners.margin_tree import grow_margin_tree
from mcboost_cli.learners.zero_one_workspace import ZeroOneWorkspace

VARIANTS = [DirectBoostAvg, DirectBoostEpsAvg, DirectBoostOrder]


def binary_data(seed, n=200, F=4, noise=0.4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    z = X[:, 0] - 0.7 * X[:, 1] + 0.5 * X[:, 2] * X[:, 3] + noise * rng.normal(size=n)
    return X, (z > 0).astype(int)


def binary_state(rng, n, T, integer):
    """A random binary ensemble a(x) = sum_t alpha_t h_t(x), h in {-1, +1}, and its
    label-vote scores (class 0 = -1, class 1 = +1)."""
    a = np.zeros(n)
    c = 0.0
    for _ in range(T):
        w = float(rng.integers(1, 4)) if integer else float(rng.uniform(0.1, 2))
        a += w * rng.choice([-1.0, 1.0], n)
        c += w
    scores = np.column_stack([(c - a) / 2, (c + a) / 2])   # F(x, +1) - F(x, -1) = a
    return a, scores, c


def directboost_alg1(a, y_pm, h_pm, unit=1.0):
    """DirectBoost Alg. 1 lines 4-10 for one weak classifier, written from the paper:
    F(x_i, y_i) = y_i h(x_i) alpha + y_i a(x_i); e_i = |a(x_i)|; slope > 0 and intercept < 0:
    error update -1 right of e_i; slope < 0 and intercept > 0: +1. Returns (alpha, error)."""
    slope = y_pm * h_pm
    icpt = y_pm * a
    err = int(np.sum((icpt < 0) | ((icpt == 0) & (slope < 0))))   # the error just right of 0
    updates = {}
    for e, s, b in zip(np.abs(a), slope, icpt, strict=True):
        if s > 0 and b < 0:
            updates[e] = updates.get(e, 0) - 1
        elif s < 0 and b > 0:
            updates[e] = updates.get(e, 0) + 1
    keys = sorted(updates)
    best, best_lo, best_hi = err, 0.0, (keys[0] if keys else np.inf)
    for j, e in enumerate(keys):
        err += updates[e]
        if err < best:
            best, best_lo = err, e
            best_hi = keys[j + 1] if j + 1 < len(keys) else np.inf
    alpha = best_lo + unit if best_hi == np.inf else (best_lo + best_hi) / 2
    return alpha, best


def test_binary_zero_one_line_search_is_directboost_alg1():
    rng = np.random.default_rng(0)
    for it in range(400):
        n = int(rng.integers(1, 30))
        a, scores, _ = binary_state(rng, n, int(rng.integers(0, 5)), integer=it % 2 == 0)
        y = rng.integers(0, 2, n).astype(np.int32)
        vote = rng.integers(0, 2, n).astype(np.int32)
        alpha, err, _, _, _ = ls.line_search_zero_one(scores, y, vote, 1.0, np.empty(n),
                                                      np.empty(n))
        alpha_b, err_b = directboost_alg1(a, 2.0 * y - 1, 2.0 * vote - 1)
        # The breakpoints are |a| there and differences of two scores here: equal up to
        # rounding (exactly equal for integer weights).
        assert err == err_b
        assert alpha == pytest.approx(alpha_b, rel=1e-12, abs=1e-12)
        if it % 2 == 0:
            assert alpha == alpha_b


def test_order_margin_line_search_is_exact():
    rng = np.random.default_rng(1)
    for it in range(300):
        n = int(rng.integers(1, 16))
        _, scores, c = binary_state(rng, n, int(rng.integers(1, 5)), integer=it % 2 == 0)
        y = rng.integers(0, 2, n).astype(np.int32)
        vote = rng.integers(0, 2, n).astype(np.int32)
        m = np.empty(n)
        ls.unnormalised_margins(scores, y, m)
        hit = vote == y
        inc, dec = np.sort(m[hit]), np.sort(m[~hit])
        k = int(rng.integers(1, n + 1))
        hi = 2 * c + 1
        a_ex, v_ex = ls.max_order_margin_exact(inc, len(inc), dec, len(dec), k, c, hi)
        p, s, w = nz.pieces_naive(scores, y, np.arange(n), vote)
        a_bf, v_bf = nz.order_max_naive(p, s, w, k, c, hi)
        assert abs(v_ex - v_bf) <= 1e-12 * (1 + abs(v_bf))
        assert abs(a_ex - a_bf) <= 1e-9
        assert ls.order_margin_value(inc, len(inc), dec, len(dec), k, c, a_ex) == v_ex


@pytest.mark.parametrize("objective,constrain", [("order", False), ("avg", True)])
def test_binary_phase2_trees_equal_brute_force(objective, constrain):
    rng = np.random.default_rng(2 + constrain)
    for it in range(30):
        n = int(rng.integers(2, 14))
        F, nb = int(rng.integers(1, 3)), int(rng.integers(2, 4))
        X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
        n_bins = np.full(F, nb, np.int32)
        _, scores, c = binary_state(rng, n, int(rng.integers(1, 4)), integer=it % 2 == 0)
        y = rng.integers(0, 2, n).astype(np.int32)
        depth, nprime = int(rng.integers(1, 3)), int(rng.integers(1, n + 1))
        eps = 0.0 if constrain else 0.01 * (it % 2)
        ws = ZeroOneWorkspace(n, F, nb, 2, depth)
        m = grow_margin_tree(ws, X, y, n_bins, scores, c, nprime,
                             OBJ_ORDER if objective == "order" else OBJ_BOTTOM_AVG,
                             constrain, eps)
        nodes, vote = nz.grow_tree_naive(X, y, n_bins, scores, depth, phase="margin", c=c,
                                         nprime=nprime, objective=objective,
                                         constrain=constrain, eps=eps)
        assert m == len(nodes["feature"])
        assert list(ws.feature[:m]) == nodes["feature"]
        assert list(ws.threshold[:m]) == nodes["threshold"]
        np.testing.assert_array_equal(ws.vote, vote)


def test_multiclass_data_is_refused():
    X, y = binary_data(0)
    y3 = y + (X[:, 0] > 1)
    for cls in VARIANTS:
        with pytest.raises(ValueError, match="binary classifier"):
            cls(n_rounds=3).fit(X, y3)


def test_dmcboost_and_directboost_make_the_same_first_phase1_choices():
    X, y = binary_data(3, noise=0.8)
    kw = {"n_rounds": 40, "max_depth": 3, "max_bins": 32}
    dmc = DMCBoost(**kw).fit(X, y)
    t = dmc.n_phase1_rounds_
    assert t >= 3
    for cls in VARIANTS:
        db = cls(**kw).fit(X, y)
        assert db.n_phase1_rounds_ == t
        for r in range(t):
            assert db.forest_.alpha[r] == dmc.forest_.alpha[r]
        n_nodes = dmc.forest_.tree_offset[t - 1] + 1
        for arr in ("feature", "threshold", "left", "leaf_label"):
            np.testing.assert_array_equal(getattr(db.forest_, arr)[:n_nodes],
                                          getattr(dmc.forest_, arr)[:n_nodes])
        np.testing.assert_array_equal(db.train_errors_[:t], dmc.train_errors_[:t])


def margins(est, X, y):
    Fs = est.class_scores(X)
    c = float(np.sum(est.forest_.alpha))
    return (Fs[np.arange(len(y)), y] - Fs[np.arange(len(y)), 1 - y]) / c


def strict_error_at(est, X, y, t):
    Fs = est.class_scores(X, n_rounds=t)
    return int(np.sum(~(Fs[np.arange(len(y)), y] > Fs[np.arange(len(y)), 1 - y])))


@pytest.mark.parametrize("seed", [0, 3])
def test_directboost_avg_stays_in_its_region_and_raises_the_objective(seed):
    X, y = binary_data(seed, noise=0.6)
    est = DirectBoostAvg(n_rounds=60, max_depth=2, max_bins=32, n_prime_fraction=0.2,
                         phase1_patience=10).fit(X, y)
    t1 = est.n_phase1_rounds_
    errs = [strict_error_at(est, X, y, t) for t in range(1, est.n_rounds_ + 1)]
    assert np.all(np.diff(errs[:t1]) <= 0)         # Phase I: never more errors ...
    assert np.all(np.diff(errs[::11][:t1 // 11]) < 0)   # ... fewer within 11 rounds (patience 10)
    assert np.all(np.diff(errs[t1 - 1:]) <= 0)     # Phase II: the error never rises
    g = np.concatenate([[est.phase2_start_objective_], est.objective_[t1:]])
    assert np.all(np.diff(g) > 0)                   # and the objective always rises
    assert not est.relaxed_.any()
    M = margins(est, X, y)
    assert np.all(np.abs(M) <= 1 + 1e-12)
    k = est.n_prime_
    if est.n_rounds_ > t1:
        assert est.objective_[-1] == pytest.approx(np.sort(M)[:k].mean(), abs=1e-12)


def test_directboost_order_tracks_the_nth_margin():
    X, y = binary_data(4, noise=0.8)
    est = DirectBoostOrder(n_rounds=50, max_depth=2, max_bins=32, n_prime_fraction=0.1)
    est.fit(X, y)
    t1 = est.n_phase1_rounds_
    M = margins(est, X, y)
    assert np.all(np.abs(M) <= 1 + 1e-12)
    if est.n_rounds_ > t1:
        assert est.objective_[-1] == pytest.approx(np.sort(M)[est.n_prime_ - 1], abs=1e-12)
        g = np.concatenate([[est.phase2_start_objective_], est.objective_[t1:]])
        up = np.diff(g) > 0
        # Every step either raises the n'-th margin or is a relaxed epsilon step.
        assert np.all(up | est.relaxed_[t1:])
        alphas = np.asarray(est.forest_.alpha)[t1:]
        np.testing.assert_allclose(alphas[est.relaxed_[t1:]], 0.01)


def test_directboost_eps_avg_relaxes_only_at_corners():
    X, y = binary_data(5, noise=1.0)
    est = DirectBoostEpsAvg(n_rounds=50, max_depth=2, max_bins=32, n_prime_fraction=0.05)
    est.fit(X, y)
    rel = est.relaxed_
    alphas = np.asarray(est.forest_.alpha)
    t1 = est.n_phase1_rounds_
    g = np.concatenate([[est.phase2_start_objective_], est.objective_[t1:]])
    assert np.all(np.diff(g)[~rel[t1:]] > 0)
    assert np.all((alphas[rel] >= 0.01) & (alphas[rel] <= 0.01 + 1e-5))
    assert DirectBoostEpsAvg.binary_only and DirectBoostEpsAvg.early_stopping is False


@pytest.mark.parametrize("eps", [0.0, 0.01, 0.3])
@pytest.mark.parametrize("corner", [False, True])
def test_directboost_avg_global_trees_equal_brute_force(eps, corner):
    """The whole-tree key (margin_tree_global) against its naive twin, tie-heavy states."""
    from mcboost_cli.learners.margin_tree_global import grow_margin_tree_global
    rng = np.random.default_rng(11 + int(100 * eps) + corner)
    for it in range(12):
        n = int(rng.integers(3, 30))
        F, nb = int(rng.integers(1, 4)), int(rng.integers(2, 5))
        X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
        n_bins = np.full(F, nb, np.int32)
        _, scores, c = binary_state(rng, n, int(rng.integers(1, 5)), integer=it % 2 == 0)
        y = rng.integers(0, 2, n).astype(np.int32)
        if it % 3 == 0:                          # mostly right (DirectBoost_avg's region)
            y = (scores[:, 1] > scores[:, 0]).astype(np.int32)
        depth, nprime = int(rng.integers(1, 4)), int(rng.integers(1, n + 1))
        ws = ZeroOneWorkspace(n, F, nb, 2, depth)
        m = grow_margin_tree_global(ws, X, y, n_bins, scores, c, nprime, eps, corner)
        nodes, vote = nz.grow_tree_global_naive(X, y, n_bins, scores, depth, c=c,
                                                nprime=nprime, eps=eps, corner=corner)
        assert m == len(nodes["feature"])
        assert list(ws.feature[:m]) == nodes["feature"]
        assert list(ws.threshold[:m]) == nodes["threshold"]
        assert list(ws.node_label[:m]) == nodes["label"]
        np.testing.assert_array_equal(ws.vote, vote)


def test_directboost_avg_key_from_the_rounds_kth_margin_equals_the_passes():
    """margin_tree_global.key_at_kth (the n'-th smallest margin selected once per round) gives
    the bits of step_key + corner_key (selections per vote vector); when it prunes, the
    reference key lies below the floor beyond the tie tolerance."""
    from mcboost_cli.learners import margin_tree_global as mtg
    rng = np.random.default_rng(5)
    n_pruned = 0
    for it in range(300):
        n = int(rng.integers(2, 40))
        _, scores, c = binary_state(rng, n, int(rng.integers(1, 6)), integer=it % 2 == 0)
        y = rng.integers(0, 2, n).astype(np.int32)
        if it % 3 == 0:
            y = (scores[:, 1] > scores[:, 0]).astype(np.int32)
        vote = rng.integers(0, 2, n).astype(np.int32)
        nprime = int(rng.integers(1, n + 1))
        eps = [0.0, 1e-9, 0.01, 0.3][it % 4]
        margin = np.empty(n)
        ls.unnormalised_margins(scores, y, margin)
        p, s, w = np.empty(n), np.empty(n), np.empty(n)
        for i in range(n):
            p[i], s[i], w[i] = ls.piece_terms(scores, i, y[i], vote[i], margin[i])
        buf = np.empty(n)
        v_ref, e_ref = mtg._key(p, s, w, n, nprime, c, eps, buf, True)
        vk0 = np.sort(margin)[nprime - 1]
        v, e, exact = mtg.key_at_kth(p, s, w, n, nprime, c, eps, buf, True, vk0, -np.inf)
        assert exact and v == v_ref and e == e_ref
        floor = v_ref + float(rng.choice([-1e-3, -1e-8, 0.0, 1e-8, 1e-3]))
        v, e, exact = mtg.key_at_kth(p, s, w, n, nprime, c, eps, buf, True, vk0, floor)
        if exact:
            assert v == v_ref and e == e_ref
        else:
            n_pruned += 1
            assert v >= v_ref - 1e-12 and v_ref < mtg._tie_floor(floor)
    assert n_pruned > 10


class _Phase2States(DirectBoostAvg):
    """Records the state of every Phase II round."""

    def _boost_phase2(self, t, X_binned, y):
        self.states_ = getattr(self, "states_", [])
        self.states_.append((X_binned.copy(), y.copy(), self._scores.copy(), self._c))
        return super()._boost_phase2(t, X_binned, y)


@pytest.mark.parametrize("fraction,depth", [(0.8, 1), (0.2, 2), (0.05, 3)])
def test_directboost_avg_global_trees_equal_brute_force_on_phase2_states(fraction, depth):
    """The counted, pruned search of margin_tree_global against its naive twin on the states
    a fit's Phase II rounds start from (most candidates at a corner, the rest close to the
    best: where the pruning and the tie-break decide)."""
    from mcboost_cli.learners.margin_tree_global import grow_margin_tree_global
    X, y = binary_data(2, n=90, noise=0.5)
    est = _Phase2States(n_rounds=60, max_depth=depth, max_bins=8, n_prime_fraction=fraction,
                        phase1_patience=10).fit(X, y)
    assert len(est.states_) >= 3
    for Xb, yy, scores, c in est.states_[:: max(1, len(est.states_) // 6)]:
        n, F = Xb.shape
        n_bins = est._n_bins
        ws = ZeroOneWorkspace(n, F, int(Xb.max()) + 1, 2, depth)
        m = grow_margin_tree_global(ws, Xb, yy, n_bins, scores, c, est.n_prime_,
                                    est.epsilon, True)
        nodes, vote = nz.grow_tree_global_naive(Xb, yy, n_bins, scores, depth, c=c,
                                                nprime=est.n_prime_, eps=est.epsilon,
                                                corner=True)
        assert list(ws.feature[:m]) == nodes["feature"]
        assert list(ws.threshold[:m]) == nodes["threshold"]
        assert list(ws.node_label[:m]) == nodes["label"]
        np.testing.assert_array_equal(ws.vote, vote)


class _StopState(DirectBoostAvg):
    """Records the state each Phase II round starts from (the last one: where it stopped)."""

    def _boost_phase2(self, t, X_binned, y):
        self.state_ = (X_binned.copy(), y.copy(), self._scores.copy(), self._c, self._g)
        return super()._boost_phase2(t, X_binned, y)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_directboost_avg_stops_only_when_no_root_split_raises_the_objective(seed):
    """Where DirectBoost_avg stops (Alg. 2 line 17: no increment), no split of the root —
    any feature and threshold, the labels chosen as the builder's lines 7 and 9 choose them —
    raises the bottom-n' average inside [0, d - eps] (brute force over the whole training
    set). Version 4's node-local trees failed this: on tic-tac-toe stumps still raised it by
    1e-4..1e-3 where the fit stopped."""
    X, y = binary_data(seed, n=120, noise=0.5)
    est = _StopState(n_rounds=300, max_depth=2, max_bins=6, n_prime_fraction=0.2,
                     phase1_patience=10).fit(X, y)
    assert est.stop_reason_.endswith("no longer increases")
    Xb, yy, scores, c, g = est.state_
    n, F = Xb.shape
    k, eps = est.n_prime_, est.epsilon
    tol = 2 * est._increase_tol(g, 0.0) + 1e-12     # the round's bisection gets within tol
    k0 = max(range(2), key=lambda lab: nz.step_key_naive(scores, yy, np.full(n, lab), c, k,
                                                         eps))
    assert nz.step_key_naive(scores, yy, np.full(n, k0), c, k, eps) <= g + tol
    for f in range(F):
        for t in range(int(Xb[:, f].max())):
            left = Xb[:, f] <= t
            if left.all() or not left.any():
                continue
            vl = [nz.step_key_naive(scores, yy, np.where(left, lab, k0), c, k, eps)
                  for lab in range(2)]
            for kl in range(2):
                if vl[kl] < max(vl) - 1e-12:
                    continue                         # line 7 would not choose it
                for kr in range(2):
                    v = nz.step_key_naive(scores, yy, np.where(left, kl, kr), c, k, eps)
                    assert v <= g + tol, (f, t, kl, kr, v - g)
