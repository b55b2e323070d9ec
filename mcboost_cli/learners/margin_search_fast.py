"""Phase II node search of DMCBoost for the bottom-n' average margin (unconstrained): the
fast node search of ``margin_tree``.

``_best_split_phase2_fast`` finds the same split as the exhaustive
``margin_search_exhaustive._best_split_phase2`` (and its brute-force twin,
``naive_zero_one.grow_tree_naive``), with far fewer passes over the data:

* the node's samples are sorted by margin once; an example can be among the n' smallest
  numerators at alpha only if m_i <= v0 + 2 alpha (v0: the n'-th smallest margin of the set;
  numerators move at most alpha), so every evaluation scans a prefix of that order (the node's
  items copied into margin order, ``_node_views``; only entries that can be among the n'
  smallest are kept, ``_scan``);
* the maximiser is bracketed by doubling from a small alpha instead of starting at 2c + 1, so
  the evaluations happen where those prefixes are short;
* by concavity S(alpha) <= S(0) + S'(0+) alpha, so a candidate's maximum is at most
  max(g(0), S'(0+)/n'); candidates are examined best bound first and dropped when the bound
  cannot beat the best value found (ties are never dropped; concave upper bounds also prune
  inside each exact search), and the epsilon-step objective of the tie-break is computed only
  for ties;
* examples with equal label and score row are treated as one item with a multiplicity
  (``group_rows``, ``_node_groups``, ``_item``);
* with n' = 1 each evaluation is O(1) from per-(feature, bin, label) minima (``_min_tables``),
  and per example a label pick's pre-work starts at S_left's first member and takes the
  falling bounds from per-(feature, bin, class) first positions (``_first_pos_tables``);
  lines 7 and 9 then run as one inlined label search per candidate (``_pick_label_body``),
  and the nodes below the root read their margin order from the root's, partitioned stably
  at each split (``morder``) instead of sorting; and a candidate whose S_left alone and
  S_right alone, each under its best label, cannot reach the best split so far is skipped
  before its label searches (``_side_bound_below``, from the same tables);
* otherwise (on examples) each label is first bounded by its bottom set's own maximum, walked
  over that set's kinks (``margin_bound_walk``): a label whose bound cannot reach the best
  value found is not searched, and an exact search starts probing where that bound peaks;
* with the walk, each node also counts its examples per (feature, bin, label) — classes,
  the bottom set's classes, the slopes at 0, cumulative over the bins (``_count_tables``) —
  so line 9's pre-work (S(0) is the node's, the slopes are integer sums) and line 7's where
  S_left is its whole bottom set (deep nodes with at most n' examples) cost O(K) instead of
  passes over the node, and the falling bounds' pass is skipped when no label can fill them;
* with two labels (DirectBoost; on examples) every numerator is m +- alpha, so a candidate's
  maximum under each label pair is walked over S's pieces from the node's bottom set in
  O(kcap + pieces) (``margin_bound_binary``), and a candidate that cannot reach the best split
  found so far is skipped before any label search.

References
----------
.. [1] S. Zhai, T. Xia, S. Wang. A multi-class boosting method with direct optimization.
       KDD 2014, Alg. 1.2 and sec. 2.2.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._inline import inline_helper
from .margin_bound_binary import (
    binary_candidate_below,
    binary_single_max,
    corner_counts,
    corner_slope_key,
    line7_corner_label,
    line7_label,
    split_wrong_counts,
)
from .margin_bound_walk import bottom_counts, kink_lists, tier_lists, tier_of, walk_bound
from .line_search import (
    INF,
    OBJ_TIE_EPS,
    _rising,
    _select_kth,
    left_slope,
    median_of_three,
    numerator,
    right_slope,
    top_wrong,
)

# A label's pre-search (``_pick_label``) runs on the first PREFIX_MULT x (items with margin
# <= v0) of the node in margin order: an upper bound of the node's S, cheaper to scan.
PREFIX_MULT = 2

MODE_LEFT = 0      # members: bin <= t, voted label a
MODE_SPLIT = 1     # members: all, voted a (bin <= t) or b
MODE_ALL = 2       # members: all, voted a
MODE_POS = 3       # members: the node positions listed in order_m[:L], voted a (a compacted
                   # MODE_LEFT: S_left's positions, so its scans skip S_right)


@inline_helper
def _m_less(margin, a, b):
    ma = margin[a]
    mb = margin[b]
    return ma < mb or (ma == mb and a < b)


@inline_helper
def _sift_down(margin, idx, root, end):
    """Restore the max-heap property of idx[0:end] (by (margin, index)) below ``root``."""
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and _m_less(margin, idx[child], idx[child + 1]):
            child += 1
        if not _m_less(margin, idx[root], idx[child]):
            return
        tmp = idx[root]
        idx[root] = idx[child]
        idx[child] = tmp
        root = child


@njit(cache=True, nogil=True)
def _sort_by_margin(margin, idx, L):
    """Sort idx[0:L] by (margin, index) in place (heapsort: no allocation, deterministic)."""
    for start in range(L // 2 - 1, -1, -1):
        _sift_down(margin, idx, start, L)
    for end in range(L - 1, 0, -1):
        tmp = idx[0]
        idx[0] = idx[end]
        idx[end] = tmp
        _sift_down(margin, idx, 0, end)


# Items of a node. The fast search works on the node's *items*: either its examples, or its
# groups of interchangeable examples — examples with the same label and the same score row
# have the same numerator line under every label, so a candidate only needs how many of a
# group fall on each side of its split (cumulative per-bin counts, ``cum``). The items are
# passed as one tuple ``items = (grouped, imargin, rep, gcnt, cum, sm, sy, sw, sx)``:
# ``imargin[q]`` is item q's margin, and for groups ``rep[q]`` is a member (for its label and
# scores), ``gcnt[q]`` its number of members in the node and ``cum[q, f, b]`` its members with
# bin <= b on f. Without groups an item is an example index (rep, gcnt and cum are not read).
# The last four are the node's items in margin order (position p = the p-th item of
# ``order_m``), laid out for ``_scan``'s sequential reads instead of gathers through the item
# index: ``sm[p]`` its margin, ``sy[p]`` its label, ``sw[p, k]`` = scores[r, y_r] -
# scores[r, k] for its member r (piece_terms' w under a wrong label k, the same subtraction)
# and, without groups, ``sx[f, p]`` its bin on feature f (``_node_views``).


@inline_helper
def _item(items, q, X, f, t, mode):
    """(member example, members voted label a, members voted label b) of item q under a
    candidate: MODE_LEFT votes a on S_left (S_right is not a member), MODE_SPLIT a on
    S_left and b on S_right, MODE_ALL a on the whole node."""
    grouped, _, rep, gcnt, cum, _, _, _, _ = items
    if grouped:
        r = rep[q]
        tot = gcnt[q]
        if mode == MODE_ALL:
            return r, tot, 0
        nl = cum[q, f, t]
        if mode == MODE_LEFT:
            return r, nl, 0
        return r, nl, tot - nl
    if mode == MODE_ALL:
        return q, 1, 0
    if X[q, f] <= t:
        return q, 1, 0
    if mode == MODE_LEFT:
        return q, 0, 0
    return q, 0, 1


@inline_helper
def _item_fixed_var(items, q, X, f, t, mode):
    """(member example, members voted the fixed label, members whose label varies) of item q:
    in MODE_SPLIT the S_left members carry the fixed label; otherwise all members vary."""
    r, na, nb = _item(items, q, X, f, t, mode)
    if mode == MODE_SPLIT:
        return r, na, nb
    return r, 0, na


@inline_helper
def _item_at(items, order_m, p, f, t, mode):
    """(members voted label a, members voted label b) of the item at margin position p: the
    counts of ``_item``, read from the margin-ordered views."""
    grouped, _, _, gcnt, cum, _, _, _, sx = items
    if grouped:
        it = order_m[p]
        tot = gcnt[it]
        if mode == MODE_ALL:
            return tot, 0
        nl = cum[it, f, t]
        if mode == MODE_LEFT:
            return nl, 0
        return nl, tot - nl
    if mode == MODE_ALL:
        return 1, 0
    if sx[f, p] <= t:
        return 1, 0
    if mode == MODE_LEFT:
        return 0, 0
    return 0, 1


@inline_helper
def _fixed_var_at(items, order_m, p, f, t, mode):
    """``_item_fixed_var``'s counts (fixed label, varying label) from the views."""
    na, nb = _item_at(items, order_m, p, f, t, mode)
    if mode == MODE_SPLIT:
        return na, nb
    return 0, na


@inline_helper
def _member_at(items, order_m, p):
    """A member example of the item at margin position p."""
    it = order_m[p]
    return items[2][it] if items[0] else it


@njit(cache=True, nogil=True)
def _node_views(X, y, scores, order_m, L, grouped, rep, imargin, sm, sy, sw, sx):
    """Fill the margin-ordered views of the node's items (see ``items`` above): one gather
    per node instead of one per item and scan."""
    K = scores.shape[1]
    F = X.shape[1]
    for p in range(L):
        it = order_m[p]
        r = rep[it] if grouped else it
        yi = y[r]
        sm[p] = imargin[it]
        sy[p] = yi
        ay = scores[r, yi]
        for k in range(K):
            sw[p, k] = ay - scores[r, k]
        if not grouped:
            for f in range(F):
                sx[f, p] = X[r, f]


@njit(cache=True, nogil=True)
def _select_kth_weighted(vals, wts, L, k):
    """The smallest value v of vals[:L] whose weights up to v (inclusive) exceed k, i.e. the
    k-th smallest (0-based) of the multiset where vals[q] occurs wts[q] times. In-place
    three-way partition with median-of-three pivots (deterministic)."""
    lo = 0
    hi = L - 1
    while True:
        if lo == hi:
            return vals[lo]
        pivot = median_of_three(vals, lo, hi)
        lt = lo
        i = lo
        gt = hi
        while i <= gt:
            v = vals[i]
            if v < pivot:
                vals[i] = vals[lt]
                vals[lt] = v
                tw = wts[i]
                wts[i] = wts[lt]
                wts[lt] = tw
                lt += 1
                i += 1
            elif v > pivot:
                vals[i] = vals[gt]
                vals[gt] = v
                tw = wts[i]
                wts[i] = wts[gt]
                wts[gt] = tw
                gt -= 1
            else:
                i += 1
        w_less = 0
        for q in range(lo, lt):
            w_less += wts[q]
        if k < w_less:
            hi = lt - 1
            continue
        w_eq = 0
        for q in range(lt, gt + 1):
            w_eq += wts[q]
        if k < w_less + w_eq:
            return pivot
        k -= w_less + w_eq
        lo = gt + 1


@inline_helper
def _tied_slopes(need, r_m1, r_0, l_p1, l_0, slope_l, slope_r):
    """Add the ``need`` slots at the kcap-th value to the one-sided slopes of S: right of
    alpha they go to the smallest right slopes (r_m1 members at -1, r_0 at 0, the rest +1),
    left of alpha to the largest left slopes (l_p1 at +1, l_0 at 0, the rest -1) — those
    members are the smaller ones on that side."""
    take = min(need, r_m1)
    rest = need - take
    slope_r -= take
    rest -= min(rest, r_0)
    slope_r += rest
    take = min(need, l_p1)
    rest = need - take
    slope_l += take
    rest -= min(rest, l_0)
    slope_l -= rest
    return slope_l, slope_r


@njit(cache=True, nogil=True)
def _scan_examples(f, t, lab_a, lab_b, mode, items, L, kcap, alpha, ucap, bufs, order_m):
    """``_scan`` without groups: each item is one example with at most one entry, so the
    loop is written without data-dependent branches (the member test, the label's piece and
    the keep test are selects; an entry is written at cnt and kept by advancing cnt), which
    spares the mispredictions that dominated it. The same floats as ``_scan``: the same
    piece (p, s, w) = (m, 1, inf) or (m, 0, w), the same numerator and slope expressions,
    the same kept entries in the same order, and weights of 1 (1 * v == v)."""
    sm = items[5]
    sy = items[6]
    sw = items[7]
    sx = items[8]
    nbuf, _, code_buf, tmp, _ = bufs
    cnt = 0
    seen = 0
    umax = -INF
    bound = INF
    for j in range(L):
        # MODE_POS reads the listed positions (all members, voted lab_a): the same entries
        # in the same order as MODE_LEFT reading every position and skipping S_right.
        q = order_m[j] if mode == MODE_POS else j
        mi = sm[q]
        d = mi - alpha
        if mi > bound or d > ucap or (seen >= kcap and d > umax):
            break
        inside = sx[f, q] <= t
        member = inside | (mode != MODE_LEFT)
        lab = lab_a if (inside | (mode != MODE_SPLIT)) else lab_b
        right = lab == sy[q]
        wq = sw[q, lab]
        si = 1.0 if right else 0.0
        wi = INF if right else wq
        a = mi + si * alpha
        b = wi - alpha
        v = a if a <= b else b
        # right_slope / left_slope: s on the rising piece, -1 where the falling one rules.
        s_int = 1 if right else 0
        rs = s_int if a < b else -1
        ls_ = s_int if a <= b else -1
        filling = seen < kcap
        keep = member & (filling | (v <= umax)) & (v <= ucap)
        umax = v if (member & filling & (v > umax)) else umax
        nbuf[cnt] = v
        tmp[cnt] = v
        # Both one-sided slopes in one code: 3 (right + 1) + (left + 1).
        code_buf[cnt] = 3 * (rs + 1) + (ls_ + 1)
        cnt += 1 if keep else 0
        seen += 1 if member else 0
        if seen >= kcap and bound == INF:
            bound = mi + 2.0 * alpha
    vk = _select_kth(tmp, cnt, kcap - 1)
    total = 0.0
    slope_r = 0.0
    slope_l = 0.0
    n_less = 0
    r_m1 = 0
    r_0 = 0
    l_p1 = 0
    l_0 = 0
    for q in range(cnt):
        v = nbuf[q]
        code = code_buf[q]
        sr = code // 3 - 1
        sl = code % 3 - 1
        if v < vk:
            total += v
            slope_r += sr
            slope_l += sl
            n_less += 1
        elif v == vk:
            if sr < 0:
                r_m1 += 1
            elif sr == 0:
                r_0 += 1
            if sl > 0:
                l_p1 += 1
            elif sl == 0:
                l_0 += 1
    need = kcap - n_less
    total += need * vk
    slope_l, slope_r = _tied_slopes(need, r_m1, r_0, l_p1, l_0, slope_l, slope_r)
    return total, slope_l, slope_r, vk


