"""The binary maxima of the Phase II node search (``learners/margin_bound_binary.py``): equal
to the brute-force maximum (naive twin) for every vote, within their slack of the exact line
search's float maximum, bounds of every label pair a candidate can get, and the candidate skip
they drive (``bound_cuts`` bit 8) grows the trees of the search without it."""

import numpy as np
import pytest

from mcboost_cli.learners import line_search as ls
from mcboost_cli.learners import margin_search_fast as msf
from mcboost_cli.learners import naive_zero_one as nz
from mcboost_cli.learners.margin_bound_binary import (
    binary_candidate_below,
    binary_single_max,
    binary_vote_max,
    bound_slack,
    corner_counts,
    corner_slope_key,
    line7_corner_label,
    line7_label,
    split_wrong_counts,
)
from mcboost_cli.learners.margin_search_exhaustive import OBJ_BOTTOM_AVG
from mcboost_cli.learners.margin_tree import grow_margin_tree
from mcboost_cli.learners.zero_one_workspace import ZeroOneWorkspace

from .test_dmcboost import ensemble_state, same_tree
from .test_margin_bound_walk import margin_views


def binary_node(rng, n, integer, F=2, nb=5):
    """A random binary node in margin order: its raw data, c, hi and (sm, sy, sx)."""
    X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
    scores, c = ensemble_state(rng, n, 2, int(rng.integers(1, 9)), integer=integer)
    y = rng.integers(0, 2, n).astype(np.int32)
    _, sm, sy, _, sx = margin_views(X, y, scores)
    return X, y, scores, c, 2.0 * c + 1.0, sm, sy, sx


def exact_float_max(sm, sy, sx, f, t, a, b, kcap, c, hi, left_only=False):
    """The exact line search's float maximum (``max_bottom_avg_exact``, which the node search's
    exact label searches equal) for the vote a on bin <= t, b on the rest."""
    inside = sx[f] <= t
    keep = inside if left_only else np.ones(len(sm), bool)
    right = (np.where(inside, a, b) == sy)[keep]
    p = np.ascontiguousarray(sm[keep], dtype=float)
    s = right.astype(float)
    w = np.where(right, np.inf, p)
    _, v = ls.max_bottom_avg_exact(p, s, w, len(p), kcap, c, hi, np.empty(2 * len(p)))
    return v


def node_candidates(sx, F, B):
    """The node's occupied bins and candidates as ``_best_split_phase2_fast`` lists them."""
    obin = np.zeros((F, B), np.int64)
    nob = np.zeros(F, np.int64)
    cand_lo, cand_hi = np.zeros(F, np.int64), np.zeros(F, np.int64)
    cand_f, cand_t = [], []
    for f in range(F):
        occ = np.unique(sx[f])
        nob[f] = len(occ)
        obin[f, :len(occ)] = occ
        cand_lo[f] = len(cand_t)
        for b in occ[:-1]:            # every occupied bin but the last is a threshold
            cand_f.append(f)
            cand_t.append(int(b))
        cand_hi[f] = len(cand_t)
    return obin, nob, cand_lo, cand_hi, cand_f, cand_t


@pytest.mark.parametrize("integer", [True, False])
def test_binary_vote_max_equals_brute_force(integer):
    # Integer weights make tied margins and breakpoints common (several rising and falling
    # items at the bottom set's edge, pieces of zero length, maximisers at 0 and at hi).
    rng = np.random.default_rng(81 + integer)
    checked = 0
    for _ in range(150):
        n = int(rng.integers(1, 30))
        X, y, scores, c, hi, sm, sy, sx = binary_node(rng, n, integer)
        for _ in range(4):
            f, t = int(rng.integers(0, 2)), int(rng.integers(0, 5))
            a, b = int(rng.integers(0, 2)), int(rng.integers(0, 2))
            left_only = bool(rng.integers(0, 2))
            members = int(np.sum(sx[f] <= t)) if left_only else n
            if members == 0:
                continue
            kcap = int(rng.integers(1, members + 1))
            g, terms = binary_vote_max(sm, sy, sx, f, t, a, b, left_only, n, kcap, c, hi)
            naive = nz.binary_vote_max_naive(sm, sy, sx, f, t, a, b, kcap, c, hi, left_only)
            assert abs(g - naive) <= 1e-12 * (1.0 + abs(naive)), (g, naive)
            assert kcap <= terms <= 3 * kcap
            exact = exact_float_max(sm, sy, sx, f, t, a, b, kcap, c, hi, left_only)
            assert abs(exact - g) <= bound_slack(g, terms, c)
            checked += 1
    assert checked > 450


