"""The walk bound of the Phase II node search (``learners/margin_bound_walk.py``): equal to the
exact maximum of the bottom set's own sum (naive twin: the exact line search on those members
alone), never below the candidate's exact maximum, for every candidate mode."""

import numpy as np
import pytest

from mcboost_cli.learners import line_search as ls
from mcboost_cli.learners import margin_bound_walk as mbw

from .test_dmcboost import ensemble_state


def margin_views(X, y, scores):
    """The node's items in margin order, as ``margin_search_fast._node_views`` lays them out:
    margins sm, labels sy, sw[q, k] = scores[r, y_r] - scores[r, k], bins sx[f, q]."""
    n = len(y)
    m = np.empty(n)
    ls.unnormalised_margins(scores, y, m)
    order = np.lexsort((np.arange(n), m))
    sm = m[order]
    sy = y[order].astype(np.int32)
    sw = scores[order, sy][:, None] - scores[order]
    sx = np.ascontiguousarray(X[order].T)
    return order, sm, sy, sw, sx


def candidate_pieces(sm, sy, sw, sx, f, t, lab_fixed, k, mode):
    """(p, s, w) of the candidate's members in margin order, and their positions."""
    pos, p, s, w = [], [], [], []
    for q in range(len(sm)):
        inside = sx[f, q] <= t
        if mode == mbw.MODE_LEFT and not inside:
            continue
        lab = lab_fixed if (mode == mbw.MODE_SPLIT and inside) else k
        pos.append(q)
        p.append(sm[q])
        if lab == sy[q]:
            s.append(1.0)
            w.append(np.inf)
        else:
            s.append(0.0)
            w.append(sw[q, lab])
    return np.array(pos), np.array(p), np.array(s), np.array(w)


def random_node(rng, n_max, integer):
    """A random node in margin order: (n, K, F, nb, c, (sm, sy, sw, sx))."""
    n, K, F, nb = int(rng.integers(2, n_max)), int(rng.integers(2, 6)), 2, 5
    X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
    scores, c = ensemble_state(rng, n, K, int(rng.integers(1, 8)), integer=integer)
    y = rng.integers(0, K, n).astype(np.int32)
    _, sm, sy, sw, sx = margin_views(X, y, scores)
    return n, K, F, nb, c, (sm, sy, sw, sx)


def random_candidates(rng, views, n, K, F, nb, count):
    """Up to ``count`` random candidates (mode, split, labels) of the node with members, each
    with its pieces, a random kcap, its bottom counts (read, per-label rcnt) and S(0)."""
    sm, sy, sw, sx = views
    rcnt = np.zeros(K)
    for _ in range(count):
        mode = int(rng.integers(0, 3))
        f, t = int(rng.integers(0, F)), int(rng.integers(0, nb - 1))
        lab_fixed, k = int(rng.integers(0, K)), int(rng.integers(0, K))
        pos, p, s, w = candidate_pieces(sm, sy, sw, sx, f, t, lab_fixed, k, mode)
        if len(p) == 0:
            continue
        kcap = int(rng.integers(1, len(p) + 1))
        readk = mbw.bottom_counts(sy, sx, f, t, lab_fixed, mode, n, kcap, rcnt)
        yield (mode, f, t, lab_fixed, k, pos, p, s, w, kcap, readk, rcnt[k],
               float(np.sum(p[:kcap])))


@pytest.mark.parametrize("gcap", [np.inf, 0.5])
def test_walk_bound_is_the_bottom_sets_maximum_and_bounds_the_candidate(gcap):
    rng = np.random.default_rng(29)
    n_checked = 0
    for it in range(60):
        n, K, F, nb, c, views = random_node(rng, 60, it % 2 == 0)
        sm, sy, sw, sx = views
        kg, kq = np.zeros((K, n)), np.zeros((K, n), np.int32)
        nk = np.zeros(K, np.int64)
        mbw.kink_lists(sm, sy, sw, n, kg, kq, nk, gcap)
        for k in range(K):
            g = kg[k, :nk[k]]
            assert np.all(np.diff(g) >= 0)
            assert np.all(g <= gcap)
        hi = 2.0 * c + 1.0
        for (mode, f, t, lab_fixed, k, pos, p, s, w, kcap, readk, r_k,
             S0) in random_candidates(rng, views, n, K, F, nb, 6):
            assert readk == pos[kcap - 1] + 1
            u, a_u = mbw.walk_bound(kg, kq, nk, sx, f, t, lab_fixed, k, mode, kcap, readk,
                                    S0, r_k, c, hi)
            buf = np.empty(len(p))
            # The bottom set's own sum: the exact line search over its kcap members alone.
            _, u_naive = ls.max_bottom_avg_exact(p[:kcap], s[:kcap], w[:kcap], kcap, kcap, c,
                                                 hi, buf)
            _, exact = ls.max_bottom_avg_exact(p, s, w, len(p), kcap, c, hi, buf)
            tol = 1e-12 * (1.0 + abs(u_naive))
            if gcap == np.inf:
                assert abs(u - u_naive) <= tol
            else:
                assert u >= u_naive - tol          # missing kinks only loosen it
            assert u >= exact - tol
            assert 0.0 <= a_u <= hi
            n_checked += 1
    assert n_checked > 200


def test_tier_lists_walk_the_same_members():
    """A walk on the tier of the kink lists that holds its bottom set (``tier_lists``,
    ``tier_of``) returns the same bits as on the full lists, in every mode; each tier is the
    full list restricted to its positions, in the same order."""
    rng = np.random.default_rng(41)
    n_checked = 0
    n_tiered = 0
    for it in range(60):
        n, K, F, nb, c, views = random_node(rng, 80, it % 2 == 0)
        sm, sy, sw, sx = views
        kg, kq = np.zeros((K, n)), np.zeros((K, n), np.int32)
        nk = np.zeros(K, np.int64)
        mbw.kink_lists(sm, sy, sw, n, kg, kq, nk, np.inf)
        TM = 3
        tkg, tkq = np.zeros((TM, K, n)), np.zeros((TM, K, n), np.int32)
        tnk, tR = np.zeros((TM, K), np.int64), np.zeros(TM, np.int64)
        base = int(rng.integers(1, n + 1))
        T = mbw.tier_lists(kg, kq, nk, n, base, tkg, tkq, tnk, tR)
        for j in range(T):
            assert tR[j] == base * 2 ** j < n
            for k in range(K):
                keep = kq[k, :nk[k]] < tR[j]
                assert np.array_equal(tkq[j, k, :tnk[j, k]], kq[k, :nk[k]][keep])
                assert np.array_equal(tkg[j, k, :tnk[j, k]], kg[k, :nk[k]][keep])
        hi = 2.0 * c + 1.0
        for (mode, f, t, lab_fixed, k, _, _, _, _, kcap, readk, r_k,
             S0) in random_candidates(rng, views, n, K, F, nb, 8):
            full = mbw.walk_bound(kg, kq, nk, sx, f, t, lab_fixed, k, mode, kcap, readk,
                                  S0, r_k, c, hi)
            j = mbw.tier_of(tR, T, readk)
            if j < 0:
                assert T == 0 or readk > tR[T - 1]
                continue
            assert readk <= tR[j] and (j == 0 or readk > tR[j - 1])
            tier = mbw.walk_bound(tkg[j], tkq[j], tnk[j], sx, f, t, lab_fixed, k, mode, kcap,
                                  readk, S0, r_k, c, hi)
            assert np.array_equal(np.array(full), np.array(tier))
            n_tiered += 1
        n_checked += 1
    assert n_tiered > 100
