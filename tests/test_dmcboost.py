"""DMCBoost: exactness of the line searches and the tree builder against brute force, and the
monotonicity properties the paper proves (Phase I error never rises, the Phase II objective
never falls without relaxation, margins in [-1, 1])."""

import numpy as np
import pytest

from mcboost_cli.algorithms.dmcboost import DMCBoost, n_prime_from_choice
from mcboost_cli.learners import line_search as ls
from mcboost_cli.learners import margin_search_fast as msf
from mcboost_cli.learners import naive_zero_one as nz
from mcboost_cli.learners import zero_one_phase1 as p1
from mcboost_cli.learners.binning import BinMapper, Binned
from mcboost_cli.learners.margin_search_exhaustive import OBJ_BOTTOM_AVG, corner_key
from mcboost_cli.learners.margin_tree import grow_margin_tree
from mcboost_cli.learners.zero_one_workspace import ZeroOneWorkspace

TH = 1e-5


def ensemble_state(rng, n, K, T, integer):
    """Scores of a random label-vote ensemble of T rounds (integer weights make exact ties
    and coinciding breakpoints common) and its total weight c."""
    scores = np.zeros((n, K))
    c = 0.0
    for _ in range(T):
        a = float(rng.integers(1, 4)) if integer else float(rng.uniform(0.1, 2.0))
        scores[np.arange(n), rng.integers(0, K, n)] += a
        c += a
    return scores, c


def pieces(scores, y, vote):
    n = len(y)
    m = np.empty(n)
    ls.unnormalised_margins(scores, y, m)
    p, s, w = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        p[i], s[i], w[i] = ls.piece_terms(scores, i, y[i], vote[i], m[i])
    return p, s, w


# ---------------------------------------------------------------------------------------------
# Phase I line search (Alg. 1.1)
# ---------------------------------------------------------------------------------------------


def test_zero_one_line_search_is_exact_on_random_problems():
    rng = np.random.default_rng(0)
    for it in range(400):
        n, K, T = int(rng.integers(1, 25)), int(rng.integers(2, 6)), int(rng.integers(0, 5))
        scores, _ = ensemble_state(rng, n, K, T, integer=it % 2 == 0)
        y = rng.integers(0, K, n).astype(np.int32)
        vote = rng.integers(0, K, n).astype(np.int32)
        alpha, err, err_now, lo, hi = ls.line_search_zero_one(scores, y, vote, 1.0,
                                                              np.empty(n), np.empty(n))
        alpha_n, err_n, _, errs = nz.line_search_zero_one_naive(scores, y, vote, 1.0)
        # The returned alpha achieves the minimum over every breakpoint and midpoint.
        assert nz.strict_error_at(scores, y, vote, alpha) == err == errs.min()
        # ... and it is the midpoint of the first interval of minimum error (Alg. 1 line 5).
        assert alpha == alpha_n and err == err_n
        assert err_now == nz.strict_error_at(scores, y, vote, 0.0)
        assert lo < alpha < hi


def test_zero_one_line_search_first_round_and_unbounded_interval():
    # All scores 0 (no round yet): every example is a tie, hence wrong; any alpha > 0 gives
    # the tree's own error, the interval (0, inf) is unbounded and alpha = 0 + unit.
    y = np.array([0, 1, 2, 1], np.int32)
    vote = np.array([0, 1, 1, 1], np.int32)
    alpha, err, err_now, lo, hi = ls.line_search_zero_one(np.zeros((4, 3)), y, vote, 1.0,
                                                          np.empty(4), np.empty(4))
    assert (alpha, err, err_now, lo, hi) == (1.0, 1, 4, 0.0, np.inf)


def exp_search(scores, y, vote, unit=1.0):
    n = len(y)
    return ls.line_search_zero_one_exp(scores, y, vote, unit, np.empty(n), np.empty(n),
                                       np.empty(n), np.empty(n), np.empty(n),
                                       np.empty(n, np.int64), np.empty(n + 1),
                                       np.empty(n + 1))


def test_exp_line_search_picks_the_min_error_interval_of_least_exponential_loss():
    """Brute force: the step lies in an interval of minimum 0-1 error; in no other such
    interval (5% inset; the unbounded one from 1.05 lo) is the exponential loss lower, nor
    elsewhere in its own; the returned losses are the exponential loss (up to the shift)."""
    rng = np.random.default_rng(3)
    n_checked = 0
    for it in range(300):
        n, K, T = int(rng.integers(1, 20)), int(rng.integers(2, 5)), int(rng.integers(0, 4))
        scores, _ = ensemble_state(rng, n, K, T, integer=it % 2 == 0)
        y = rng.integers(0, K, n).astype(np.int32)
        vote = rng.integers(0, K, n).astype(np.int32)
        alpha, err, err_now, lo, hi, loss, loss0 = exp_search(scores, y, vote)
        ivs = nz.min_error_intervals_naive(scores, y, vote)
        best = min(e for _, _, e in ivs)
        assert err == best and err_now == nz.strict_error_at(scores, y, vote, 0.0)
        assert nz.strict_error_at(scores, y, vote, alpha) == best
        assert lo < alpha < hi
        L = nz.exp_loss_along(scores, y, vote, alpha)
        # log-losses are relative to a common shift: their difference is exact.
        assert loss - loss0 == pytest.approx(np.log(L / nz.exp_loss_along(scores, y, vote, 0.0)),
                                             abs=1e-9)
        for a, b, e in ivs:
            if e != best:
                continue
            if b == np.inf:
                top = max(a, alpha) + 10.0
                grid = np.linspace(max(1.05 * a, 1e-9), top, 400)
            else:
                grid = np.linspace(a + 0.05 * (b - a), b - 0.05 * (b - a), 400)
            vals = [nz.exp_loss_along(scores, y, vote, g) for g in grid]
            if b == np.inf and a == 0.0 and int(np.argmin(vals)) == 0:
                # The loss falls towards alpha = 0: the step is the unit (the scale).
                vals = [nz.exp_loss_along(scores, y, vote, 1.0)]
            elif b == np.inf and int(np.argmin(vals)) == len(vals) - 1:
                # Every example voted its class: the loss falls for ever; lo + unit.
                assert np.all(vote == y)
                vals = [nz.exp_loss_along(scores, y, vote, a + 1.0)]
            assert L <= min(vals) * (1 + 1e-9) + 1e-12
            n_checked += 1
    assert n_checked > 300


def test_exp_line_search_first_round_of_a_weak_multiclass_tree_takes_the_unit():
    # All scores 0: every example is tied (wrong); the tree is right on 1 of 4, so the
    # exponential loss falls towards alpha = 0 and the unbounded interval (0, inf) takes the
    # unit; right on 3 of 4 it takes the minimiser 0.5 ln 3 (AdaBoost's first step).
    y = np.array([0, 1, 2, 1], np.int32)
    a, err, err_now, lo, hi, _, _ = exp_search(np.zeros((4, 3)), y,
                                               np.array([0, 0, 0, 0], np.int32))
    assert (a, err, err_now, lo, hi) == (1.0, 3, 4, 0.0, np.inf)
    a, err, *_ = exp_search(np.zeros((4, 3)), y, np.array([0, 1, 1, 1], np.int32))
    assert err == 1 and a == pytest.approx(0.5 * np.log(3.0))


# ---------------------------------------------------------------------------------------------
# Phase II line search (Alg. 2.1) and the exact maximiser used by the tree builder
# ---------------------------------------------------------------------------------------------


def test_bottom_average_line_search_within_th_of_brute_force_maximiser():
    rng = np.random.default_rng(1)
    n_flat = 0
    for it in range(300):
        n, K, T = int(rng.integers(1, 16)), int(rng.integers(2, 5)), int(rng.integers(1, 5))
        scores, c = ensemble_state(rng, n, K, T, integer=it % 2 == 0)
        y = rng.integers(0, K, n).astype(np.int32)
        vote = rng.integers(0, K, n).astype(np.int32)
        p, s, w = pieces(scores, y, vote)
        nprime = int(rng.integers(1, n + 1))
        hi = 2 * c + 1
        buf = np.empty(n)
        q = ls.line_search_bottom_avg(p, s, w, n, nprime, c, hi, TH, buf)
        a_ex, v_ex = ls.max_bottom_avg_exact(p, s, w, n, nprime, c, hi, buf)

        def obj(a, p=p, s=s, w=w, nprime=nprime, c=c):
            return nz.bottom_avg_naive(p, s, w, nprime, c, a)

        cands = nz.margin_candidates(p, s, w, hi)          # fine grid + every crossing
        a_bf, v_bf = nz.maximise_naive(obj, cands)
        tol = 1e-12 * (1 + abs(v_bf))
        assert abs(v_ex - v_bf) <= tol                        # exact maximum
        assert abs(a_ex - a_bf) <= 1e-9                       # at the smallest maximiser
        argmax = cands[np.array([obj(a) for a in cands]) >= v_bf - tol]
        if argmax.max() - argmax.min() > TH:
            n_flat += 1   # a flat maximum: any point of it is a maximiser
        assert argmax.min() - TH <= q <= argmax.max() + TH   # Alg. 2.1: within th
        assert abs(q - a_bf) <= TH or argmax.max() - argmax.min() > TH
    assert n_flat < 300



def test_bottom_average_line_search_terminates_when_th_is_below_float_spacing():
    # Regression (Nursery, five_fold fold 0, depth 3, n' = n/2, round 27): Phase II steps of
    # alpha = hi = 2c + 1 make c grow geometrically; once the maximiser passes 2**36 the
    # spacing of float64 there exceeds th = 1e-5, the bisection reached a one-ulp bracket
    # whose midpoint rounds to one of its ends, and Alg. 2.1's loop never ended. g is
    # invariant under scaling p, w, c and alpha together, so random problems scaled by 2**40
    # reproduce that state; the search must end at the brute-force maximiser (to the float
    # resolution there).
    rng = np.random.default_rng(1)
    scale = 2.0 ** 40
    n_interior = 0
    for it in range(120):
        n, K, T = int(rng.integers(1, 16)), int(rng.integers(2, 5)), int(rng.integers(1, 5))
        scores, c = ensemble_state(rng, n, K, T, integer=it % 2 == 0)
        y = rng.integers(0, K, n).astype(np.int32)
        vote = rng.integers(0, K, n).astype(np.int32)
        p, s, w = pieces(scores, y, vote)
        nprime = int(rng.integers(1, n + 1))
        p, w, c = p * scale, w * scale, c * scale
        hi = 2 * c + 1
        buf = np.empty(n)
        q = ls.line_search_bottom_avg(p, s, w, n, nprime, c, hi, TH, buf)
        a_ex, v_ex = ls.max_bottom_avg_exact(p, s, w, n, nprime, c, hi, buf)

        def obj(a, p=p, s=s, w=w, nprime=nprime, c=c):
            return nz.bottom_avg_naive(p, s, w, nprime, c, a)

        cands = nz.margin_candidates(p, s, w, hi, n_grid=0)   # every kink and crossing
        a_bf, v_bf = nz.maximise_naive(obj, cands)
        tol = 1e-12 * (1 + abs(v_bf))
        assert abs(v_ex - v_bf) <= tol
        assert abs(obj(q) - v_bf) <= tol                       # q is a maximiser
        if 0.0 < a_bf < hi:
            n_interior += 1
            argmax = cands[np.array([obj(a) for a in cands]) >= v_bf - tol]
            slack = max(TH, 4 * np.spacing(hi))                # th or a few ulps
            assert argmax.min() - slack <= q <= argmax.max() + slack
    assert n_interior >= 40

def test_bottom_sum_one_sided_slopes_match_finite_differences():
    rng = np.random.default_rng(2)
    for _ in range(100):
        n, K = int(rng.integers(1, 12)), int(rng.integers(2, 5))
        scores, c = ensemble_state(rng, n, K, 3, integer=True)
        y = rng.integers(0, K, n).astype(np.int32)
        p, s, w = pieces(scores, y, rng.integers(0, K, n).astype(np.int32))
        k = int(rng.integers(1, n + 1))
        for a in [0.0, 1.0, 2.0, float(rng.uniform(0, 2 * c))]:   # integer points are kinks
            S, right = ls.bottom_sum(p, s, w, n, k, a, 1, np.empty(n))
            _, left = ls.bottom_sum(p, s, w, n, k, a, -1, np.empty(n))
            h = 1e-7

            def S_at(x, p=p, s=s, w=w, k=k):
                return np.sort(nz.numerators(p, s, w, x))[:k].sum()

            assert abs(S - S_at(a)) < 1e-9
            assert abs(right - (S_at(a + h) - S_at(a)) / h) < 1e-4
            if a > 0:
                assert abs(left - (S_at(a) - S_at(a - h)) / h) < 1e-4