def test_binary_candidate_skip_covers_every_label_pair():
    # The candidate's maximum over the label pairs its line 9 can take: with line 7's label kl
    # certain, "kl | either"; otherwise every pair. The skip says "below ref" only when that
    # maximum is below ref, and always when ref is 1e-8 above it (its slack is 1e-9 plus
    # rounding) and line 7 is certain or not needed.
    rng = np.random.default_rng(83)
    certain = skipped = 0
    for it in range(60):
        n = int(rng.integers(2, 40))
        X, y, scores, c, hi, sm, sy, sx = binary_node(rng, n, it % 2 == 0)
        kcap = int(rng.integers(1, n + 1))
        S0 = float(np.sum(sm[:kcap]))
        s0, s1 = binary_single_max(sm, sy, sx, n, kcap, c, hi)
        singles = [nz.binary_vote_max_naive(sm, sy, sx, 0, 0, a, a, kcap, c, hi)
                   for a in (0, 1)]
        assert singles[0] <= s0 <= singles[0] + 1e-8
        assert singles[1] <= s1 <= singles[1] + 1e-8
        for f in range(2):
            for t in range(4):
                nl = int(np.sum(sx[f] <= t))
                if nl == 0:
                    continue
                pair = {(a, b): nz.binary_vote_max_naive(sm, sy, sx, f, t, a, b, kcap, c, hi)
                        for a in (0, 1) for b in (0, 1)}
                j0 = int(np.sum(np.where(sx[f, :kcap] <= t, sy[:kcap] == 1, sy[:kcap] == 0)))
                kL = min(kcap, nl)
                left = [nz.binary_vote_max_naive(sm, sy, sx, f, t, a, a, kL, c, hi, True)
                        for a in (0, 1)]
                kl = line7_label(sm, sy, sx, f, t, n, kL, c, hi)
                if kl >= 0:
                    assert kl == int(left[1] > left[0])
                if abs(left[0] - left[1]) > 1e-8:
                    assert kl == int(left[1] > left[0])
                    certain += 1
                per_kl = [max(pair[a, 0], pair[a, 1]) for a in (0, 1)]
                true_max = per_kl[kl] if kl >= 0 else max(per_kl)
                for off in (-1e-8, -1e-13, 0.0, 1e-13, 1e-8, 0.1):
                    ref = true_max + off
                    below = binary_candidate_below(sm, sy, sx, f, t, n, kcap, kL, c, hi, S0,
                                                   j0, s0, s1, ref)
                    if off <= 0.0:
                        assert not below
                    elif off >= 1e-8 and (kl >= 0 or max(per_kl) < ref - 1e-8):
                        assert below
                    skipped += below
    assert certain > 100 and skipped > 300