@njit(cache=True, nogil=True)
def _scan(order_m, L, X, f, t, lab_a, lab_b, mode, scores, y, items, kcap, alpha, ucap, bufs):
    """S(alpha) and both one-sided slopes of S at alpha for a candidate, scanning the
    margin-sorted prefix of items that can hold its kcap smallest numerators (a numerator lies
    in [m - alpha, m + alpha], so once kcap members are seen, margins above the kcap-th one
    + 2 alpha cannot enter). ``ucap`` is an upper bound of the kcap-th smallest numerator at
    alpha known beforehand (or inf; see ``_cand_max``). Returns (S, left slope, right slope,
    the kcap-th smallest numerator).

    Only the numerators <= the kcap-th smallest value vk enter S and its slopes, so the scan
    keeps just those that can be: every numerator is <= m + alpha (voted the true label:
    m + alpha; a wrong label: min(m, w - alpha) <= m), so vk <= umax, the largest numerator
    of the first members (in margin order) that number kcap. Later entries above umax are
    not stored, and the scan stops at the first margin with m - alpha > umax (every
    numerator is >= m - alpha, as w >= m; margins only grow along the prefix); the same with
    ``ucap`` from the start. Both tests
    compare the very floats the selection compares (fl(m - alpha) <= fl(w - alpha) and
    m <= fl(m + alpha) by monotone rounding), so the kept entries hold every value <= vk, in
    the same order: the same vk, the same sums in the same order — the same bits as storing
    them all (the entries kept are a subset of those the 2 alpha rule alone keeps). One pass
    serves both sides of a kink."""
    grouped = items[0]
    if not grouped:
        return _scan_examples(f, t, lab_a, lab_b, mode, items, L, kcap, alpha, ucap, bufs,
                              order_m)
    sm = items[5]
    sy = items[6]
    sw = items[7]
    nbuf, sbuf, wbuf, tmp, tmpw = bufs
    cnt = 0
    seen = 0
    umax = -INF
    bound = INF
    for q in range(L):
        mi = sm[q]
        if mi > bound or mi - alpha > ucap or (seen >= kcap and mi - alpha > umax):
            break
        na, nb = _item_at(items, order_m, q, f, t, mode)
        if na + nb == 0:
            continue
        yi = sy[q]
        filling = seen < kcap
        for part in range(2):
            nw = na if part == 0 else nb
            if nw == 0:
                continue
            lab = lab_a if part == 0 else lab_b
            # piece_terms(scores, r, yi, lab, mi), from the views.
            if lab == yi:
                si = 1.0
                wi = INF
            else:
                si = 0.0
                wi = sw[q, lab]
            v = numerator(mi, si, wi, alpha)
            if filling:
                if v > umax:
                    umax = v
            elif v > umax:
                continue
            if v > ucap:
                continue
            nbuf[cnt] = v
            tmp[cnt] = v
            wbuf[cnt] = nw
            tmpw[cnt] = nw
            # Both one-sided slopes in one code: 3 (right + 1) + (left + 1).
            sbuf[cnt] = 3.0 * (right_slope(mi, si, wi, alpha) + 1.0) + (
                left_slope(mi, si, wi, alpha) + 1.0)
            cnt += 1
        seen += na + nb
        if seen >= kcap and bound == INF:
            bound = mi + 2.0 * alpha
    if grouped:
        vk = _select_kth_weighted(tmp, tmpw, cnt, kcap - 1)
    else:
        vk = _select_kth(tmp, cnt, kcap - 1)
    total = 0.0
    slope_r = 0.0
    slope_l = 0.0
    n_less = 0
    # Members tied at the kcap-th value, by right slope (r_*) and by left slope (l_*).
    r_m1 = 0
    r_0 = 0
    l_p1 = 0
    l_0 = 0
    for q in range(cnt):
        v = nbuf[q]
        nw = wbuf[q]
        code = int(sbuf[q] + 0.5)
        sr = code // 3 - 1
        sl = code % 3 - 1
        if v < vk:
            total += nw * v
            slope_r += nw * sr
            slope_l += nw * sl
            n_less += nw
        elif v == vk:
            if sr < 0:
                r_m1 += nw
            elif sr == 0:
                r_0 += nw
            if sl > 0:
                l_p1 += nw
            elif sl == 0:
                l_0 += nw
    need = kcap - n_less
    total += need * vk
    slope_l, slope_r = _tied_slopes(need, r_m1, r_0, l_p1, l_0, slope_l, slope_r)
    return total, slope_l, slope_r, vk


@inline_helper
def _fill_occupied(tab, rows, obin, nob, v):
    """tab[j, f, b, :] = v for j < rows at every feature f's occupied bins b = obin[f, :nob[f]]
    (the node tables' per-bin entries before the node's members are read)."""
    for f in range(nob.shape[0]):
        for jb in range(nob[f]):
            b = obin[f, jb]
            for j in range(rows):
                for k in range(tab.shape[3]):
                    tab[j, f, b, k] = v


@inline_helper
def _suffix_prefix_min(tab, src, dst, f, obin, no, none):
    """Running minima per label k over feature f's occupied bins obin[f, :no] (increasing):
    tab[dst, f, b, k] = the smallest tab[src, f, b', k] over the occupied bins b' > b
    (``none`` at the last), then tab[src, f, b, k] = the smallest over b' <= b, in place.
    The suffix at bin j is the suffix at bin j + 1 min'd with bin j + 1's own entry (read
    before the prefixes overwrite the row); the labels run innermost (adjacent entries)."""
    if no == 0:
        return
    K = tab.shape[3]
    b = obin[f, no - 1]
    for k in range(K):
        tab[dst, f, b, k] = none
    for j in range(no - 2, -1, -1):
        b = obin[f, j]
        bn = obin[f, j + 1]
        for k in range(K):
            v = tab[dst, f, bn, k]
            if tab[src, f, bn, k] < v:
                v = tab[src, f, bn, k]
            tab[dst, f, b, k] = v
    for j in range(1, no):
        b = obin[f, j]
        bp = obin[f, j - 1]
        for k in range(K):
            if tab[src, f, bp, k] < tab[src, f, b, k]:
                tab[src, f, b, k] = tab[src, f, bp, k]


@njit(cache=True, nogil=True)
def _min_tables(X, sample_index, start, end, y, scores, margin, mtab, obin, nob, wrow):
    """The node's tables for n' = 1 (``_min_lines``): per feature f, bin t and label k,
    mtab[0, f, t, k] = the smallest margin of the members with bin <= t and class k,
    mtab[1, f, t, k] = the smallest w_i(k) = scores[i, y_i] - scores[i, k] of the members with
    bin <= t and class != k, and mtab[2], mtab[3] the same over bin > t (+inf when empty).
    Written at the node's occupied bins t = obin[f, :nob[f]] only (the only thresholds a
    candidate has), and mtab[0:2, 0, B - 1] is the whole node (``_min_lines``' MODE_ALL).
    The values are the very floats the scans compute (the margins, and w by the same
    subtraction as ``_node_views``); an empty bin would hold +inf and leave every running
    minimum as it is, so skipping them gives the same tables there. O(|S| F K + F B' K) per
    node (B' occupied bins).

    ``wrow`` (K floats, scratch): a member's w_i(k) row, made once per member instead of
    once per feature, with +inf at its own class (so every k is compared and the class's
    entry never changes: the same minima), and the suffixes / prefixes run over the labels
    innermost: the same comparisons per (f, k) in the same bin order, as loops over
    adjacent entries (vectorised)."""
    F = X.shape[1]
    B = mtab.shape[2]
    K = mtab.shape[3]
    _fill_occupied(mtab, 2, obin, nob, INF)
    # Per-bin minima in mtab[0] and mtab[1].
    for q in range(start, end):
        i = sample_index[q]
        yi = y[i]
        mi = margin[i]
        ay = scores[i, yi]
        for k in range(K):
            wrow[k] = ay - scores[i, k]
        wrow[yi] = INF
        for f in range(F):
            b = X[i, f]
            if mi < mtab[0, f, b, yi]:
                mtab[0, f, b, yi] = mi
            for k in range(K):
                if wrow[k] < mtab[1, f, b, k]:
                    mtab[1, f, b, k] = wrow[k]
    # Suffixes (bins > t) into mtab[2], mtab[3], then prefixes in place.
    for f in range(F):
        _suffix_prefix_min(mtab, 0, 2, f, obin, nob[f], INF)
        _suffix_prefix_min(mtab, 1, 3, f, obin, nob[f], INF)
    # The whole node, where MODE_ALL reads it (the prefix at feature 0's last occupied bin).
    bl = obin[0, nob[0] - 1]
    if bl != B - 1:
        for k in range(K):
            mtab[0, 0, B - 1, k] = mtab[0, 0, bl, k]
            mtab[1, 0, B - 1, k] = mtab[1, 0, bl, k]


@njit(cache=True, nogil=True)
def _first_pos_tables(sx, sy, L, obin, nob, fpos):
    """The node's first-member tables for n' = 1 per example (``_pick_label_body``): per
    feature f, occupied bin t and class k, fpos[0, f, t, k] = the first margin position
    (``_node_views``' order) of an example of class k with bin <= t, fpos[1, f, t, k] the
    same over bin > t (L: none). O(|S| F + F B' K) per node (B' occupied bins)."""
    F = fpos.shape[1]
    _fill_occupied(fpos, 1, obin, nob, L)
    for p in range(L):
        yi = sy[p]
        for f in range(F):
            b = sx[f, p]
            if p < fpos[0, f, b, yi]:
                fpos[0, f, b, yi] = p
    for f in range(F):
        _suffix_prefix_min(fpos, 0, 1, f, obin, nob[f], L)


@inline_helper
def _two_smallest(tab, j, f, t, none):
    """(m1, i1, m2): the smallest entry m1 of tab[j, f, t, :] (``none`` when no entry is
    below it), its first index i1 (-1: none) and the smallest entry of the others m2
    (``none``: none). One O(K) pass per label pick instead of one per label.

    On the n' = 1 minima (``_min_tables``, none = +inf): ``_min_other``(lab) is m2 when
    lab == i1 and m1 otherwise — the same float: its scan keeps the first of equal minima,
    and every entry before i1 is > m1, so with lab != i1 it stops at i1 (with lab == i1 it
    is m2's own scan). On the first-member tables (``_first_pos_tables``, none = L): the
    first position P1 over all classes, its class c1 and the first position P2 of another
    class than c1."""
    m1 = none
    i1 = -1
    for k in range(tab.shape[3]):
        if tab[j, f, t, k] < m1:
            m1 = tab[j, f, t, k]
            i1 = k
    m2 = none
    for k in range(tab.shape[3]):
        if k != i1 and tab[j, f, t, k] < m2:
            m2 = tab[j, f, t, k]
    return m1, i1, m2


@inline_helper
def _falling_bounds_first(L, f, t, lab_fixed, mode, items, fpos, acc):
    """``_falling_bounds`` for kcap = 1 per example in MODE_LEFT / MODE_SPLIT, from the first
    positions (``_first_pos_tables``) instead of a pass: label k's sum is its first member
    (in margin order) voted a wrong label, 0.0 + 1 * w there as the pass adds it (+inf:
    none). MODE_LEFT: the first left member P1 unless k is its class, then the first left
    member of another class; MODE_SPLIT: the earlier of the first left member of another
    class than lab_fixed (w under lab_fixed) and the first right member of another class
    than k (w under k)."""
    sw = items[7]
    K = acc.shape[0]
    if mode == MODE_LEFT:
        p1, c1, p2 = _two_smallest(fpos, 0, f, t, L)
        for k in range(K):
            q = p2 if k == c1 else p1
            acc[k] = 0.0 + 1 * sw[q, k] if q < L else INF
        return
    ql = L
    for k in range(K):
        if k != lab_fixed and fpos[0, f, t, k] < ql:
            ql = fpos[0, f, t, k]
    r1, c1, r2 = _two_smallest(fpos, 1, f, t, L)
    for k in range(K):
        qr = r2 if k == c1 else r1
        if ql < qr:
            acc[k] = 0.0 + 1 * sw[ql, lab_fixed]
        elif qr < L:
            acc[k] = 0.0 + 1 * sw[qr, k]
        else:
            acc[k] = INF


@inline_helper
def _min_other(mtab, j, f, t, lab):
    """min over classes k != lab of mtab[j, f, t, k]: the smallest margin of the members of
    another class than lab."""
    v = INF
    for k in range(mtab.shape[3]):
        if k != lab and mtab[j, f, t, k] < v:
            v = mtab[j, f, t, k]
    return v