# ---------------------------------------------------------------------------------------------
# Tree builder (Alg. 1.2): compiled vs brute-force twin
# ---------------------------------------------------------------------------------------------


def random_node_problem(rng, integer, T=None):
    n = int(rng.integers(2, 26))
    K = int(rng.integers(2, 5))
    F = int(rng.integers(1, 4))
    nb = int(rng.integers(2, 5))
    X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
    T = int(rng.integers(0, 4)) if T is None else T
    scores, c = ensemble_state(rng, n, K, T, integer)
    y = rng.integers(0, K, n).astype(np.int32)
    return X, np.full(F, nb, np.int32), scores, y, c, K


def placement_problem(rng):
    """A random state where the two kink placements of the Phase I key often disagree: real
    weights over several rounds and labels mostly the ensemble's top label, so many examples
    are right by small margins and many candidates' intervals end inside an axis cell."""
    return _mostly_top_label_problem(rng, (8, 30), (2, 5), (2, 5), (3, 9), 0.7)


def _mostly_top_label_problem(rng, n_range, k_range, nb_range, rounds_range, p_agree):
    """A random binned state whose labels are the ensemble's top label with probability
    ``p_agree`` (else uniform): (X, n_bins, scores, y, c, K), sizes drawn from the ranges."""
    n = int(rng.integers(*n_range))
    K = int(rng.integers(*k_range))
    F = int(rng.integers(1, 4))
    nb = int(rng.integers(*nb_range))
    X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
    scores, c = ensemble_state(rng, n, K, int(rng.integers(*rounds_range)), False)
    y = rng.integers(0, K, n).astype(np.int32)
    agree = rng.random(n) < p_agree
    y[agree] = scores.argmax(axis=1)[agree]
    return X, np.full(F, nb, np.int32), scores, y, c, K


def same_tree(ws, m, nodes, vote):
    assert m == len(nodes["feature"])
    assert list(ws.feature[:m]) == nodes["feature"]
    assert list(ws.threshold[:m]) == nodes["threshold"]
    assert list(ws.left[:m]) == nodes["left"]
    leaves = [j for j in range(m) if nodes["left"][j] < 0]
    assert [ws.node_label[j] for j in leaves] == [nodes["label"][j] for j in leaves]
    np.testing.assert_array_equal(ws.vote, vote)


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("two_pass", [None, False, True])
def test_phase1_tree_equals_brute_force(two_pass, packed, monkeypatch):
    # two_pass: each node finds its candidates' smallest errors before their cell losses
    # (True), folds at the running smallest error (False), or chooses (None). packed: the
    # events carry their examples' bins (PACKED_ROWS_MIN 0), the sweeps read them there.
    monkeypatch.setattr(p1, "PACKED_ROWS_MIN", 0 if packed else 2 ** 62)
    rng = np.random.default_rng(3)
    for it in range(90):
        # T = 1 gives the tie-heavy second-round state (every breakpoint at alpha_1), where
        # the exponential-loss tie-break decides almost every choice.
        X, n_bins, scores, y, c, K = random_node_problem(rng, it % 2 == 0,
                                                         T=1 if it % 3 == 0 else None)
        depth = int(rng.integers(1, 4))
        ws = ZeroOneWorkspace(len(y), X.shape[1], X.max() + 1, K, depth)
        m = p1.grow_zero_one_tree(ws, X, y, n_bins, scores, c, two_pass=two_pass)
        assert (ws._phase1_scratch.lazy[30].shape[0] > 0) == packed
        nodes, vote = nz.grow_tree_naive(X, y, n_bins, scores, depth, c=c)
        same_tree(ws, m, nodes, vote)


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("two_pass", [None, False, True])
def test_phase1_tree_equals_brute_force_under_both_kink_placements(two_pass, packed,
                                                                    monkeypatch):
    # The midpoint and the cut-aware placement (zero_one_phase1 module docstring) against
    # brute force, on states where they choose different trees often enough that a grower
    # ignoring the placement flag, or placing the kinks the other way, fails.
    monkeypatch.setattr(p1, "PACKED_ROWS_MIN", 0 if packed else 2 ** 62)
    rng = np.random.default_rng(11)
    differ = 0
    for it in range(60):
        X, n_bins, scores, y, c, K = placement_problem(rng)
        depth = int(rng.integers(1, 4))
        trees = []
        for cut in (False, True):
            ws = ZeroOneWorkspace(len(y), X.shape[1], X.max() + 1, K, depth)
            m = p1.grow_zero_one_tree(ws, X, y, n_bins, scores, c, two_pass=two_pass,
                                      cut_aware=cut)
            nodes, vote = nz.grow_tree_naive(X, y, n_bins, scores, depth, c=c, cut_aware=cut)
            same_tree(ws, m, nodes, vote)
            trees.append((nodes, vote.tolist()))
        differ += trees[0] != trees[1]
    assert differ >= 10


def test_phase1_node_ranking_uses_the_exponential_loss_on_ties():
    # Second-round state: one previous tree; a stump can only keep it (alpha < alpha_1) or
    # override it everywhere, so many labels tie on the 0-1 loss. The exponential loss makes
    # the builder pick the label right on most examples rather than the lowest code.
    X = np.array([[0], [0], [0], [1], [1], [1]], np.uint8)
    y = np.array([2, 2, 2, 1, 1, 0], np.int32)
    scores = np.zeros((6, 3))
    scores[np.arange(6), [2, 2, 0, 1, 1, 1]] += 1.0
    ws = ZeroOneWorkspace(6, 1, 2, 3, 1)
    p1.grow_zero_one_tree(ws, X, y, np.array([2], np.int32), scores, 1.0)
    nodes, _ = nz.grow_tree_naive(X, y, np.array([2], np.int32), scores, 1, c=1.0)
    assert list(ws.node_label[1:3]) == nodes["label"][1:3] == [2, 1]


@pytest.mark.parametrize("grouping", ["off", "on"])
@pytest.mark.parametrize("eps", [0.0, 0.01])
def test_phase2_tree_equals_brute_force(eps, grouping):
    # The bottom-n' average tree (the fast, pruned node search, on examples or on groups of
    # interchangeable examples) against brute force; eps > 0 adds the relaxed-step
    # tie-break. The binary objectives are in test_directboost.py.
    rng = np.random.default_rng(4 + int(eps > 0))
    for it in range(40):
        X, n_bins, scores, y, c, K = random_node_problem(rng, it % 2 == 0,
                                                         T=int(rng.integers(1, 5)))
        X, y, scores = X[:18], y[:18], scores[:18]
        n = len(y)
        depth = int(rng.integers(1, 4))
        nprime = int(rng.integers(1, n + 1))
        ws = ZeroOneWorkspace(n, X.shape[1], X.max() + 1, K, depth)
        nodes, vote = nz.grow_tree_naive(X, y, n_bins, scores, depth, phase="margin", c=c,
                                         nprime=nprime, eps=eps)
        for cuts, walk in ((0, False), (3, False), (7, True), (31, True)):
            m = grow_margin_tree(ws, X, y, n_bins, scores, c, nprime, OBJ_BOTTOM_AVG,
                                 False, eps, grouping=grouping, bound_cuts=cuts,
                                 walk_bound=walk)
            same_tree(ws, m, nodes, vote)


def test_phase2_label_search_calls_pass_the_mode_as_a_constant():
    # A speed property (the values are the same either way): every call of the label search
    # ``_pick_label`` names its mode as a constant (MODE_ALL / MODE_LEFT / MODE_SPLIT), so
    # that numba types it as a literal and compiles one search per mode, each with its mode
    # tests folded away. With the mode in a variable (an int64 at run time) the one compiled
    # search tested it at every item: the same work 2.6x slower for n' > 1 (ALGORITHMS.md,
    # DMCBoost "Speed"). Read from the source: the compiled signatures are not there when the
    # callers come from numba's cache.
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(msf))
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == "_pick_label"]
    assert len(calls) >= 3
    for call in calls:
        mode = call.args[6]
        assert isinstance(mode, ast.Name) and mode.id.startswith("MODE_"), ast.dump(mode)


def test_group_rows_groups_exactly_the_equal_rows():
    rng = np.random.default_rng(11)
    for it in range(20):
        n, K = int(rng.integers(1, 300)), int(rng.integers(2, 6))
        # Few distinct rows (sums of a few weights), with -0.0 among the zeros.
        scores = rng.integers(0, 3, size=(n, K)) * np.array([0.5, 1.25, 2.0])[
            rng.integers(0, 3, size=(n, K))]
        scores[rng.random((n, K)) < 0.1] = -0.0
        y = rng.integers(0, K, n).astype(np.int32)
        gid, grep = np.zeros(n, np.int64), np.zeros(n, np.int64)
        G = msf.group_rows(scores, scores.view(np.uint64), y, gid, grep)
        assert G == len(np.unique(gid)) and gid.max() == G - 1
        rows = np.column_stack([y, scores])
        same_group = gid[:, None] == gid[None, :]
        same_row = (rows[:, None, :] == rows[None, :, :]).all(axis=2)
        assert not (same_group & ~same_row).any()       # a group never mixes rows
        # Equal rows share a group unless their bits differ (-0.0 vs 0.0 only).
        bits_equal = (rows.view(np.uint64)[:, None, :] == rows.view(np.uint64)[None, :, :]
                      ).all(axis=2)
        assert (same_group == bits_equal).all()
        assert (gid[grep[:G]] == np.arange(G)).all()


@pytest.mark.parametrize("eps", [0.0, 0.01])
def test_phase2_grouped_search_equals_per_example_search(eps):
    # Larger duplicate-heavy states (few previous trees: few distinct score rows) than the
    # brute-force twin can handle: grouping must not change the tree.
    rng = np.random.default_rng(21 + int(eps > 0))
    n_grouped = 0
    for it in range(16):
        n, K, F, nb = 600, int(rng.integers(2, 7)), int(rng.integers(1, 5)), 6
        X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
        if it % 4 == 0:
            X[rng.random((n, F)) < 0.05] = 255          # missing-value bin
        scores, c = ensemble_state(rng, n, K, int(rng.integers(1, 4)), integer=it % 2 == 0)
        y = ((X[:, 0] % nb + rng.integers(0, 2, n)) % K).astype(np.int32)
        nprime = int(rng.integers(1, n + 1))
        trees = []
        for grouping in ("off", "on", "auto"):
            ws = ZeroOneWorkspace(n, F, int(X.max()) + 1, K, 3)
            m = grow_margin_tree(ws, X, y, np.full(F, nb, np.int32), scores, c, nprime,
                                 OBJ_BOTTOM_AVG, False, eps, grouping=grouping)
            trees.append((m, ws.feature[:m].copy(), ws.threshold[:m].copy(),
                          ws.node_label[:m].copy(), ws.vote.copy()))
        G = msf.group_rows(scores, np.ascontiguousarray(scores).view(np.uint64), y,
                           np.zeros(n, np.int64), np.zeros(n, np.int64))
        n_grouped += 2 * G <= n
        for other in trees[1:]:
            for a, b in zip(trees[0], other, strict=True):
                np.testing.assert_array_equal(a, b)
    assert n_grouped >= 8                               # "auto" really grouped


def scan_reference(entries, kcap):
    """S and both one-sided slopes at alpha from all of a candidate's numerator entries
    (value, weight, left slope, right slope) in margin order, with ``_scan``'s arithmetic:
    the entries below the kcap-th value summed in that order, then the tied slots."""
    vals = sorted(v for v, nw, _, _ in entries for _ in range(nw))
    vk = vals[kcap - 1]
    total, sl, sr, n_less = 0.0, 0.0, 0.0, 0
    tied = []
    for v, nw, l, r in entries:
        if v < vk:
            total += nw * v
            sl += nw * l
            sr += nw * r
            n_less += nw
        elif v == vk:
            tied += [(l, r)] * nw
    need = kcap - n_less
    total += need * vk
    sr += sum(sorted(r for _, r in tied)[:need])
    sl += sum(sorted((l for l, _ in tied), reverse=True)[:need])
    return total, sl, sr, vk


