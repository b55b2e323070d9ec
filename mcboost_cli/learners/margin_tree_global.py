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

A naive twin (``naive_zero_one.grow_tree_global_naive``) is used by the tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .line_search import (
    INF,
    bottom_avg_value,
    max_bottom_avg_exact,
    piece_terms,
    unnormalised_margins,
)
from .margin_search_exhaustive import _better, corner_key
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
    v, _ = step_key(p, s, w, n, nprime, c, eps, buf)
    e = corner_key(p, s, w, n, nprime, buf) if corner else 0.0
    return v, e


@njit(cache=True, nogil=True)
def _set_votes(scores, y, margin, idx, lo, hi, lab, p, s, w):
    for q in range(lo, hi):
        i = idx[q]
        pi, si, wi = piece_terms(scores, i, y[i], lab, margin[i])
        p[i] = pi
        s[i] = si
        w[i] = wi


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
    # Root: the one-leaf tree of the best single label.
    k0 = 0
    v0 = -INF
    e0 = -INF
    for k in range(K):
        _set_votes(scores, y, margin, sample_index, 0, n, k, p, s, w)
        v, e = _key(p, s, w, n, nprime, c, eps, buf, corner)
        if k == 0 or _better(v, e, v0, e0):
            v0 = v
            e0 = e
            k0 = k
    _set_votes(scores, y, margin, sample_index, 0, n, k0, p, s, w)
    node_label[0] = k0
    while top > 0:
        nd, top = pop_node(stack, top)
        start = node_start[nd]
        end = node_end[nd]
        nS = end - start
        if node_depth[nd] >= max_depth or nS < 2:
            continue
        k_nd = node_label[nd]
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
            for t in range(n_bins[f] - 1):
                nl = binpos[t]
                prev = binpos[t - 1] if t > 0 else 0
                if nl == prev or nl >= nS:      # bin t empty (a repeated split), or no right side
                    continue
                # Line 7: the label of S_left, S_right keeping S's label.
                kl = 0
                kl_v = -INF
                kl_e = -INF
                for k in range(K):
                    _set_votes(scores, y, margin, order, 0, nl, k, p, s, w)
                    v, e = _key(p, s, w, n, nprime, c, eps, buf, corner)
                    if k == 0 or _better(v, e, kl_v, kl_e):
                        kl_v = v
                        kl_e = e
                        kl = k
                _set_votes(scores, y, margin, order, 0, nl, kl, p, s, w)
                # Line 9: the label of S_right with S_left's fixed.
                kr = 0
                kr_v = -INF
                kr_e = -INF
                for k in range(K):
                    _set_votes(scores, y, margin, order, nl, nS, k, p, s, w)
                    v, e = _key(p, s, w, n, nprime, c, eps, buf, corner)
                    if k == 0 or _better(v, e, kr_v, kr_e):
                        kr_v = v
                        kr_e = e
                        kr = k
                # Restore the node's votes.
                _set_votes(scores, y, margin, order, 0, nS, k_nd, p, s, w)
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