@inline_helper
def _min_lines(mtab, f, t, lab_a, lab_b, mode):
    """With n' = 1 a candidate's S(alpha) is its smallest numerator, and the numerators are
    min(m + alpha) over the members voted their own class and min(m, w - alpha) over the
    others, so S(alpha) = min(A + alpha, Bm, C - alpha) with A / Bm = the smallest margin of
    the members voted their class / a wrong label and C = their smallest w. Returns
    (A, Bm, C) from the node's tables (``_min_tables``; +inf for an empty kind)."""
    if mode == MODE_ALL:
        tl = mtab.shape[2] - 1
        return (mtab[0, 0, tl, lab_a], _min_other(mtab, 0, 0, tl, lab_a),
                mtab[1, 0, tl, lab_a])
    A = mtab[0, f, t, lab_a]
    Bm = _min_other(mtab, 0, f, t, lab_a)
    C = mtab[1, f, t, lab_a]
    if mode == MODE_SPLIT:
        v = mtab[2, f, t, lab_b]
        if v < A:
            A = v
        v = _min_other(mtab, 2, f, t, lab_b)
        if v < Bm:
            Bm = v
        v = mtab[3, f, t, lab_b]
        if v < C:
            C = v
    return A, Bm, C


@inline_helper
def _min_scan(A, Bm, C, alpha):
    """``_scan``'s (S, left slope, right slope, kth value) for kcap = 1 from ``_min_lines``,
    the same floats: the entries are a = m + s alpha (s = 1.0: A + alpha; s = 0.0: m + 0.0)
    and b = w - alpha, rounding is monotone, so the smallest entry is min(fl(A + alpha),
    Bm + 0.0, fl(C - alpha)) = vk and S = 0.0 + 1 * vk as the scan sums it. The one-sided
    slopes of the single bottom slot: on the right the smallest slope among the entries tied
    at vk (-1 if a falling piece b reaches vk — its member's a is >= Bm >= vk, so it is tied
    with b <= a —, else 0 if a wrong-voted margin is vk, else +1), on the left the largest (+1
    if a right-voted member is tied, else 0 if a wrong-voted margin is, else -1)."""
    va = A + 1.0 * alpha
    vb = Bm + 0.0 * alpha
    vc = C - alpha
    vk = va if va <= vb else vb
    if vc < vk:
        vk = vc
    if vc == vk:
        sr = -1.0
    elif vb == vk:
        sr = 0.0
    else:
        sr = 1.0
    if va == vk:
        sl = 1.0
    elif vb == vk:
        sl = 0.0
    else:
        sl = -1.0
    return 0.0 + vk, sl, sr, vk


@inline_helper
def _lines_max(A, Bm, C, c, hi):
    """max over alpha in [0, hi] of min(A + alpha, Bm, C - alpha) / (c + alpha) (c > 0): the
    exact maximum of g for S(alpha) = min(A + alpha, Bm, C - alpha) (``_min_lines``' three
    lines), up to rounding. The numerator is concave and piecewise linear with its kinks where
    two lines cross (alpha = Bm - A, C - Bm, (C - A) / 2), and on each piece
    (p + q alpha) / (c + alpha) is monotone, so the maximum is at 0, at hi or at a kink
    inside (0, hi); an infinite line (an empty kind of member) has no kink (the differences
    are then infinite or nan and fail the test)."""
    best = -INF
    for j in range(5):
        if j == 0:
            a = 0.0
        elif j == 1:
            a = hi
        elif j == 2:
            a = Bm - A
        elif j == 3:
            a = C - Bm
        else:
            a = 0.5 * (C - A)
        if j >= 2 and not (0.0 < a < hi):
            continue
        s = A + a
        if Bm < s:
            s = Bm
        if C - a < s:
            s = C - a
        g = s / (c + a)
        if g > best:
            best = g
    return best


@inline_helper
def _side_bound_below(mtab, f, t, c, hi, ref):
    """Cut 16 (n' = 1, the node's tables ``_min_tables``): True when the split (f, t) cannot
    reach ``ref`` under any labels. With one bottom slot S is the smallest numerator of the
    members, so the split's S under (k_left, k_right) is at most the S of S_left alone voted
    k_left and at most that of S_right alone voted k_right (a minimum over a superset), and
    its maximum of g at most each side's maximum (``_lines_max`` on the side's three lines):
    at most min(max_a g_left(a), max_b g_right(b)). A rounding margin of 1e-9 relative keeps
    every candidate that could reach or tie ``ref``."""
    K = mtab.shape[3]
    for side in range(2):
        j = 2 * side
        m1, i1, m2 = _two_smallest(mtab, j, f, t, INF)
        ub = -INF
        for k in range(K):
            v = _lines_max(mtab[j, f, t, k], m2 if k == i1 else m1, mtab[j + 1, f, t, k], c,
                           hi)
            if v > ub:
                ub = v
        ub += 1e-9 * (1.0 + abs(ub))
        if ub < ref:
            return True
    return False


@inline_helper
def _probe(mins, A, Bm, C, order_m, L, X, f, t, lab_a, lab_b, mode, scores, y, items, kcap,
           alpha, ucap, bufs):
    """``_scan``, or with ``mins`` (n' = 1) its O(1) twin ``_min_scan``."""
    if mins:
        return _min_scan(A, Bm, C, alpha)
    return _scan(order_m, L, X, f, t, lab_a, lab_b, mode, scores, y, items, kcap, alpha, ucap,
                 bufs)


# The exact searches' shortcuts on scans (``_cand_max_body``): probe phi's linear zero while
# the bracket holds more than this many unit slope changes, and step this fraction from a warm
# start.
RF_MIN_SLOPES = 4.0
WARM_STEP = 0.1


@inline_helper
def _vk_cap(vk_ref, a_ref, a, slack):
    """An upper bound of the kcap-th smallest numerator at a, from its value vk_ref at a_ref:
    every numerator is 1-Lipschitz in alpha (slopes in {-1, 0, +1}), so the kcap-th smallest
    is too; ``slack`` covers the rounding of the numerators (a few ulps; see _cand_max)."""
    return vk_ref + abs(a - a_ref) + slack


@inline_helper
def _two_line_bound(P0, q0, P1, q1, a, kcap, c):
    """min(P0 + q0 a, P1 + q1 a) / (kcap (c + a)): g's bound at a from two supporting lines."""
    u = P0 + q0 * a
    w = P1 + q1 * a
    return (u if u < w else w) / (kcap * (c + a))


@njit(cache=True, nogil=True)
def _cand_max(order_m, L, X, f, t, lab_a, lab_b, mode, scores, y, items, kcap, c, hi, S0, Q0,
              double, x_hint, floor, v0, bufs, mins, mtab, fall, whole, a_first=-1.0,
              warm=-1.0):
    """``_cand_max_body`` as a call (the scans' searches)."""
    A = 0.0
    Bm = 0.0
    C = 0.0
    if mins:
        A, Bm, C = _min_lines(mtab, f, t, lab_a, lab_b, mode)
    return _cand_max_body(order_m, L, X, f, t, lab_a, lab_b, mode, scores, y, items, kcap, c,
                          hi, S0, Q0, double, x_hint, floor, v0, bufs, mins, A, Bm, C, fall,
                          whole, a_first, warm)


@inline_helper
def _cand_max_body(order_m, L, X, f, t, lab_a, lab_b, mode, scores, y, items, kcap, c, hi, S0,
                   Q0, double, x_hint, floor, v0, bufs, mins, A, Bm, C, fall, whole, a_first,
                   warm):
    """Exact maximum of g over [0, hi] for a candidate that rises at 0 (right slope Q0 at
    S(0) = S0): bracket by doubling, then intersect the pieces of S at the bracket's ends
    (as ``line_search.max_bottom_avg_exact``). Returns (the maximum, its alpha) — or, as soon
    as the bracket proves the maximum lies below ``floor`` beyond the tie tolerance (the
    caller's best so far), (an upper bound below ``floor``, -1) (the candidate cannot win; its
    exact value is not needed). ``x_hint`` in (0, hi), if given, is the first point probed: where the tangent
    at 0 meets another concave bound of S, so if S reaches the tangent there, g(x_hint) is
    the maximum. ``v0``: the kcap-th smallest numerator at 0 (the kcap-th margin).

    Each scan gets an upper bound of its kcap-th numerator (``_vk_cap``) from the last scan
    (or from 0), which lets it skip the entries and items that cannot be among the kcap
    smallest; the bound only needs to hold, so the scans return the same bits. With ``mins``
    (n' = 1, so kcap = 1) each scan is the O(1) ``_min_scan`` on the candidate's three lines
    (A, Bm, C) from the node's n' = 1 tables (``_min_lines``; the same floats, the same
    probes).

    ``fall``: the falling bound S(alpha) <= fall - kcap alpha (``_falling_bounds``; +inf when
    there is none). While the bracket is still growing (g rises at the last probe a0), S lies
    below the supporting line at a0 and below the falling bound, so g's maximum over
    [a0, hi] is at most the larger of that two-line bound at a0, at hi and where the lines
    cross: the search stops there as soon as that is below ``floor`` (as in the bracket's
    phase), instead of probing on.

    ``whole``: the items are a margin-ordered prefix of the node holding every item with a
    margin <= v0 (``_pick_label``'s pre-search), so this S is an upper bound U of the node's
    (the sum of the kcap smallest of a subset), with the same S(0) and right slope at 0. Then
    the aborts bound g over all of [0, hi] (a bound on the bracket only would not hold for the
    node's S, whose maximiser may lie elsewhere): U's supporting lines bound the node's S
    everywhere.

    With ``warm >= 0`` (the walk bound's searches; scans only, not ``mins``) the search takes
    three shortcuts, none of which changes which kink is the maximum, only where S is
    evaluated on the way (ALGORITHMS.md, "Fewer evaluations per exact search"); with
    ``warm < 0`` it probes as before them (n' = 1 and grouped data, whose committed fits keep
    their bits):

    - ``warm`` in (0, hi): the maximiser of the same label and feature found last in this
      tree (neighbouring thresholds' maximisers differ by a few per cent). It is probed
      first, then (1 +- WARM_STEP) times it on the side g points to, so the bracket is
      narrow from the start.
    - While the bracket's slopes differ by more than RF_MIN_SLOPES (at least that many kinks
      lie inside), the next probe is where phi = S' (c + a) - S, interpolated linearly
      between the bracket's ends, is 0 (regula falsi with the Illinois halving), not where
      the two supporting lines cross: near the maximum S is a dense chain of unit kinks,
      close to a smooth concave function, on which the lines' crossing halves the bracket
      (about ten evaluations from the walk bound's peak) while phi is nearly linear.
    - A probe at the lines' crossing that lands on one of the two pieces lies on both: that
      is the kink between them (the crossing rounded off it by an ulp), so it is returned
      instead of probed again.
    """
    # Numerators and margins lie within [-(2c + 1) - |alpha|, ...]: their rounding errors
    # are below 1e-15 (1 + 4c + 2 alpha); 1e-9 of that is ample slack.
    slack = 1e-9 * (1.0 + 4.0 * c + 2.0 * hi)
    shortcuts = warm >= 0.0 and not mins
    vk_ref = v0
    a_ref = 0.0
    a0 = 0.0
    P0 = S0
    q0 = Q0
    # S at the bracket's ends as their probes returned it (a0's only once a probe set it:
    # S0 comes from the caller, summed in another order). A later probe at the same alpha
    # returns the same bits (the scans' caps only skip entries), so the end probes below
    # read these instead (in a traced noisy node, 7% of all probes were such repeats).
    Sa0 = 0.0
    a0_probed = False
    Sa1 = 0.0
    hinted = 0.0 < x_hint < hi
    a = x_hint if hinted else (hi / 1024.0 if double else hi)
    if 0.0 < a_first < hi:
        # A first probe where a tight bound of S peaks (``margin_bound_walk``): S's own
        # maximiser is usually there or close by.
        hinted = False
        a = a_first
    # warm_state 1: the first probe is the warm start; 2: it was falling, and the probe below
    # it is being made (the bracket's right end is set).
    warm_state = 0
    if shortcuts and 0.0 < warm < hi:
        hinted = False
        a = warm
        warm_state = 1
    while True:
        if a >= hi:
            a = hi
        Sa, Ql, Qr, vk_ref = _probe(mins, A, Bm, C, order_m, L, X, f, t, lab_a, lab_b, mode,
                                    scores, y, items, kcap, a,
                                    _vk_cap(vk_ref, a_ref, a, slack), bufs)
        a_ref = a
        if hinted:
            hinted = False
            la = S0 + Q0 * a
            if abs(Sa - la) <= 1e-12 * (1.0 + abs(la)):
                return Sa / (kcap * (c + a)), a
        if a < hi and _rising(Sa, Qr, kcap, c, a):
            a0 = a
            P0 = Sa - Qr * a
            q0 = Qr
            Sa0 = Sa
            a0_probed = True
            if floor > -INF:
                ub = _two_line_bound(P0, q0, fall, -1.0 * kcap, 0.0 if whole else a0, kcap, c)
                u1 = _two_line_bound(P0, q0, fall, -1.0 * kcap, hi, kcap, c)
                if u1 > ub:
                    ub = u1
                if fall < INF:
                    x = (fall - P0) / (q0 + kcap)
                    if (0.0 if whole else a0) < x < hi:
                        u1 = _two_line_bound(P0, q0, fall, -1.0 * kcap, x, kcap, c)
                        if u1 > ub:
                            ub = u1
                ub += 1e-9 * (1.0 + abs(ub))
                if ub < floor - OBJ_TIE_EPS * (1.0 + abs(floor)):
                    return ub, -1.0
            if warm_state == 2:
                break                       # the bracket [below the warm start, warm start]
            a = (1.0 + WARM_STEP) * a if warm_state == 1 else 2.0 * a
            warm_state = 0
            continue
        if _rising(Sa, Ql, kcap, c, a):
            return Sa / (kcap * (c + a)), a
        a1 = a
        P1 = Sa - Ql * a
        q1 = Ql
        Sa1 = Sa
        if warm_state == 1:
            warm_state = 2
            a = (1.0 - WARM_STEP) * a
            continue
        break
    # Regula falsi on phi (scans only): the weights of the Illinois rule, and which end the
    # last probe replaced (-1: none yet).
    w0 = 1.0
    w1 = 1.0
    side = -1
    for _ in range(4 * L + 64):
        if q0 <= q1:
            break
        x = (P1 - P0) / (q0 - q1)
        xp = x
        if shortcuts and q0 - q1 > RF_MIN_SLOPES:
            phi0 = w0 * (q0 * c - P0)       # phi on a piece: q (c + a) - (P + q a)
            phi1 = w1 * (q1 * c - P1)
            if phi0 > 0.0 and phi1 < 0.0:
                xr = a0 + phi0 * (a1 - a0) / (phi0 - phi1)
                if a0 < xr < a1:
                    xp = xr
        if floor > -INF:
            # S is concave, so S <= min(P0 + q0 a, P1 + q1 a) on [a0, a1]; each line over
            # (c + a) is monotone, so g's maximum there is at most the bound's value at a0,
            # a1 or the lines' intersection x.
            lo_b = 0.0 if whole else a0
            hi_b = hi if whole else a1
            ub = _two_line_bound(P0, q0, P1, q1, lo_b, kcap, c)
            u1 = _two_line_bound(P0, q0, P1, q1, hi_b, kcap, c)
            if u1 > ub:
                ub = u1
            if lo_b < x < hi_b:
                u1 = _two_line_bound(P0, q0, P1, q1, x, kcap, c)
                if u1 > ub:
                    ub = u1
            ub += 1e-9 * (1.0 + abs(ub))
            if ub < floor - OBJ_TIE_EPS * (1.0 + abs(floor)):
                return ub, -1.0
        if x <= a0 or x >= a1:
            if x >= a1:
                return Sa1 / (kcap * (c + a1)), a1
            if a0_probed:
                return Sa0 / (kcap * (c + a0)), a0
            x = a0
            Sx, _, _, _ = _probe(mins, A, Bm, C, order_m, L, X, f, t, lab_a, lab_b, mode,
                                 scores, y, items, kcap, x, _vk_cap(vk_ref, a_ref, x, slack), bufs)
            return Sx / (kcap * (c + x)), x
        crossing = xp == x
        x = xp
        Sx, Ql, Qr, vk_ref = _probe(mins, A, Bm, C, order_m, L, X, f, t, lab_a, lab_b, mode,
                                    scores, y, items, kcap, x,
                                    _vk_cap(vk_ref, a_ref, x, slack), bufs)
        a_ref = x
        if Ql == q0 and Qr == q1:
            return Sx / (kcap * (c + x)), x
        if (shortcuts and crossing
                and (Ql == q0 or Qr == q0 or Ql == q1 or Qr == q1)):
            # On one of the two pieces at their lines' crossing: on both (S is concave and
            # touches each line), so x is their kink up to the crossing's rounding.
            return Sx / (kcap * (c + x)), x
        if _rising(Sx, Qr, kcap, c, x):
            a0 = x
            P0 = Sx - Qr * x
            q0 = Qr
            Sa0 = Sx
            a0_probed = True
            w0 = 1.0
            if side == 0:
                w1 *= 0.5
            side = 0
        elif _rising(Sx, Ql, kcap, c, x):
            return Sx / (kcap * (c + x)), x
        else:
            a1 = x
            P1 = Sx - Ql * x
            q1 = Ql
            Sa1 = Sx
            w1 = 1.0
            if side == 1:
                w0 *= 0.5
            side = 1
    if a0_probed:
        Sa = Sa0
    else:
        Sa, _, _, _ = _probe(mins, A, Bm, C, order_m, L, X, f, t, lab_a, lab_b, mode,
                             scores, y, items, kcap, a0, _vk_cap(vk_ref, a_ref, a0, slack),
                             bufs)
    Sb = Sa1
    ga = Sa / (kcap * (c + a0))
    gb = Sb / (kcap * (c + a1))
    return (ga, a0) if ga >= gb else (gb, a1)