def _node_items(X, y, scores, margin, ws, start, end, grouped, nb):
    """The items of the node ``ws.sample_index[start:end]`` (nb bins per feature) as the node
    search makes them: groups of interchangeable examples, or the examples, sorted by margin
    with their margin-ordered views; returns (L, item margins, order, items, bufs)."""
    F = X.shape[1]
    if grouped:
        G = msf.group_rows(scores, scores.view(np.uint64), y, ws.gid, ws.grep)
        ws.cum = np.zeros((G, F, nb), np.int32)
        L = msf._node_groups(X, ws.sample_index, start, end, np.full(F, nb, np.int32), ws.gid,
                             margin, ws.loc, ws.rep, ws.gcnt, ws.gmargin, ws.cum)
        imargin, order = ws.gmargin, np.arange(L, dtype=ws.order.dtype)
    else:
        L, imargin = end - start, margin
        order = ws.sample_index[start:end].astype(ws.order.dtype)
    msf._sort_by_margin(imargin, order, L)
    msf._node_views(X, y, scores, order, L, grouped, ws.rep, imargin, ws.sm, ws.sy, ws.sw, ws.sx)
    items = (grouped, imargin, ws.rep, ws.gcnt, ws.cum, ws.sm, ws.sy, ws.sw, ws.sx)
    bufs = (ws.vbuf, ws.sbuf, ws.wbuf, ws.vtmp, ws.tmpw)
    return L, imargin, order, items, bufs


def _whole_node(rng, n, K, F, nb, rounds, integer, grouped):
    """A random ensemble state of ``rng.integers(*rounds)`` rounds on n examples (X with nb
    bins per feature, labels y) and its whole node as ``_node_items`` makes it; returns
    (X, y, scores, c, _node_items' tuple)."""
    X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
    scores, c = ensemble_state(rng, n, K, int(rng.integers(*rounds)), integer=integer)
    y = rng.integers(0, K, n).astype(np.int32)
    margin = np.empty(n)
    ls.unnormalised_margins(scores, y, margin)
    ws = ZeroOneWorkspace(n, F, nb, K, 1)
    ws.sample_index[:] = np.arange(n)
    return X, y, scores, c, _node_items(X, y, scores, margin, ws, 0, n, grouped, nb)


def _random_candidate(rng, X, K, nb, order, L, items):
    """A random candidate of a node's items: (feature, threshold, mode, its two labels, its
    number of members)."""
    f, t = int(rng.integers(0, X.shape[1])), int(rng.integers(0, nb))
    mode = int(rng.integers(0, 3))
    la, lb = int(rng.integers(0, K)), int(rng.integers(0, K))
    members = 0
    for q in order[:L]:
        _, na, nb_ = msf._item(items, q, X, f, t, mode)
        members += int(na) + int(nb_)
    return f, t, mode, la, lb, members


def _random_node(rng, it, n, K, F, nb, grouped, nearly_pure=False):
    """A random ensemble state (tie-heavy / continuous by ``it``, signed zeros every third,
    optionally a nearly pure class column) on n examples and a random node of it, as the node
    search makes it (``_node_items``), with the node's occupied bins per feature
    (obin[f, :nob[f]], increasing). Returns a dict of the pieces."""
    X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
    scores, c = ensemble_state(rng, n, K, int(rng.integers(0, 6)), integer=it % 2 == 0)
    if it % 3 == 0:
        scores[rng.random((n, K)) < 0.2] = -0.0
    y = rng.integers(0, K, n).astype(np.int32)
    if nearly_pure:       # the passes read far for another class
        y[:] = 0
        y[rng.random(n) < 0.03] = 1
    margin = np.empty(n)
    ls.unnormalised_margins(scores, y, margin)
    ws = ZeroOneWorkspace(n, F, nb, K, 1)
    ws.sample_index[:] = rng.permutation(n)
    start = int(rng.integers(0, n))
    end = int(rng.integers(start + 1, n + 1))
    L, imargin, order, items, bufs = _node_items(X, y, scores, margin, ws, start, end, grouped,
                                                 nb)
    rows = ws.sample_index[start:end]
    obin = np.zeros((F, nb), np.int32)
    nob = np.zeros(F, np.int64)
    for f in range(F):
        occ = np.unique(X[rows, f])
        obin[f, : occ.size] = occ
        nob[f] = occ.size
    return dict(X=X, scores=scores, c=c, y=y, margin=margin, ws=ws, start=start, end=end, L=L,
                order=order, items=items, bufs=bufs, obin=obin, nob=nob)


@pytest.mark.parametrize("grouped", [False, True])
def test_phase2_scan_equals_plain_summation(grouped):
    # _scan keeps only the numerators that can be among the kcap smallest and stops early
    # (also below a given upper bound of the kcap-th value); its S and slopes must be the very
    # bits of summing every entry below the kcap-th value in margin order (what the node
    # search compares), on tie-heavy and continuous states.
    rng = np.random.default_rng(31 + int(grouped))
    for it in range(30):
        n, K, F, nb = int(rng.integers(2, 300)), int(rng.integers(2, 5)), 2, 5
        X, y, scores, c, (L, imargin, order, items, bufs) = _whole_node(
            rng, n, K, F, nb, (0, 6), it % 2 == 0, grouped)
        for _ in range(20):
            f, t = int(rng.integers(0, F)), int(rng.integers(0, nb))
            mode = int(rng.integers(0, 3))
            la, lb = int(rng.integers(0, K)), int(rng.integers(0, K))
            entries = []
            for q in order[:L]:
                r, na, nb_ = msf._item(items, q, X, f, t, mode)
                for nw, lab in ((na, la), (nb_, lb)):
                    if nw:
                        pi, si, wi = ls.piece_terms(scores, r, y[r], lab, imargin[q])
                        entries.append((pi, nw, si, wi))
            n_mem = sum(e[1] for e in entries)
            if n_mem == 0:
                continue
            kcap = int(rng.integers(1, n_mem + 1))
            for alpha in (0.0, float(rng.uniform(0, 2 * c + 1)), float(rng.integers(0, 4)),
                          2 * c + 1):
                ref = scan_reference(
                    [(ls.numerator(p, s, w, alpha), nw, ls.left_slope(p, s, w, alpha),
                      ls.right_slope(p, s, w, alpha)) for p, nw, s, w in entries], kcap)
                vk = ref[3]
                for ucap in (np.inf, vk, vk + float(rng.uniform(0, 1)), vk + 2 * c + 1):
                    got = msf._scan(order, L, X, f, t, la, lb, mode, scores, y, items, kcap,
                                    alpha, ucap, bufs)
                    assert got == ref


@pytest.mark.parametrize("grouped", [False, True])
def test_phase2_exact_search_shortcuts_find_the_plain_searchs_maximum(grouped):
    # The walk's exact searches (warm >= 0: probes at phi's linear zero, the crossing's kink
    # taken without probing it again, a warm start from any alpha) only move where S is
    # probed: each maximum must be the plain search's (warm < 0) to the tie tolerance, be g at
    # the alpha returned with it (the scan's bits there), and be at least g on a grid.
    rng = np.random.default_rng(47 + int(grouped))
    mtab = np.zeros((4, 1, 1, 1))
    searched = 0
    for it in range(24):
        n, K, F, nb = int(rng.integers(30, 400)), int(rng.integers(2, 5)), 2, 5
        X, y, scores, c, (L, _, order, items, bufs) = _whole_node(
            rng, n, K, F, nb, (1, 12), it % 3 == 0, grouped)
        hi = 2.0 * c + 1.0
        grid = np.linspace(0.0, hi, 301)
        for _ in range(12):
            f, t, mode, la, lb, n_mem = _random_candidate(rng, X, K, nb, order, L, items)
            if n_mem == 0:
                continue
            kcap = int(rng.integers(1, n_mem + 1))
            S0, _, Q0, v0 = msf._scan(order, L, X, f, t, la, lb, mode, scores, y, items, kcap,
                                      0.0, np.inf, bufs)
            if not np.isfinite(S0) or not ls._rising(S0, Q0, kcap, c, 0.0):
                continue

            def search(a_first, warm):
                return msf._cand_max(order, L, X, f, t, la, lb, mode, scores, y, items, kcap, c,
                                     hi, S0, Q0, False, -1.0, -np.inf, v0, bufs, False, mtab,
                                     np.inf, False, a_first, warm)

            def g(a):
                S = msf._scan(order, L, X, f, t, la, lb, mode, scores, y, items, kcap, a,
                              np.inf, bufs)[0]
                return S / (kcap * (c + a))

            ref, x_ref = search(-1.0, -1.0)
            tol = ls.OBJ_TIE_EPS * (1.0 + abs(ref))
            assert max(g(a) for a in grid) <= ref + tol
            searched += 1
            for warm in (0.0, float(rng.uniform(0.0, hi)), x_ref * float(rng.uniform(0.8, 1.2)),
                         x_ref):
                for a_first in (-1.0, float(rng.uniform(0.0, hi))):
                    v, x = search(a_first, warm)
                    assert abs(v - ref) <= tol
                    assert 0.0 <= x <= hi and v == g(x)
    assert searched >= 100


@pytest.mark.parametrize("grouped", [False, True])
def test_phase2_min_scan_equals_scan_for_one_bottom_example(grouped):
    # n' = 1: the node search reads S(alpha) = min(A + alpha, Bm, C - alpha) from the node's
    # per-(feature, bin, label) minima (_min_tables, _min_lines, _min_scan) instead of
    # scanning; S, both slopes and the bottom value must equal _scan's with kcap = 1 (S and
    # the slopes bit for bit), on sub-nodes of tie-heavy and continuous states, at kinks too.
    rng = np.random.default_rng(41 + int(grouped))
    for it in range(30):
        n, K, F, nb = int(rng.integers(2, 300)), int(rng.integers(2, 6)), 2, 5
        nd = _random_node(rng, it, n, K, F, nb, grouped)
        X, scores, c, y, margin, ws = (nd[k] for k in ("X", "scores", "c", "y", "margin", "ws"))
        start, end, L, order, items, bufs = (nd[k] for k in ("start", "end", "L", "order",
                                                            "items", "bufs"))
        obin, nob = nd["obin"], nd["nob"]
        # The tables are written at the node's occupied bins (its candidates' thresholds)
        # only: NaN elsewhere makes any other read fail the comparisons below; a threshold t
        # is read at the largest occupied bin <= t (the same members on each side).
        mtab = np.full((4, F, nb, K), np.nan)
        msf._min_tables(X, ws.sample_index, start, end, y, scores, margin, mtab, obin, nob,
                        np.zeros(K))
        for _ in range(20):
            f, t, mode, la, lb, members = _random_candidate(rng, X, K, nb, order, L, items)
            if members == 0:
                continue
            alphas = [0.0, float(rng.uniform(0, 2 * c + 1)), float(rng.integers(0, 4)),
                      2 * c + 1]
            occ = obin[f, : nob[f]]
            below = occ[occ <= t]
            if mode != msf.MODE_ALL and below.size == 0:
                continue   # an empty left side: not a candidate
            A, Bm, C = msf._min_lines(mtab, f, int(below[-1]) if below.size else t, la, lb,
                                      mode)
            # The kinks of S: where the lines meet.
            alphas += [a for a in (Bm - A, C - Bm, (C - A) / 2) if 0.0 <= a <= 2 * c + 1]
            for alpha in alphas:
                want = msf._scan(order, L, X, f, t, la, lb, mode, scores, y, items, 1, alpha,
                                 np.inf, bufs)
                got = msf._min_scan(A, Bm, C, alpha)
                assert got == want
                assert np.array(got[:3]).tobytes() == np.array(want[:3]).tobytes()


