"""Phase II label trees of DMCBoost / DirectBoost: the grower (Alg. 1.2's recursion with the
margin objectives of Alg. 2).

A tree is grown top-down and depth-first with binary splits ``bin <= threshold`` on binned
features (the layout of ``histogram_tree``: children numbered consecutively, so the forest's
tree walk applies). Each node S is split as DMCBoost Alg. 1.2 lines 4-16 prescribe, with
Phase II's measure ("a similar procedure as in Algorithm 1.2 and replace the measure"):

1. for a candidate split S = S_left + S_right, the label of S_left is chosen among the K labels
   by the line search of the hypothesis "label k on S_left" over S_left's examples (line 7;
   S_right's label is not known yet, so h abstains there and S_right does not enter);
2. with that label fixed (line 8), the label of S_right is chosen by the line search of
   "k_left on S_left, k on S_right" over all of S (line 9);
3. the split is the one whose final line search is best (line 13).

The objectives, their line searches and the tie-break are described in
``margin_search_exhaustive``. A node is split while its depth is below ``max_depth`` and some
split leaves both sides non-empty (line 6); its children take the two labels, and leaves keep
the label their parent gave them. A root that cannot be split becomes a one-leaf tree with the
best single label.

The node search is ``margin_search_fast`` for the bottom-n' average (unconstrained) and the
plain exhaustive ``margin_search_exhaustive`` for the binary objectives of DirectBoost (order
statistic, zero-error region; small data sets). The buffers are a
``zero_one_workspace.ZeroOneWorkspace``; Phase I trees: ``zero_one_phase1``.

A naive twin (``naive_zero_one.grow_tree_naive``) is used by the tests.

References
----------
.. [1] S. Zhai, T. Xia, S. Wang. A multi-class boosting method with direct optimization.
       KDD 2014, Alg. 1.2 and sec. 2.2.
.. [2] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013, sec. 3 ("for each splitting node, DirectBoost simply chooses
       the attribute to split on by minimizing 0-1 loss or maximizing the predefined margin").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._kernel_cache import kernel_compile_lock
from .borrowed import borrowed
from .line_search import unnormalised_margins
from .margin_search_exhaustive import OBJ_BOTTOM_AVG, OBJ_ORDER, _best_split_phase2
from .margin_search_fast import CT_N, _best_split_phase2_fast, group_rows, top_labels
from .margin_search_order import best_split_order
from .tree_layout import _partition, pop_node, split_node, start_tree, write_leaf_votes
from .zero_one_workspace import GROUP_CELLS, ZeroOneWorkspace

# Tiers of the walk bound's kink lists per node (positions < kcap, 2 kcap, 4 kcap).
WALK_TIERS = 3


@njit(cache=True, nogil=True)
def _grow(X, y, n_bins, scores, phase, c, nprime, hi, constrain, eps, max_depth,
          sample_index, partition_buf, feature, threshold, left, right, node_label,
          node_start, node_end, node_depth, stack, vote, n_nodes_out,
          sa, sc, nbin, nodebuf, tsa, tsc, tsd, lab_mark, acc_a,
          margin, order, binpos, p, s, w, buf, inc, dec, jval, cand_f, cand_t, ubt, top_lab,
          grouped, gid, loc, rep, gcnt, gmargin, cum, vbuf, sbuf, vtmp, wbuf, tmpw,
          sm, sy, sw, sx, cand_heap, mtab, min_tables, ubr, cut, cuts, walk, order_fast):
    n_nodes, top = start_tree(X.shape[0], sample_index, feature, left, right, node_start,
                              node_end, node_depth, stack)
    node_label[0] = 0
    while top > 0:
        nd, top = pop_node(stack, top)
        start = node_start[nd]
        end = node_end[nd]
        want_split = node_depth[nd] < max_depth and end - start >= 2
        if not want_split and nd != 0:
            continue
        if phase == OBJ_BOTTOM_AVG and not constrain:
            found, bf, bt, kl, kr, k_single = _best_split_phase2_fast(
                X, sample_index, start, end, n_bins, y, scores, margin, top_lab, c, nprime, hi,
                eps, nd == 0, grouped, gid, loc, rep, gcnt, gmargin, cum, order,
                (vbuf, sbuf, wbuf, vtmp, tmpw), nbin, nodebuf, sa, sc, ubt, cand_f, cand_t, tsa, tsc,
                jval, tsd, lab_mark, acc_a, sm, sy, sw, sx, cand_heap, mtab, min_tables,
                ubr, cut, cuts, walk)
        elif phase == OBJ_ORDER and not constrain and order_fast and jval.shape[0] == 2:
            found, bf, bt, kl, kr, k_single = best_split_order(
                X, sample_index, start, end, n_bins, y, margin, c, nprime, hi, eps, order,
                binpos, nbin, p, s, w, buf)
        else:
            found, bf, bt, kl, kr, k_single = _best_split_phase2(
                X, sample_index, start, end, n_bins, y, scores, margin, c, nprime, hi, phase,
                constrain, eps, order, binpos, nbin, p, s, w, buf, inc, dec, jval, nd == 0)
        if nd == 0 and (not found or not want_split):
            node_label[0] = k_single   # one-leaf tree
            continue
        if not found or not want_split:
            continue
        lc, rc, mid, n_nodes, top = split_node(
            X, nd, bf, bt, n_nodes, top, sample_index, partition_buf, feature, threshold, left,
            right, node_start, node_end, node_depth, stack)
        if phase == OBJ_BOTTOM_AVG and not constrain and not grouped:
            # The node's examples in (margin, index) order (``_best_split_phase2_fast``'s
            # ``morder``), partitioned stably like sample_index: each child's range is then
            # its own examples in that order (a subsequence of a sorted sequence).
            _partition(X, nodebuf[5], start, end, bf, bt, partition_buf)
        node_label[lc] = kl
        node_label[rc] = kr
    write_leaf_votes(n_nodes, left, node_start, node_end, node_label, sample_index, vote)
    n_nodes_out[0] = n_nodes


@njit(cache=True, nogil=True)
def _grow_views(X, y, n_bins, scores, phase, c, nprime, hi, constrain, eps, max_depth,
                sample_index, partition_buf, feature, threshold, left, right, node_label,
                node_start, node_end, node_depth, stack, vote, n_nodes_out,
                sa, sc, nbin, nodebuf, tsa, tsc, tsd, lab_mark, acc_a,
                margin, order, binpos, p, s, w, buf, inc, dec, jval, cand_f, cand_t, ubt, top_lab,
                grouped, gid, loc, rep, gcnt, gmargin, cum, vbuf, sbuf, vtmp, wbuf, tmpw,
                sm, sy, sw, sx, cand_heap, mtab, min_tables, ubr, cut, cuts, walk, order_fast):
    """``_grow`` on borrowed views of its arrays (``borrowed``): the node searches call their
    helpers hundreds of thousands of times per tree, each with tens of arrays, and the
    runtime's reference counting of those arguments was most of a tree's time (ALGORITHMS.md,
    "Speed"). The same types and data: the same compiled searches, the same numbers."""
    X = borrowed(X)
    y = borrowed(y)
    n_bins = borrowed(n_bins)
    scores = borrowed(scores)
    sample_index = borrowed(sample_index)
    partition_buf = borrowed(partition_buf)
    feature = borrowed(feature)
    threshold = borrowed(threshold)
    left = borrowed(left)
    right = borrowed(right)
    node_label = borrowed(node_label)
    node_start = borrowed(node_start)
    node_end = borrowed(node_end)
    node_depth = borrowed(node_depth)
    stack = borrowed(stack)
    vote = borrowed(vote)
    sa = borrowed(sa)
    sc = borrowed(sc)
    nbin = borrowed(nbin)
    nodebuf = (borrowed(nodebuf[0]), borrowed(nodebuf[1]), borrowed(nodebuf[2]),
               borrowed(nodebuf[3]), borrowed(nodebuf[4]), borrowed(nodebuf[5]),
               borrowed(nodebuf[6]))
    tsa = borrowed(tsa)
    tsc = borrowed(tsc)
    tsd = borrowed(tsd)
    lab_mark = borrowed(lab_mark)
    acc_a = borrowed(acc_a)
    margin = borrowed(margin)
    order = borrowed(order)
    binpos = borrowed(binpos)
    p = borrowed(p)
    s = borrowed(s)
    w = borrowed(w)
    buf = borrowed(buf)
    inc = borrowed(inc)
    dec = borrowed(dec)
    jval = borrowed(jval)
    cand_f = borrowed(cand_f)
    cand_t = borrowed(cand_t)
    ubt = borrowed(ubt)
    top_lab = borrowed(top_lab)
    gid = borrowed(gid)
    loc = borrowed(loc)
    rep = borrowed(rep)
    gcnt = borrowed(gcnt)
    gmargin = borrowed(gmargin)
    cum = borrowed(cum)
    vbuf = borrowed(vbuf)
    sbuf = borrowed(sbuf)
    vtmp = borrowed(vtmp)
    wbuf = borrowed(wbuf)
    tmpw = borrowed(tmpw)
    sm = borrowed(sm)
    sy = borrowed(sy)
    sw = borrowed(sw)
    sx = borrowed(sx)
    cand_heap = borrowed(cand_heap)
    mtab = borrowed(mtab)
    ubr = borrowed(ubr)
    cut = (borrowed(cut[0]), borrowed(cut[1]), borrowed(cut[2]), borrowed(cut[3]),
           borrowed(cut[4]), borrowed(cut[5]), borrowed(cut[6]), borrowed(cut[7]),
           borrowed(cut[8]))
    walk = (walk[0], borrowed(walk[1]), borrowed(walk[2]), borrowed(walk[3]),
            borrowed(walk[4]), borrowed(walk[5]), borrowed(walk[6]), borrowed(walk[7]),
            borrowed(walk[8]), borrowed(walk[9]), borrowed(walk[10]), borrowed(walk[11]),
            borrowed(walk[12]), borrowed(walk[13]), borrowed(walk[14]))
    _grow(X, y, n_bins, scores, phase, c, nprime, hi, constrain, eps, max_depth, sample_index,
          partition_buf, feature, threshold, left, right, node_label, node_start, node_end,
          node_depth, stack, vote, n_nodes_out, sa, sc, nbin, nodebuf, tsa, tsc, tsd, lab_mark,
          acc_a, margin, order, binpos, p, s, w, buf, inc, dec, jval, cand_f, cand_t, ubt,
          top_lab, grouped, gid, loc, rep, gcnt, gmargin, cum, vbuf, sbuf, vtmp, wbuf, tmpw,
          sm, sy, sw, sx, cand_heap, mtab, min_tables, ubr, cut, cuts, walk, order_fast)


def grow_margin_tree(ws: ZeroOneWorkspace, X_binned, y, n_bins, scores, c, nprime,
                     objective=OBJ_BOTTOM_AVG, constrain=False, eps=0.0, grouping="auto",
                     min_tables=True, bound_cuts=31, walk_bound=True, order_fast=True,
                     borrow_views=True, count_tables=True):
    """Grow a Phase II tree maximising the margin objective (bottom-n' average or, for
    ``OBJ_ORDER`` with K = 2, the n'-th smallest margin) of the ensemble with training scores
    ``scores`` and total weight ``c``. ``constrain`` keeps each node's line search inside the
    region where no currently-right example turns wrong (DirectBoost_avg); ``eps`` > 0 ranks
    tied candidates by a tie-break key (``corner_key``; the order margin: its value at eps).

    ``grouping`` ("auto", "on", "off"; the bottom-n' average only): the node search may treat
    examples with the same label and score row as one item with a multiplicity (they have the
    same numerator under every label, so the maxima are the same). "auto" does so when the
    groups are at most half the examples and their per-bin counts fit ``GROUP_CELLS``. An
    ensemble of few label trees has few distinct score rows (Poker525k after Phase I: 15
    groups for 525,010 examples).

    ``min_tables`` (n' = 1, the bottom-n' average only): the node search evaluates S from
    per-(feature, bin, label) minima instead of scanning (``_min_tables``); the same floats,
    the same trees (False: the scans, for the tests).

    ``bound_cuts`` (bits, the bottom-n' average only): relations between candidates that skip
    work — 1: line 9 of a split whose line-7 maximum is below the best split; 2: line 7's
    maxima bound each other across the thresholds of a feature; 4: line 7 only searches the
    labels that can reach the best split, and the split is skipped when none can; 8 (K = 2,
    per example): a candidate whose maximum over the label pairs it can get, walked over the
    pieces of its two lines per example (``margin_bound_binary``), is below the best split is
    skipped before any label search, and the candidates' best-first order is sorted at once
    (``_best_split_phase2_fast``); 16 (n' = 1 with ``min_tables``): a candidate whose two
    sides, each alone under its best label, cannot reach the best split is skipped before
    any label search (``_side_bound_below``). The same trees with any value (0: without
    them, for the tests).

    ``walk_bound`` (the bottom-n' average on examples, n' > 1): each label's search is first
    bounded by its bottom set's own maximum (``margin_bound_walk``), and the exact search
    starts at that bound's maximiser. The same trees (False: without, for the tests).

    ``count_tables`` (with ``walk_bound``): each node counts its examples per (feature, bin,
    label) — classes, the bottom set's classes, the slopes at 0 — so line 9's pre-work (S(0),
    the slopes at 0, the bottom set's counts) and line 7's where S_left is its whole bottom
    set come from the tables in O(K), and the falling bounds' pass is skipped when no label
    can fill them (``margin_search_fast._count_tables``). The same trees (False: the passes,
    for the tests).

    ``order_fast`` (``OBJ_ORDER`` unconstrained, K = 2): the node search is
    ``margin_search_order.best_split_order`` (each node's margins sorted once, the candidates'
    sorted lists by one filtered pass, line 9's single-label search once per node); the same
    trees (False: the exhaustive search, for the tests).

    ``borrow_views``: the node searches receive borrowed views of the arrays
    (``_grow_views``; no reference counting), the same trees (False: the plain arrays, for the
    tests)."""
    unnormalised_margins(scores, y, ws.margin)
    top_labels(scores, y, ws.top_lab)
    hi = 2.0 * c + 1.0
    grouped = False
    if grouping not in ("auto", "on", "off"):
        raise ValueError(f"grouping must be 'auto', 'on' or 'off', got {grouping!r}")
    if objective == OBJ_BOTTOM_AVG and not constrain and grouping != "off":
        scores = np.ascontiguousarray(scores, dtype=np.float64)
        G = group_rows(scores, scores.view(np.uint64), y, ws.gid, ws.grep)
        F, B = ws.cum.shape[1], ws.cum.shape[2]
        n = scores.shape[0]
        grouped = grouping == "on" or (2 * G <= n and G * F * B <= GROUP_CELLS)
        if grouped and ws.cum.shape[0] < G:
            ws.cum = np.zeros((G, F, B), np.int32)
    min_tables = (bool(min_tables) and objective == OBJ_BOTTOM_AVG and not constrain
                  and int(nprime) == 1)
    if min_tables:
        F, B = ws.cum.shape[1], ws.cum.shape[2]
        if ws.mtab.shape[1:3] != (F, B):
            ws.mtab = np.zeros((4, F, B, ws.n_classes), np.float64)
    return _run(ws, X_binned, y, n_bins, scores, objective, float(c), int(nprime), hi,
                bool(constrain), float(eps), grouped, min_tables, int(bound_cuts),
                bool(walk_bound), bool(order_fast), bool(borrow_views), bool(count_tables))


def _run(ws, X_binned, y, n_bins, scores, phase, c, nprime, hi, constrain, eps,
         grouped=False, min_tables=False, cuts=0, walk_bound=True, order_fast=True,
         borrow_views=True, count_tables=True):
    if ws.sx.dtype != X_binned.dtype:
        ws.sx = np.zeros(ws.sx.shape, X_binned.dtype)
    # Scratch of the candidates' cuts (``_best_split_phase2_fast``), allocated on first use.
    F, B = ws.cum.shape[1], ws.cum.shape[2]
    cut = getattr(ws, "p2_cut", None)
    if cut is None or len(cut) != 9 or cut[0].shape != (F, B):
        cut = (np.zeros((F, B), np.float64), np.zeros((F, B, ws.n_classes), np.float64),
               np.zeros(ws.n_classes, np.float64), np.zeros((F, B), np.int64),
               np.zeros(F * B, np.int64), np.zeros(F * B, np.int64),
               np.zeros((F, B, 8), np.int64), np.zeros((F * B, 8), np.int64),
               np.zeros(8, np.int64))
        ws.p2_cut = cut
    # The node's occupied bins and its candidates' left counts and per-feature ranges, and
    # the examples in (margin, index) order per node (``_best_split_phase2_fast``'s
    # ``morder``), allocated on first use.
    nodebuf = getattr(ws, "p2_nodebuf", None)
    if (nodebuf is None or len(nodebuf) != 6 or nodebuf[0].shape != (F, B)
            or nodebuf[5].shape != ws.order.shape):
        nodebuf = (np.zeros((F, B), np.int32), np.zeros(F, np.int64), np.zeros(F * B, np.int64),
                   np.zeros(F, np.int64), np.zeros(F, np.int64),
                   np.zeros(ws.order.shape[0], ws.order.dtype))
        ws.p2_nodebuf = nodebuf
    # The n' = 1 first-member tables per example (``margin_search_fast._first_pos_tables``),
    # allocated when used.
    fshape = (2, F, B, ws.n_classes) if (min_tables and not grouped) else (2, 1, 1, 1)
    fpos = getattr(ws, "p2_fpos", None)
    if fpos is None or fpos.shape != fshape:
        fpos = np.zeros(fshape, np.int64)
        ws.p2_fpos = fpos
    nodebuf = nodebuf + (fpos,)
    # The kink lists of the walk bound (``margin_bound_walk``), allocated on first use, and
    # their tiers (the lists restricted to the node's first positions, ``tier_lists``),
    # allocated when the walk runs (examples, n' > 1; not for grouped data such as Poker525k).
    n, K = ws.sw.shape
    kl = getattr(ws, "p2_walk", None)
    if kl is None or kl[0].shape != (K, n):
        kl = (np.zeros((K, n), np.float64), np.zeros((K, n), np.int32),
              np.zeros(K, np.int64), np.zeros(K, np.float64), np.zeros(K, np.float64),
              np.zeros(n, np.int64))
        ws.p2_walk = kl
    tiers = getattr(ws, "p2_walk_tiers", None)
    n_t = n if (walk_bound and not grouped and not min_tables) else 0
    if tiers is None or tiers[0].shape[1] != K or tiers[0].shape[2] < n_t:
        tiers = (np.zeros((WALK_TIERS, K, n_t), np.float64),
                 np.zeros((WALK_TIERS, K, n_t), np.int32),
                 np.zeros((WALK_TIERS, K), np.int64), np.zeros(WALK_TIERS, np.int64))
        ws.p2_walk_tiers = tiers
    kl = kl + tiers
    # The node's count tables of the label picks (``margin_search_fast._count_tables``),
    # allocated with the tiers (examples, n' > 1): (F, B, CT_N, K) int32 and its totals.
    tshape = (F, B, CT_N, K) if (n_t > 0 and count_tables) else (0, 1, CT_N, K)
    ctabs = getattr(ws, "p2_count_tables", None)
    if ctabs is None or ctabs[0].shape != tshape:
        ctabs = (np.zeros(tshape, np.int32), np.zeros((CT_N, K), np.int32),
                 np.zeros((2, K), np.int32))
        ws.p2_count_tables = ctabs
    kl = kl + ctabs
    # Each (line, feature, label)'s last exact maximiser in this tree, the warm start of the
    # next exact search of the walk (``margin_search_fast._cand_max_body``); 0: none yet.
    # Reset per tree, so a tree does not depend on the trees grown before it.
    xwarm = getattr(ws, "p2_warm", None)
    if xwarm is None or xwarm.shape != (3, F, K):
        xwarm = np.zeros((3, F, K), np.float64)
        ws.p2_warm = xwarm
    xwarm.fill(0.0)
    kl = kl + (xwarm,)
    walk = (bool(walk_bound),) + kl
    grow = _grow_views if borrow_views else _grow
    # The first call may compile the grower: once for all processes (_kernel_cache).
    with kernel_compile_lock(grow):
        grow(X_binned, y, n_bins, scores, phase, c, nprime, hi, constrain, eps, ws.max_depth,
             ws.sample_index, ws.partition_buf, ws.feature, ws.threshold, ws.left, ws.right,
             ws.node_label, ws.node_start, ws.node_end, ws.node_depth, ws.stack, ws.vote,
             ws.n_nodes, ws.sa, ws.sc, ws.nbin, nodebuf, ws.tsa, ws.tsc, ws.tsd, ws.lab_mark,
             ws.acc_a, ws.margin, ws.order, ws.binpos, ws.p, ws.s, ws.w, ws.buf, ws.inc,
             ws.dec, ws.jval, ws.cand_f, ws.cand_t, ws.ubt, ws.top_lab, grouped, ws.gid,
             ws.loc, ws.rep, ws.gcnt, ws.gmargin, ws.cum, ws.vbuf, ws.sbuf, ws.vtmp, ws.wbuf,
             ws.tmpw, ws.sm, ws.sy, ws.sw, ws.sx, ws.cand_heap, ws.mtab, min_tables, ws.ubr,
             cut, cuts, walk, order_fast)
    return int(ws.n_nodes[0])