@inline_helper
def _tie(v, best):
    return abs(v - best) <= OBJ_TIE_EPS * (1.0 + abs(best))


@inline_helper
def _ranks_above(v, e, idx, best_v, best_e, best_idx):
    """(maximum, tie-break key) larger beyond rounding; full ties go to the lower index (the
    fast search examines candidates best bound first, not in index order). Without
    relaxation every key is 0, so ties go straight to the index."""
    if not _tie(v, best_v):
        return v > best_v
    tol = OBJ_TIE_EPS * (1.0 + abs(best_e))
    if e > best_e + tol:
        return True
    return abs(e - best_e) <= tol and idx < best_idx


@njit(cache=True, nogil=True)
def top_labels(scores, y, out):
    """out[i] = the best incorrect label of i when unique, -1 when several tie."""
    n, K = scores.shape
    for i in range(n):
        t = top_wrong(scores, i, y[i])
        lab = -1
        for k in range(K):
            if k != y[i] and scores[i, k] == t:
                lab = k if lab == -1 else -2
        out[i] = lab if lab >= 0 else -1


@inline_helper
def _add_slopes0(scores, y, margin, top_lab, i, arr, w):
    """arr[k] += w * (right slope at alpha = 0 of i's numerator under label k), for every k:
    +1 for k = y_i, -1 for a best incorrect label of i, 0 otherwise."""
    yi = y[i]
    arr[yi] += w
    tl = top_lab[i]
    if tl >= 0:
        arr[tl] -= w
    else:
        t = scores[i, yi] - margin[i]
        for k in range(arr.shape[0]):
            if k != yi and scores[i, k] == t:
                arr[k] -= w


@inline_helper
def _fixed_slope0(scores, yi, r, lab_fixed, mi):
    """Right slope at alpha = 0 of member r's numerator under the fixed label."""
    if lab_fixed == yi:
        return 1.0
    if scores[r, lab_fixed] == scores[r, yi] - mi:
        return -1.0
    return 0.0


@inline_helper
def _slopes_at_zero(order_m, L, X, f, t, lab_fixed, mode, scores, y, margin, items, top_lab,
                    kcap, jQ0, vstrict, vp1, vm1, jD, q0):
    """S(0) and S'(0+) of every label of a candidate family in one pass (at alpha = 0 every
    numerator is the margin, so the bottom set is the kcap smallest margins; the labels only
    change the slopes, and among margins tied at the kcap-th value the smallest slopes count).
    Writes jQ0[k] and the tie-break key jD[k] (``margin_search_exhaustive.corner_key``: the
    same slopes with the tied slots shared evenly among the tied members, divided by kcap);
    returns (S(0), length of the margin-ordered prefix of items read, the kcap-th smallest
    margin v0). ``q0``: no item before position q0 is a member (0, or the first member's
    position; the passes skip non-members, so they may start there)."""
    sm = items[5]
    K = jQ0.shape[0]
    for k in range(K):
        vstrict[k] = 0.0
        vp1[k] = 0.0
        vm1[k] = 0.0
    fixed_strict = 0.0
    f_p1 = 0
    f_m1 = 0
    f_0 = 0
    n_var_tie = 0
    seen = 0
    S0 = 0.0
    v0 = INF
    n_strict = 0
    for q in range(q0, L):
        mi = sm[q]
        if seen >= kcap and mi > v0:
            break
        na, nb = _item_at(items, order_m, q, f, t, mode)
        nm = na + nb
        if nm == 0:
            continue
        if seen < kcap:
            S0 += min(nm, kcap - seen) * mi
        seen += nm
        if seen >= kcap and v0 == INF:
            v0 = mi
    # Second pass over the same prefix: strict part (m < v0) and ties (m == v0). In
    # MODE_SPLIT the members on S_left are voted the fixed label; the others vary with k.
    read = L
    for q in range(q0, L):
        mi = sm[q]
        if mi > v0:
            read = q
            break
        nfix, nvar = _fixed_var_at(items, order_m, q, f, t, mode)
        if nfix + nvar == 0:
            continue
        r = _member_at(items, order_m, q)
        yi = y[r]
        if mi < v0:
            n_strict += nfix + nvar
            if nfix > 0:
                fixed_strict += nfix * _fixed_slope0(scores, yi, r, lab_fixed, mi)
            if nvar > 0:
                _add_slopes0(scores, y, margin, top_lab, r, vstrict, float(nvar))
        else:
            if nfix > 0:
                sl = _fixed_slope0(scores, yi, r, lab_fixed, mi)
                if sl > 0.0:
                    f_p1 += nfix
                elif sl < 0.0:
                    f_m1 += nfix
                else:
                    f_0 += nfix
            if nvar > 0:
                n_var_tie += nvar
                vp1[yi] += nvar
                tl = top_lab[r]
                if tl >= 0:
                    vm1[tl] += nvar
                else:
                    tv = scores[r, yi] - mi
                    for k in range(K):
                        if k != yi and scores[r, k] == tv:
                            vm1[k] += nvar
    _slopes_final(kcap, n_strict, fixed_strict, vstrict, f_p1, f_m1, f_0, n_var_tie, vp1, vm1,
                  jQ0, jD)
    return S0, read, v0


@inline_helper
def _fill_falling(acc, cnt, k, nm, wv, kcap):
    """Add nm members of value wv to label k's running sum while it holds < kcap members;
    returns 1 when the label just became full."""
    if cnt[k] >= kcap:
        return 0
    take = min(nm, kcap - cnt[k])
    acc[k] += take * wv
    cnt[k] += take
    return 1 if cnt[k] == kcap else 0


@inline_helper
def _falling_bounds(order_m, L, X, f, t, lab_fixed, mode, scores, y, items, kcap, acc, cnt):
    """acc[k] = sum of w - 0 over the first kcap members (in margin order) voted a wrong label
    under label k (+inf when fewer exist): S(alpha) <= acc[k] - kcap alpha for every alpha,
    since such a member's numerator is at most w - alpha. One pass for all labels."""
    sy = items[6]
    sw = items[7]
    K = acc.shape[0]
    for k in range(K):
        acc[k] = 0.0
        cnt[k] = 0
    n_full = 0
    n_mem = 0                           # members so far: no label holds more
    for q in range(L):
        if n_full >= K:
            break
        nfix, nvar = _fixed_var_at(items, order_m, q, f, t, mode)
        if nfix + nvar == 0:
            continue
        # sw[q, k] is ay - scores[r, k], the same subtraction.
        yi = sy[q]
        if n_mem + nfix + nvar < kcap:
            # No label can reach kcap with this item: _fill_falling's additions without its
            # tests (take = the item's count; the same products, in the same order).
            n_mem += nfix + nvar
            if nfix > 0 and lab_fixed != yi:
                wv = sw[q, lab_fixed]
                for k in range(K):
                    acc[k] += nfix * wv
                    cnt[k] += nfix
            if nvar > 0:
                for k in range(yi):
                    acc[k] += nvar * sw[q, k]
                    cnt[k] += nvar
                for k in range(yi + 1, K):
                    acc[k] += nvar * sw[q, k]
                    cnt[k] += nvar
            continue
        n_mem += nfix + nvar
        if nfix > 0 and lab_fixed != yi:
            # Voted lab_fixed under every label k: counts for all labels still filling.
            wv = sw[q, lab_fixed]
            for k in range(K):
                n_full += _fill_falling(acc, cnt, k, nfix, wv, kcap)
        if nvar > 0:
            for k in range(K):
                if k != yi:
                    n_full += _fill_falling(acc, cnt, k, nvar, sw[q, k], kcap)
    for k in range(K):
        if cnt[k] < kcap:
            acc[k] = INF


# The node's count tables for the label picks (``_count_tables``), per (feature, bin) and
# cumulative over the node's occupied bins, so S_left's entry is the table at its threshold:
CT_CLASS = 0       # members of class k
CT_BOTTOM = 1      # members of class k among the node's first kS positions (margin order)
CT_VSTRICT = 2     # sum of the varying label's slopes at 0 under label k, margin < v0
CT_FSTRICT = 3     # sum of the fixed label's slopes at 0 under label k, margin < v0
CT_TCLASS = 4      # members of class k with margin == v0
CT_TVM1 = 5        # members with margin == v0 whose varying slope under k is -1
CT_TFM1 = 6        # members with margin == v0 whose fixed slope under k is -1
CT_VALL = 7        # sum of the varying label's slopes at 0 under label k, every member
CT_N = 8