def test_phase2_side_bound_is_each_sides_maximum_and_bounds_every_label_pair():
    # Cut 16 (n' = 1): a candidate is skipped when min(max_a g_left(a), max_b g_right(b)) --
    # each side alone under its best label, from the node's tables -- is below the best split.
    # _lines_max must be the exact maximum of min(A + a, Bm, C - a) / (c + a) over [0, 2c + 1]
    # (a missed kink of the three lines fails the first assertion), and the bound must never
    # fire below the split's own maximum under any label pair (line 9's MODE_SPLIT lines), on
    # sub-nodes of tie-heavy and continuous states, per example and grouped.
    rng = np.random.default_rng(91)
    n_checked = 0
    for it in range(40):
        n, K, F, nb = int(rng.integers(2, 200)), int(rng.integers(2, 5)), 2, 5
        nd = _random_node(rng, it, n, K, F, nb, it % 2 == 1)
        X, scores, c, y, margin, ws = (nd[k] for k in ("X", "scores", "c", "y", "margin", "ws"))
        obin, nob = nd["obin"], nd["nob"]
        if c <= 0.0:
            continue
        hi = 2.0 * c + 1.0
        mtab = np.full((4, F, nb, K), np.nan)
        msf._min_tables(X, ws.sample_index, nd["start"], nd["end"], y, scores, margin, mtab,
                        obin, nob, np.zeros(K))
        grid = np.linspace(0.0, hi, 401)

        def g_max(A, Bm, C):
            with np.errstate(invalid="ignore"):      # inf - inf: an empty kind, no kink
                kinks = [a for a in (Bm - A, C - Bm, (C - A) / 2) if 0.0 <= a <= hi]
            alphas = list(grid) + kinks
            return max(msf._min_scan(A, Bm, C, a)[0] / (c + a) for a in alphas)

        for f in range(F):
            for t in obin[f, : nob[f] - 1]:
                t = int(t)
                side = []
                for j in (0, 2):
                    best = -np.inf
                    for k in range(K):
                        other = min((mtab[j, f, t, q] for q in range(K) if q != k),
                                    default=np.inf)
                        A, Bm, C = mtab[j, f, t, k], other, mtab[j + 1, f, t, k]
                        got = msf._lines_max(A, Bm, C, c, hi)
                        want = g_max(A, Bm, C)
                        assert abs(got - want) <= 1e-12 * (1.0 + abs(want))
                        best = max(best, got)
                    side.append(best)
                split = max(g_max(*msf._min_lines(mtab, f, t, a, b, msf.MODE_SPLIT))
                            for a in range(K) for b in range(K))
                assert split <= min(side) + 1e-12 * (1.0 + abs(split))
                assert not msf._side_bound_below(mtab, f, t, c, hi, split)
                top = min(side)
                assert msf._side_bound_below(mtab, f, t, c, hi, top + 1e-6 * (1.0 + abs(top)))
                n_checked += 1
    assert n_checked > 50


def test_phase2_first_member_tables_give_the_passes_values():
    # n' = 1 per example: line 7's / line 9's pre-work starts at S_left's first member and
    # takes the falling bounds from the node's first-member tables (_first_pos_tables,
    # _two_smallest, _falling_bounds_first) instead of passes over the node: the same S(0),
    # slopes, corner keys and read length as _slopes_at_zero from position 0, and the same
    # bounds as _falling_bounds, bit for bit, on sub-nodes of tie-heavy, nearly pure and
    # continuous states (signed zeros too), every occupied threshold, every fixed label.
    rng = np.random.default_rng(81)
    n_checked = 0
    for it in range(40):
        n, K, F, nb = int(rng.integers(2, 200)), int(rng.integers(2, 6)), 2, 6
        nd = _random_node(rng, it, n, K, F, nb, False, nearly_pure=it % 4 == 1)
        X, scores, y, margin, ws = (nd[k] for k in ("X", "scores", "y", "margin", "ws"))
        L, order, items, obin, nob = (nd[k] for k in ("L", "order", "items", "obin", "nob"))
        top_lab = np.zeros(n, np.int32)
        msf.top_labels(scores, y, top_lab)
        fpos = np.full((2, F, nb, K), -7, np.int64)
        msf._first_pos_tables(ws.sx, ws.sy, L, obin, nob, fpos)
        om = order.astype(np.int64)
        for f in range(F):
            for t in obin[f, : nob[f]]:
                t = int(t)
                for mode in (msf.MODE_LEFT, msf.MODE_SPLIT):
                    for lab in range(K):
                        if mode == msf.MODE_LEFT and lab > 0:
                            break
                        q0 = 0
                        if mode == msf.MODE_LEFT:
                            q0 = int(msf._two_smallest(fpos, 0, f, t, L)[0])
                            left = [p for p in range(L) if ws.sx[f, p] <= t]
                            assert q0 == (left[0] if left else L)
                        outs = []
                        for qs in (0, q0):
                            bufs_k = [np.zeros(K) for _ in range(5)]
                            r = msf._slopes_at_zero(om, L, X, f, t, lab, mode, scores, y,
                                                    margin, items, top_lab, 1, *bufs_k, qs)
                            outs.append((np.array(r).tobytes(), bufs_k[0].tobytes(),
                                         bufs_k[4].tobytes()))
                        assert outs[0] == outs[1]
                        want = np.zeros(K)
                        msf._falling_bounds(om, L, X, f, t, lab, mode, scores, y, items, 1,
                                            want, np.zeros(K))
                        got = np.full(K, np.nan)
                        msf._falling_bounds_first(L, f, t, lab, mode, items, fpos, got)
                        assert got.tobytes() == want.tobytes(), (got, want)
                        n_checked += 1
    assert n_checked > 500


def test_phase2_count_tables_give_the_passes_values():
    # n' > 1 per example: line 9's pre-work (kcap = kS) and line 7's where S_left is its whole
    # bottom set come from the node's count tables (_count_tables, _slopes_split_tab,
    # _slopes_left_whole) instead of passes over the node: the same S(0), read length, v0,
    # slopes at 0 and corner keys as _slopes_at_zero, the same bottom counts and read
    # position as bottom_counts, bit for bit; and where the tables say no label can fill
    # kcap falling members, _falling_bounds gives +inf for every label. Sub-nodes of
    # tie-heavy, nearly pure and continuous states (signed zeros too), every occupied
    # threshold, every fixed label, random kS.
    from mcboost_cli.learners.margin_bound_walk import bottom_counts
    rng = np.random.default_rng(83)
    n_checked = 0
    n_skipped = 0
    for it in range(40):
        n, K, F, nb = int(rng.integers(2, 200)), int(rng.integers(2, 6)), 2, 6
        nd = _random_node(rng, it, n, K, F, nb, False, nearly_pure=it % 4 == 1)
        X, scores, y, margin, ws = (nd[k] for k in ("X", "scores", "y", "margin", "ws"))
        L, order, items, obin, nob = (nd[k] for k in ("L", "order", "items", "obin", "nob"))
        sm, sy, sx = ws.sm, ws.sy, ws.sx
        top_lab = np.zeros(n, np.int32)
        msf.top_labels(scores, y, top_lab)
        om = order.astype(np.int64)
        kS = int(rng.integers(1, L + 1))
        ctab = np.full((F, nb, msf.CT_N, K), -9, np.int32)
        ctot = np.zeros((msf.CT_N, K), np.int32)
        tS0, tread, tv0, tstrict, ttie = msf._count_tables(
            sm, sy, sx, om, L, kS, scores, margin, top_lab, obin, nob, ctab, ctot,
            np.zeros((2, K), np.int32))
        for f in range(F):
            for t in obin[f, : nob[f]]:
                t = int(t)
                nl = int(sum(sx[f, p] <= t for p in range(L)))
                for lab in range(K):
                    want = [np.zeros(K) for _ in range(5)]
                    r = msf._slopes_at_zero(om, L, X, f, t, lab, msf.MODE_SPLIT, scores, y,
                                            margin, items, top_lab, kS, *want, 0)
                    got = [np.full(K, np.nan) for _ in range(5)]
                    msf._slopes_split_tab(f, t, lab, ctab, ctot, *got, kS, tstrict, ttie)
                    assert np.array(r).tobytes() == np.array((tS0, tread, tv0)).tobytes()
                    assert got[0].tobytes() == want[0].tobytes()
                    assert got[4].tobytes() == want[4].tobytes()
                    rc = np.zeros(K)
                    assert bottom_counts(sy, sx, f, t, lab, msf.MODE_SPLIT, L, kS, rc) == kS
                    rc2 = (ctot[msf.CT_BOTTOM] - ctab[f, t, msf.CT_BOTTOM]).astype(np.float64)
                    if ctab[f, t, msf.CT_BOTTOM, lab] != 0:
                        rc2 += float(ctab[f, t, msf.CT_BOTTOM, lab])
                    assert rc.tobytes() == rc2.tobytes()
                    wrong = ((nl - ctab[f, t, msf.CT_CLASS, lab])
                             + (L - nl) - (ctot[msf.CT_CLASS] - ctab[f, t, msf.CT_CLASS]))
                    acc = np.zeros(K)
                    msf._falling_bounds(om, L, X, f, t, lab, msf.MODE_SPLIT, scores, y, items,
                                        kS, acc, np.zeros(K))
                    if wrong.max() < kS:
                        assert np.all(acc == np.inf)
                        n_skipped += 1
                    n_checked += 1
                assert ctab[f, t, msf.CT_CLASS].sum() == nl
                want = [np.zeros(K) for _ in range(5)]
                r = msf._slopes_at_zero(om, L, X, f, t, 0, msf.MODE_LEFT, scores, y, margin,
                                        items, top_lab, nl, *want, 0)
                got = [np.full(K, np.nan) for _ in range(5)]
                r2 = msf._slopes_left_whole(f, t, L, sm, sx, sy, om, scores, margin, top_lab,
                                            ctab, *got, nl)
                assert np.array(r).tobytes() == np.array(r2).tobytes()
                assert got[0].tobytes() == want[0].tobytes()
                assert got[4].tobytes() == want[4].tobytes()
                rc = np.zeros(K)
                readk = bottom_counts(sy, sx, f, t, 0, msf.MODE_LEFT, L, nl, rc)
                assert readk == max(p for p in range(L) if sx[f, p] <= t) + 1
                assert rc.tobytes() == ctab[f, t, msf.CT_CLASS].astype(np.float64).tobytes()
                for kc in range(1, nl + 1):
                    acc = np.zeros(K)
                    msf._falling_bounds(om, L, X, f, t, 0, msf.MODE_LEFT, scores, y, items, kc,
                                        acc, np.zeros(K))
                    if (nl - ctab[f, t, msf.CT_CLASS]).max() < kc:
                        assert np.all(acc == np.inf)
                        n_skipped += 1
                n_checked += 1
    assert n_checked > 500 and n_skipped > 100


