"""Phase II trees of DirectBoost_avg keyed on the whole tree (the global reading).

DirectBoost_avg (NIPS 2013, Alg. 2) adds, each round, the weak classifier "with the largest
increment of the average margin of bottom n' examples", its weight being the maximiser of that
average along its coordinate inside the region where the training error does not rise, and
"we set alpha_t = d - epsilon" when the maximiser is the region's end d. Its trees are grown
top-down, "for each splitting node, DirectBoost simply chooses the attribute to split on by ...
maximizing the predefined margin value".

This builder scores every node candidate by exactly the quantity the round will realise for
the whole tree it makes (the reading Phase I's builder already follows, ALGORITHMS.md "The
tree builder: the node key"): examples outside the node keep the votes of the partial tree (a
pending node's examples the label its parent gave it), and during line 7 (the left label)
S_right keeps S's current label. A vote vector's key is the largest bottom-n' average margin
over the whole training set for alpha in [0, d - eps], d the weight at which the first
currently-right example would turn wrong (capped at 2c + 1, where every kink lies); when
d - eps <= 0 no step is possible and the key is the current value g(0). The root starts as the
one-leaf tree of the best single label; every split of a node includes the candidates that
keep both children at the node's label, so a split never lowers the key.

Candidates whose keys tie (beyond 1e-12 relative; typically every candidate at a corner, key =
g) are ranked, with ``corner=True`` (DirectBoost_avg's default), by ``corner_key`` of the whole
tree's votes, their edge under the bottom set's LPBoost dual weights; remaining ties go to the
lowest label, first feature and lowest threshold.

Speed (the same trees, the same bits). At alpha = 0 every numerator is its margin, so the
n'-th smallest margin vk0 and S(0) are the round's, selected once (``key_at_kth``); what a
vote vector changes at 0 is the right slope of each example and the weight where a right
example turns wrong. Per node these are counted per label by tier (below vk0, at vk0) for
S_left as the threshold sweeps, for the whole node and outside it (``_cand_key``): S'(0+),
d and the corner key of a candidate are then O(1) integer sums (the passes' sums exactly).
Only a candidate that rises at 0 needs the exact search, and only when its concave bound
g(alpha) <= (S(0) + S'(0+) H) / (n' (c + H)) on [0, H] is not below the floor minus
PRUNE_SLACK (1 + |floor|): line 7's label against the tree as it stands (the k_nd label),
line 9's against the best split found. With two labels a candidate pruned there provably
cannot be chosen where it was pruned nor change which split wins: if it had won line 9, the
known label beside it is within the tie tolerance of it and also below the best. Line 7's
k_nd candidate is the tree as it stands and line 9's k_nd candidate is line 7's, so their keys
are reused, not recomputed.

A naive twin (``naive_zero_one.grow_tree_global_naive``) is used by the tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._inline import inline_helper
from .line_search import (
    INF,
    OBJ_TIE_EPS,
    _rising,
    _select_kth,
    bottom_avg_value,
    bottom_sum_at_kth,
    max_bottom_avg_exact,
    max_bottom_avg_from,
    piece_terms,
    right_slope,
    tied_slope,
    unnormalised_margins,
)
from .margin_search_exhaustive import _better, corner_key, corner_key_at_kth, corner_value
from .tree_layout import pop_node, split_node, start_tree, write_leaf_votes


@njit(cache=True, nogil=True)
def step_key(p, s, w, n, nprime, c, eps, buf):
    """(key, alpha): the largest bottom-n' average over alpha in [0, d - eps] (see module) and
    where it is reached (0 when no step is possible or none raises it)."""
    hi = 2.0 * c + 1.0
    for i in range(n):
        if s[i] == 0.0 and p[i] > 0.0 and w[i] < hi:
            hi = w[i]
    H = hi - eps
    if not H > 0.0:
        return bottom_avg_value(p, s, w, n, nprime, c, 0.0, buf), 0.0
    q, v = max_bottom_avg_exact(p, s, w, n, nprime, c, H, buf)
    return v, q


@njit(cache=True, nogil=True)
def _key(p, s, w, n, nprime, c, eps, buf, corner):
    """(key, corner key) of a vote vector: the reference of ``key_at_kth`` (tests)."""
    v, _ = step_key(p, s, w, n, nprime, c, eps, buf)
    e = corner_key(p, s, w, n, nprime, buf) if corner else 0.0
    return v, e


# Relative slack of the pruning bound: far above the rounding of a bottom-n' sum over its
# n' (c + alpha) (about n' * 1.1e-16 on the scale of g, |g| <= 1 for the normalised margins)
# and above the tie tolerance OBJ_TIE_EPS, so a pruned candidate lies below the floor beyond
# both (module docstring, "Speed").
PRUNE_SLACK = 1e-9


@njit(cache=True, nogil=True)
def key_at_kth(p, s, w, n, nprime, c, eps, buf, corner, vk0, floor):
    """``_key`` given vk0, the n'-th smallest margin of the round (the same floats: at
    alpha = 0 every numerator is its margin, so ``bottom_sum`` at 0 and ``corner_key`` select
    that same value for every vote vector), or a bound when the key cannot reach ``floor``.

    Returns (key, corner key, True), or (bound, 0, False) when the candidate rises at 0 and
    its concave bound S(alpha) <= S(0) + S'(0+) alpha gives g <= (S(0) + S'(0+) H) /
    (n' (c + H)) < floor - PRUNE_SLACK (1 + |floor|) over [0, H] (the bound rises with alpha
    when g does at 0); its exact key is then not computed."""
    hi = 2.0 * c + 1.0
    for i in range(n):
        if s[i] == 0.0 and p[i] > 0.0 and w[i] < hi:
            hi = w[i]
    H = hi - eps
    S0, Q0 = bottom_sum_at_kth(p, s, w, n, nprime, 0.0, 1, vk0)
    status, v = _value_or_bound(S0, Q0, H, nprime, c, floor)
    if status == PRUNED:
        return v, 0.0, False
    if status == SEARCH:
        _, v = max_bottom_avg_from(p, s, w, n, nprime, c, H, buf, S0, Q0)
    e = corner_key_at_kth(p, s, w, n, nprime, vk0) if corner else 0.0
    return v, e, True


# _value_or_bound's outcomes.
EXACT = 0
PRUNED = 1
SEARCH = 2


@inline_helper
def _value_or_bound(S0, Q0, H, nprime, c, floor):
    """What ``step_key`` gives from S(0) = S0 and its right slope Q0 alone: (EXACT, key) when
    no step is possible or g does not rise at 0, (PRUNED, bound) when the concave bound keeps
    g below floor - PRUNE_SLACK (1 + |floor|) (``key_at_kth``), else (SEARCH, 0): the exact
    search on [0, H] is needed."""
    if not H > 0.0:
        return EXACT, S0 / (nprime * (c + 0.0))        # step_key's g(0) (bottom_avg_value)
    if not _rising(S0, Q0, nprime, c, 0.0):
        return EXACT, S0 / (nprime * c)                # max_bottom_avg_exact's alpha = 0
    bound = (S0 + Q0 * H) / (nprime * (c + H))
    if bound + PRUNE_SLACK * (1.0 + abs(floor)) < floor:
        return PRUNED, bound
    return SEARCH, 0.0


@inline_helper
def _tie_floor(v):
    """Keys below this value are worse than v beyond the tie tolerance (``_better``)."""
    return v - OBJ_TIE_EPS * (1.0 + abs(v))


@njit(cache=True, nogil=True)
def _set_votes(scores, y, margin, idx, lo, hi, lab, p, s, w):
    for q in range(lo, hi):
        i = idx[q]
        pi, si, wi = piece_terms(scores, i, y[i], lab, margin[i])
        p[i] = pi
        s[i] = si
        w[i] = wi


@inline_helper
def _slope_turn(scores, y, margin, i, k):
    """Example i under label k: its numerator's right slope at 0 and the weight where it
    turns wrong (w_i when it is right now and the label is wrong, else INF: ``step_key``'s
    d terms)."""
    pi, si, wi = piece_terms(scores, i, y[i], k, margin[i])
    turn = wi if (si == 0.0 and pi > 0.0) else INF
    return right_slope(pi, si, wi, 0.0), turn


@inline_helper
def _count(cnt, row, m, vk0, slope, sign):
    """cnt[row, tier, slope + 1] += sign; tier 0: margin m below vk0 (the bottom set at 0),
    1: equal to it (tied); other examples are not counted."""
    if m < vk0:
        cnt[row, 0, int(slope) + 1] += sign
    elif m == vk0:
        cnt[row, 1, int(slope) + 1] += sign


@njit(cache=True, nogil=True)
def _cand_key(kl, kr, nl, nS, order, lcnt, ncnt, ocnt, lhi, sufhi, ohi, S0, n_strict, n_tied,
              nprime, c, eps, corner, floor, k_nd, scores, y, margin, p, s, w, n, buf):
    """``key_at_kth`` of the tree whose node S votes kl on order[:nl] and kr on
    order[nl:nS], from counts: the slopes at 0 of the bottom set summed by tier (outside S:
    ocnt; S_left under each label: lcnt; S under each label: ncnt) and the least weight where
    a right example turns wrong (ohi, lhi, sufhi). The sums are integers, so they equal the
    passes' sums; p, s, w (the tree as it stands) are set to the candidate and back only when
    the exact search is needed."""
    strict = 0
    for j in range(3):
        strict += (j - 1) * (ocnt[0, 0, j] + lcnt[kl, 0, j] + ncnt[kr, 0, j] - lcnt[kr, 0, j])
    t_m1 = ocnt[0, 1, 0] + lcnt[kl, 1, 0] + ncnt[kr, 1, 0] - lcnt[kr, 1, 0]
    t_0 = ocnt[0, 1, 1] + lcnt[kl, 1, 1] + ncnt[kr, 1, 1] - lcnt[kr, 1, 1]
    t_p1 = ocnt[0, 1, 2] + lcnt[kl, 1, 2] + ncnt[kr, 1, 2] - lcnt[kr, 1, 2]
    Q0 = tied_slope(float(strict), nprime - n_strict, t_m1, t_0, t_p1, 1)
    hi = 2.0 * c + 1.0
    if ohi < hi:
        hi = ohi
    if lhi[kl] < hi:
        hi = lhi[kl]
    if sufhi[kr, nl] < hi:
        hi = sufhi[kr, nl]
    H = hi - eps
    status, v = _value_or_bound(S0, Q0, H, nprime, c, floor)
    if status == PRUNED:
        return v, 0.0, False
    if status == SEARCH:
        _set_votes(scores, y, margin, order, 0, nl, kl, p, s, w)
        _set_votes(scores, y, margin, order, nl, nS, kr, p, s, w)
        _, v = max_bottom_avg_from(p, s, w, n, nprime, c, H, buf, S0, Q0)
        _set_votes(scores, y, margin, order, 0, nS, k_nd, p, s, w)
    e = corner_value(float(strict), n_strict, float(t_p1 - t_m1), n_tied, nprime) if corner \
        else 0.0
    return v, e, True


@njit(cache=True, nogil=True)
def _pick_label(vary_left, fixed, known_v, known_e, floor, nl, nS, order, lcnt, ncnt, ocnt,
                lhi, sufhi, ohi, S0, n_strict, n_tied, nprime, c, eps, corner, k_nd, scores, y,
                margin, p, s, w, n, buf, K):
    """Lines 7 and 9: the label of S_left (vary_left) or S_right, the other side voting
    ``fixed``; label k_nd's key is known (known_v, known_e). Labels whose key cannot reach
    ``floor`` are skipped (``_cand_key``). Returns (label, key, corner key); the first label
    wins ties as in the loop over every label."""
    kb = 0
    vb = -INF
    eb = -INF
    have = False
    for k in range(K):
        if k == k_nd:
            v = known_v
            e = known_e
        else:
            kl = k if vary_left else fixed
            kr = fixed if vary_left else k
            v, e, exact = _cand_key(kl, kr, nl, nS, order, lcnt, ncnt, ocnt, lhi, sufhi, ohi,
                                    S0, n_strict, n_tied, nprime, c, eps, corner, floor, k_nd,
                                    scores, y, margin, p, s, w, n, buf)
            if not exact:
                continue
        if not have or _better(v, e, vb, eb):
            vb = v
            eb = e
            kb = k
            have = True
    return kb, vb, eb


@njit(cache=True, nogil=True)
def _grow_global(X, y, n_bins, scores, c, nprime, eps, max_depth, sample_index, partition_buf,
                 feature, threshold, left, right, node_label, node_start, node_end, node_depth,
                 stack, vote, n_nodes_out, margin, order, binpos, p, s, w, buf, K, corner):
    n = X.shape[0]
    F = X.shape[1]
    B = binpos.shape[0] - 1
    unnormalised_margins(scores, y, margin)
    n_nodes, top = start_tree(n, sample_index, feature, left, right, node_start, node_end,
                              node_depth, stack)
    # The n'-th smallest margin: every vote vector's numerators at alpha = 0 (key_at_kth).
    for i in range(n):
        buf[i] = margin[i]
    vk0 = _select_kth(buf, n, nprime - 1)
    n_strict = 0
    n_tied = 0
    for i in range(n):
        if margin[i] < vk0:
            n_strict += 1
        elif margin[i] == vk0:
            n_tied += 1
    # Pruning (module docstring, "Speed") is proved for two labels only.
    prune = K == 2
    # Per-label counts of slopes at 0 by tier (_count): S_left, the node S, outside S.
    lcnt = np.zeros((K, 2, 3), np.int64)
    ncnt = np.zeros((K, 2, 3), np.int64)
    ocnt = np.zeros((1, 2, 3), np.int64)
    lhi = np.empty(K)
    sufhi = np.empty((K, n + 1))
    # Root: the one-leaf tree of the best single label.
    k0 = 0
    v0 = -INF
    e0 = -INF
    for k in range(K):
        _set_votes(scores, y, margin, sample_index, 0, n, k, p, s, w)
        v, e, _ = key_at_kth(p, s, w, n, nprime, c, eps, buf, corner, vk0, -INF)
        if k == 0 or _better(v, e, v0, e0):
            v0 = v
            e0 = e
            k0 = k
    _set_votes(scores, y, margin, sample_index, 0, n, k0, p, s, w)
    node_label[0] = k0
    # S(0): the same for every vote vector (the sum of the n' smallest margins).
    S0, _ = bottom_sum_at_kth(p, s, w, n, nprime, 0.0, 1, vk0)
    # The key of the tree as it stands (every split replaces it by the split's key).
    cur_v = v0
    cur_e = e0
    while top > 0:
        nd, top = pop_node(stack, top)
        start = node_start[nd]
        end = node_end[nd]
        nS = end - start
        if node_depth[nd] >= max_depth or nS < 2:
            continue
        k_nd = node_label[nd]
        # Counts of the examples outside S (their votes stay) and of S under each label.
        ocnt[:] = 0
        ohi = INF
        for q in range(n):
            if start <= q < end:
                continue
            i = sample_index[q]
            _count(ocnt, 0, p[i], vk0, right_slope(p[i], s[i], w[i], 0.0), 1)
            if s[i] == 0.0 and p[i] > 0.0 and w[i] < ohi:
                ohi = w[i]
        ncnt[:] = 0
        for q in range(start, end):
            i = sample_index[q]
            for k in range(K):
                sl, _ = _slope_turn(scores, y, margin, i, k)
                _count(ncnt, k, margin[i], vk0, sl, 1)
        # Line 7's candidate keeping S_left at k_nd is the tree as it stands.
        floor7 = _tie_floor(cur_v) if prune else -INF
        found = False
        best = -INF
        best_e = -INF
        bf = -1
        bt = -1
        bkl = k_nd
        bkr = k_nd
        for f in range(F):
            # Counting sort of the node's samples by their bin of feature f (stable).
            for b in range(B + 1):
                binpos[b] = 0
            for q in range(start, end):
                binpos[X[sample_index[q], f] + 1] += 1
            for b in range(1, B + 1):
                binpos[b] += binpos[b - 1]
            for q in range(start, end):
                i = sample_index[q]
                b = X[i, f]
                order[binpos[b]] = i
                binpos[b] += 1
            # S_left grows with t: its counts from empty; S_right's least turning weight
            # from the suffix minima.
            lcnt[:] = 0
            for k in range(K):
                lhi[k] = INF
                sufhi[k, nS] = INF
                for q in range(nS - 1, -1, -1):
                    _, turn = _slope_turn(scores, y, margin, order[q], k)
                    sufhi[k, q] = turn if turn < sufhi[k, q + 1] else sufhi[k, q + 1]
            added = 0
            for t in range(n_bins[f] - 1):
                nl = binpos[t]
                while added < nl:
                    i = order[added]
                    for k in range(K):
                        sl, turn = _slope_turn(scores, y, margin, i, k)
                        _count(lcnt, k, margin[i], vk0, sl, 1)
                        if turn < lhi[k]:
                            lhi[k] = turn
                    added += 1
                prev = binpos[t - 1] if t > 0 else 0
                if nl == prev or nl >= nS:      # bin t empty (a repeated split), or no right side
                    continue
                # Line 7: the label of S_left, S_right keeping S's label (k_nd: the tree as
                # it stands, whose key is known; a pruned label is worse than it).
                kl, kl_v, kl_e = _pick_label(True, k_nd, cur_v, cur_e, floor7, nl, nS, order,
                                             lcnt, ncnt, ocnt, lhi, sufhi, ohi, S0, n_strict,
                                             n_tied, nprime, c, eps, corner, k_nd, scores, y,
                                             margin, p, s, w, n, buf, K)
                # Line 9: the label of S_right with S_left's fixed (k_nd: line 7's tree; a
                # pruned label cannot beat the best split found).
                floor9 = _tie_floor(best) if prune and found else -INF
                kr, kr_v, kr_e = _pick_label(False, kl, kl_v, kl_e, floor9, nl, nS, order,
                                             lcnt, ncnt, ocnt, lhi, sufhi, ohi, S0, n_strict,
                                             n_tied, nprime, c, eps, corner, k_nd, scores, y,
                                             margin, p, s, w, n, buf, K)
                # Line 13: the split of the largest key.
                if not found or _better(kr_v, kr_e, best, best_e):
                    found = True
                    best = kr_v
                    best_e = kr_e
                    bf = f
                    bt = t
                    bkl = kl
                    bkr = kr
        if not found:
            continue
        lc, rc, mid, n_nodes, top = split_node(
            X, nd, bf, bt, n_nodes, top, sample_index, partition_buf, feature, threshold, left,
            right, node_start, node_end, node_depth, stack)
        node_label[lc] = bkl
        node_label[rc] = bkr
        _set_votes(scores, y, margin, sample_index, start, mid, bkl, p, s, w)
        _set_votes(scores, y, margin, sample_index, mid, end, bkr, p, s, w)
        cur_v = best
        cur_e = best_e
    write_leaf_votes(n_nodes, left, node_start, node_end, node_label, sample_index, vote)
    n_nodes_out[0] = n_nodes


def grow_margin_tree_global(ws, X_binned, y, n_bins, scores, c, nprime, eps, corner=False):
    """Grow a DirectBoost_avg Phase II tree in ``ws`` (the layout of ``grow_margin_tree``)
    keyed on the whole tree's step (module docstring); returns the number of nodes."""
    _grow_global(X_binned, y, n_bins, np.ascontiguousarray(scores, dtype=np.float64),
                 float(c), int(nprime), float(eps), ws.max_depth, ws.sample_index,
                 ws.partition_buf, ws.feature, ws.threshold, ws.left, ws.right, ws.node_label,
                 ws.node_start, ws.node_end, ws.node_depth, ws.stack, ws.vote, ws.n_nodes,
                 ws.margin, ws.order, ws.binpos, ws.p, ws.s, ws.w, ws.buf, ws.n_classes,
                 bool(corner))
    return int(ws.n_nodes[0])