@njit(cache=True, nogil=True)
def _count_tables(sm, sy, sx, order_m, L, kS, scores, margin, top_lab, obin, nob, ctab, ctot,
                  cvec):
    """The node's count tables (``CT_*``; per example, n' > 1): per (feature, occupied bin,
    table, label), cumulative over the feature's occupied bins, so a candidate (f, t)'s
    S_left holds ``ctab[f, t]`` and its S_right ``ctot - ctab[f, t]``. Every entry is an
    integer: the slopes at 0 that ``_slopes_at_zero`` sums as floats are +-1 and 0 (sums of
    such floats are exact, so the same values in any order), and the class counts are what
    ``bottom_counts`` and ``_falling_bounds`` count. Also returns MODE_SPLIT's S(0), read
    length and v0 with kcap = kS (the node's first kS positions: every item is a member
    there, so they are the node's), computed by ``_slopes_at_zero``'s own first pass (the
    same additions in the same order), and the numbers of items with margin < v0 and == v0
    before ``read``. ``cvec``: (2, K) scratch."""
    F = sx.shape[0]
    K = ctab.shape[3]
    for f in range(F):
        for j in range(nob[f]):
            b = obin[f, j]
            for r_ in range(CT_N):
                for k in range(K):
                    ctab[f, b, r_, k] = 0
    # _slopes_at_zero's first pass for MODE_SPLIT (each item one member: nm = 1).
    seen = 0
    S0 = 0.0
    v0 = INF
    for q in range(L):
        mi = sm[q]
        if seen >= kS and mi > v0:
            break
        nm = 1
        if seen < kS:
            S0 += min(nm, kS - seen) * mi
        seen += nm
        if seen >= kS and v0 == INF:
            v0 = mi
    read = L
    n_strict = 0
    n_tie = 0
    for q in range(L):
        mi = sm[q]
        r = order_m[q]
        yi = sy[q]
        # The varying label's slopes at 0 (``_add_slopes0``: +1 at the class, -1 at each
        # best incorrect label) and the fixed label's (``_fixed_slope0``), per label.
        for k in range(K):
            cvec[0, k] = 0
        cvec[0, yi] += 1
        tl = top_lab[r]
        if tl >= 0:
            cvec[0, tl] -= 1
        else:
            tv = scores[r, yi] - margin[r]
            for k in range(K):
                if k != yi and scores[r, k] == tv:
                    cvec[0, k] -= 1
        kind = 0                        # 0: after read, 1: strict, 2: tied at v0
        if read == L and mi > v0:
            read = q
        if q < read:
            if mi < v0:
                kind = 1
                n_strict += 1
            else:
                kind = 2
                n_tie += 1
            tf = scores[r, yi] - mi
            for k in range(K):
                if k == yi:
                    cvec[1, k] = 1
                elif scores[r, k] == tf:
                    cvec[1, k] = -1
                else:
                    cvec[1, k] = 0
        bot = q < kS
        for f in range(F):
            b = sx[f, q]
            ctab[f, b, CT_CLASS, yi] += 1
            if bot:
                ctab[f, b, CT_BOTTOM, yi] += 1
            for k in range(K):
                ctab[f, b, CT_VALL, k] += cvec[0, k]
            if kind == 1:
                for k in range(K):
                    ctab[f, b, CT_VSTRICT, k] += cvec[0, k]
                    ctab[f, b, CT_FSTRICT, k] += cvec[1, k]
            elif kind == 2:
                ctab[f, b, CT_TCLASS, yi] += 1
                for k in range(K):
                    if cvec[0, k] < 0:
                        ctab[f, b, CT_TVM1, k] += 1
                    if cvec[1, k] < 0:
                        ctab[f, b, CT_TFM1, k] += 1
    for f in range(F):
        prev = -1
        for j in range(nob[f]):
            b = obin[f, j]
            if prev >= 0:
                for r_ in range(CT_N):
                    for k in range(K):
                        ctab[f, b, r_, k] += ctab[f, prev, r_, k]
            prev = b
    last = obin[0, nob[0] - 1]
    for r_ in range(CT_N):
        for k in range(K):
            ctot[r_, k] = ctab[0, last, r_, k]
    return S0, read, v0, n_strict, n_tie


@inline_helper
def _slopes_final(kcap, n_strict, fixed_strict, vstrict, f_p1, f_m1, f_0, n_var_tie, vp1, vm1,
                  jQ0, jD):
    """The slopes at 0 and tie-break keys from the counts of the bottom set's members: the
    last step of ``_slopes_at_zero``, and all of it where the node's count tables give the
    counts."""
    K = jQ0.shape[0]
    need0 = kcap - n_strict
    n_tied = f_p1 + f_m1 + f_0 + n_var_tie
    for k in range(K):
        tie_sum = (f_p1 - f_m1) + (vp1[k] - vm1[k])
        jD[k] = ((fixed_strict + vstrict[k]) + need0 * tie_sum / n_tied) / kcap
        m1 = f_m1 + vm1[k]
        z = f_0 + (n_var_tie - vp1[k] - vm1[k])   # the remaining tied slopes are +1
        need = need0
        slope = fixed_strict + vstrict[k]
        take = min(need, m1)
        slope -= take
        need -= take
        take = min(need, z)
        need -= take
        slope += need          # the rest are +1 slopes
        jQ0[k] = slope


@inline_helper
def _slopes_split_tab(f, t, lab_fixed, ctab, ctot, jQ0, vstrict, vp1, vm1, jD, kcap,
                      n_strict, n_tie):
    """``_slopes_at_zero`` in MODE_SPLIT with kcap = kS from the node's count tables: the
    bottom set at 0 is the node's (S(0), read and v0 from ``_count_tables``), and the slopes
    are integer sums (exact in any order) of the left members' fixed and the right members'
    varying slopes — the same floats as the passes."""
    K = jQ0.shape[0]
    fixed_strict = 0.0 + ctab[f, t, CT_FSTRICT, lab_fixed]
    f_p1 = ctab[f, t, CT_TCLASS, lab_fixed]
    f_m1 = ctab[f, t, CT_TFM1, lab_fixed]
    n_left_tie = 0
    n_var_tie = 0
    for k in range(K):
        lt = ctab[f, t, CT_TCLASS, k]
        n_left_tie += lt
        n_var_tie += ctot[CT_TCLASS, k] - lt
    f_0 = n_left_tie - f_p1 - f_m1
    for k in range(K):
        vstrict[k] = 0.0 + (ctot[CT_VSTRICT, k] - ctab[f, t, CT_VSTRICT, k])
        vp1[k] = 0.0 + (ctot[CT_TCLASS, k] - ctab[f, t, CT_TCLASS, k])
        vm1[k] = 0.0 + (ctot[CT_TVM1, k] - ctab[f, t, CT_TVM1, k])
    _slopes_final(kcap, n_strict, fixed_strict, vstrict, 0 + f_p1, 0 + f_m1, 0 + f_0,
                  0 + n_var_tie, vp1, vm1, jQ0, jD)


@inline_helper
def _slopes_left_whole(f, t, L, sm, sx, sy, order_m, scores, margin, top_lab, ctab, jQ0,
                       vstrict, vp1, vm1, jD, kcap):
    """``_slopes_at_zero`` in MODE_LEFT when kcap is S_left's size (every member in the
    bottom set): S(0) is the sum of S_left's margins in margin order — one pass, adding
    +0.0 for the others (S(0) starts at +0.0 and is never -0.0, so x + 0.0 is x) —, v0
    S_left's largest margin, and the slopes the members' sums (``CT_VALL``) less those of
    the members tied at v0, which sit just before ``read``. The same floats as the passes
    (the slopes are integer sums)."""
    K = jQ0.shape[0]
    last = L - 1
    while sx[f, last] > t:
        last -= 1
    S0 = 0.0
    for q in range(last + 1):
        S0 += sm[q] if sx[f, q] <= t else 0.0
    v0 = sm[last]
    read = last + 1
    while read < L and not sm[read] > v0:
        read += 1
    for k in range(K):
        vp1[k] = 0.0
        vm1[k] = 0.0
    n_var_tie = 0
    q = last
    while q >= 0 and sm[q] == v0:
        if sx[f, q] <= t:
            n_var_tie += 1
            r = order_m[q]
            yi = sy[q]
            vp1[yi] += 1
            tl = top_lab[r]
            if tl >= 0:
                vm1[tl] += 1
            else:
                tv = scores[r, yi] - sm[q]
                for k in range(K):
                    if k != yi and scores[r, k] == tv:
                        vm1[k] += 1
        q -= 1
    n_strict = kcap - n_var_tie
    for k in range(K):
        # S_left's varying slopes less the tied members' (+1 at the class, -1 at vm1).
        vstrict[k] = 0.0 + ((ctab[f, t, CT_VALL, k] - int(vp1[k])) + int(vm1[k]))
    _slopes_final(kcap, n_strict, 0.0, vstrict, 0, 0, 0, n_var_tie, vp1, vm1, jQ0, jD)
    return S0, read, v0


@njit(cache=True, nogil=True)
def _pick_label(order_m, L, X, f, t, lab_fixed, mode, scores, y, margin, items, top_lab, kcap,
                c, hi, eps, floor, K, bufs, labs, mins, mtab, lub, walk, whole_set, fpos,
                firsts):
    """``_pick_label_body_calls`` as a call (the scans' searches, the root's MODE_ALL pick)."""
    return _pick_label_body_calls(order_m, L, X, f, t, lab_fixed, mode, scores, y, margin, items,
                            top_lab, kcap, c, hi, eps, floor, K, bufs, labs, mins, mtab, lub,
                            walk, whole_set, fpos, firsts)