@pytest.mark.parametrize("eps", [0.0, 0.01])
def test_phase2_count_tables_give_the_same_trees(eps):
    # The count tables (``count_tables``) only replace passes by equal values: deep trees on
    # examples with n' from 2 to n (nodes with at most n' examples, where line 7's S_left is
    # its own bottom set, and larger ones), with ties (integer scores) and without, cuts 0, 7
    # and 15 (K = 2: the binary skips) with the walk, must be the trees of the passes.
    rng = np.random.default_rng(93 + int(eps > 0))
    for it in range(10):
        n, K, F, nb = 400, int(rng.integers(2, 7)), int(rng.integers(1, 5)), 10
        X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
        scores, c = ensemble_state(rng, n, K, int(rng.integers(1, 12)), integer=it % 2 == 0)
        y = ((X[:, 0] % nb + rng.integers(0, 2, n)) % K).astype(np.int32)
        depth = int(rng.integers(3, 7))
        nprime = [2, n // 10, n // 4, int(rng.integers(2, n)), n][it % 5]
        for cuts in (0, 7, 15):
            trees = []
            for tables in (True, False):
                ws = ZeroOneWorkspace(n, F, nb, K, depth)
                m = grow_margin_tree(ws, X, y, np.full(F, nb, np.int32), scores, c, nprime,
                                     OBJ_BOTTOM_AVG, False, eps, grouping="off",
                                     bound_cuts=cuts, walk_bound=True, count_tables=tables)
                trees.append((m, ws.feature[:m].copy(), ws.threshold[:m].copy(),
                              ws.node_label[:m].copy(), ws.vote.copy()))
            for a, b in zip(trees[0], trees[1], strict=True):
                np.testing.assert_array_equal(a, b)


def test_phase2_heap_rest_sorted_gives_the_pop_order():
    # The node search pops its candidates from a heap (best bound first, the lower index on
    # ties) and, after a quarter of them, sorts the rest at once (sort_heap_rest): the same
    # order as popping them all, with many tied bounds, for any number popped first.
    rng = np.random.default_rng(91)
    for it in range(200):
        n = int(rng.integers(1, 300))
        ubt = rng.integers(0, 6, n).astype(np.float64) if it % 2 else rng.normal(size=n)
        heap = np.arange(n, dtype=np.int64)
        for root in range(n // 2 - 1, -1, -1):
            msf._cand_sift_down(ubt, heap, root, n)
        want = sorted(range(n), key=lambda i: (-ubt[i], i))
        got = []
        n_heap = n
        n_pop = int(rng.integers(0, n + 1))
        while n_heap > 0 and len(got) < n_pop:
            got.append(int(heap[0]))
            n_heap -= 1
            heap[0] = heap[n_heap]
            msf._cand_sift_down(ubt, heap, 0, n_heap)
        msf.sort_heap_rest(ubt, heap, np.zeros(n, np.int64), n_heap)
        got += [int(v) for v in heap[:n_heap]]
        assert got == want


def test_phase2_two_smallest_gives_min_other_bit_for_bit():
    # n' = 1 label picks read each label's "smallest entry of another class" from the two
    # smallest entries of the row (_two_smallest, once per pick) instead of _min_other's scan
    # per label: the same float for every label, bit for bit, with ties, signed zeros, +inf
    # rows and entries, K = 1 .. 8.
    rng = np.random.default_rng(71)
    pool = np.array([-1.5, -0.0, 0.0, 0.25, 2.0, np.inf])
    n_checked = 0
    for it in range(400):
        K = int(rng.integers(1, 9))
        mtab = np.full((4, 2, 3, K), np.nan)
        row = pool[rng.integers(0, pool.size, K)] if it % 2 == 0 else rng.normal(size=K)
        j, f, t = int(rng.integers(0, 4)), int(rng.integers(0, 2)), int(rng.integers(0, 3))
        mtab[j, f, t] = row
        m1, i1, m2 = msf._two_smallest(mtab, j, f, t, msf.INF)
        for lab in range(K):
            want = msf._min_other(mtab, j, f, t, lab)
            got = m2 if lab == i1 else m1
            assert np.array(got).tobytes() == np.array(want).tobytes()
            n_checked += 1
    assert n_checked > 1000


@pytest.mark.parametrize("eps", [0.0, 0.01])
def test_phase2_min_tables_give_the_scans_trees(eps):
    # n' = 1 trees with the min tables against the same search with scans (every label
    # pick, candidate order, abort and tie-break goes through the same control flow; only
    # the evaluations differ), grouped and per example, on states large enough for deep
    # trees, with ties (integer scores) and without.
    rng = np.random.default_rng(51 + int(eps > 0))
    for it in range(12):
        n, K, F, nb = 400, int(rng.integers(2, 7)), int(rng.integers(1, 5)), 8
        X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
        scores, c = ensemble_state(rng, n, K, int(rng.integers(1, 12)), integer=it % 2 == 0)
        y = ((X[:, 0] % nb + rng.integers(0, 2, n)) % K).astype(np.int32)
        depth = int(rng.integers(1, 6))
        for grouping in ("off", "on"):
            trees = []
            for min_tables in (True, False):
                ws = ZeroOneWorkspace(n, F, nb, K, depth)
                m = grow_margin_tree(ws, X, y, np.full(F, nb, np.int32), scores, c, 1,
                                     OBJ_BOTTOM_AVG, False, eps, grouping=grouping,
                                     min_tables=min_tables)
                trees.append((m, ws.feature[:m].copy(), ws.threshold[:m].copy(),
                              ws.node_label[:m].copy(), ws.vote.copy()))
            for a, b in zip(trees[0], trees[1], strict=True):
                np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("eps", [0.0, 0.01])
def test_phase2_candidate_cuts_give_the_same_trees(eps):
    # The cuts between candidates (``bound_cuts``: line 9 skipped when line 7's maximum is
    # below the best split; line 7's maxima bounding each other across a feature's
    # thresholds; line 7 floored at the best split; with n' = 1, a candidate whose two sides
    # alone cannot reach the best split skipped) and the bottom set's walk bound
    # (``walk_bound``) only drop work that cannot change the result: every combination must grow
    # the tree of the plain search, per example and grouped, with n' = 1 (min tables), small
    # and large n', ties (integer scores) and without, on states large enough for the cuts to
    # fire (many thresholds with at least n' examples on the left).
    rng = np.random.default_rng(61 + int(eps > 0))
    for it in range(12):
        n, K, F, nb = 500, int(rng.integers(2, 8)), int(rng.integers(1, 5)), 12
        X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
        scores, c = ensemble_state(rng, n, K, int(rng.integers(1, 15)), integer=it % 2 == 0)
        y = ((X[:, 0] % nb + rng.integers(0, 2, n)) % K).astype(np.int32)
        depth = int(rng.integers(1, 5))
        nprime = [1, max(1, n // 10), int(rng.integers(1, n // 3)), n][it % 4]
        for grouping in ("off", "on"):
            trees = []
            for cuts, walk in ((0, False), (1, False), (2, False), (3, False), (7, False),
                               (16, False), (0, True), (4, True), (7, True), (31, True)):
                ws = ZeroOneWorkspace(n, F, nb, K, depth)
                m = grow_margin_tree(ws, X, y, np.full(F, nb, np.int32), scores, c,
                                     nprime, OBJ_BOTTOM_AVG, False, eps,
                                     grouping=grouping, bound_cuts=cuts, walk_bound=walk)
                trees.append((m, ws.feature[:m].copy(), ws.threshold[:m].copy(),
                              ws.node_label[:m].copy(), ws.vote.copy()))
            for other in trees[1:]:
                for a, b in zip(trees[0], other, strict=True):
                    np.testing.assert_array_equal(a, b)


def test_cut2_fenwick_records_equal_scans_of_the_positions():
    # Cut 2's records (``_fen_*``): after each record, in a random order of the positions,
    # every position's query must return what a scan of the recorded positions returns — the
    # largest lb after it, and per label the smallest ub + 1e-9 (1 + |ub|) before it (finite
    # bounds only) — bit for bit, with ties (integer values), infinite bounds, and tiny T.
    rng = np.random.default_rng(35)
    for it in range(60):
        T = int(rng.integers(1, 40)) if it > 3 else it + 1
        K = int(rng.integers(1, 5))
        F = 2
        f = int(rng.integers(0, F))
        # Entries outside f's 1..T would change the answers if read.
        lb_fen = np.full((F, T + 3), 1e300)
        ub_fen = np.full((F, T + 3, K), -1e300)
        lb_fen[f, 1:T + 1] = -np.inf
        ub_fen[f, 1:T + 1] = np.inf
        integer = it % 2 == 0
        lb_rec = np.full(T, -np.inf)
        ub_rec = np.full((T, K), np.inf)
        for pos in rng.permutation(T):
            v = float(rng.integers(-3, 3)) if integer else float(rng.normal())
            ub = rng.integers(-3, 3, K).astype(float) if integer else rng.normal(size=K)
            ub[rng.random(K) < 0.2] = np.inf
            if rng.random() < 0.8:                 # some positions record only the bounds
                msf._fen_max_record(lb_fen, f, pos, T, v)
                lb_rec[pos] = v
            msf._fen_min_record(ub_fen, f, pos, T, K, ub)
            ub_rec[pos] = ub
            for q in range(T):
                want = -np.inf
                for r in range(q + 1, T):
                    if lb_rec[r] > want:
                        want = lb_rec[r]
                assert msf._fen_suffix_max(lb_fen, f, q, T) == want
                out = np.full(K, np.inf)
                out[0] = 1.5 if K > 1 else out[0]  # a bound known before the records
                want_u = out.copy()
                for r in range(q):
                    for k in range(K):
                        u = ub_rec[r, k]
                        if u < np.inf:
                            u += 1e-9 * (1.0 + abs(u))
                            if u < want_u[k]:
                                want_u[k] = u
                msf._fen_prefix_min(ub_fen, f, q, K, out)
                np.testing.assert_array_equal(out, want_u)


# ---------------------------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------------------------


def make_data(seed, n=240, K=4, F=4, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    z = X[:, 0] + 0.6 * X[:, 1] - 0.4 * X[:, 2] + noise * rng.normal(size=n)
    y = np.digitize(z, np.quantile(z, np.linspace(0, 1, K + 1)[1:-1]))
    return X, y


def normalised_margins(est, X, y):
    F = est.class_scores(X)
    c = float(np.sum(est.forest_.alpha))
    code = np.searchsorted(est.classes_, y)
    fy = F[np.arange(len(y)), code].copy()
    F[np.arange(len(y)), code] = -np.inf
    return (fy - F.max(axis=1)) / c


def strict_error(est, X, y):
    F = est.class_scores(X)
    code = np.searchsorted(est.classes_, y)
    fy = F[np.arange(len(y)), code].copy()
    F[np.arange(len(y)), code] = -np.inf
    return float(np.mean(~(fy > F.max(axis=1))))


def phase2_curve(est):
    """The Phase II objective before Phase II (the Phase I ensemble's) and after each round."""
    return np.concatenate([[est.phase2_start_objective_],
                           est.objective_[est.n_phase1_rounds_:]])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_phase1_error_never_increases_and_phase2_objective_never_decreases(seed):
    X, y = make_data(seed)
    est = DMCBoost(n_rounds=60, max_depth=2, max_bins=32, n_prime="n/10", epsilon=0.0,
                   phase1_patience=4)
    est.fit(X, y)
    n1 = est.n_phase1_rounds_
    assert n1 >= 1 and np.all(est.phase_[:n1] == 1) and np.all(est.phase_[n1:] == 2)
    err1 = est.objective_[:n1]
    assert np.all(np.diff(err1) <= 0)                     # never higher (neutral steps)
    # At most phase1_patience error-neutral rounds in a row; Phase I ended by its own rule.
    flat = np.concatenate([[0], (np.diff(err1) == 0).astype(int), [0]])
    runs = np.diff(np.flatnonzero(np.diff(flat) != 0))[::2] if flat.any() else [0]
    assert max(runs) <= 4
    if est.n_rounds_ < 60:
        assert est.phase1_stop_ in ("zero training error",
                                    "4 rounds without a lower training error")
    # The Phase I objective is the realised training error with ties as errors...
    assert est.objective_[n1 - 1] == pytest.approx(strict_error_at_round(est, X, y, n1))
    # ... and the base class's curve (ties to the lowest label) can only be lower.
    assert np.all(est.train_errors_[:n1] <= err1 + 1e-12)
    g = phase2_curve(est)
    assert np.all(np.diff(g) > 0)                         # no relaxation: strictly rising
    assert not est.relaxed_.any()
    if est.n_rounds_ < 60:
        assert "no longer increases" in est.stop_reason_
    M = normalised_margins(est, X, y)
    assert np.all(M >= -1 - 1e-12) and np.all(M <= 1 + 1e-12)
    # The last Phase II objective is the bottom-n' average of the final margins.
    k = n_prime_from_choice("n/10", len(y))
    if est.n_rounds_ > n1:
        assert est.objective_[-1] == pytest.approx(np.sort(M)[:k].mean(), abs=1e-12)


def strict_error_at_round(est, X, y, t):
    F = est.class_scores(X, n_rounds=t)
    code = np.searchsorted(est.classes_, y)
    fy = F[np.arange(len(y)), code].copy()
    F[np.arange(len(y)), code] = -np.inf
    return float(np.mean(~(fy > F.max(axis=1))))


def test_relaxation_takes_epsilon_steps_at_corners_and_stops_after_patience():
    X, y = make_data(5, noise=0.4)
    est = DMCBoost(n_rounds=120, max_depth=2, max_bins=32, n_prime="n/10", epsilon=0.01,
                   patience=5, phase1_patience=3)
    est.fit(X, y)
    t1 = est.n_phase1_rounds_
    alphas = np.asarray(est.forest_.alpha)
    relaxed = est.relaxed_
    assert relaxed.any()
    # A relaxed step is epsilon past the line search's maximiser (a corner: no step there
    # raises the objective) ...
    assert np.all(alphas[relaxed] >= 0.01)
    # ... and every other Phase II step raises the objective.
    g = phase2_curve(est)
    assert np.all(np.diff(g)[~relaxed[t1:]] > 0)
    # best_round_ holds the best objective; with relaxation the fit stops `patience` rounds
    # after the last new best (unless the round budget ends it first).
    best = est.best_round_
    assert best >= t1
    g_best = est.objective_[best - 1] if best > t1 else est.phase2_start_objective_
    assert g_best == pytest.approx(g.max())
    if est.n_rounds_ < 120:
        assert "has not increased for 5 rounds" in est.stop_reason_
        assert est.n_rounds_ - best == 5
    M = normalised_margins(est, X, y)
    assert np.all(np.abs(M) <= 1 + 1e-12)


def phase2_resolution(est, g):
    """Per Phase II round: Alg. 2.1's resolution bound on the objective's gain,
    th (1 + |g|) / (2 (c + alpha)) with g before the round and c + alpha after it."""
    c_after = np.cumsum(np.asarray(est.forest_.alpha))[est.n_phase1_rounds_:]
    return 0.5 * est.th * (1.0 + np.abs(g[:-1])) / c_after


def test_phase2_gain_below_the_line_search_resolution_is_no_increase():
    # Under a 1e-12 increase test this fit "creeps": from round ~30 on, nearly every round
    # is an ascent step of alpha ~ th gaining less than the bisection can resolve, so
    # patience never fires and the fit runs to the round cap (measured: 268 of 299 Phase II
    # rounds). Those gains must count as no increase: each is then a corner (relaxed step)
    # and the fit stops `patience` rounds after the last resolvable gain.
    X, y = make_data(0, n=240, K=3)
    est = DMCBoost(n_rounds=300, max_depth=2, max_bins=32, n_prime="n/4", patience=10)
    est.fit(X, y)
    t1 = est.n_phase1_rounds_
    g = phase2_curve(est)
    bound = phase2_resolution(est, g)
    ascent = ~est.relaxed_[t1:]
    assert ascent.any() and est.relaxed_.any()
    assert np.all(np.diff(g)[ascent] > bound[ascent])
    assert est.n_rounds_ < 300 and "has not increased for 10 rounds" in est.stop_reason_
    assert est.n_rounds_ - est.best_round_ == 10
    # best_round_ is the last round whose objective beat every earlier one by more than the
    # resolution, so no later round comes within reach of "an increase" over it.
    b = est.best_round_ - t1
    assert np.all(g[b + 1:] <= g[b] + bound[b:].max())


def test_first_round_and_phase_bookkeeping():
    X, y = make_data(7)
    est = DMCBoost(n_rounds=5, max_depth=2).fit(X, y)
    # Round 1: every score 0, the interval (0, inf); alpha_1 is the exponential loss's
    # minimiser along the first tree (or the unit when that minimiser is 0).
    vote = np.argmax(est.class_scores(X, n_rounds=1), axis=1).astype(np.int32)
    code = np.searchsorted(est.classes_, y).astype(np.int32)
    a1 = est.forest_.alpha[0]
    z = np.zeros((len(y), len(est.classes_)))
    L = [nz.exp_loss_along(z, code, vote, a) for a in (a1 - 1e-4, a1, a1 + 1e-4)]
    assert a1 == 1.0 or (L[1] < L[0] and L[1] < L[2])
    assert est.n_prime_ == n_prime_from_choice("n/10", len(y)) == 24
    assert est.phase_.shape == est.objective_.shape == (est.n_rounds_,)
    assert DMCBoost.early_stopping is False


def test_n_prime_choices():
    assert [n_prime_from_choice(c, 1000) for c in
            ("1", "n/100", "n/20", "n/10", "n/4", "n/2", "n")] == [1, 10, 50, 100, 250, 500,
                                                                    1000]
    assert n_prime_from_choice("n/100", 30) == 1
    with pytest.raises(ValueError):
        DMCBoost(n_prime="n/3").fit(*make_data(0, n=40))


def test_prebinned_phase_switch_matches_raw():
    X, y = make_data(8, noise=1.0)
    mapper = BinMapper(max_bins=32).fit(X)
    a = DMCBoost(n_rounds=30, max_depth=2, max_bins=32).fit(X, y)
    b = DMCBoost(n_rounds=30, max_depth=2, max_bins=32).fit(
        Binned(mapper.transform(X), mapper), y)
    np.testing.assert_array_equal(a.objective_, b.objective_)
    np.testing.assert_array_equal(a.phase_, b.phase_)


def test_corner_key_shares_tied_slots_evenly():
    # The Phase II tie-break key against a plain numpy version, on integer problems where
    # ties at the n'-th margin are frequent; and it must differ from the pessimistic right
    # derivative (tied slots taken by the smallest slopes) whenever the tied slopes differ.
    rng = np.random.default_rng(11)
    differs = 0
    for _ in range(300):
        L = int(rng.integers(2, 30))
        p = rng.integers(-3, 3, L).astype(float)
        s = (rng.random(L) < 0.4).astype(float)
        w = np.where(s > 0, np.inf, p + rng.integers(0, 2, L))
        k = int(rng.integers(1, L + 1))
        got = corner_key(p, s, w, L, k, np.empty(L))
        assert got == pytest.approx(nz.corner_key_naive(p, s, w, k), abs=1e-12)
        _, Q0 = ls.bottom_sum(p, s, w, L, k, 0.0, 1, np.empty(L))
        assert got >= Q0 / k - 1e-12          # the pessimistic slope is a lower bound
        differs += got > Q0 / k + 1e-12
    assert differs > 30


@pytest.mark.parametrize("seed", [0, 3])
def test_phase1_keeps_the_exactly_better_of_its_two_proposals(seed, monkeypatch):
    # Each Phase I round grows a tree under the midpoint and one under the cut-aware kink
    # placement (dmcboost._boost_phase1) and keeps the one whose exact line search has fewer
    # errors, then a lower exponential loss, the midpoint tree on ties. Every proposal is
    # recorded with its own exact line search; the kept round must be the better one, and
    # the cut-aware tree must win some rounds (else a builder always keeping the midpoint
    # tree would pass).
    import mcboost_cli.algorithms.dmcboost as dm
    proposals, kept = [], []
    grow = dm.grow_zero_one_tree

    def recording_grow(ws, X_binned, y, n_bins, scores, c=None, unit=1.0, **kw):
        m = grow(ws, X_binned, y, n_bins, scores, c, unit, **kw)
        n, K = scores.shape
        buf = ([np.empty(n) for _ in range(5)] + [np.empty(n, np.int64)]
               + [np.empty(n + 1) for _ in range(2)])
        r = ls.line_search_zero_one_exp(scores.copy(), y, ws.vote.copy(), unit, *buf)
        proposals.append((bool(kw.get("cut_aware", False)), ws.vote.copy(), r[1], r[5]))
        return m

    keep = dm.DirectBoosting._keep

    def recording_keep(self, t, m, alpha, phase, objective, relaxed=False):
        if phase == 1:
            kept.append((len(proposals), self._ws.vote.copy()))
        return keep(self, t, m, alpha, phase, objective, relaxed)

    monkeypatch.setattr(dm, "grow_zero_one_tree", recording_grow)
    monkeypatch.setattr(dm.DirectBoosting, "_keep", recording_keep)
    # Each proposal grown on its own (the pair growth gives the same two trees: tested in
    # test_phase1_pair_grows_both_proposals).
    monkeypatch.setattr(dm.DirectBoosting, "_phase1_pair", False)
    X, y = make_data(seed, noise=0.2)
    DMCBoost(n_rounds=40, max_depth=2, max_bins=32, n_prime="n/10").fit(X, y)
    cut_won = 0
    for n_props, vote in kept:
        (c0, v0, e0, x0), (c1, v1, e1, x1) = proposals[n_props - 2:n_props]
        assert not c0 and c1
        cut_better = e1 < e0 or (e1 == e0 and x1 < x0 - ls.OBJ_TIE_EPS * (1 + abs(x0)))
        np.testing.assert_array_equal(vote, v1 if cut_better else v0)
        cut_won += cut_better and not np.array_equal(v0, v1)
    assert len(kept) >= 5 and cut_won >= 1


# ---------------------------------------------------------------------------------------------
# Speed paths that must not change a number (ALGORITHMS.md, "Speed")
# ---------------------------------------------------------------------------------------------


def test_guided_search_equals_searchsorted():
    # prepare_round's positions come from _guided_search (a guess from _search_guide's equal
    # cells, walked or binary-searched): every result must be np.searchsorted's, on sorted
    # arrays with repeats, clusters (long walks: the fallback), one point, and queries on,
    # between, below and above the points.
    rng = np.random.default_rng(5)
    for it in range(300):
        R = int(rng.integers(1, 60))
        kind = it % 4
        if kind == 0:
            a = np.sort(rng.normal(size=R))
        elif kind == 1:
            a = np.sort(rng.integers(0, 5, R).astype(float))          # repeats
        elif kind == 2:
            a = np.sort(np.concatenate([rng.normal(0, 1e-6, R - 1), [50.0]]))[:R]
        else:
            a = np.sort(rng.exponential(size=R) ** 4)                  # a long tail
        buf = np.zeros(R + 5)
        buf[:R] = a
        start = np.zeros(2 * R + 1, np.int64)
        lo, inv = p1._search_guide(buf, R, start)
        q = np.concatenate([a, rng.choice(a, 20) + rng.normal(0, 1e-7, 20),
                            rng.uniform(a[0] - 1, a[-1] + 1, 40), [a[0] - 10, a[-1] + 10]])
        for v in q:
            for right in (False, True):
                got = p1._guided_search(buf, R, float(v), right, lo, inv, start)
                want = np.searchsorted(a, v, side="right" if right else "left")
                assert got == want, (it, v, right)


def _prepared_round(rng, it):
    """A random node problem (every other one with ties, every third with T = 1) and its
    workspace after ``prepare_round``: (X, scores, y, K, ws, scratch, R)."""
    X, n_bins, scores, y, c, K = random_node_problem(rng, it % 2 == 0,
                                                     T=1 if it % 3 == 0 else None)
    n = len(y)
    ws = ZeroOneWorkspace(n, X.shape[1], X.max() + 1, K, 2)
    s = p1._scratch(ws, n, X.shape[1])
    R = p1.prepare_round(scores, y, 1.0, ws.correct, ws.rank, ws.s_idx, ws.axis, ws.ref,
                         ws.em, ws.kink_pos, ws.ew, s.gax, s.grf)
    return X, scores, y, K, ws, s, R


def test_prepare_round_positions_equal_searchsorted():
    # rank, s_idx and kink_pos against their definitions by np.searchsorted (numpy twin).
    rng = np.random.default_rng(8)
    for it in range(40):
        X, scores, y, K, ws, s, R = _prepared_round(rng, it)
        n = len(y)
        ax = ws.axis[:R]
        rf = ws.ref[:R]
        for i in range(n):
            top = max(scores[i, k] for k in range(K) if k != y[i])
            ay = scores[i, y[i]]
            if not ws.correct[i]:
                assert ws.rank[i] == np.searchsorted(ax, top - ay)
            for k in range(K):
                if k == y[i]:
                    continue
                assert ws.kink_pos[i, k] == np.searchsorted(rf, top - scores[i, k], "right")
                if ws.correct[i]:
                    v = ay - scores[i, k]
                    assert ws.s_idx[i, k] == (R if v > ax[-1] else np.searchsorted(ax, v))


@pytest.mark.parametrize("packed", [False, True])
def test_node_events_buckets_and_label_lists_equal_naive(packed, monkeypatch):
    # _node_events sorts S's events into three buckets per axis position (kinks, wrong
    # examples turning right, correct ones turning wrong), each in S's order (the order every
    # float sum of the sweeps sees), and says where each label's kink list starts; the first
    # sweep's _apply_bucket writes those lists as it passes the kinks (position by position).
    # Against a stable sort of the events as generated, and per-label filters of it. With
    # ``packed`` (PACKED_ROWS_MIN 0) every 0-1 event also carries its example's bins.
    monkeypatch.setattr(p1, "PACKED_ROWS_MIN", 0 if packed else 2 ** 62)
    rng = np.random.default_rng(13)
    for it in range(30):
        X, scores, y, K, ws, s, R = _prepared_round(rng, it)
        n = len(y)
        order = rng.permutation(n).astype(ws.sample_index.dtype)
        lo = int(rng.integers(0, n // 2))
        hi = int(rng.integers(lo + 1, n + 1))
        lz = s.lazy
        ev_i, ev_a, ev_b = lz[9], lz[10], lz[11]
        kl_i, kstart, kdone, kl_m, kl_w = lz[0], lz[1], lz[2], lz[12], lz[13]
        p1._node_events(X, order, lo, hi, y, ws.correct, ws.rank, ws.s_idx, R, ws.kink_pos,
                        s.jpos, ws.ev_k, K, scores, ws.em, ws.ew, ev_i, ev_a, ev_b, kstart,
                        lz[25], lz[30])
        want = []
        for i in order[lo:hi]:
            i = int(i)
            if not ws.correct[i]:
                want.append((3 * ws.rank[i] + 1, y[i], i))
            for k in range(K):
                if k == y[i]:
                    continue
                if ws.correct[i]:
                    want.append((3 * ws.s_idx[i, k] + 2, k, i))
                if ws.kink_pos[i, k] < R:
                    want.append((3 * ws.kink_pos[i, k], k, i))
        want.sort(key=lambda e: e[0])                      # stable: S's order kept
        m = len(want)
        assert s.jpos[3 * R + 2] == m
        assert ws.ev_k[:m].tolist() == [e[1] for e in want]
        assert ev_i[:m].tolist() == [e[2] for e in want]
        assert lz[25][:m].tolist() == [e[0] for e in want]
        assert (lz[30].shape[0] > 0) == packed
        if packed:
            for q, e in enumerate(want):
                if e[0] % 3 != 0:                           # a 0-1 event: its bins
                    assert lz[30][q].tolist() == X[e[2]].tolist()
        counts = np.bincount([e[0] for e in want], minlength=3 * R + 3)
        np.testing.assert_array_equal(s.jpos[:3 * R + 3], np.cumsum(counts))
        # The first sweep passes positions 0..R-1 (the buckets with events) and fills the
        # lists; a second pass without ``fill`` must not write them.
        kdone[:] = 0
        kl_i[:] = 0
        for j in range(R):
            if s.jpos[3 * j + 2] > (0 if j == 0 else s.jpos[3 * j - 1]):
                p1._apply_bucket(s.jpos, ws.ev_k, j, K, ws.correct, ev_i, ev_a, ev_b, s.xw,
                                 True, True, ws.sc, ws.sd, s.cnt, s.dirty, ws.tot, ws.tsc,
                                 ws.tsd, s.kver, kdone, True, kstart, kl_i, kl_m, kl_w,
                                 lz[30], ws.nbin)
        live = [e for e in want if e[0] < 3 * R]          # the sweeps pass positions < R
        for k in range(K):
            kinks = [e[2] for e in live if e[0] % 3 == 0 and e[1] == k]
            assert kstart[k + 1] - kstart[k] == len(kinks) == kdone[k]
            assert kl_i[kstart[k]:kstart[k + 1]].tolist() == kinks
            assert kl_m[kstart[k]:kstart[k + 1]].tolist() == [ws.em[i] for i in kinks]
            assert kl_w[kstart[k]:kstart[k + 1]].tolist() == [ws.ew[i, k] for i in kinks]
        kept = kl_i.copy()
        kdone[:] = 0
        kl_i[:kstart[K]] = n + 7
        for j in range(R):
            if s.jpos[3 * j + 2] > (0 if j == 0 else s.jpos[3 * j - 1]):
                p1._apply_bucket(s.jpos, ws.ev_k, j, K, ws.correct, ev_i, ev_a, ev_b, s.xw,
                                 True, True, ws.sc, ws.sd, s.cnt, s.dirty, ws.tot, ws.tsc,
                                 ws.tsd, s.kver, kdone, False, kstart, kl_i, kl_m, kl_w,
                                 lz[30], ws.nbin)
        assert (kl_i[:kstart[K]] == n + 7).all()
        assert kstart[K] == 0 or (kept[:kstart[K]] != n + 7).all()


@pytest.mark.parametrize("packed", [False, True])
def test_child_events_cut_from_the_parent_equal_the_childs_own(packed, monkeypatch):
    # A split node's children get their events by one pass over the parent's list
    # (_partition_events) and their bucket ends and kink-list starts from it
    # (_segment_events): the same arrays _node_events makes for each child from scratch,
    # the children's samples being the parent's in a stable partition; with ``packed`` also
    # the 0-1 events' copies of their examples' bins.
    monkeypatch.setattr(p1, "PACKED_ROWS_MIN", 0 if packed else 2 ** 62)
    rng = np.random.default_rng(29)
    for it in range(30):
        X, scores, y, K, ws, s, R = _prepared_round(rng, it)
        n = len(y)
        W = 2 * K - 1
        lz = s.lazy
        ev = (ws.ev_k, lz[9], lz[10], lz[11], lz[25])
        order = np.sort(rng.choice(n, size=int(rng.integers(2, n + 1)), replace=False))
        order = order.astype(ws.sample_index.dtype)
        m_all = len(order)
        p1._node_events(X, order, 0, m_all, y, ws.correct, ws.rank, ws.s_idx, R, ws.kink_pos,
                        s.jpos, ev[0], K, scores, ws.em, ws.ew, ev[1], ev[2], ev[3], lz[1],
                        ev[4], lz[30])
        m = int(s.jpos[3 * R + 3])
        f = int(rng.integers(0, X.shape[1]))
        t = int(rng.integers(0, X[:, f].max() + 1))
        go_right = X[order, f] > t
        left, right = order[~go_right], order[go_right]
        side = lz[26]
        side[left] = 0
        side[right] = 1
        lo, ro = n * W, n * W + len(left) * W       # the other store
        mL, mR = p1._partition_events(ev[0], ev[1], ev[2], ev[3], ev[4], m, side, *ev, lo, ro,
                                      lz[30], lz[30])
        assert mL + mR == m
        for child, base, mc in ((left, lo, mL), (right, ro, mR)):
            jpos_c = np.zeros_like(s.jpos)
            kst_c = np.zeros_like(lz[1])
            p1._segment_events(ev[0][base:], ev[4][base:], mc, R, K, jpos_c, kst_c)
            cut = [a[base:base + mc].copy() for a in ev]
            fresh = [np.zeros_like(a) for a in ev]
            fresh_x = np.zeros_like(lz[30])
            jpos_f = np.zeros_like(s.jpos)
            kst_f = np.zeros_like(lz[1])
            p1._node_events(X, child, 0, len(child), y, ws.correct, ws.rank, ws.s_idx, R,
                            ws.kink_pos, jpos_f, fresh[0], K, scores, ws.em, ws.ew, fresh[1],
                            fresh[2], fresh[3], kst_f, fresh[4], fresh_x)
            np.testing.assert_array_equal(jpos_c[:3 * R + 4], jpos_f[:3 * R + 4])
            np.testing.assert_array_equal(kst_c, kst_f)
            # ev_a / ev_b are written for some kinds only: compare where written.
            for x, y_ in zip(cut[:2] + cut[4:], fresh[:2] + fresh[4:]):
                np.testing.assert_array_equal(x, y_[:mc])
            rises_or_kinks = (cut[4] % 3 != 1)
            np.testing.assert_array_equal(cut[2][rises_or_kinks], fresh[2][:mc][rises_or_kinks])
            kinks = cut[4] % 3 == 0
            np.testing.assert_array_equal(cut[3][kinks], fresh[3][:mc][kinks])
            if packed:
                # ev_x is written for the 0-1 events only (the sweeps read no kink's copy).
                np.testing.assert_array_equal(lz[30][base:base + mc][~kinks],
                                              fresh_x[:mc][~kinks])
                np.testing.assert_array_equal(lz[30][base:base + mc][~kinks],
                                              X[ev[1][base:base + mc][~kinks]])


def _tree_of(ws, m):
    return (m, ws.feature[:m].tolist(), ws.threshold[:m].tolist(), ws.left[:m].tolist(),
            ws.node_label[:m].tolist(), ws.vote.tolist())


@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("two_pass", [None, False, True])
def test_phase1_pair_grows_both_proposals(two_pass, packed, monkeypatch):
    # grow_phase1_pair grows the midpoint tree with the cut-aware keys folded beside it and
    # says whether the cut-aware tree is the same (PAIR_SAME), parts from it at a node
    # (PAIR_RESUME: resume_cut_tree goes on from there) or at the root's label
    # (PAIR_RESTART). Each must give the very trees grown on their own, and every status
    # must occur (a pair that always restarts, or never parts, would pass the tree checks).
    # packed: as test_phase1_tree_equals_brute_force.
    monkeypatch.setattr(p1, "PACKED_ROWS_MIN", 0 if packed else 2 ** 62)
    rng = np.random.default_rng(21)
    seen = {p1.PAIR_SAME: 0, p1.PAIR_RESUME: 0, p1.PAIR_RESTART: 0}
    for it in range(150):
        if it % 3 == 0:
            X, n_bins, scores, y, c, K = random_node_problem(rng, it % 2 == 0)
        else:
            X, n_bins, scores, y, c, K = placement_problem(rng)
        depth = int(rng.integers(1, 5))
        # Each grown on its own, one after the other in one workspace, as DMCBoost's round
        # did: every array as the forest copies it, a leaf's threshold (never written by a
        # grower) included.
        alone = []
        ws = ZeroOneWorkspace(len(y), X.shape[1], X.max() + 1, K, depth)
        for cut in (False, True):
            m = p1.grow_zero_one_tree(ws, X, y, n_bins, scores, c, two_pass=two_pass,
                                      cut_aware=cut)
            alone.append(_tree_of(ws, m))
        ws = ZeroOneWorkspace(len(y), X.shape[1], X.max() + 1, K, depth)
        m, status = p1.grow_phase1_pair(ws, X, y, n_bins, scores, c, two_pass=two_pass)
        assert _tree_of(ws, m) == alone[0]
        seen[status] += 1
        if status == p1.PAIR_SAME:
            assert alone[1] == alone[0]
        else:
            m_cut = p1.resume_cut_tree(ws, X, y, n_bins, scores, status, c,
                                       two_pass=two_pass)
            assert _tree_of(ws, m_cut) == alone[1]
    assert min(seen.values()) >= 5, seen


def _eager_rows(cnt, tot, u):
    """The error prefixes of every label, made from the per-bin counts (naive twin)."""
    K, F, B = cnt.shape
    pe = np.zeros((K, F, B), np.int64)
    rc = np.zeros((K, F, B), np.int64)
    for k in range(K):
        for f in range(F):
            for v in range(u[f] - 1):
                pe[k, f, v] = cnt[k, f, :v + 1].sum()
                rc[k, f, v] = tot[k] - pe[k, f, v]
    return pe, rc


def test_lazy_error_rows_give_the_eager_rows_and_bound():
    # _count_rows remakes a stale row only where it can raise the filter bound Q (a right
    # turn since it was made) or is read at every position (ROW_NEEDED); a row stale by
    # rises alone is read through _left_count. Against every row remade from the counts:
    # the same Q entries and the same prefixes, on both lines, after random 0-1 events; and
    # on line 9 the k_left entries krow (ROW_KROW) summed again to the remade rows' values.
    rng = np.random.default_rng(8)
    skipped = 0
    for it in range(300):
        # (B = 40 sometimes: past ROW_SUM_MAX bins a stale row is remade where read.)
        # (K > EAGER_ROWS_MAX + 1 and many events: enough stale labels to leave some stale.)
        K, F = int(rng.integers(p1.EAGER_ROWS_MAX + 2, 13)), int(rng.integers(1, 4))
        B = 40 if it % 5 == 0 else int(rng.integers(2, 7))
        n = int(rng.integers(1, 30))
        sweep = it % 2
        u = rng.integers(1, B + 1, F).astype(np.int64)
        xw = np.stack([rng.integers(0, u[f], n) for f in range(F)], axis=1)
        wrong = rng.random((n, K)) < 0.5
        cnt = np.zeros((K, F, B), np.int64)
        for i in range(n):
            for k in range(K):
                if wrong[i, k]:
                    cnt[k, np.arange(F), xw[i]] += 1
        tot = wrong.sum(axis=0).astype(np.int64)
        pe, rc = _eager_rows(cnt, tot, u)
        LT1 = rng.integers(0, n + 2, (K, F, B)).astype(np.int64)
        LT2 = rng.integers(0, n + 2, (K, F, B)).astype(np.int64)
        own = pe if sweep == 0 else rc
        LT = LT1 if sweep == 0 else LT2
        Q = np.full((F, B), -(2 ** 40), np.int64)
        for f in range(F):
            for v in range(u[f] - 1):
                # Exact after an examination, or above that (raised since).
                Q[f, v] = (LT[:, f, v] - own[:, f, v]).max() + int(rng.integers(0, 2))
        kleft = rng.integers(0, K, (F, B)).astype(np.int64)
        krow = np.zeros((F, B), np.int64)
        kvmax = np.zeros((K, F), np.int64)
        p1._start_krow(u, pe, kleft, krow, kvmax)
        dirty = np.zeros(K, np.int64)
        for _ in range(int(rng.integers(0, 4 * K))):
            i, k = int(rng.integers(n)), int(rng.integers(K))
            d = 1 if not wrong[i, k] else -1       # a rise or a right turn
            wrong[i, k] = not wrong[i, k]
            cnt[k, np.arange(F), xw[i]] += d
            tot[k] += d
            dirty[k] |= p1.ROW_KROW | (p1.ROW_STALE if d == 1 else p1.ROW_STALE | p1.ROW_RAISE)
        need = rng.random(K) < 0.3
        dirty[need] |= p1.ROW_NEEDED
        lazy = [a.copy() for a in (pe, rc, dirty, Q, krow)]
        eager = [a.copy() for a in (pe, rc, dirty | p1.ROW_NEEDED, Q, krow)]
        for rows in (lazy, eager):
            p1._count_rows(u, cnt, rows[0], rows[1], rows[2], tot, sweep, LT1, LT2, rows[3],
                           kleft, rows[4], kvmax)
        pe_e, rc_e = _eager_rows(cnt, tot, u)
        np.testing.assert_array_equal(lazy[3], eager[3])
        if sweep == 1:
            for f in range(F):
                for v in range(u[f] - 1):
                    assert lazy[4][f, v] == eager[4][f, v] == pe_e[kleft[f, v], f, v]
        for k in range(K):
            stale = bool(lazy[2][k] & p1.ROW_STALE)
            skipped += stale
            assert not stale or not dirty[k] & (p1.ROW_RAISE | p1.ROW_NEEDED)
            if (dirty & p1.ROW_STALE > 0).sum() <= p1.EAGER_ROWS_MAX:
                assert not stale          # few stale labels: every one remade
            for f in range(F):
                for v in range(u[f] - 1):
                    got = p1._left_count(u, cnt, lazy[0], lazy[1], lazy[2], tot, k, f, v)
                    assert got == pe_e[k, f, v]
                    if not stale:
                        assert lazy[0][k, f, v] == pe_e[k, f, v]
                        assert lazy[1][k, f, v] == rc_e[k, f, v]
    assert skipped >= 100


@pytest.mark.parametrize("two_pass", [False, True])
def test_phase1_block_bounds_skip_blocks_and_keep_the_trees(two_pass):
    # Nodes with more thresholds than SCAN_BLOCK per feature: the filter scans skip whole
    # blocks by their bounds (counted: a search that never skipped would pass vacuously),
    # and the trees are brute force's under both placements. A bound that forgot how far
    # the 0-1 events since it was made can raise a slack skips passing thresholds.
    rng = np.random.default_rng(47)
    skipped = 0
    for it in range(12):
        X, n_bins, scores, y, c, K = _mostly_top_label_problem(rng, (30, 60), (2, 5),
                                                               (18, 40), (3, 9), 0.7)
        depth = int(rng.integers(1, 3))
        for cut in (False, True):
            ws = ZeroOneWorkspace(len(y), X.shape[1], X.max() + 1, K, depth)
            m = p1.grow_zero_one_tree(ws, X, y, n_bins, scores, c, two_pass=two_pass,
                                      cut_aware=cut)
            skipped += ws._phase1_scratch.mstat[4]
            nodes, vote = nz.grow_tree_naive(X, y, n_bins, scores, depth, c=c, cut_aware=cut)
            same_tree(ws, m, nodes, vote)
    assert skipped >= 20, skipped


def lazy_rows_problem(rng):
    """A state whose root keeps its error rows lazily (|S| K >= LAZY_EVENTS_PER_POS R):
    many labels and most examples right (few axis points), so many 0-1 events per
    position."""
    return _mostly_top_label_problem(rng, (20, 40), (9, 13), (2, 6), (2, 7), 0.85)


@pytest.mark.parametrize("two_pass", [None, False, True])
def test_phase1_lazy_error_rows_grow_the_eager_trees(two_pass):
    # The node search with lazy error-prefix rows (the default) and with every stale row
    # remade at each visited position (eager_rows): the same trees, both placements and the
    # pair, and brute force's, on states whose root keeps its rows lazily (counted: a
    # search that never went lazy would pass vacuously).
    rng = np.random.default_rng(31)
    lazy_roots = 0
    for it in range(40):
        if it % 4 == 0:
            X, n_bins, scores, y, c, K = placement_problem(rng)
        else:
            X, n_bins, scores, y, c, K = lazy_rows_problem(rng)
        depth = int(rng.integers(1, 4))
        trees = []
        for eager in (False, True):
            ws = ZeroOneWorkspace(len(y), X.shape[1], X.max() + 1, K, depth)
            got = []
            for cut in (False, True):
                m = p1.grow_zero_one_tree(ws, X, y, n_bins, scores, c, two_pass=two_pass,
                                          cut_aware=cut, eager_rows=eager)
                got.append(_tree_of(ws, m))
            m, status = p1.grow_phase1_pair(ws, X, y, n_bins, scores, c, two_pass=two_pass,
                                            eager_rows=eager)
            got.append(_tree_of(ws, m))
            if status != p1.PAIR_SAME:
                m = p1.resume_cut_tree(ws, X, y, n_bins, scores, status, c,
                                       two_pass=two_pass, eager_rows=eager)
                got.append(_tree_of(ws, m))
            trees.append(got)
            lazy_roots += (not eager) and len(y) * K >= p1.LAZY_EVENTS_PER_POS * \
                ws._phase1_scratch.R
        assert trees[0] == trees[1]
        nodes, vote = nz.grow_tree_naive(X, y, n_bins, scores, depth, c=c)
        ws = ZeroOneWorkspace(len(y), X.shape[1], X.max() + 1, K, depth)
        same_tree(ws, p1.grow_zero_one_tree(ws, X, y, n_bins, scores, c, two_pass=two_pass),
                  nodes, vote)
    assert lazy_roots >= 15, lazy_roots


def test_phase1_and_phase2_trees_on_borrowed_views_equal_the_plain_ones():
    # The growers' node searches on borrowed (reference-count-free) views of the arrays and
    # on the arrays themselves: the same trees, Phase I under both kink placements and
    # Phase II with examples and groups, n' from 1 to n.
    rng = np.random.default_rng(23)
    for it in range(40):
        X, n_bins, scores, y, c, K = placement_problem(rng)
        depth = int(rng.integers(1, 4))
        for cut in (False, True):
            trees = []
            for views in (False, True):
                ws = ZeroOneWorkspace(len(y), X.shape[1], X.max() + 1, K, depth)
                m = p1.grow_zero_one_tree(ws, X, y, n_bins, scores, c, cut_aware=cut,
                                          borrow_views=views)
                trees.append(_tree_of(ws, m))
            assert trees[0] == trees[1]
        nprime = int(rng.integers(1, len(y) + 1))
        for grouping in ("off", "on"):
            trees = []
            for views in (False, True):
                ws = ZeroOneWorkspace(len(y), X.shape[1], X.max() + 1, K, depth)
                m = grow_margin_tree(ws, X, y, n_bins, scores, c, nprime, eps=0.01,
                                     grouping=grouping, borrow_views=views)
                trees.append(_tree_of(ws, m))
            assert trees[0] == trees[1]


def test_borrowed_view_shares_the_data_and_leaves_the_count():
    import sys

    from numba import njit

    from mcboost_cli.learners.borrowed import borrowed

    @njit
    def write_through(a, b, v):
        va = borrowed(a)
        vb = borrowed(b)
        va[1] = v
        vb[0, 2] = v + 1.0
        return va.shape[0] + vb.shape[1] + vb.strides[0]

    a = np.zeros(5)
    b = np.zeros((4, 3))[::2]          # a strided view: the strides must be kept
    before = (sys.getrefcount(a), sys.getrefcount(b))
    for k in range(100):
        r = write_through(a, b, float(k))
    assert a[1] == 99.0 and b[0, 2] == 100.0
    assert r == 5 + 3 + b.strides[0]
    assert (sys.getrefcount(a), sys.getrefcount(b)) == before


@pytest.mark.parametrize("depth", [1, 3, 5])
@pytest.mark.parametrize("n_prime", ["1", "n/10", "n/2"])
def test_fast_paths_leave_whole_fits_unchanged(depth, n_prime, monkeypatch):
    # Whole fits with Phase I's pair growth and the borrowed views against each proposal
    # grown on its own on plain arrays: every number of the fit the same, bit for bit.
    import mcboost_cli.algorithms.dmcboost as dm

    X, y = make_data(depth + len(n_prime), n=200, noise=0.4)
    Xv, yv = make_data(100 + depth, n=80, noise=0.4)
    fits = []
    for fast in (False, True):
        monkeypatch.setattr(dm.DirectBoosting, "_phase1_pair", fast)
        monkeypatch.setattr(dm.DirectBoosting, "_borrow_views", fast)
        est = DMCBoost(n_rounds=150, max_depth=depth, max_bins=16, n_prime=n_prime,
                       phase1_patience=5).fit(X, y, eval_set=[(Xv, yv)])
        fo = est.forest_
        m = fo.n_nodes_total
        fits.append([fo.feature[:m].tobytes(), fo.threshold[:m].tobytes(),
                     fo.left[:m].tobytes(), fo.leaf_label[:m].tobytes(),
                     np.array(fo.alpha).tobytes(), est.train_errors_.tobytes(),
                     est.eval_errors_.tobytes(), est.objective_.tobytes(),
                     est.phase_.tobytes(), est.relaxed_.tobytes(),
                     est.decision_function(Xv).tobytes(), est.n_phase1_rounds_,
                     est.stop_reason_, est.phase1_stop_])
    assert fits[0] == fits[1]
    assert est.n_phase1_rounds_ >= 2 and est.n_rounds_ > est.n_phase1_rounds_


def test_a_fit_capped_inside_phase1_is_its_siblings_whole_fit():
    # n_rounds ends the fit while Phase I still runs: no n' can change a round, so the fit is
    # saved as the grid point's shared prefix at the cap and a sibling with another n' takes
    # it whole (no round of its own) — with the numbers of its own fit from round 1.
    import pickle

    class Store:
        def __init__(self):
            self.states = {}

        def load(self, fp):
            got = self.states.get(fp)
            return None if got is None else pickle.loads(got)

        def save(self, fp, state):
            self.states[fp] = pickle.dumps(state)

    X, y = make_data(3, n=240, noise=0.5)
    Xv, yv = make_data(4, n=80, noise=0.5)
    params = dict(n_rounds=12, max_depth=2, max_bins=16, phase1_patience=1000)
    store = Store()
    first = DMCBoost(n_prime="1", **params).fit(X, y, eval_set=[(Xv, yv)], prefix=store)
    assert first.n_rounds_ == 12 and first.n_phase1_rounds_ == 12 and not first.phase1_stop_
    assert len(store.states) == 1
    sibling = DMCBoost(n_prime="n/2", **params).fit(X, y, eval_set=[(Xv, yv)], prefix=store)
    fresh = DMCBoost(n_prime="n/2", **params).fit(X, y, eval_set=[(Xv, yv)])
    assert sibling.prefix_rounds_ == 12 and fresh.prefix_rounds_ == 0
    for a in ("train_errors_", "eval_errors_", "objective_", "phase_", "relaxed_"):
        np.testing.assert_array_equal(getattr(sibling, a), getattr(fresh, a))
    assert (sibling.stop_reason_, sibling.n_phase1_rounds_) == (fresh.stop_reason_,
                                                                fresh.n_phase1_rounds_)
    np.testing.assert_array_equal(sibling.decision_function(Xv), fresh.decision_function(Xv))
    # A fit whose Phase I ends before the cap saves its prefix where Phase II starts (as
    # before), not at the cap.
    store2 = Store()
    short = DMCBoost(n_prime="1", **dict(params, n_rounds=60, phase1_patience=2))
    short.fit(X, y, prefix=store2)
    assert short.n_phase1_rounds_ < 60 and short.phase1_stop_
    (state,) = [pickle.loads(v) for v in store2.states.values()]
    assert state["kept"] == short.n_phase1_rounds_