def test_sort_candidates_is_the_heap_order():
    # The best-first order (larger bound, then lower index) of every candidate, sorted at
    # once, against popping the heap; bounds with many ties (and -0.0 beside 0.0).
    rng = np.random.default_rng(89)
    for it in range(40):
        n = int(rng.integers(1, 300))
        ubt = rng.integers(-3, 4, n) * 0.5 if it % 2 == 0 else rng.normal(size=n)
        ubt[rng.random(n) < 0.1] = -0.0
        order, tmp = np.zeros(n, np.int64), np.zeros(n, np.int64)
        msf.sort_candidates(ubt, order, tmp, n)
        assert order.tolist() == sorted(range(n), key=lambda i: (-ubt[i], i))
        heap = np.arange(n, dtype=np.int64)
        for root in range(n // 2 - 1, -1, -1):
            msf._cand_sift_down(ubt, heap, root, n)
        popped = []
        for end in range(n, 0, -1):
            popped.append(int(heap[0]))
            heap[0] = heap[end - 1]
            msf._cand_sift_down(ubt, heap, 0, end - 1)
        assert order.tolist() == popped


def test_split_wrong_counts_count_the_bottom_set():
    # j0 of the vote "0 on bin <= t, 1 on the rest" for every candidate of every feature,
    # from the per-bin sums, against counting the bottom set's wrongly voted items.
    rng = np.random.default_rng(84)
    for it in range(40):
        n, F, B = int(rng.integers(1, 60)), int(rng.integers(1, 4)), 8
        X, y, scores, c, hi, sm, sy, sx = binary_node(rng, n, it % 2 == 0, F=F, nb=B)
        kcap = int(rng.integers(1, n + 1))
        obin, nob, cand_lo, cand_hi, cand_f, cand_t = node_candidates(sx, F, B)
        j0c = np.full(F * B, -1, np.int64)
        split_wrong_counts(sy, sx, kcap, obin, nob, cand_lo, cand_hi,
                           np.array(cand_t + [0], np.int64), np.zeros((F, B), np.int64), j0c)
        for ci, (f, t) in enumerate(zip(cand_f, cand_t)):
            wrong = np.where(sx[f, :kcap] <= t, sy[:kcap] == 1, sy[:kcap] == 0)
            assert j0c[ci] == int(np.sum(wrong))


@pytest.mark.parametrize("kind", ["integer", "real", "huge"])
def test_corner_slope_key_equals_slopes_at_zero(kind):
    # S'(0+) and the corner key of every label pair of every candidate from the per-kind
    # counts, bit for bit against the exact search's own pass (``_slopes_at_zero``, MODE_SPLIT)
    # — with tied margins at v0 (integer weights) and rows whose float test "the other label
    # falls at 0" fails by rounding (scores near 1e16 beside small ones).
    rng = np.random.default_rng(91 + ["integer", "real", "huge"].index(kind))
    for it in range(30):
        n, F, B = int(rng.integers(1, 50)), int(rng.integers(1, 3)), 6
        X = rng.integers(0, B, size=(n, F)).astype(np.uint8)
        scores, c = ensemble_state(rng, n, 2, int(rng.integers(1, 9)), integer=kind != "real")
        if kind == "huge":
            big = rng.random(n) < 0.5
            scores[big, 0] += 1e16
            scores[big, 1] += rng.integers(0, 3, int(big.sum()))
            c += 1e16
        y = rng.integers(0, 2, n).astype(np.int32)
        order, sm, sy, sw, sx = margin_views(X, y, scores)
        margin = np.empty(n)
        ls.unnormalised_margins(scores, y, margin)
        top_lab = np.zeros(n, np.int32)
        msf.top_labels(scores, y, top_lab)
        order_m = order.astype(np.int64)
        items = (False, margin, np.zeros(1, np.int64), np.zeros(1, np.int64),
                 np.zeros((1, 1, 1), np.int32), sm, sy, sw, sx)
        obin, nob, cand_lo, cand_hi, cand_f, cand_t = node_candidates(sx, F, B)
        kcap = int(rng.integers(1, n + 1))
        ccnt, tot = np.zeros((F * B, 8), np.int64), np.zeros(8, np.int64)
        n_strict, n_tied = corner_counts(scores, order_m, sm, sy, sx, n, kcap, obin, nob,
                                         cand_lo, cand_hi, np.array(cand_t + [0], np.int64),
                                         np.zeros((F, B, 8), np.int64), ccnt, tot)
        v0 = sm[kcap - 1]
        assert n_strict == np.sum(sm < v0) and n_tied == np.sum(sm == v0)
        for ci, (f, t) in enumerate(zip(cand_f, cand_t)):
            for a in (0, 1):
                jQ0, jD = np.zeros(2), np.zeros(2)
                msf._slopes_at_zero(order_m, n, X, f, t, a, msf.MODE_SPLIT, scores, y, margin,
                                    items, top_lab, kcap, jQ0, np.zeros(2), np.zeros(2),
                                    np.zeros(2), jD, 0)
                for b in (0, 1):
                    Q0, key = corner_slope_key(ccnt, ci, tot, a, b, n_strict, n_tied, kcap)
                    assert Q0 == jQ0[b] and key == jD[b], (Q0, jQ0[b], key, jD[b])


def test_line7_corner_label_equals_the_pick():
    # Line 7's label where neither label rises at 0 on S_left: the exact search's slopes and
    # corner keys (``_slopes_at_zero``, MODE_LEFT) and its pick's rule — both maxima are the
    # same g0, the larger key beyond the tolerance wins, label 0 on ties — against the counts.
    rng = np.random.default_rng(93)
    decided = 0
    for it in range(60):
        n, F, B = int(rng.integers(1, 50)), 2, 6
        X = rng.integers(0, B, size=(n, F)).astype(np.uint8)
        scores, c = ensemble_state(rng, n, 2, int(rng.integers(1, 9)), integer=it % 2 == 0)
        y = rng.integers(0, 2, n).astype(np.int32)
        if it % 3 == 0:       # mostly right by large margins: corners are common
            y = scores.argmax(axis=1).astype(np.int32)
            y[rng.random(n) < 0.05] ^= 1
        order, sm, sy, sw, sx = margin_views(X, y, scores)
        margin = np.empty(n)
        ls.unnormalised_margins(scores, y, margin)
        top_lab = np.zeros(n, np.int32)
        msf.top_labels(scores, y, top_lab)
        items = (False, margin, np.zeros(1, np.int64), np.zeros(1, np.int64),
                 np.zeros((1, 1, 1), np.int32), sm, sy, sw, sx)
        for f in range(F):
            for t in range(B - 1):
                nl = int(np.sum(sx[f] <= t))
                if nl == 0:
                    continue
                kL = int(rng.integers(1, nl + 1))
                for eps in (0.0, 0.01):
                    jQ0, jD = np.zeros(2), np.zeros(2)
                    S0, _, _ = msf._slopes_at_zero(order.astype(np.int64), n, X, f, t, 0,
                                                   msf.MODE_LEFT, scores, y, margin, items,
                                                   top_lab, kL, jQ0, np.zeros(2), np.zeros(2),
                                                   np.zeros(2), jD, 0)
                    rising = [ls._rising(S0, jQ0[k], kL, c, 0.0) for k in (0, 1)]
                    if any(rising):
                        want = -1
                    else:
                        e = jD if eps > 0 else np.zeros(2)
                        want = int(bool(msf._ranks_above(S0 / (kL * c), e[1], 1, S0 / (kL * c),
                                                         e[0], 0)))
                        decided += 1
                    assert line7_corner_label(sm, sy, sx, f, t, n, kL, c, eps) == want
    assert decided > 100


@pytest.mark.parametrize("eps", [0.0, 0.01])
def test_binary_skip_trees_equal_brute_force(eps):
    rng = np.random.default_rng(85 + int(eps > 0))
    for it in range(40):
        n = int(rng.integers(2, 20))
        X, y, scores, c, hi, *_ = binary_node(rng, n, it % 2 == 0, F=int(rng.integers(1, 4)),
                                              nb=int(rng.integers(2, 5)))
        n_bins = np.full(X.shape[1], X.max() + 1, np.int32)
        depth = int(rng.integers(1, 4))
        nprime = int(rng.integers(1, n + 1))
        nodes, vote = nz.grow_tree_naive(X, y, n_bins, scores, depth, phase="margin", c=c,
                                         nprime=nprime, eps=eps)
        for grouping in ("off", "on"):
            ws = ZeroOneWorkspace(n, X.shape[1], X.max() + 1, 2, depth)
            m = grow_margin_tree(ws, X, y, n_bins, scores, c, nprime, OBJ_BOTTOM_AVG, False,
                                 eps, grouping=grouping, bound_cuts=15)
            same_tree(ws, m, nodes, vote)


@pytest.mark.parametrize("eps", [0.0, 0.01])
def test_binary_skip_gives_the_same_trees(eps):
    # Larger binary states (many candidates per feature, so the skip fires for most of them)
    # with and without bit 8, together with every other cut and the walk bound, with ties
    # (integer scores) and without, n' from 1 to n, depths 1-4.
    rng = np.random.default_rng(87 + int(eps > 0))
    for it in range(24):
        n, F, nb = int(rng.integers(200, 500)), int(rng.integers(1, 5)), 40
        X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
        scores, c = ensemble_state(rng, n, 2, int(rng.integers(2, 20)), integer=it % 2 == 0)
        y = ((X[:, 0] > nb // 2).astype(np.int64) ^ (rng.random(n) < 0.2)).astype(np.int32)
        if it % 8 >= 4:
            # Mostly right by large margins: nodes where no split rises at 0 (corners), whose
            # ties the corner keys break.
            y = scores.argmax(axis=1).astype(np.int32)
            y[rng.random(n) < 0.03] ^= 1
        depth = int(rng.integers(1, 5))
        nprime = [1, max(1, n // 10), int(rng.integers(1, n // 3)), n][it % 4]
        trees = []
        for cuts, walk in ((7, True), (15, True), (0, False), (8, False)):
            ws = ZeroOneWorkspace(n, F, nb, 2, depth)
            m = grow_margin_tree(ws, X, y, np.full(F, nb, np.int32), scores, c, nprime,
                                 OBJ_BOTTOM_AVG, False, eps, grouping="off", bound_cuts=cuts,
                                 walk_bound=walk)
            trees.append((m, ws.feature[:m].copy(), ws.threshold[:m].copy(),
                          ws.node_label[:m].copy(), ws.vote.copy()))
        for other in trees[1:]:
            for a, b in zip(trees[0], other, strict=True):
                np.testing.assert_array_equal(a, b)