def _make_pick_label_body(inline_min_lines):
    """Two compiled forms of one label search (``pick_label_body`` below), told apart by the
    constant ``inline_min_lines``, which numba's dead-branch pruning folds when it compiles
    each form (inlined code is compiled once per form and signature and copied by LLVM into
    each caller; ALGORITHMS.md, Speed, "Compile time", "LLVM-inlined helpers"):

    - ``True``: for the n' = 1 loop of ``_best_split_phase2_fast`` (called only with
      ``mins``): ``_cand_max_body`` inlined with the three lines, and no code for the
      scanning paths that need ``not mins`` (they called ``_cand_max`` in an int64 mode of
      its own, compiled but never run there).
    - ``False``: ``_pick_label``'s (a call; the n' > 1 scans and the root's MODE_ALL pick):
      with ``mins`` it calls ``_cand_max``, which builds the same three lines
      (``_min_lines``) and runs the same search: the same floats.
    """

    @inline_helper
    def pick_label_body(order_m, L, X, f, t, lab_fixed, mode, scores, y, margin, items, top_lab,
                         kcap, c, hi, eps, floor, K, bufs, labs, mins, mtab, lub, walk, whole_set,
                         fpos, firsts):
        """Best label (max of g; ties: larger corner key, then the lower label) of a candidate
        family: mode MODE_LEFT ("k on S_left(t)"), MODE_SPLIT ("lab_fixed on S_left, k on
        S_right") or MODE_ALL ("k on S"). Labels whose bound cannot reach max(floor, best) are
        skipped; when all are skipped returns (-1, -inf, -inf). Returns (label, value, its
        corner key).

        ``lub[k]``: in, an upper bound of label k's maximum known beforehand (+inf: none; it
        only tightens the labels' bounds); out, the tightest upper bound of each label's maximum
        found here (its exact maximum for the returned label).

        ``walk``: the walk bound's switch, kink lists and per-label scratch
        (``margin_bound_walk``); ``whole_set``: kcap equals the family's number of members, so
        the bottom set is all of them and the walk's maximum is exact (no scan at all).

        ``firsts`` (n' = 1 per example, MODE_LEFT / MODE_SPLIT): the node's first-member tables
        ``fpos`` (``_first_pos_tables``) let the passes start at S_left's first member and give
        the falling bounds without a pass (``_falling_bounds_first``): in a nearly pure node the
        pass read most of the node to find a member of another class, twice per candidate. The
        same values.

        ``labs``: the per-label scratch (jS0, jQ0, jval, jeps, jdone, jD) as one tuple: a call
        with more than 30 arguments compiles to a call with ``*args``, which numba cannot
        inline."""
        jS0, jQ0, jval, jeps, jdone, jD = labs
        (use_walk, kg, kq, nk, rcnt, kal, cpos, tkg, tkq, tnk, tR, nT, tabs_on, ktab, ktot, tkS,
         tS0, tread, tv0, tstrict, ttie, xwarm) = walk
        fast_first = firsts and kcap == 1 and mode != MODE_ALL
        q0 = 0
        if fast_first and mode == MODE_LEFT:
            q0, _, _ = _two_smallest(fpos, 0, f, t, L)
        # With the node's count tables (per example, n' > 1; ``_count_tables``): MODE_SPLIT's
        # pre-work (kcap = kS) and, when S_left is its own bottom set, MODE_LEFT's from the
        # tables instead of passes over the node, the same values (ALGORITHMS.md, "Speed").
        tab_split = tabs_on and mode == MODE_SPLIT and kcap == tkS
        n_left = 0
        if tabs_on and mode != MODE_ALL:
            for k in range(K):
                n_left += ktab[f, t, CT_CLASS, k]
        tab_left = tabs_on and mode == MODE_LEFT and kcap == n_left
        if tab_split:
            S0 = tS0
            read = tread
            v0 = tv0
            _slopes_split_tab(f, t, lab_fixed, ktab, ktot, jQ0, jval, jeps, jS0, jD, kcap, tstrict,
                              ttie)
        elif tab_left:
            S0, read, v0 = _slopes_left_whole(f, t, L, items[5], items[8], items[6], order_m,
                                              scores, margin, top_lab, ktab, jQ0, jval, jeps, jS0,
                                              jD, kcap)
        else:
            S0, read, v0 = _slopes_at_zero(order_m, L, X, f, t, lab_fixed, mode, scores, y, margin,
                                           items, top_lab, kcap, jQ0, jval, jeps, jS0, jD, q0)
        # Bracketing by doubling pays when the relevant prefix is short; when it already holds
        # most of the set (e.g. many tied margins), start from the whole range.
        double = 4 * read < L
        Lp = PREFIX_MULT * read
        # Second concave bound per label (see _falling_bounds); the label's maximum is at most the
        # ratio where the tangent at 0 meets it. Stored in jval (upper bounds of rising labels).
        # With the count tables: when no label has kcap members voted a wrong label, every
        # falling bound is +inf (what the pass finds after reading every member).
        can_fill = True
        if tabs_on and mode != MODE_ALL:
            can_fill = False
            if mode == MODE_LEFT:
                for k in range(K):
                    if n_left - ktab[f, t, CT_CLASS, k] >= kcap:
                        can_fill = True
            else:
                n_right = 0
                for k in range(K):
                    n_right += ktot[CT_CLASS, k]
                n_right -= n_left
                wrong_l = n_left - ktab[f, t, CT_CLASS, lab_fixed]
                for k in range(K):
                    if wrong_l + (n_right - (ktot[CT_CLASS, k] - ktab[f, t, CT_CLASS, k])) >= kcap:
                        can_fill = True
        if fast_first:
            _falling_bounds_first(L, f, t, lab_fixed, mode, items, fpos, jeps)
        elif not can_fill:
            for k in range(K):
                jeps[k] = INF
        else:
            _falling_bounds(order_m, L, X, f, t, lab_fixed, mode, scores, y, items, kcap, jeps,
                            jS0)
        g0 = S0 / (kcap * c)               # the same set for every label: the same g(0)
        for k in range(K):
            jdone[k] = False
            ub = jQ0[k] / kcap
            A = jeps[k]
            jS0[k] = -1.0                   # where the bound is reached (-1: not an intersection)
            if A < INF:
                den = jQ0[k] + kcap
                x = (A - S0) / den if den > 0.0 else -1.0
                ub2 = (A if A < S0 else S0) / (kcap * c)
                if x > 0.0:
                    v = (S0 + jQ0[k] * x) / (kcap * (c + x))
                    if v > ub2:
                        ub2 = v
                        if v < ub:
                            jS0[k] = x
                if ub2 < ub:
                    ub = ub2
            jval[k] = ub + 1e-9 * (1.0 + abs(ub))
            if lub[k] < jval[k]:
                jval[k] = lub[k]
        n_pos = -1                          # S_left's positions not listed yet
        if use_walk:
            # The bottom set's own bound (``margin_bound_walk``): tight where the set barely
            # changes, and it reads only the kinks below its maximiser — from the smallest tier
            # of the lists that holds the bottom set (the same member entries, in the same order).
            if tab_split:
                # ``bottom_counts`` from the tables: the bottom set is the node's first kS
                # positions; the left ones voted lab_fixed, the right ones k (integer counts).
                readk = kcap
                fixed_r = 0.0 + ktab[f, t, CT_BOTTOM, lab_fixed]
                for k in range(K):
                    rcnt[k] = 0.0 + (ktot[CT_BOTTOM, k] - ktab[f, t, CT_BOTTOM, k])
                if fixed_r != 0.0:
                    for k in range(K):
                        rcnt[k] += fixed_r
            elif tab_left:
                # The bottom set is S_left: its class counts; it ends after its last member.
                readk = read
                while items[8][f, readk - 1] > t:
                    readk -= 1
                for k in range(K):
                    rcnt[k] = 0.0 + ktab[f, t, CT_CLASS, k]
            else:
                readk = bottom_counts(items[6], items[8], f, t, lab_fixed, mode, L, kcap, rcnt)
            jt = tier_of(tR, nT, readk)
            wg, wq, wn = (tkg[jt], tkq[jt], tnk[jt]) if jt >= 0 else (kg, kq, nk)
            for k in range(K):
                if _rising(S0, jQ0[k], kcap, c, 0.0):
                    u, kal[k] = walk_bound(wg, wq, wn, items[8], f, t, lab_fixed, k, mode, kcap,
                                           readk, S0, rcnt[k], c, hi)
                    rcnt[k] = u             # (the count is used; keep the walk's maximum)
                    u += 1e-9 * (1.0 + abs(u))
                    if u < jval[k]:
                        jval[k] = u
        # Each label's bound as the order below ranks it (at least g0 when it rises at 0, g0 for
        # a corner), made once per pick in lub (free until a label's result is written there)
        # instead of once per examined label.
        for k in range(K):
            if _rising(S0, jQ0[k], kcap, c, 0.0):
                ub = jval[k]
                if ub < g0:
                    ub = g0
            else:
                ub = g0
            lub[k] = ub
        # n' = 1: the labels' three lines (``_min_lines``) from the node's tables, with the
        # varying label's "smallest margin of another class" from the two smallest entries
        # found once per pick (``_two_smallest``: the same floats as ``_min_other``'s O(K) scan
        # per label).
        # MODE_SPLIT: S_left's part (the fixed label's) is the same for every label.
        mj = 2 if mode == MODE_SPLIT else 0
        mf = 0 if mode == MODE_ALL else f
        mt = mtab.shape[2] - 1 if mode == MODE_ALL else t
        om1 = INF
        oi1 = -1
        om2 = INF
        A_l = INF
        Bm_l = INF
        C_l = INF
        if mins:
            om1, oi1, om2 = _two_smallest(mtab, mj, mf, mt, INF)
            if mode == MODE_SPLIT:
                A_l = mtab[0, f, t, lab_fixed]
                Bm_l = _min_other(mtab, 0, f, t, lab_fixed)
                C_l = mtab[1, f, t, lab_fixed]
        best_k = -1
        best_v = -INF
        best_e = -INF
        for _ in range(K):
            # The label with the largest bound not examined yet (lowest label on ties). (An
            # int64 from the start: with the literal -1 numba's type inference first compiled
            # a spare _cand_max, and its _scan's, for lab_b the constant -1.)
            kk = np.int64(-1)
            ub_k = -INF
            for k in range(K):
                if jdone[k]:
                    continue
                ub = lub[k]
                if kk < 0 or ub > ub_k:
                    kk = k
                    ub_k = ub
            jdone[kk] = True
            ref_v = best_v if best_v > floor else floor
            if ub_k < ref_v - OBJ_TIE_EPS * (1.0 + abs(ref_v)):
                jdone[kk] = False
                break                       # no remaining label can reach the reference
            la = kk if mode != MODE_SPLIT else lab_fixed
            if _rising(S0, jQ0[kk], kcap, c, 0.0):
                # First probe at the bounds' intersection (jS0): if S reaches the tangent at 0
                # there, g there is the bound, hence the maximum.
                # Pre-search on a margin-ordered prefix holding every item with margin <= v0:
                # its S (the kcap smallest of a subset) is an upper bound of the node's with the
                # same S(0) and slope at 0, so a maximum (or whole-range bound) below ref_v
                # proves this label cannot win; most labels end so (ALGORITHMS.md, "Speed").
                v = -INF
                pre = False
                if not inline_min_lines and ref_v > -INF and Lp < L and not mins and not use_walk:
                    # (with the walk bound, the walk replaces this pre-search)
                    v, _ = _cand_max(order_m, Lp, X, f, t, la, kk, mode, scores, y, items, kcap,
                                     c, hi, S0, jQ0[kk], 4 * read < Lp, jS0[kk], ref_v, v0, bufs,
                                     mins, mtab, jeps[kk], True)
                    pre = v < ref_v - OBJ_TIE_EPS * (1.0 + abs(ref_v))
                if use_walk and whole_set:
                    # kcap is the number of members: the bottom set is all of them, so S is U
                    # and the walk's maximum is the exact one.
                    v = rcnt[kk]
                elif use_walk and mode == MODE_LEFT:
                    # S_left's positions, listed once per pick: its scans then skip S_right.
                    if n_pos < 0:
                        n_pos = 0
                        sx = items[8]
                        for q in range(L):
                            if sx[f, q] <= t:
                                cpos[n_pos] = q
                                n_pos += 1
                    # (the walk's searches take the exact search's shortcuts, with the
                    # maximiser this label last had on this feature as a warm start)
                    v, xm = _cand_max(cpos, n_pos, X, f, t, la, kk, MODE_POS, scores, y, items,
                                      kcap, c, hi, S0, jQ0[kk], 4 * read < L, jS0[kk], ref_v,
                                      v0, bufs, mins, mtab, jeps[kk], False, kal[kk],
                                      xwarm[MODE_LEFT, f, kk])
                    if xm > 0.0:
                        xwarm[MODE_LEFT, f, kk] = xm
                elif mins:
                    if inline_min_lines:
                        # n' = 1: O(1) probes, so a call (every array of the arguments pushed
                        # field by field) was most of the search: inlined here (the same
                        # operations). The lines as ``_min_lines`` makes them (la = lab_a,
                        # kk = lab_b).
                        if mode == MODE_SPLIT:
                            A = A_l
                            Bm = Bm_l
                            C = C_l
                            w_ = mtab[2, f, t, kk]
                            if w_ < A:
                                A = w_
                            w_ = om2 if kk == oi1 else om1
                            if w_ < Bm:
                                Bm = w_
                            w_ = mtab[3, f, t, kk]
                            if w_ < C:
                                C = w_
                        else:
                            A = mtab[0, mf, mt, kk]
                            Bm = om2 if kk == oi1 else om1
                            C = mtab[1, mf, mt, kk]
                        v, _ = _cand_max_body(order_m, L, X, f, t, la, kk, mode, scores, y,
                                              items, kcap, c, hi, S0, jQ0[kk], double, jS0[kk],
                                              ref_v, v0, bufs, mins, A, Bm, C, jeps[kk], False,
                                              -1.0, -1.0)
                    else:
                        # (the root's MODE_ALL pick, once per node: a call; ``_min_lines``
                        # makes the same three lines; no inlined search per compiled mode)
                        v, _ = _cand_max(order_m, L, X, f, t, la, kk, mode, scores, y, items,
                                         kcap, c, hi, S0, jQ0[kk], double, jS0[kk], ref_v, v0,
                                         bufs, mins, mtab, jeps[kk], False, -1.0)
                elif not inline_min_lines and not pre:
                    v, xm = _cand_max(order_m, L, X, f, t, la, kk, mode, scores, y, items,
                                      kcap, c, hi, S0, jQ0[kk], double, jS0[kk], ref_v, v0,
                                      bufs, mins, mtab, jeps[kk], False,
                                      kal[kk] if use_walk else -1.0,
                                      xwarm[mode, f, kk] if use_walk else -1.0)
                    if use_walk and xm > 0.0:
                        xwarm[mode, f, kk] = xm
            else:
                v = g0                      # a corner: the maximum is at alpha = 0
            lub[kk] = v if v < ub_k else ub_k
            e = jD[kk] if eps > 0.0 else 0.0
            if best_k < 0 or _ranks_above(v, e, kk, best_v, best_e, best_k):
                best_k = kk
                best_v = v
                best_e = e
        # The labels not examined keep their bound (at least g0 when they rise at 0).
        for k in range(K):
            if not jdone[k]:
                if _rising(S0, jQ0[k], kcap, c, 0.0):
                    lub[k] = jval[k] if jval[k] > g0 else g0
                else:
                    lub[k] = g0
        return best_k, best_v, best_e

    return pick_label_body


_pick_label_body = _make_pick_label_body(inline_min_lines=True)
_pick_label_body_calls = _make_pick_label_body(inline_min_lines=False)


@njit(cache=True, nogil=True)
def _node_groups(X, sample_index, start, end, n_bins, gid, margin, loc, rep, gcnt, gmargin,
                 cum):
    """The node's groups of interchangeable examples (see ``_item``): items 0..G-1 with a
    member ``rep``, their number of members ``gcnt``, margin ``gmargin`` and cumulative
    per-bin member counts ``cum``. ``loc`` (global group -> item, -1 outside) is restored to
    -1. All bins of the histogram width count (the missing-value bin is the last one).
    Returns G."""
    F = X.shape[1]
    B = cum.shape[2]
    G = 0
    for q in range(start, end):
        i = sample_index[q]
        g = gid[i]
        it = loc[g]
        if it < 0:
            it = G
            G += 1
            loc[g] = it
            rep[it] = i
            gcnt[it] = 0
            gmargin[it] = margin[i]
            for ff in range(F):
                for b in range(B):
                    cum[it, ff, b] = 0
        gcnt[it] += 1
        for ff in range(F):
            cum[it, ff, X[i, ff]] += 1
    for it in range(G):
        loc[gid[rep[it]]] = -1
        for ff in range(F):
            acc = 0
            for b in range(B):
                acc += cum[it, ff, b]
                cum[it, ff, b] = acc
    return G


@inline_helper
def _cand_first(ubt, a, b):
    """Candidate a is examined before b: larger bound, then the lower index."""
    return ubt[a] > ubt[b] or (ubt[a] == ubt[b] and a < b)


@inline_helper
def _corner_below(ccnt, ci, tot, n_strict, n_tied, kS, S0, g0, c, eps, best_v, best_e,
                  best_ci, kl):
    """Binary candidate ci cannot rank above the best split (line 13) when none of its label
    pairs rises at 0 — then line 9 gives it g0 = S0 / (kS c) and the corner key of its pair,
    exactly as ``_pick_label`` computes them (``margin_bound_binary.corner_slope_key``) — and
    no pair's (g0, key) ranks above the best. The pairs: "kl | either" when line 7's label kl
    is known (>= 0), else all four."""
    for a in range(2):
        if kl >= 0 and a != kl:
            continue
        for b in range(2):
            Q0, key = corner_slope_key(ccnt, ci, tot, a, b, n_strict, n_tied, kS)
            if _rising(S0, Q0, kS, c, 0.0):
                return False
            e = key if eps > 0.0 else 0.0
            if _ranks_above(g0, e, ci, best_v, best_e, best_ci):
                return False
    return True


@njit(cache=True, nogil=True)
def sort_candidates(ubt, order, tmp, n):
    """order[:n] = the candidates 0..n-1 in best-first order (``_cand_first``: larger bound,
    then the lower index) all at once: ``sort_heap_rest`` on 0..n-1 (``tmp``: scratch of n).
    The heap's order when every candidate is popped, for a fraction of its cost (its
    sift-downs' mispredicted branches). The bounds must not be NaN."""
    for i in range(n):
        order[i] = i
    sort_heap_rest(ubt, order, tmp, n)


@njit(cache=True, nogil=True)
def sort_heap_rest(ubt, heap, tmp, n):
    """heap[:n] (any order: the candidates still in the heap) into best-first order
    (``_cand_first``, a total order on distinct candidates, so the one order the heap would
    pop them in), by a bottom-up merge sort (``tmp``: scratch of n)."""
    in_order = True              # the current runs are in ``heap`` (else in ``tmp``)
    width = 1
    while width < n:
        src = heap if in_order else tmp
        dst = tmp if in_order else heap
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            end = min(lo + 2 * width, n)
            i = lo
            j = mid
            k = lo
            while i < mid and j < end:
                if _cand_first(ubt, src[j], src[i]):
                    dst[k] = src[j]
                    j += 1
                else:
                    dst[k] = src[i]
                    i += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < end:
                dst[k] = src[j]
                j += 1
                k += 1
        in_order = not in_order
        width *= 2
    if not in_order:
        for i in range(n):
            heap[i] = tmp[i]


@njit(cache=True, nogil=True)
def _cand_sift_down(ubt, heap, root, end):
    """Restore the heap order of heap[0:end] (``_cand_first`` at the top) below ``root``."""
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and _cand_first(ubt, heap[child + 1], heap[child]):
            child += 1
        if not _cand_first(ubt, heap[child], heap[root]):
            return
        tmp = heap[root]
        heap[root] = heap[child]
        heap[child] = tmp
        root = child


# Cut 2's records per feature (``_best_split_phase2_fast``): each of the feature's T
# candidates (local positions 0..T-1 in increasing threshold) records once, in the order the
# candidates are examined, its line-7 maximum lb (read as the largest over the later
# positions) and its labels' bounds ub (read, plus their slack, as the smallest over the
# earlier positions). A scan of the positions was O(T) per candidate (waveform's 21 x ~250
# thresholds: most of the node search with n' = 1); these Fenwick trees answer in
# O(log T). A maximum or minimum does not depend on the order of its terms, so the same floats
# (+-0 cannot differ: lb enters only as lb - 1e-9 (1 + |lb|), the bounds as sums with 1e-9).
# ``lb_fen[f, 1..T]``: positions reversed (p -> T - p); ``ub_fen[f, 1..T, k]``: p -> p + 1,
# holding u + 1e-9 (1 + |u|) for a finite bound u.


@inline_helper
def _fen_max_record(lb_fen, f, pos, T, v):
    """Record lb = v at position pos (it only rises: -inf before)."""
    j = T - pos
    while j <= T:
        if v > lb_fen[f, j]:
            lb_fen[f, j] = v
        j += j & -j


@inline_helper
def _fen_suffix_max(lb_fen, f, pos, T):
    """The largest lb recorded at positions pos + 1 .. T - 1 (-inf: none)."""
    v = -INF
    j = T - 1 - pos
    while j > 0:
        if lb_fen[f, j] > v:
            v = lb_fen[f, j]
        j &= j - 1
    return v


@inline_helper
def _fen_min_record(ub_fen, f, pos, T, K, ub):
    """Record the bounds ub[:K] at position pos: each finite u as u + 1e-9 (1 + |u|)."""
    for k in range(K):
        u = ub[k]
        if u < INF:
            u += 1e-9 * (1.0 + abs(u))
            j = pos + 1
            while j <= T:
                if u < ub_fen[f, j, k]:
                    ub_fen[f, j, k] = u
                j += j & -j


@inline_helper
def _fen_prefix_min(ub_fen, f, pos, K, out):
    """out[k] = min(out[k], the smallest recorded bound of label k at positions 0 .. pos - 1)."""
    j = pos
    while j > 0:
        for k in range(K):
            if ub_fen[f, j, k] < out[k]:
                out[k] = ub_fen[f, j, k]
        j &= j - 1


@njit(cache=True, nogil=True)
def _best_split_phase2_fast(X, sample_index, start, end, n_bins, y, scores, margin, top_lab, c,
                            nprime, hi, eps, need_single, grouped, gid, loc, rep, gcnt, gmargin,
                            cum, order_m, bufs, nbin, nodebuf, qbin, tbin, ubt, cand_f, cand_t,
                            jS0, jQ0, jval, jeps, jdone, jD, sm, sy, sw, sx, heap, mtab,
                            min_tables, ubr, cut, cuts, walk_in):
    """``margin_search_exhaustive._best_split_phase2`` for the bottom-n' average,
    unconstrained (see the module docstring); with ``grouped`` the node's examples are handled
    as groups of interchangeable examples (``gid``: each example's group), which gives the
    same maxima with fewer items.
    ``need_single``: the node is the root (its single label is wanted too; per example, its
    margin order is kept in ``nodebuf``'s last array for the nodes below, see ``morder``).
    ``sm``, ``sy``, ``sw``, ``sx``: the margin-ordered views (``_node_views``); ``heap``:
    scratch for the candidates' best-first order; ``ubr``: scratch per candidate; ``mtab``:
    the n' = 1 tables (``_min_tables``; used when nprime == 1 and ``min_tables``).

    ``cuts`` (bits; ``cut`` = (lb_left, ub_left, lub, dbin, j0c, stmp, cbin, ccnt, ctot) its
    scratch) adds exact relations
    between candidates that drop work without changing any result (ALGORITHMS.md, "Speed"):
    1, S_left with kcap = n' is the sum of n' smallest of a subset of the split's numerators,
    so a split's maximum is at most its line-7 maximum (the left label's exact value): when
    that is below the best split so far, line 9 is skipped; 2, S_left(t) is a subset of
    S_left(t') for t < t' (same n'), so label k's left maximum does not increase with t:
    line 7 at t takes the maxima found at larger thresholds of the same feature as a floor
    and the bounds found at smaller ones as label bounds (with both bits, a candidate whose
    labels' bounds are all below the best split is skipped before line 7); 4, by relation 1,
    line 7 is searched only for labels that can reach the best split, and the split is
    skipped when none can (``walk_in``: the walk bound's lists and scratch, see
    ``margin_tree._run``); 8, with K = 2 on examples, a candidate that cannot rank above the
    best split so far (line 13) is skipped before line 7, so the best split after it is the
    same: when its maximum under every label pair line 9 can give it is below the best
    (``margin_bound_binary.binary_candidate_below``), or when none of those pairs rises at 0
    and none of their (g0, corner key) ranks above the best (``_corner_below``); since the
    candidates are then nearly all popped, their best-first order is sorted once
    (``sort_candidates``, the heap's order); 16, with n' = 1 (``mins``), a candidate whose
    S_left alone and S_right alone, each under its best label, cannot reach the best split
    so far is skipped before line 7 (``_side_bound_below``: O(K) from the node's tables; the
    candidates keep their best-first order, so those examined are examined as before)."""
    lb_left, ub_left, lub, dbin, j0c, stmp, cbin, ccnt, ctot = cut
    labs = (jS0, jQ0, jval, jeps, jdone, jD)
    obin, nob, cand_nl, cand_lo, cand_hi, morder, fpos = nodebuf
    F = X.shape[1]
    K = jS0.shape[0]
    B = nbin.shape[1]
    nS = end - start
    if grouped:
        L = _node_groups(X, sample_index, start, end, n_bins, gid, margin, loc, rep, gcnt,
                         gmargin, cum)
        for q in range(L):
            order_m[q] = q
        imargin = gmargin
        _sort_by_margin(imargin, order_m, L)
    elif need_single:
        # The root (per example): sorted here, and kept in ``morder``, which the grower
        # partitions stably at every split (``margin_tree._grow``), so every other node finds
        # its examples there already in (margin, index) order — the same order (a total one,
        # of which a child's is a subsequence) without a sort per node.
        L = nS
        for q in range(nS):
            order_m[q] = sample_index[start + q]
        imargin = margin
        _sort_by_margin(imargin, order_m, L)
        for q in range(nS):
            morder[start + q] = order_m[q]
    else:
        L = nS
        for q in range(nS):
            order_m[q] = morder[start + q]
        imargin = margin
    _node_views(X, y, scores, order_m, L, grouped, rep, imargin, sm, sy, sw, sx)
    items = (grouped, imargin, rep, gcnt, cum, sm, sy, sw, sx)
    # The node's occupied bins per feature (obin[f, :nob[f]], increasing) and the valid
    # thresholds: candidates come feature by feature (cand_lo[f] .. cand_hi[f]) in increasing
    # threshold, with their left counts cand_nl. Everything per (feature, bin) below visits
    # only the occupied bins: a deep tree's small nodes occupy a few of the B bins.
    for f in range(F):
        for b in range(B):
            nbin[f, b] = 0
    for q in range(start, end):
        i = sample_index[q]
        for f in range(F):
            nbin[f, X[i, f]] += 1
    n_cand = 0
    for f in range(F):
        acc = 0
        no = 0
        cand_lo[f] = n_cand
        tmax = n_bins[f] - 1
        for b in range(B):
            nb_ = nbin[f, b]
            if nb_ > 0:
                obin[f, no] = b
                no += 1
                acc += nb_
                if b < tmax and acc < nS:
                    cand_f[n_cand] = f
                    cand_t[n_cand] = b
                    cand_nl[n_cand] = acc
                    n_cand += 1
        nob[f] = no
        cand_hi[f] = n_cand
    kS = nprime if nprime < nS else nS
    # n' = 1: every line search's S is the smallest numerator, three lines per candidate read
    # from per-(feature, bin, label) minima (``_min_lines``) instead of scans over the items.
    mins = min_tables and nprime == 1
    firsts = mins and not grouped
    if mins:
        _min_tables(X, sample_index, start, end, y, scores, margin, mtab, obin, nob, jval)
    if firsts:
        _first_pos_tables(sx, sy, L, obin, nob, fpos)
    walk_on, kg, kq, nk, rcnt, kal, cpos, tkg, tkq, tnk, tR, ktab, ktot, kvec, xwarm = walk_in
    walk_on = walk_on and not grouped and not mins
    nT = 0
    # The node's count tables (``_count_tables``) go with the walk (per example, n' > 1):
    # the picks' pre-work of MODE_SPLIT, and of MODE_LEFT where S_left is its whole bottom
    # set, in O(K) instead of passes over the node.
    tabs_on = walk_on and ktab.shape[0] == F and ktab.shape[1] == B
    tS0 = 0.0
    tread = 0
    tv0 = INF
    tstrict = 0
    ttie = 0
    if walk_on:
        kink_lists(sm, sy, sw, L, kg, kq, nk, INF)
        nT = tier_lists(kg, kq, nk, L, kS, tkg, tkq, tnk, tR)
    if tabs_on:
        tS0, tread, tv0, tstrict, ttie = _count_tables(sm, sy, sx, order_m, L, kS, scores,
                                                       margin, top_lab, obin, nob, ktab, ktot,
                                                       kvec)
    walk = (walk_on, kg, kq, nk, rcnt, kal, cpos, tkg, tkq, tnk, tR, nT, tabs_on, ktab, ktot,
            kS, tS0, tread, tv0, tstrict, ttie, xwarm)
    k_single = 0
    if need_single:
        for k in range(K):
            lub[k] = INF
        k_single, _, _ = _pick_label(order_m, L, X, 0, 0, 0, MODE_ALL, scores, y, margin,
                                     items, top_lab, kS, c, hi, eps, -INF, K, bufs, labs, mins,
                                     mtab, lub, walk, kS == nS, fpos, False)
    if n_cand == 0:
        return False, -1, -1, 0, 0, k_single
    if cuts & 2:
        # Cut 2's records as Fenwick trees over each feature's candidates (``_fen_*``):
        # lb_left[f, 1..T] and ub_left[f, 1..T, :] (T = the feature's candidates), emptied.
        for f in range(F):
            T = cand_hi[f] - cand_lo[f]
            for j in range(1, T + 1):
                lb_left[f, j] = -INF
                for k in range(K):
                    ub_left[f, j, k] = INF
    # g_S(0) and the slopes at 0+ of the bottom set's strict part (margins < v0), per label,
    # feature and bin: they bound every split candidate of this node.
    seen = 0
    S0 = 0.0
    v0 = INF
    for q in range(L):
        it = order_m[q]
        _, nm, _ = _item(items, it, X, 0, 0, MODE_ALL)
        S0 += min(nm, kS - seen) * imargin[it]
        seen += nm
        if seen >= kS:
            v0 = imargin[it]
            break
    gS0 = S0 / (kS * c)
    # Per (label, feature, bin): slopes at 0+ summed over the strict part (qbin) and over
    # the members tied at v0 (tbin). The tie slots take the smallest slopes, whose sum is at
    # most need x (mean slope of the tied members).
    for f in range(F):
        for j in range(nob[f]):
            b = obin[f, j]
            for k in range(K):
                qbin[k, f, b] = 0.0
                tbin[k, f, b] = 0.0
    n_strict = 0
    n_tie = 0
    for q in range(L):
        it = order_m[q]
        mi = imargin[it]
        if mi > v0:
            break
        r, nm, _ = _item(items, it, X, 0, 0, MODE_ALL)
        for k in range(K):
            jval[k] = 0.0
        _add_slopes0(scores, y, margin, top_lab, r, jval, 1.0)
        if mi < v0:
            n_strict += nm
            arr = qbin
        else:
            n_tie += nm
            arr = tbin
        for k in range(K):
            sl = jval[k]
            if sl != 0.0:
                for f in range(F):
                    if grouped:
                        prev = 0
                        for b in range(B):
                            cb = cum[it, f, b]
                            if cb != prev:
                                arr[k, f, b] += sl * (cb - prev)
                                prev = cb
                    else:
                        arr[k, f, X[it, f]] += sl
    need = kS - n_strict
    wt = need / n_tie
    # Per candidate, the largest left and right slope sums over the labels (ubt, ubr). The
    # candidates come feature by feature in increasing threshold, so one running sum per
    # (label, feature) serves all its thresholds: the sum over b <= t is the same additions
    # in the same order as summing the candidate's bins afresh, and the labels are visited
    # in the same order per candidate (the same floats and maxima), in O(K F B) per node
    # instead of O(K B) per candidate (B = 255: most of a late waveform tree's time).
    # The sums run over the occupied bins only: the others hold +0.0, and adding +0.0 leaves
    # every partial sum as it is (none is -0.0: they start at +0.0 and the entries are sums
    # of non-zero slopes), so the same floats.
    for f in range(F):
        ci0 = cand_lo[f]
        ci1 = cand_hi[f]
        if ci0 == ci1:
            continue
        for ci in range(ci0, ci1):
            ubt[ci] = -INF
            ubr[ci] = -INF
        no = nob[f]
        for k in range(K):
            tot = 0.0
            ttot = 0.0
            for j in range(no):
                b = obin[f, j]
                tot += qbin[k, f, b]
                ttot += tbin[k, f, b]
            ql = 0.0
            tl = 0.0
            ci = ci0
            for j in range(no):
                if ci >= ci1:
                    break
                b = obin[f, j]
                ql += qbin[k, f, b]
                tl += tbin[k, f, b]
                if cand_t[ci] == b:
                    left = ql + wt * tl
                    right = (tot - ql) + wt * (ttot - tl)
                    if left > ubt[ci]:
                        ubt[ci] = left
                    if right > ubr[ci]:
                        ubr[ci] = right
                    ci += 1
    for ci in range(n_cand):
        ml = ubt[ci]
        mr = ubr[ci]
        ub = (ml + mr) / kS
        # Rounding margin: the bound is compared with exact maxima within OBJ_TIE_EPS.
        ub += 1e-9
        ubt[ci] = ub if ub > gS0 else gS0
    # Cut 8 (K = 2, per example): each candidate's maximum over every label pair, walked
    # over its pieces (``margin_bound_binary``), skips candidates that cannot reach the best
    # split found so far before any label search.
    binary = (cuts & 8) != 0 and K == 2 and not grouped and c > 0.0
    single0 = INF
    single1 = INF
    S0b = 0.0
    corner_ready = False
    n_strict0 = 0
    n_tied0 = 0
    if binary:
        single0, single1 = binary_single_max(sm, sy, sx, L, kS, c, hi)
        for q in range(kS):
            S0b += sm[q]
        split_wrong_counts(sy, sx, kS, obin, nob, cand_lo, cand_hi, cand_t, dbin, j0c)
    found = False
    best_v = -INF
    best_e = -INF
    best_ci = -1
    bf = -1
    bt = -1
    bkl = 0
    bkr = 0
    # Best-first order: the largest bound first, the first (feature, threshold) on ties
    # (a max-heap on (bound, -index); the bounds are finite and fixed from here on). With
    # cut 8 nearly every candidate is popped (each is skipped after its own bound, not by
    # the break below), so the order is sorted once instead (the same order).
    if binary:
        sort_candidates(ubt, heap, stmp, n_cand)
    else:
        for ci in range(n_cand):
            heap[ci] = ci
        for root in range(n_cand // 2 - 1, -1, -1):
            _cand_sift_down(ubt, heap, root, n_cand)
    n_heap = n_cand
    # Once a quarter of the candidates have been popped without the search stopping (with
    # n' = 1 on waveform every candidate is examined), the rest of the heap is sorted at once
    # (``sort_heap_rest``: the order the pops would give) and read in sequence.
    n_sorted = n_cand if binary else -1
    while n_heap > 0:
        if n_sorted >= 0:
            ci = heap[n_sorted - n_heap]
            n_heap -= 1
        else:
            ci = heap[0]
            n_heap -= 1
            heap[0] = heap[n_heap]
            _cand_sift_down(ubt, heap, 0, n_heap)
            if 4 * (n_cand - n_heap) >= n_cand and n_heap > 32:
                sort_heap_rest(ubt, heap, stmp, n_heap)
                n_sorted = n_heap
        ub = ubt[ci]
        if found and ub < best_v - OBJ_TIE_EPS * (1.0 + abs(best_v)):
            break
        f = cand_f[ci]
        t = cand_t[ci]
        nl = cand_nl[ci]
        kL = nprime if nprime < nl else nl
        if binary and found:
            ref8 = best_v - OBJ_TIE_EPS * (1.0 + abs(best_v))
            if binary_candidate_below(sm, sy, sx, f, t, L, kS, kL, c, hi, S0b, j0c[ci],
                                      single0, single1, ref8):
                continue
            # Within the walks' slack of the best split (typically every candidate of a
            # node where no split rises, all tied at g0 and ranked by the corner key), the
            # corners are decided exactly; their counts are made once per node, when first
            # needed.
            if not corner_ready:
                n_strict0, n_tied0 = corner_counts(scores, order_m, sm, sy, sx, L, kS, obin,
                                                   nob, cand_lo, cand_hi, cand_t, cbin, ccnt,
                                                   ctot)
                corner_ready = True
            kl7 = line7_corner_label(sm, sy, sx, f, t, L, kL, c, eps)
            if kl7 < 0:
                kl7 = line7_label(sm, sy, sx, f, t, L, kL, c, hi)
            if _corner_below(ccnt, ci, ctot, n_strict0, n_tied0, kS, S0b, S0b / (kS * c), c,
                             eps, best_v, best_e, best_ci, kl7):
                continue
        if cuts & 16 and mins and found and c > 0.0:
            if _side_bound_below(mtab, f, t, c, hi,
                                 best_v - OBJ_TIE_EPS * (1.0 + abs(best_v))):
                continue
        # Line 7: S_left's label. With n' members on the left (kcap = n' at every larger
        # threshold too), label k's maximum at t is at least its maximum at any t2 > t and at
        # most at any t2 < t that also has n' members (a subset / superset of the same n').
        fl_left = -INF
        for k in range(K):
            lub[k] = INF
        same_k = nl >= nprime
        if cuts & 2 and same_k:
            # (Over the feature's other candidates: lb_left and ub_left are only set there.)
            # The largest lb over the feature's later candidates and, per label, the
            # smallest ub (+ its slack) over its earlier ones: only candidates with n' left
            # members record them, the others stay -inf / +inf (``_fen_*``: the same maximum
            # and minima as a scan of those candidates, in O(K log T) instead of O(K T)).
            T = cand_hi[f] - cand_lo[f]
            pos = ci - cand_lo[f]
            lb = _fen_suffix_max(lb_left, f, pos, T)
            if lb > -INF:
                # Rounding slack: the maxima are computed sums; 1e-9 relative is far above
                # their rounding, and keeps every label that can reach or tie the winner.
                fl_left = lb - 1e-9 * (1.0 + abs(lb))
            _fen_prefix_min(ub_left, f, pos, K, lub)
            if cuts & 1 and found:
                # The split's maximum is at most S_left's best label's, at most max_k lub[k].
                mx = -INF
                for k in range(K):
                    if lub[k] > mx:
                        mx = lub[k]
                if mx < best_v - 1e-9 * (1.0 + abs(best_v)) - OBJ_TIE_EPS * (1.0 + abs(best_v)):
                    continue
        # Cut 4: with n' members on the left the split's maximum is at most its line-7
        # maximum (cut 1's relation), so line 7 only needs labels that can reach the best
        # split; when none can, neither can the split.
        fl7 = fl_left
        split_floor = False
        if cuts & 4 and same_k and found:
            bf7 = best_v - 1e-9 * (1.0 + abs(best_v))
            if bf7 > fl7:
                fl7 = bf7
                split_floor = True
        # Lines 7 and 9 as two passes of one loop, so that with n' = 1 the label search is
        # inlined once (``_pick_label_body``; a call pushed its ~35 arguments, every array
        # field by field, twice per candidate: most of the search's own time). stage 0:
        # line 7, S_left's label (MODE_LEFT, kcap kL); stage 1: line 9, S_right's label with
        # S_left's fixed (MODE_SPLIT, kcap n'). The same calls with the same arguments in the
        # same order as two call sites.
        kl = 0
        vl = -INF
        kr = -1
        v = -INF
        e = -INF
        skip = False
        # (an int64 from the start: with the literal 0 numba's type inference would first
        # compile a spare _pick_label for line 9 with lab_fixed the constant 0)
        p_fixed = np.int64(0)
        p_mode = MODE_LEFT
        p_kcap = kL
        p_floor = fl7
        p_whole = kL == nl
        for stage in range(2):
            if mins:
                kx, vx, ex = _pick_label_body(order_m, L, X, f, t, p_fixed, p_mode, scores, y,
                                              margin, items, top_lab, p_kcap, c, hi, eps,
                                              p_floor, K, bufs, labs, mins, mtab, lub, walk,
                                              p_whole, fpos, firsts)
            elif stage == 0:
                # n' > 1: a call per line with the mode (and line 7's fixed label 0) written
                # as the constant, not p_mode: numba types a constant argument as a literal
                # and compiles a _pick_label per mode, with every ``mode ==`` test of the
                # per-item passes (``_item_at``, ``_fixed_var_at``) folded away. With p_mode
                # (an int64 at run time) the one compiled _pick_label tested the mode at every
                # item: the same work 2.6x slower per pick (ALGORITHMS.md, "Speed").
                kx, vx, ex = _pick_label(order_m, L, X, f, t, 0, MODE_LEFT, scores, y, margin,
                                         items, top_lab, p_kcap, c, hi, eps, p_floor, K, bufs,
                                         labs, mins, mtab, lub, walk, p_whole, fpos, firsts)
            else:
                kx, vx, ex = _pick_label(order_m, L, X, f, t, p_fixed, MODE_SPLIT, scores, y,
                                         margin, items, top_lab, p_kcap, c, hi, eps, p_floor,
                                         K, bufs, labs, mins, mtab, lub, walk, p_whole, fpos,
                                         firsts)
            if stage == 1:
                kr = kx
                v = vx
                e = ex
                break
            kl = kx
            vl = vx
            if split_floor and (kl < 0 or vl < fl7):
                # Every label's maximum (or the bound that stopped its search) is below the
                # best split; vl is then not an exact maximum, so cut 2 records only the
                # bounds.
                if cuts & 2:
                    _fen_min_record(ub_left, f, ci - cand_lo[f], cand_hi[f] - cand_lo[f], K,
                                    lub)
                skip = True
                break
            if kl < 0:
                # Not reached (the winner's maximum is above fl_left); kept for safety.
                for k in range(K):
                    lub[k] = INF
                kl, vl, _ = _pick_label(order_m, L, X, f, t, 0, MODE_LEFT, scores, y, margin,
                                        items, top_lab, kL, c, hi, eps, -INF, K, bufs, labs,
                                        mins, mtab, lub, walk, kL == nl, fpos, firsts)
            if cuts & 2 and same_k:
                _fen_max_record(lb_left, f, ci - cand_lo[f], cand_hi[f] - cand_lo[f], vl)
                _fen_min_record(ub_left, f, ci - cand_lo[f], cand_hi[f] - cand_lo[f], K, lub)
            # Line 9: S_right's label, S_left's fixed; only labels that can reach the best
            # split.
            floor = best_v if found else -INF
            if cuts & 1 and found and same_k:
                # kL = kS = n': the split's maximum is at most vl.
                if vl < floor - 1e-9 * (1.0 + abs(floor)) - OBJ_TIE_EPS * (1.0 + abs(floor)):
                    skip = True
                    break
            for k in range(K):
                lub[k] = INF
            p_fixed = kl
            p_mode = MODE_SPLIT
            p_kcap = kS
            p_floor = floor
            p_whole = kS == nS
        if skip or kr < 0:
            continue
        # Line 13: (maximum, corner key), then the first (feature, threshold).
        if not found or _ranks_above(v, e, ci, best_v, best_e, best_ci):
            found = True
            best_v = v
            best_e = e
            best_ci = ci
            bf = f
            bt = t
            bkl = kl
            bkr = kr
    return found, bf, bt, bkl, bkr, k_single


@inline_helper
def _mix64(x):
    """splitmix64's finaliser: a well-mixed 64-bit hash of x."""
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    x ^= x >> np.uint64(33)
    return x


@njit(cache=True, nogil=True)
def group_rows(scores, bits, y, gid, grep):
    """Group the examples by (label, score row): gid[i] = i's group, grep[g] = a member of
    group g (``bits``: the scores' bit patterns, ``scores.view(np.uint64)``). Rows are hashed,
    sorted by hash, and compared exactly within equal hashes, so collisions cannot merge
    different rows (and rows equal as numbers but not as bits, -0.0 and 0.0, at worst make two
    groups of the same kind, which changes no result). Returns the number of groups."""
    n, K = scores.shape
    key = np.empty(n, np.uint64)
    for i in range(n):
        h = _mix64(np.uint64(y[i]) + np.uint64(0x9E3779B97F4A7C15))
        for k in range(K):
            h = _mix64(h ^ bits[i, k]) + np.uint64(k + 1)
        key[i] = h
    order = np.argsort(key, kind="mergesort")
    G = 0
    run_g = 0
    for q in range(n):
        i = order[q]
        if q == 0 or key[i] != key[order[q - 1]]:
            run_g = G
        found = -1
        for g in range(run_g, G):
            j = grep[g]
            if y[j] != y[i]:
                continue
            same = True
            for k in range(K):
                if scores[j, k] != scores[i, k]:
                    same = False
                    break
            if same:
                found = g
                break
        if found < 0:
            found = G
            grep[G] = i
            G += 1
        gid[i] = found
    return G

