"""Phase I label trees: DMCBoost Alg. 1.2 on the 0-1 loss, every node choice keyed like the
round's own step (``line_search.line_search_zero_one_exp``).

A tree is grown top-down, depth-first (left child first), with binary splits ``bin <= t`` on
binned features, in the node layout of ``histogram_tree`` (the forest's tree walk applies).
At every node S the candidates are the hypotheses of Alg. 1.2:

1. line 7, the left label: "k on S_left" for every split and label k;
2. line 9, the right label: "k_left on S_left, k on S_right", k_left fixed (line 8);
3. line 13, the split: the best of the line-9 candidates.

**Global reading.** A candidate is scored as the whole tree it would make: examples outside S
keep the votes of the partial tree (finished leaves, and the label a pending node got from
its parent), and in step 1 S_right keeps S's current label. So every node choice is a choice
between whole weak classifiers, as DirectBoost's Alg. 1 lines 3-13 choose between weak
classifiers (ALGORITHMS.md, "Phase I: the node key"). The root starts as a one-leaf tree with
the best single label.

**The key** of a hypothesis h is (minimum 0-1 error over alpha > 0, the smallest exponential
loss over the intervals of that error), the exponential loss of an interval being its
minimum 5% inside the interval (in the unbounded one: from 1.05 times its left end) — the
rule of ``line_search_zero_one_exp``, on the round's compressed axis:

* the 0-1 error of any vote vector is minimal at some alpha = axis[j]+, where the axis is
  {0} and the points where a currently-wrong example turns right (``prepare_round``); the
  error at axis[j]+ is exact;
* the intervals are approximated by the axis cells (axis[j], axis[j+1]) — a hypothesis's own
  interval can end earlier, where a correct example turns wrong inside the cell;
* inside cell j an example voted its class contributes e^-m e^-alpha, one voted another label
  e^-m before its kink and e^(alpha-w) after it, the kink placed by the cell's midpoint
  (``kink_pos``); so the loss in cell j is A e^-alpha + C_j + D_j e^alpha and its minimum over
  the inset cell has a closed form (``cell_loss``);
* ``cut_aware`` places the kinks by the cell's left end instead when the hypothesis's own
  interval ends inside the cell (a correct example turns wrong there): such a hypothesis is
  judged on a stretch next to the left end, where the midpoint placement counts kinks of the
  cell's left half as already risen and underestimates its loss (the Zeno steps of
  ALGORITHMS.md, "Where the midpoint placement fails"). The kinks of a cell's left half are
  summed apart (``half_cell_flags``, ``_rest_half``, ``_half_bucket``, ``_half_row``) and
  moved back from D to C for those hypotheses. DMCBoost grows a tree under each placement and
  keeps the exactly better one (``algorithms.dmcboost``, ``_boost_phase1``).

Ties of the exponential loss (relative ``EXP_TIE_REL``) go to the lowest label, then the first
feature and the lowest threshold. The brute-force twin is
``naive_zero_one.grow_tree_naive(phase="zero_one")``.

Cost per node: O(n + R) for the rest of the tree (R = axis length), O(|S| K F) events, then
per sweep a scan of the node's thresholds (non-empty bins only) at the first position of each
stretch between two 0-1 events of S, the labels' error prefixes recomputed there when a
right turn changed them (or they are read at every position; ``_count_rows``), and a cell
loss only where a candidate's error equals its smallest (or running
smallest) error; ``best_split_phase1`` says which cuts keep every result unchanged.

References
----------
.. [1] S. Zhai, T. Xia, S. Wang. A multi-class boosting method with direct optimization.
       KDD 2014, Alg. 1, 1.1, 1.2.
.. [2] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013, Alg. 1 (lines 12-13: the largest error reduction, then the
       smallest exponential loss).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._kernel_cache import kernel_compile_lock
from .borrowed import borrowed
from .line_search import INF, INTERVAL_INSET, interval_step, top_wrong
from .tree_layout import pop_node, split_node, start_tree, write_votes

_BIG = np.int64(2 ** 40)

# Two exponential losses closer than this (relative) are a tie.
EXP_TIE_REL = 1e-9

# A candidate's cell loss costs about this many threshold scans (the choice of pass A in
# ``best_split_phase1``; speed only).
VISIT_COST = 8.0


# ---------------------------------------------------------------------------------------------
# Round data
# ---------------------------------------------------------------------------------------------


# An event's kind: its bucket at axis position j is 3 j + kind (``_node_events``).
KIND_KINK = 0
KIND_RIGHT = 1
KIND_RISE = 2

# The state of a label's error-prefix rows (pe, rc) in a sweep, bits of ``dirty[k]``
# (``_count_rows``): ROW_STALE, 0-1 events have moved k's per-bin counts since the rows were
# made; ROW_RAISE, one of them turned a wrong example right (k's own errors fell somewhere,
# so its slacks L - own may have risen and the filter bound Q must see them); ROW_NEEDED, the
# rows are read at every visited position (line 7: S's label r, the rest of S_right; line 9:
# the k_left labels). A row stale by rises alone is neither remade nor read: where its
# entries are needed — the own errors of the few (feature, threshold) pairs that pass the
# filter — they are summed from its counts (``_left_count``).
ROW_STALE = 1
ROW_RAISE = 2
ROW_NEEDED = 4
# Line 9 reads, at every visited position, S_left's own errors under k_left for each
# (feature, threshold): krow[f, v] = pe[kleft[f, v], f, v], a few entries of each k_left's
# row. ROW_KROW: 0-1 events have moved label k's counts since its entries of krow were
# summed (``_count_rows`` sums them again from the counts, up to the largest threshold each
# feature needs, instead of remaking k's whole row).
ROW_KROW = 8
# A stale row's entry at threshold index v is summed from v + 1 bins when v < ROW_SUM_MAX;
# past that the row is remade instead (then read), so a feature of many bins costs at most
# what remaking every stale row did (speed only: the same integers either way).
ROW_SUM_MAX = 32
# A position with at most this many stale labels remakes them all (the eager rule): small
# nodes see few 0-1 events per position, and there reading the rows is cheaper than summing
# (speed only: either rule gives the same Q and counts, ``_count_rows``).
EAGER_ROWS_MAX = 4
# A node keeps rows lazily only when |S| K >= LAZY_EVENTS_PER_POS R (``best_split_phase1``;
# 32 until 2026-11-28: 1 measured 5-18% faster on Poker525k, Krkopt and Letter states, the
# same on Abalone and Waveform; ALGORITHMS.md, "Phase I on large data").
LAZY_EVENTS_PER_POS = 1

# The node's events carry a copy of their example's bins (ev_x, raw bins of X; the sweeps read
# a 0-1 event's bin index as nbin[f, ev_x[q, f]]) when the examples' bin indices xw (n F
# bytes) are at least this large: the sweeps visit the events in axis order, so xw[i, f] is
# a read from a random row, which misses the caches once xw outgrows them (Poker525k: 3.9
# MB). The copy is made where the events are listed, in S's order. Speed only: the same
# indices either way (ALGORITHMS.md, "Phase I on large data").
PACKED_ROWS_MIN = 2 ** 21

# Thresholds per block of the filter scan's block bounds (``best_split_phase1``: a block
# whose bound shows that none of its thresholds can pass the filter is not scanned; speed
# only).
SCAN_BLOCK = 16

# Steps a guided search (``_guided_search``) walks from its guess before it falls back to a
# binary search.
GUIDE_WALK = 8


@njit(cache=True, nogil=True)
def _search_guide(a, R, start):
    """A guide to sorted a[0:R]: the range [a[0], a[R-1]] cut into G = len(start) - 1 equal
    cells, start[g] = the number of points below cell g's left end. Returns (lo, cells per
    unit length); a query's cell gives a first guess of its position (``_guided_search``)."""
    G = start.shape[0] - 1
    lo = a[0]
    width = a[R - 1] - lo
    if not width > 0.0:
        for g in range(G + 1):
            start[g] = 0
        return lo, 0.0
    inv = G / width
    h = width / G
    p = 0
    for g in range(G + 1):
        x = lo + g * h
        while p < R and a[p] < x:
            p += 1
        start[g] = p
    return lo, inv


# This module's helpers are inlined by numba (``inline="always"``), not by LLVM like the other
# kernels' (``_inline.inline_helper``): the Phase I fits were about 10% slower with LLVM
# inlining (``ALGORITHMS.md``, "LLVM-inlined helpers").
@njit(cache=True, nogil=True, inline="always")
def _guided_search(a, R, v, right, lo, inv, start):
    """np.searchsorted(a[0:R], v, side="right" if right else "left") for sorted a, from the
    guess of ``_search_guide``'s cells: the guess is walked to the position where
    a[p-1] < v <= a[p] (right: a[p-1] <= v < a[p]), which defines the result whatever the
    guess, or, after ``GUIDE_WALK`` steps, the result is found by a binary search. Only
    comparisons decide it: the same integer as np.searchsorted."""
    G = start.shape[0] - 1
    x = (v - lo) * inv
    if x <= 0.0:
        p = start[0]
    elif x >= G:
        p = start[G]
    else:
        p = start[np.int64(x)]
    for _ in range(GUIDE_WALK):
        if p > 0 and (a[p - 1] > v if right else a[p - 1] >= v):
            p -= 1
        elif p < R and (a[p] <= v if right else a[p] < v):
            p += 1
        else:
            return p
    if right:
        return np.searchsorted(a[:R], v, side="right")
    return np.searchsorted(a[:R], v)


@njit(cache=True, nogil=True)
def prepare_round(scores, y, unit, correct, rank, s_idx, axis, ref, em, kink_pos, ew, gax,
                  grf):
    """Per-round data of the Phase I tree search; returns R, the length of the axis.

    OUT
    correct[i]      the true label strictly has the highest score;
    axis[0:R]       sorted distinct points {0} U {max_{l != y} a_l - a_y : i wrong};
    ref[0:R]        the cells' midpoints (the last, unbounded cell: axis[R-1] + unit), where
                    the kinks are placed;
    rank[i]         (i wrong) the position of i's point: i is right from axis[rank[i]]+ on
                    under its own label;
    s_idx[i, k]     (i correct, k != y_i) number of axis points < a_y - a_k: from that position
                    on, i is wrong under label k (R: never);
    em[i]           exp(-m_i - shift), m_i = a_y - max_{l != y} a_l, shift = max_i(-m_i), so
                    every term is <= 1 and the largest is 1;
    kink_pos[i, k]  (k != y_i) the first cell whose midpoint exceeds i's kink under label k,
                    max_{l != y} a_l - a_k (R: never);
    ew[i, k]        exp(-(a_y - a_k) - shift): past its kink, i's loss under k is ew e^alpha.

    The positions (rank, s_idx, kink_pos) are np.searchsorted's on the axis and the
    midpoints, found from a guess (``_search_guide``, ``_guided_search``; gax, grf: its
    cells, 2R + 1 entries at least): two binary searches per (example, label) were most of
    this function.
    """
    n, K = scores.shape
    nw = 0
    shift = -INF
    for i in range(n):
        yi = y[i]
        t = top_wrong(scores, i, yi)
        ay = scores[i, yi]
        if t - ay > shift:
            shift = t - ay
        if ay > t:
            correct[i] = True
        else:
            correct[i] = False
            axis[nw] = t - ay
            nw += 1
    axis[nw] = 0.0
    vals = axis[:nw + 1]
    vals.sort()
    R = 0
    for j in range(nw + 1):
        if R == 0 or vals[j] != axis[R - 1]:
            axis[R] = vals[j]
            R += 1
    for j in range(R - 1):
        ref[j] = 0.5 * (axis[j] + axis[j + 1])
    ref[R - 1] = axis[R - 1] + unit
    top = axis[R - 1]
    ga = gax[:min(2 * R + 1, gax.shape[0])]
    gr = grf[:min(2 * R + 1, grf.shape[0])]
    lo_a, inv_a = _search_guide(axis, R, ga)
    lo_r, inv_r = _search_guide(ref, R, gr)
    for i in range(n):
        yi = y[i]
        ay = scores[i, yi]
        t = top_wrong(scores, i, yi)
        em[i] = np.exp(-(ay - t) - shift)
        if not correct[i]:
            rank[i] = _guided_search(axis, R, t - ay, False, lo_a, inv_a, ga)
        for k in range(K):
            if k == yi:
                continue
            ew[i, k] = np.exp(-(ay - scores[i, k]) - shift)
            kink_pos[i, k] = _guided_search(ref, R, t - scores[i, k], True, lo_r, inv_r, gr)
            if correct[i]:
                v = ay - scores[i, k]
                if v > top:
                    s_idx[i, k] = R
                else:
                    s_idx[i, k] = _guided_search(axis, R, v, False, lo_a, inv_a, ga)
    return R


@njit(cache=True, nogil=True, inline="always")
def cell_loss(A, C, D, lo, hi, unit):
    """Minimum of A e^-a + C + D e^a over cell (lo, hi) inset by ``INTERVAL_INSET`` of its
    width; over [1.05 lo, inf) when hi = inf (lo + unit when the loss falls for ever, unit
    when its minimiser is 0 and lo = 0) — the rule of ``line_search_zero_one_exp``."""
    if A > 0.0 and D > 0.0:
        a_star = 0.5 * (np.log(A) - np.log(D))
    elif A > 0.0:
        a_star = INF
    else:
        a_star = 0.0
    a = interval_step(a_star, lo, hi, unit)
    v = C
    if A > 0.0:
        v += A * np.exp(-a)
    if D > 0.0:
        v += D * np.exp(a)
    return v


@njit(cache=True, nogil=True, inline="always")
def _key_better(e, x, best_e, best_x):
    """(0-1 error, exponential loss) lexicographically smaller, losses within EXP_TIE_REL
    tied."""
    if e != best_e:
        return e < best_e
    return x < best_x - EXP_TIE_REL * (abs(x) + abs(best_x))


# ---------------------------------------------------------------------------------------------
# One node
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _rest_of_tree(sample_index, start, end, correct, rank, R, em, rec, mark, stamp, oE, oC,
                  oD, oH, bE, bC, bD):
    """The examples outside S = sample_index[start:end], under their votes: their error at
    axis[j]+ (oE[j]), their exponential loss in cell j, oA e^-a + oC[j] + oD[j] e^a, and
    the first point inside cell j where one of them turns wrong (oH[j], inf if none).
    Returns oA. The entries of each example's vote v come from its record (``rec``,
    ``_vote_records``): read in sequence instead of from rows of s_idx, scores, kink_pos
    and ew; the same values, summed in the same (example) order."""
    risy, rsi, rrv, rkp, rew, _ = rec
    n = correct.shape[0]
    for q in range(start, end):
        mark[sample_index[q]] = stamp
    for j in range(R + 1):
        bE[j] = 0
        bC[j] = 0.0
        bD[j] = 0.0
        oH[j] = INF
    e0 = 0
    oA = 0.0
    for i in range(n):
        if mark[i] == stamp:
            continue
        isy = risy[i]                 # v == y_i
        if correct[i]:
            if not isy:
                p = rsi[i]                # s_idx[i, v]
                if p < R:
                    bE[p] += 1
                # i turns wrong inside cell p - 1: the interval starting there ends at rv.
                rv = rrv[i]               # scores[i, y_i] - scores[i, v]
                if rv < oH[p - 1]:
                    oH[p - 1] = rv
        else:
            e0 += 1
            if isy:
                bE[rank[i]] -= 1
        if isy:
            oA += em[i]
        else:
            kp = rkp[i]                   # kink_pos[i, v]
            bC[kp] += em[i]
            if kp < R:
                bD[kp] += rew[i]          # ew[i, v]
    e = e0
    d = 0.0
    for j in range(R):
        e += bE[j]
        d += bD[j]
        oE[j] = e
        oD[j] = d
    c = bC[R]
    for j in range(R - 1, -1, -1):
        oC[j] = c                 # kink_pos > j: before the kink in cell j
        c += bC[j]
    return oA


@njit(cache=True, nogil=True)
def _vote_records(sample_index, lo, hi, y, scores, correct, s_idx, kink_pos, ew, hflag, vote,
                  rec):
    """The record of each example of sample_index[lo:hi] under its vote v (written after
    every change of the votes; the round's data must be prepared): v == y_i, and for
    v != y_i s_idx[i, v] (i correct), scores[i, y_i] - scores[i, v] (i correct),
    kink_pos[i, v], ew[i, v] and hflag[i, v] (meaningful where the round made hflag)."""
    risy, rsi, rrv, rkp, rew, rhf = rec
    for q in range(lo, hi):
        i = sample_index[q]
        v = vote[i]
        yi = y[i]
        if v == yi:
            risy[i] = True
            continue
        risy[i] = False
        if correct[i]:
            rsi[i] = s_idx[i, v]
            rrv[i] = scores[i, yi] - scores[i, v]
        rkp[i] = kink_pos[i, v]
        rew[i] = ew[i, v]
        rhf[i] = hflag[i, v]


@njit(cache=True, nogil=True)
def half_cell_flags(scores, y, R, axis, kink_pos, hflag):
    """hflag[i, k] (k != y_i): i's kink under label k lies in the left half of the cell
    where ``kink_pos`` counts it as past, [axis[j], ref[j]) with j = kink_pos[i, k]. In that
    cell the midpoint placement counts the term as rising (e^(a - w)); a candidate judged in
    the cell's left part (its interval cut short) gets it flat (e^-m) instead: the kinks are
    placed by the left end (ALGORITHMS.md, "Where the midpoint placement fails")."""
    n, K = scores.shape
    for i in range(n):
        yi = y[i]
        t = top_wrong(scores, i, yi)
        for k in range(K):
            if k == yi:
                hflag[i, k] = False
                continue
            j = kink_pos[i, k]
            hflag[i, k] = j < R and t - scores[i, k] >= axis[j]


@njit(cache=True, nogil=True)
def _rest_half(sample_index, start, end, R, em, rec, mark, stamp, oHC, oHD):
    """The left-half terms of the examples outside S (``half_cell_flags``): per cell j, the
    sums of their e^-m (oHC[j]) and e^-w (oHD[j]). ``mark`` is _rest_of_tree's, and so are
    the vote records."""
    risy, _, _, rkp, rew, rhf = rec
    for j in range(R + 1):
        oHC[j] = 0.0
        oHD[j] = 0.0
    for i in range(em.shape[0]):
        if mark[i] == stamp:
            continue
        if not risy[i] and rhf[i]:    # v != y_i and hflag[i, v]
            kp = rkp[i]
            oHC[kp] += em[i]
            oHD[kp] += rew[i]


@njit(cache=True, nogil=True)
def _half_bucket(jpos, ev_k, j, K, hflag, ev_i, ev_a, ev_b, xw, hc, hd, thc, thd, hcnt,
                 add):
    """Bucket j's kinks that lie in cell j's left half, per (label, feature, non-empty bin)
    (hc, hd), per label (thc, thd, hcnt); with add=False put those entries back to 0."""
    a = 0 if j == 0 else jpos[3 * j - 1]
    F = hc.shape[1]
    for q in range(a, jpos[3 * j + KIND_KINK]):
        i = ev_i[q]                   # unsigned: no wraparound test where it indexes
        k = ev_k[q]
        if not hflag[i, k]:
            continue
        if add:
            mv = ev_a[q]              # em[i]
            dv = ev_b[q]              # ew[i, k]
            thc[k] += mv
            thd[k] += dv
            hcnt[k] += 1
            for f in range(F):
                w = xw[i, f]
                hc[k, f, w] += mv
                hd[k, f, w] += dv
        else:
            thc[k] = 0.0
            thd[k] = 0.0
            hcnt[k] = 0
            for f in range(F):
                w = xw[i, f]
                hc[k, f, w] = 0.0
                hd[k, f, w] = 0.0


@njit(cache=True, nogil=True)
def _half_row(hc, hd, k, f, nt, phc, phd, hrow, pos_id):
    """Prefix sums of hc, hd over the bins <= each threshold (label k, feature f), memoised
    for the current position."""
    if hrow[k, f] == pos_id:
        return
    hrow[k, f] = pos_id
    cc = 0.0
    cd = 0.0
    for v in range(nt):
        cc += hc[k, f, v]
        cd += hd[k, f, v]
        phc[k, f, v] = cc
        phd[k, f, v] = cd


@njit(cache=True, nogil=True)
def _node_events(X, sample_index, start, end, y, correct, rank, s_idx, R, kink_pos, jpos,
                 ev_k, K, scores, em, ew, ev_i, ev_a, ev_b, kstart, ev_bk, ev_x):
    """Counting sort of S's events by axis position and kind: bucket b = 3 j + c is
    ev_k[jpos[b-1]:jpos[b]] (jpos[-1] := 0), position j's kinks (c = 0, ``KIND_KINK``),
    wrong examples turning right (c = 1, ``KIND_RIGHT``) and correct ones turning wrong
    (c = 2, ``KIND_RISE``), each in S's order; ev_k is the event's label (a wrong example's
    own, y_i, for a right turn) — one byte when K <= 256 (``ZeroOneWorkspace``), unsigned,
    read where the sweeps index by it without decoding. Position R holds only rises: those
    beyond the last axis point, which change no error at any axis[j]+ but end the last
    cell's interval.

    The kinds apart, a sweep's loops visit only the events they use and know an event's
    kind from its bucket, not from a branch per event (or a load of correct[i]); within a
    position the kinks keep their order (S's), the only order any float sum sees.

    Beside each label, what the sweeps read of the event, gathered here in S's order (the examples'
    rows are read in turn) so that the sweeps, which visit the events in axis order, read
    them in sequence instead of from random rows: ev_i the example; a kink's em[i] (ev_a) and
    ew[i, k] (ev_b); a rise's point scores[i, y_i] - scores[i, k] (ev_a). The same floats as
    read or computed where they are used.

    Also where each label's list of kinks starts (kstart[k], kstart[K] = their number): the
    lists themselves are written by the node's first sweep, which visits every kink in their
    order anyway (``_apply_bucket``, ``_apply_kinks``); and each event's bucket (ev_bk), from
    which a child's events are cut out of these (``_partition_events``, ``_segment_events``).
    Where ev_x has rows (``PACKED_ROWS_MIN``), a 0-1 event's row of it is its example's bins
    X[i] (raw bins: a node's own indices nbin[f, X[i, f]] differ from its parent's), read
    here in S's order so that the sweeps need not read xw[i] from a random row."""
    F = X.shape[1]
    packed = ev_x.shape[0] > 0
    for b in range(3 * R + 4):
        jpos[b] = 0
    for k in range(K + 1):
        kstart[k] = 0
    for q in range(start, end):
        i = sample_index[q]
        yi = y[i]
        if not correct[i]:
            jpos[3 * rank[i] + KIND_RIGHT + 1] += 1
        for k in range(K):
            if k == yi:
                continue
            if correct[i]:
                jpos[3 * s_idx[i, k] + KIND_RISE + 1] += 1
            if kink_pos[i, k] < R:
                jpos[3 * kink_pos[i, k] + KIND_KINK + 1] += 1
                kstart[k + 1] += 1
    for b in range(1, 3 * R + 4):
        jpos[b] += jpos[b - 1]
    for k in range(K):
        kstart[k + 1] += kstart[k]
    for q in range(start, end):
        i = sample_index[q]
        yi = y[i]
        emi = em[i]
        ay = scores[i, yi]
        if not correct[i]:
            b = 3 * rank[i] + KIND_RIGHT
            p = jpos[b]
            ev_k[p] = yi
            ev_i[p] = i
            ev_bk[p] = b
            if packed:
                for f in range(F):
                    ev_x[p, f] = X[i, f]
            jpos[b] = p + 1
        for k in range(K):
            if k == yi:
                continue
            if correct[i]:
                b = 3 * s_idx[i, k] + KIND_RISE  # s_idx R: in the last, unbounded cell
                p = jpos[b]
                ev_k[p] = k
                ev_i[p] = i
                ev_a[p] = ay - scores[i, k]
                ev_bk[p] = b
                if packed:
                    for f in range(F):
                        ev_x[p, f] = X[i, f]
                jpos[b] = p + 1
            if kink_pos[i, k] < R:
                b = 3 * kink_pos[i, k] + KIND_KINK
                p = jpos[b]
                ev_k[p] = k
                ev_i[p] = i
                ev_a[p] = emi
                ev_b[p] = ew[i, k]
                ev_bk[p] = b
                jpos[b] = p + 1


@njit(cache=True, nogil=True)
def _partition_events(src_k, src_i, src_a, src_b, src_bk, m, side, dst_k, dst_i, dst_a,
                      dst_b, dst_bk, lo, ro, src_x, dst_x):
    """Cut a split node's m events (``_node_events``' layout, from index 0 of the src views)
    into its children's: an event of an example with side[i] = 0 goes to the left child's
    list from dst[lo], the others to the right child's from dst[ro]. Returns the two counts.

    One pass in the parent's order, so each child's list is sorted by bucket and, within a
    bucket, in the parent's order restricted to the child — the child's own order, the
    partition of the samples being stable (``tree_layout._partition``): the very arrays
    ``_node_events`` makes for the child, without its scattered writes (a cache miss an
    event on large data). The 0-1 events' rows of src_x go along where there are any
    (``PACKED_ROWS_MIN``)."""
    a = lo
    b = ro
    F = src_x.shape[1]
    packed = src_x.shape[0] > 0
    for q in range(m):
        if side[src_i[q]] == 0:
            p = a
            a += 1
        else:
            p = b
            b += 1
        dst_k[p] = src_k[q]
        dst_i[p] = src_i[q]
        dst_a[p] = src_a[q]
        dst_b[p] = src_b[q]
        dst_bk[p] = src_bk[q]
        if packed and src_bk[q] % 3 != KIND_KINK:
            for f in range(F):
                dst_x[p, f] = src_x[q, f]
    return a - lo, b - ro


@njit(cache=True, nogil=True)
def _segment_events(ev_k, ev_bk, m, R, K, jpos, kstart):
    """For a node whose m events are already listed (``_partition_events``): the bucket ends
    (jpos) and the starts of the labels' kink lists (kstart), as ``_node_events`` leaves them."""
    for k in range(K + 1):
        kstart[k] = 0
    q = 0
    for b in range(3 * R + 4):
        while q < m and ev_bk[q] == b:
            if b % 3 == KIND_KINK:
                kstart[ev_k[q] + 1] += 1
            q += 1
        jpos[b] = q
    for k in range(K):
        kstart[k + 1] += kstart[k]


@njit(cache=True, nogil=True)
def _stretch_minima(jpos, ev_k, R, oE, keep):
    """keep[j] = 1 where a candidate of S can have its minimum error, 0 elsewhere.

    Between two positions where an example of S turns right or wrong, every candidate's own
    errors are constant, so its whole-tree error there is a constant plus oE[j]: a position
    whose oE exceeds the smallest oE of its stretch has more errors, for every candidate, than
    another position of the same stretch, and cannot hold any candidate's minimum (nor, the
    error being higher, decide its loss). Skipping those positions changes no result."""
    a = 0
    while a < R:
        b = a + 1
        while b < R:
            if jpos[3 * b + KIND_RISE] > jpos[3 * b + KIND_KINK]:
                break                 # position b has a 0-1 event
            b += 1
        m = oE[a]
        for j in range(a + 1, b):
            if oE[j] < m:
                m = oE[j]
        for j in range(a, b):
            keep[j] = 1 if oE[j] == m else 0
        a = b


@njit(cache=True, nogil=True)
def _node_bins(X, sample_index, start, end, n_bins, want_split, nbin, u, ub, xw):
    """The node's non-empty bins of every feature, in order: ub[f, 0:u[f]]; xw[i, f] is the
    index of i's bin among them. The valid thresholds of f (line 6: both sides non-empty;
    a threshold on an empty bin repeats the partition of the one before) are ub[f, v] for
    v < u[f] - 1. Returns whether S has a valid threshold (and a split is wanted)."""
    F = X.shape[1]
    W = nbin.shape[1]
    for f in range(F):
        for b in range(W):
            nbin[f, b] = 0
    for q in range(start, end):
        i = sample_index[q]
        for f in range(F):
            nbin[f, X[i, f]] += 1
    any_valid = False
    for f in range(F):
        w = 0
        for b in range(min(n_bins[f], W)):
            if nbin[f, b] > 0:
                ub[f, w] = b
                nbin[f, b] = w            # from here on: the bin's index among the non-empty
                w += 1
        u[f] = w
        if want_split and w >= 2:
            any_valid = True
    for q in range(start, end):
        i = sample_index[q]
        for f in range(F):
            xw[i, f] = nbin[f, X[i, f]]
    return any_valid


@njit(cache=True, nogil=True)
def _reset_sweep(sample_index, start, end, y, correct, em, xw, u, any_valid, sums, sa, sc, sd,
                 cnt, pe, rc, dirty, tot, tsa, tsc, tsd, hmin, kver, saved, restore):
    """The sweep state before position 0: every wrong example counted as an error under every
    label, every loss term before its kink. Per (label, feature, non-empty bin): the error
    counts cnt and (with ``sums``) the loss sums sa, sc, sd (summed in S's order, as every
    later update, so each cell's float is the same whatever the layout); per (label, feature,
    threshold v): the errors on the left (pe, bins <= ub[f, v]) and on the right (rc).
    ``saved`` = (sa0, sc0, tsa0, tsc0, tcf): the sums are kept there when made, and copied
    back from there with ``restore`` (the node's second sweep starts from the same sums).
    Without a valid split only the labels' totals are made (no per-bin sum is read then).

    An example adds its e^-m to sc of every label but its own: those K - 1 sums are made in
    tcf, laid out (feature, bin, label) so that they are adjacent (a vector add instead of
    K - 1 rows), and moved to sc after; each is still summed alone, in S's order."""
    K, F, _ = sa.shape
    for k in range(K):
        tot[k] = 0
        dirty[k] = 0
        for f in range(F):
            for w in range(u[f]):
                cnt[k, f, w] = 0
    nwrong = 0
    for q in range(start, end):
        i = sample_index[q]
        if not correct[i]:
            nwrong += 1
            for f in range(F):
                cnt[0, f, xw[i, f]] += 1
    for k in range(K):
        tot[k] = nwrong
        for f in range(F):
            for w in range(u[f]):
                cnt[k, f, w] = cnt[0, f, w]
    if any_valid:
        for f in range(F):
            c = 0
            for v in range(u[f] - 1):
                c += cnt[0, f, v]
                for k in range(K):
                    pe[k, f, v] = c
                    rc[k, f, v] = nwrong - c
    if not sums:
        return
    sa0, sc0, tsa0, tsc0, tcf = saved
    for k in range(K):
        tsa[k] = 0.0
        tsc[k] = 0.0
        tsd[k] = 0.0
        kver[k] += 1                  # every memoised prefix row of the node is stale
        for f in range(F):
            for w in range(u[f]):
                sa[k, f, w] = 0.0
                sc[k, f, w] = 0.0
                sd[k, f, w] = 0.0
                hmin[k, f, w] = INF
    if restore:
        for k in range(K):
            tsa[k] = tsa0[k]
            tsc[k] = tsc0[k]
            for f in range(F):
                for w in range(u[f]):
                    sa[k, f, w] = sa0[k, f, w]
                    sc[k, f, w] = sc0[k, f, w]
        return
    if not any_valid:
        # The totals alone, each summed in S's order as below.
        for q in range(start, end):
            i = sample_index[q]
            yi = y[i]
            e = em[i]
            for k in range(yi):
                tsc[k] += e
            tsa[yi] += e
            for k in range(yi + 1, K):
                tsc[k] += e
        return
    W = sa.shape[2]
    for f in range(F):
        for w in range(u[f]):
            b = (f * W + w) * K
            for k in range(K):
                tcf[b + k] = 0.0
    for q in range(start, end):
        i = sample_index[q]
        yi = y[i]
        e = em[i]
        for k in range(yi):
            tsc[k] += e
        tsa[yi] += e
        for k in range(yi + 1, K):
            tsc[k] += e
        for f in range(F):
            w = xw[i, f]
            sa[yi, f, w] += e
            b = (f * W + w) * K
            for k in range(yi):
                tcf[b + k] += e
            for k in range(yi + 1, K):
                tcf[b + k] += e
    for k in range(K):
        tsa0[k] = tsa[k]
        tsc0[k] = tsc[k]
        for f in range(F):
            for w in range(u[f]):
                x = tcf[(f * W + w) * K + k]
                sc[k, f, w] = x
                sa0[k, f, w] = sa[k, f, w]
                sc0[k, f, w] = x


@njit(cache=True, nogil=True)
def _reset_blocks(u, bM, bN):
    """Start a pass's filter scan with every block to be scanned: bound _BIG at 0 events
    (``best_split_phase1``)."""
    for f in range(u.shape[0]):
        for bi in range((u[f] - 1 + SCAN_BLOCK - 1) // SCAN_BLOCK):
            bM[f, bi] = _BIG
            bN[f, bi] = 0


@njit(cache=True, nogil=True, inline="always")
def _count_rows(u, cnt, pe, rc, dirty, tot, sweep, LT1, LT2, Q, kleft, krow, kvmax):
    """Bring the error prefixes of the stale labels (0-1 events since their last update) up
    to date where they can raise the filter bound Q (``ROW_RAISE``) or are read at every
    position (``ROW_NEEDED``); Q (``best_split_phase1``) is raised by the labels' new slacks
    L - own (own: pe on line 7, rc on line 9), so it stays >= max_k (L - own_k). LT1, LT2
    are L1, L2 laid out (label, feature, threshold), kept equal to them by every write, so
    that a label's row is read in sequence here.

    A label stale by rises alone (correct examples turning wrong) is left stale: a rise at
    bin w adds 1 to pe[k, f, v] for v >= w (line 7's own) and to rc[k, f, v] for v < w
    (line 9's own; tot[k] grows by 1), so no own error falls and no slack rises — its
    remade rows would raise no Q entry (each is >= the slack it had when last made, or, if
    examined since, its exact slack then). So Q takes the same values as when every stale
    row is remade (the eager rule, ``ROW_NEEDED`` on every label), and so does every
    listing; the rows' values are read through ``_left_count``. When at most
    ``EAGER_ROWS_MAX`` labels are stale, all of them are remade (nothing is left stale).

    Line 9 (sweep 1): the k_left entries krow of every label with 0-1 events since they
    were summed (``ROW_KROW``) are summed again from its counts (``_krow_sums``)."""
    K, F, _ = cnt.shape
    n_stale = 0
    for k in range(K):
        if dirty[k] & ROW_STALE:
            n_stale += 1
    every = n_stale <= EAGER_ROWS_MAX
    for k in range(K):
        d = dirty[k]
        if not (d & ROW_STALE) or not (every or d & (ROW_RAISE | ROW_NEEDED)):
            continue
        dirty[k] = d & (ROW_NEEDED | ROW_KROW)
        tk = tot[k]
        for f in range(F):
            c = 0
            for v in range(u[f] - 1):
                c += cnt[k, f, v]
                pe[k, f, v] = c
                rc[k, f, v] = tk - c
                if sweep == 0:
                    sl = LT1[k, f, v] - c
                else:
                    sl = LT2[k, f, v] - (tk - c)
                if sl > Q[f, v]:
                    Q[f, v] = sl
    if sweep == 1:
        for k in range(K):
            if dirty[k] & ROW_KROW:
                dirty[k] &= ~ROW_KROW
                _krow_sums(u, cnt, k, kleft, krow, kvmax)


@njit(cache=True, nogil=True, inline="always")
def _krow_sums(u, cnt, k, kleft, krow, kvmax):
    """krow[f, v] = pe[k, f, v] as ``_count_rows`` would make it now, for every (f, v) whose
    k_left is k: the prefix of k's per-bin counts up to the largest such v of each feature
    (kvmax[k, f]; -1: none), the same integers."""
    for f in range(u.shape[0]):
        c = 0
        for v in range(kvmax[k, f] + 1):
            c += cnt[k, f, v]
            if kleft[f, v] == k:
                krow[f, v] = c


@njit(cache=True, nogil=True)
def _start_krow(u, pe, kleft, krow, kvmax):
    """At the start of a line-9 pass (the rows just made, ``_reset_sweep``): krow[f, v] =
    pe[kleft[f, v], f, v], and kvmax[k, f] the largest v whose k_left is k (-1: none)."""
    for k in range(kvmax.shape[0]):
        for f in range(u.shape[0]):
            kvmax[k, f] = -1
    for f in range(u.shape[0]):
        for v in range(u[f] - 1):
            k = kleft[f, v]
            krow[f, v] = pe[k, f, v]
            kvmax[k, f] = v


@njit(cache=True, nogil=True)
def _remake_row(u, cnt, pe, rc, dirty, tot, k):
    """Remake label k's error prefixes (pe, rc) from its per-bin counts, as ``_count_rows``
    does but without touching Q: called only for a row stale by rises alone, whose slacks
    raise no Q entry (``_count_rows``)."""
    tk = tot[k]
    for f in range(cnt.shape[1]):
        c = 0
        for v in range(u[f] - 1):
            c += cnt[k, f, v]
            pe[k, f, v] = c
            rc[k, f, v] = tk - c
    dirty[k] &= ROW_NEEDED | ROW_KROW


@njit(cache=True, nogil=True, inline="always")
def _left_count(u, cnt, pe, rc, dirty, tot, k, f, v):
    """pe[k, f, v] as ``_count_rows`` would make it now: read from the row when it is up to
    date, else summed from k's per-bin counts (bins 0..v; from ``ROW_SUM_MAX`` bins on the
    row is remade, ``_remake_row``): the same integers."""
    if dirty[k] & ROW_STALE:
        if v < ROW_SUM_MAX:
            c = 0
            for b in range(v + 1):
                c += cnt[k, f, b]
            return c
        _remake_row(u, cnt, pe, rc, dirty, tot, k)
    return pe[k, f, v]


@njit(cache=True, nogil=True)
def _mark_needed(dirty, sweep, r, eager):
    """After a sweep's ``_reset_sweep``: the labels whose rows are read at every visited
    position (line 7: S's label r, the rest of S_right) are kept up to date
    (``ROW_NEEDED``); ``eager``: every label, the rule before lazy rows. (Line 9 reads
    only the k_left entries of the rows, kept in krow: ``ROW_KROW``.)"""
    K = dirty.shape[0]
    if eager:
        for k in range(K):
            dirty[k] |= ROW_NEEDED
    elif sweep == 0:
        dirty[r] |= ROW_NEEDED


@njit(cache=True, nogil=True, inline="always")
def _apply_bucket(jpos, ev_k, j, K, correct, ev_i, ev_a, ev_b, xw, any_valid, kinks, sc,
                  sd, cnt, dirty, tot, tsc, tsd, kver, kdone, fill, kstart, kl_i, kl_m, kl_w,
                  ev_x, nbin):
    """Apply the events of axis position j (the kinks only with ``kinks``); returns the number
    of 0-1 events. A 0-1 event of label k moves k's error count in i's bins and marks k's
    prefixes dirty (``_count_rows``). A kink moves the label's totals; its per-bin sums are
    moved here only without ``kdone`` (an empty array); with it, the kink is counted
    (kdone[k]) and moved when a row of those sums is read (``_apply_kinks``), and with
    ``fill`` (the node's first sweep) it is written to label k's list of kinks (kl_i, kl_m,
    kl_w from kstart[k], ``_node_events``) as the kdone[k]-th: the lists in the order the
    sweep passes the kinks (position, then bucket order), complete up to kdone before any
    row reads them. Without a valid split (``any_valid``) no per-bin sum is read, and none
    is moved.

    The position's kinks, then its wrong examples turning right (-1), then its correct ones
    turning wrong (+1) (``_node_events``' buckets): the kinks in their order, and integer
    counts, so the same sums as in the events' order. A 0-1 event's bin index is
    nbin[f, ev_x[q, f]] where the events carry their examples' bins (``PACKED_ROWS_MIN``),
    xw[i, f] otherwise: the same index."""
    a = 0 if j == 0 else jpos[3 * j - 1]
    F = sc.shape[1]
    lazy = kdone.shape[0] > 0
    packed = ev_x.shape[0] > 0
    if kinks:
        for q in range(a, jpos[3 * j + KIND_KINK]):     # past the kink: e^-m -> e^(a - w)
            i = ev_i[q]               # unsigned: no wraparound test where it indexes
            k = ev_k[q]
            mv = ev_a[q]              # em[i]
            dv = ev_b[q]              # ew[i, k]
            tsc[k] -= mv
            tsd[k] += dv
            kver[k] += 1
            if lazy:
                x = kdone[k]
                if fill:
                    p = kstart[k] + x
                    kl_i[p] = i
                    kl_m[p] = mv
                    kl_w[p] = dv
                kdone[k] = x + 1
                continue
            if not any_valid:
                continue
            for f in range(F):
                w = xw[i, f]
                sc[k, f, w] -= mv
                sd[k, f, w] += dv
    b = jpos[3 * j + KIND_KINK]
    for kind in range(KIND_RIGHT, KIND_RISE + 1):
        d = 1 if kind == KIND_RISE else -1
        # (a right turn lowers an own error: the rows must raise Q, ``_count_rows``)
        flag = (ROW_STALE | ROW_KROW if kind == KIND_RISE
                else ROW_STALE | ROW_RAISE | ROW_KROW)
        e = jpos[3 * j + kind]
        for q in range(b, e):
            i = ev_i[q]
            k = ev_k[q]
            tot[k] += d
            if not any_valid:
                continue
            dirty[k] |= flag
            if packed:
                for f in range(F):
                    cnt[k, f, nbin[f, ev_x[q, f]]] += d
            else:
                for f in range(F):
                    cnt[k, f, xw[i, f]] += d
        b = e
    return jpos[3 * j + KIND_RISE] - jpos[3 * j + KIND_KINK]


@njit(cache=True, nogil=True)
def _apply_kinks(k, f, xw, sc, sd, kl_i, kl_m, kl_w, kstart, kdone, kcur):
    """Move the kinks of label k passed so far (kdone[k]) but not yet moved in feature f's
    bins (from kcur[k, f]): the per-bin sums of row (k, f) as ``_apply_bucket`` would have
    left them. Label k's kinks are kl_i, kl_m, kl_w (the example, its em and its ew under k)
    from kstart[k] on, in the order the sweep passes them (``_apply_bucket``). Each bin receives the same subtractions and additions in the same order, so
    the same floats."""
    base = kstart[k]
    for x in range(base + kcur[k, f], base + kdone[k]):
        w = xw[kl_i[x], f]
        sc[k, f, w] -= kl_m[x]
        sd[k, f, w] += kl_w[x]
    kcur[k, f] = kdone[k]


@njit(cache=True, nogil=True, inline="always")
def _rise_minima(jpos, ev_k, j, K, correct, ev_i, ev_a, xw, ev_x, nbin, hmin, tmin, reset,
                 per_bin):
    """Per label (tmin) and, with per_bin, per (label, feature, non-empty bin) (hmin), the
    smallest point where an example of S turns wrong among the rises of bucket j — or, with
    reset, put hmin back to inf. The per-bin minima are needed only where candidates are
    listed (their own interval ends); the per-label ones by the single labels everywhere.
    An example's bin index is xw[i, f], or nbin[f, ev_x[q, f]] from the event's own copy of
    its bins where the events carry one (``PACKED_ROWS_MIN``): the same index."""
    F = hmin.shape[1]
    packed = ev_x.shape[0] > 0
    for k in range(K):
        tmin[k] = INF
    # Only the bucket of j's rises (``_node_events``).
    for q in range(jpos[3 * j + KIND_RIGHT], jpos[3 * j + KIND_RISE]):
        i = ev_i[q]
        k = ev_k[q]
        if reset:
            for f in range(F):
                w = nbin[f, ev_x[q, f]] if packed else xw[i, f]
                hmin[k, f, w] = INF
            continue
        v = ev_a[q]                   # scores[i, y_i] - scores[i, k]
        if v < tmin[k]:
            tmin[k] = v
        if not per_bin:
            continue
        for f in range(F):
            w = nbin[f, ev_x[q, f]] if packed else xw[i, f]
            if v < hmin[k, f, w]:
                hmin[k, f, w] = v


@njit(cache=True, nogil=True)
def _loss_row(sa, sc, sd, k, f, nt, pa, pc, pd, rowver, kver):
    """For label k and feature f: the loss sums over the bins <= each threshold (memoised
    until k's sums change). Summed bin by bin over the non-empty bins only: the empty ones add
    +0.0, which changes no sum."""
    if rowver[k, f] == kver[k]:
        return
    rowver[k, f] = kver[k]
    ca = 0.0
    cc = 0.0
    cd = 0.0
    for v in range(nt):
        ca += sa[k, f, v]
        cc += sc[k, f, v]
        cd += sd[k, f, v]
        pa[k, f, v] = ca
        pc[k, f, v] = cc
        pd[k, f, v] = cd


@njit(cache=True, nogil=True)
def _rise_row(hmin, k, f, nt, ph, sh, hstamp, pos_id):
    """For label k (with rises in the next bucket) and feature f: the smallest rise point over
    the bins <= each threshold (ph) and over the bins above it (sh)."""
    if hstamp[k, f] == pos_id:
        return
    hstamp[k, f] = pos_id
    ch = INF
    for v in range(nt):
        if hmin[k, f, v] < ch:
            ch = hmin[k, f, v]
        ph[k, f, v] = ch
    ch = hmin[k, f, nt]
    for v in range(nt - 1, -1, -1):
        sh[k, f, v] = ch
        if hmin[k, f, v] < ch:
            ch = hmin[k, f, v]


@njit(cache=True, nogil=True)
def best_split_phase1(X, sample_index, start, end, n_bins, y, scores, cur, cur_lab,
                      want_split, correct, rank, s_idx, R, axis, em, kink_pos, ew, unit, mark,
                      stamp, oE, oC, oD, oH, bE, bC, bD, jpos, ev_all_k, sa, sc, sd, tot, tsa,
                      tsc, tsd, nbin, L1, X1, L2, X2, kleft, tmin, lmin, xs, u, ub, xw, pe, rc,
                      pa, pc, pd, ph, sh, hmin, rowver, hstamp, kver, Q, lst, cnt, dirty, vcnt, mstat,
                      half, lazy, ev_base, seg):
    """Best split of node S (Alg. 1.2 lines 4-13) under the global key (module docstring).

    Returns (found, feature, threshold, k_left, k_right, k_single); k_single is the best
    single label of S (the whole tree with S voting it), used for a one-leaf root.

    Every candidate c = (feature, threshold, label) keeps its running key (L, X): at each
    axis position in order, if its error e <= L its cell loss x is computed and (L, X) becomes
    (e, x) when ``_key_better``. That fold is what defines the result; the work is cut without
    changing it (ALGORITHMS.md, Speed):

    * candidates live on the node's non-empty bins (``_node_bins``);
    * between two 0-1 events of S (a stretch) every candidate's own error is constant and only
      the positions of smallest rest-of-tree error are visited (``_stretch_minima``), all with
      the same error: the candidates with e <= L are found at the first of them and listed,
      and at the others exactly the listed ones have e = L;
    * e = m + rest(f, v) + own_k(f, v), with m the rest of the tree, rest(f, v) the part
      shared by the labels (line 7: S_right keeping S's label; line 9: S_left keeping k_left)
      and own_k the label's part; Q[f, v] >= max_k (L[f, v, k] - own_k(f, v)) is kept (raised
      when an own_k falls, recomputed exactly whenever (f, v) is examined), so a (f, v) with
      m + rest(f, v) > Q[f, v] has no candidate with e <= L and is skipped;
    * the scan of the (f, v) goes by blocks of ``SCAN_BLOCK`` thresholds, each with a bound
      bM >= max over the block of Q[f, v] - rest(f, v), exact when the block was last
      scanned: a 0-1 event raises any Q by at most 1 and moves rest(f, v) by at most 1, so
      a block is skipped while m > bM + 2 (0-1 events since) — none of its (f, v) passes;
    * error counts are kept per bin and a label's threshold prefixes recomputed once per
      stretch when a right turn changed them (rises alone cannot raise Q: the prefixes are
      then summed from the counts where read; ``_count_rows``); loss prefix sums are
      memoised per (label, feature) until that label's sums change;
    * pass A (errors only) finds every candidate's smallest error L first, so pass B computes
      cell losses only at positions with e = L (the fold restarts at the first such position,
      as the running fold's unconditional replacement does); without pass A, pass B folds at
      the running smallest error as before. Both give the same (L, X); the node takes the
      mode the previous node measured as cheaper (``mstat``);
    * a cell loss whose minimiser is clearly outside the inset cell takes the clip bound
      with the position's exponentials (no logarithms; the same floats).
    """
    F = X.shape[1]
    K = tot.shape[0]
    B = L1.shape[1]
    rec = (lazy[17], lazy[18], lazy[19], lazy[20], lazy[21], lazy[22])
    oA = _rest_of_tree(sample_index, start, end, correct, rank, R, em, rec, mark, stamp, oE,
                       oC, oD, oH, bE, bC, bD)
    (hflag, oHC, oHD, hc, hd, thc, thd, hcnt, phc, phd, hrow, hon, X1c, X2c, xsc,
     dstat) = half
    # hon[0]: 0 the midpoint placement, 1 the cut-aware one, 2 both (``grow_phase1_pair``):
    # the node is chosen by the midpoint keys, and the cut-aware keys (X1c, X2c, xsc) are
    # folded beside them to tell whether the cut-aware search would choose the same
    # (dstat[0] = 1 when it might not).
    cut_on = hon[0] > 0
    dual = hon[0] == 2
    dstat[0] = 0
    if cut_on:
        _rest_half(sample_index, start, end, R, em, rec, mark, stamp, oHC, oHD)
        for k in range(K):
            for f in range(F):
                hrow[k, f] = -1
    (kl_i, kstart, kdone, kcur, kempty, sa0, sc0, tsa0, tsc0, ev_all_i, ev_all_a, ev_all_b,
     kl_m, kl_w, tcf, LT1, LT2, _, _, _, _, _, _, bM, bN, ev_all_bk, _, _, krow,
     kvmax, ev_all_x) = lazy
    # The node's events are listed from ev_base on (``_grow_phase1``).
    ev_k = ev_all_k[ev_base:]
    ev_i = ev_all_i[ev_base:]
    ev_a = ev_all_a[ev_base:]
    ev_b = ev_all_b[ev_base:]
    ev_bk = ev_all_bk[ev_base:]
    ev_x = ev_all_x[ev_base:]
    if dstat[3] == 1:
        # The root's split search right after its label search (``_grow_phase1``): the same
        # S in the same order and the same round data, so the same bins and events as that
        # search left (made once, not twice).
        dstat[3] = 0
        any_valid = False
        if want_split:
            for f in range(F):
                if u[f] >= 2:
                    any_valid = True
    else:
        any_valid = _node_bins(X, sample_index, start, end, n_bins, want_split, nbin, u, ub,
                               xw)
        if seg >= 0:
            # Cut out of the parent's by its split (``_partition_events``).
            _segment_events(ev_k, ev_bk, seg, R, K, jpos, kstart)
        else:
            _node_events(X, sample_index, start, end, y, correct, rank, s_idx, R, kink_pos,
                         jpos, ev_k, K, scores, em, ew, ev_i, ev_a, ev_b, kstart, ev_bk, ev_x)
    keep = bE     # free after _rest_of_tree
    _stretch_minima(jpos, ev_k, R, oE, keep)
    # Kinks move the per-bin loss sums of a (label, feature) row only when that row is read
    # (``_apply_kinks``): most rows are read at few positions, if at all. The labels' kink
    # lists are written by the first sweep's pass B as it passes them (``_apply_bucket``).
    saved = (sa0, sc0, tsa0, tsc0, tcf)
    if any_valid:
        kdone_b = kdone
    else:
        kdone_b = kempty
    for k in range(K):
        lmin[k] = _BIG
        xs[k] = INF
    if any_valid:
        for f in range(F):
            for v in range(u[f] - 1):
                for k in range(K):
                    L1[f, v, k] = _BIG
                    L2[f, v, k] = _BIG
        for k in range(K):
            for f in range(F):
                for v in range(u[f] - 1):
                    LT1[k, f, v] = _BIG
                    LT2[k, f, v] = _BIG
    for k in range(K):
        for f in range(F):
            hstamp[k, f] = -1
    pos_id = 0
    n_sweeps = 2 if any_valid else 1
    r = np.int64(cur_lab)
    # Pass A pays where the running smallest error sits above the final one at many
    # positions (pass B would compute cell losses that a lower error later discards); it
    # costs one more scan of the thresholds per stretch. Each node measures both (the
    # candidates at e <= running L and at e = final L, at the stretches' first positions)
    # and the next node takes the cheaper mode (mstat[0]); the results are the same.
    two_pass = mstat[0] > 0.5 if mstat[2] < 0.0 else mstat[2] > 0.5
    # Lazy error-prefix rows (``_count_rows``) where S has many 0-1 events per axis position
    # (at most |S| K of them); a smaller node, and mstat[3] = 1 (tests), remakes every
    # stale row at each visited position and reads the rows alone (speed only).
    eager_rows = mstat[3] > 0.5 or (end - start) * K < LAZY_EVENTS_PER_POS * R
    tsum = 0
    for f in range(F):
        if u[f] > 1:
            tsum += u[f] - 1
    n_first = 0
    v_run = 0
    v_fin = 0
    for sweep in range(n_sweeps):
        if any_valid and not two_pass:
            for f in range(F):
                for v in range(u[f] - 1):
                    for k in range(K):
                        vcnt[f, v, k] = 0
                        if sweep == 0:
                            X1[f, v, k] = np.nan
                            X1c[f, v, k] = np.nan
                        else:
                            X2[f, v, k] = np.nan
                            X2c[f, v, k] = np.nan
        if any_valid and two_pass:
            # Pass A: every candidate's smallest error over the axis (L), on the errors alone.
            _reset_sweep(sample_index, start, end, y, correct, em, xw, u, any_valid, False, sa,
                         sc, sd, cnt, pe, rc, dirty, tot, tsa, tsc, tsd, hmin, kver, saved,
                         False)
            _mark_needed(dirty, sweep, r, eager_rows)
            if sweep == 1:
                _start_krow(u, pe, kleft, krow, kvmax)
            for f in range(F):
                for v in range(u[f] - 1):
                    Q[f, v] = _BIG
            _reset_blocks(u, bM, bN)
            n_ev = 0
            first = True
            for j in range(R):
                n01 = 0
                if jpos[3 * j + KIND_RISE] > (0 if j == 0 else jpos[3 * j - 1]):
                    n01 = _apply_bucket(jpos, ev_k, j, K, correct, ev_i, ev_a, ev_b, xw,
                                        any_valid, False, sc, sd, cnt, dirty, tot, tsc, tsd,
                                        kver, kempty, False, kstart, kl_i, kl_m, kl_w, ev_x, nbin)
                if n01 > 0:
                    first = True
                    n_ev += n01
                if keep[j] == 0 or not first:
                    continue
                first = False
                oe = oE[j]
                _count_rows(u, cnt, pe, rc, dirty, tot, sweep, LT1, LT2, Q, kleft, krow,
                            kvmax)
                for f in range(F):
                    for bi in range((u[f] - 1 + SCAN_BLOCK - 1) // SCAN_BLOCK):
                        if oe > bM[f, bi] + 2 * (n_ev - bN[f, bi]):
                            mstat[4] += 1.0   # (counted for the tests)
                            continue          # no threshold of the block passes the filter
                        mb = -_BIG
                        for v in range(bi * SCAN_BLOCK, min((bi + 1) * SCAN_BLOCK, u[f] - 1)):
                            if sweep == 0:
                                row = rc[r, f, v]
                            else:
                                row = krow[f, v]
                            base = oe + row
                            if base >= Q[f, v]:
                                # no label lowers its error here
                                if Q[f, v] - row > mb:
                                    mb = Q[f, v] - row
                                continue
                            qn = -_BIG
                            for k in range(K):
                                if dirty[k] & ROW_STALE:
                                    own = _left_count(u, cnt, pe, rc, dirty, tot, k, f, v)
                                    if sweep == 1:
                                        own = tot[k] - own
                                else:
                                    own = pe[k, f, v] if sweep == 0 else rc[k, f, v]
                                e = base + own
                                if sweep == 0:
                                    lk = L1[f, v, k]
                                    if e <= lk:
                                        v_run += 1
                                    if e < lk:
                                        L1[f, v, k] = e
                                        LT1[k, f, v] = e
                                        lk = e
                                else:
                                    lk = L2[f, v, k]
                                    if e <= lk:
                                        v_run += 1
                                    if e < lk:
                                        L2[f, v, k] = e
                                        LT2[k, f, v] = e
                                        lk = e
                                if lk - own > qn:
                                    qn = lk - own
                            Q[f, v] = qn
                            if qn - row > mb:
                                mb = qn - row
                        bM[f, bi] = mb
                        bN[f, bi] = n_ev
            for f in range(F):
                for v in range(u[f] - 1):
                    for k in range(K):
                        if sweep == 0:
                            X1[f, v, k] = np.nan
                            X1c[f, v, k] = np.nan
                        else:
                            X2[f, v, k] = np.nan
                            X2c[f, v, k] = np.nan
        # Pass B: the cell losses where a candidate has its smallest error (without pass A:
        # its running smallest error), folded in axis order (X: NaN until the first), and the
        # single labels.
        # (The second sweep's sums are the first's: copied, not summed again.)
        _reset_sweep(sample_index, start, end, y, correct, em, xw, u, any_valid, True, sa, sc,
                     sd, cnt, pe, rc, dirty, tot, tsa, tsc, tsd, hmin, kver, saved, sweep > 0)
        if any_valid:
            _mark_needed(dirty, sweep, r, eager_rows)
            if sweep == 1:
                _start_krow(u, pe, kleft, krow, kvmax)
            for k in range(K):
                kdone[k] = 0
                for f in range(F):
                    kcur[k, f] = 0
        for f in range(F):
            for v in range(u[f] - 1):
                Q[f, v] = _BIG
        _reset_blocks(u, bM, bN)
        n_ev = 0
        nl = 0
        first = True
        for j in range(R):
            # (Most buckets of a small node are empty: no call for those.)
            n01 = 0
            if jpos[3 * j + KIND_RISE] > (0 if j == 0 else jpos[3 * j - 1]):
                n01 = _apply_bucket(jpos, ev_k, j, K, correct, ev_i, ev_a, ev_b, xw,
                                    any_valid, True, sc, sd, cnt, dirty, tot, tsc, tsd, kver,
                                    kdone_b, sweep == 0, kstart, kl_i, kl_m, kl_w, ev_x, nbin)
            n_ev += n01
            if n01 > 0:
                first = True          # a new stretch
            if keep[j] == 0:
                continue      # every candidate has fewer errors elsewhere (_stretch_minima)
            lo = axis[j]
            hi = axis[j + 1] if j + 1 < R else INF
            cell_end = hi
            ohc = 0.0
            ohd = 0.0
            # The bucket's left-half kinks (hc, hd, thc, thd, hcnt) are summed when a cut
            # candidate first needs them at this position (the same sums whenever made:
            # they start from zero at every position).
            half_in = False
            if cut_on:
                ohc = oHC[j]
                ohd = oHD[j]
            oe = oE[j]
            oc = oC[j]
            od = oD[j]
            # A hypothesis's interval starting at axis[j] ends at its first rise inside the
            # cell (the rises of bucket j + 1): per (label, feature, bin) minima.
            # (Only rises end it; a bucket without them leaves tmin at inf.)
            rises_next = jpos[3 * j + 3 + KIND_RISE] > jpos[3 * j + 3 + KIND_RIGHT]
            if rises_next:
                _rise_minima(jpos, ev_k, j + 1, K, correct, ev_i, ev_a, xw, ev_x, nbin, hmin,
                             tmin, False, False)
            else:
                for k in range(K):
                    tmin[k] = INF
            per_bin = False
            hi = min(hi, oH[j])
            if sweep == 0:
                # The single label: S votes k.
                for k in range(K):
                    e = oe + tot[k]
                    if e <= lmin[k]:
                        hk = min(hi, tmin[k])
                        xcut = 0.0
                        if cut_on and hk < cell_end:
                            # Cut short: the kinks of the cell's left half are still flat.
                            if not half_in:
                                _half_bucket(jpos, ev_k, j, K, hflag, ev_i, ev_a, ev_b, xw,
                                             hc, hd, thc, thd, hcnt, True)
                                half_in = True
                            xcut = cell_loss(oA + tsa[k], oc + tsc[k] + ohc + thc[k],
                                             max(od + tsd[k] - ohd - thd[k], 0.0), lo, hk,
                                             unit)
                        if cut_on and hk < cell_end and not dual:
                            x = xcut
                        else:
                            x = cell_loss(oA + tsa[k], oc + tsc[k], od + tsd[k], lo, hk, unit)
                        l_old = lmin[k]
                        if _key_better(e, x, lmin[k], xs[k]):
                            lmin[k] = e
                            xs[k] = x
                        if dual:
                            if not (cut_on and hk < cell_end):
                                xcut = x
                            if _key_better(e, xcut, l_old, xsc[k]):
                                xsc[k] = xcut
            if any_valid:
                pos_id += 1
                if first:
                    n_first += 1
                    _count_rows(u, cnt, pe, rc, dirty, tot, sweep, LT1, LT2, Q, kleft,
                                krow, kvmax)
                    # The first visited position of a stretch: list the candidates with
                    # e <= L (after this position each has L = e, so Q can be renewed now).
                    nl = 0
                    for f in range(F):
                        for bi in range((u[f] - 1 + SCAN_BLOCK - 1) // SCAN_BLOCK):
                            if oe > bM[f, bi] + 2 * (n_ev - bN[f, bi]):
                                mstat[4] += 1.0   # (counted for the tests)
                                continue      # no threshold of the block passes
                            mb = -_BIG
                            for v in range(bi * SCAN_BLOCK,
                                           min((bi + 1) * SCAN_BLOCK, u[f] - 1)):
                                if sweep == 0:
                                    # Line 7: "k on S_left"; S_right keeps S's label r.
                                    row = rc[r, f, v]
                                    base = oe + row
                                    if base > Q[f, v]:
                                        if Q[f, v] - row > mb:
                                            mb = Q[f, v] - row
                                        continue
                                    qn = -_BIG
                                    for k in range(K):
                                        if dirty[k] & ROW_STALE:
                                            own = _left_count(u, cnt, pe, rc, dirty, tot, k, f,
                                                              v)
                                        else:
                                            own = pe[k, f, v]
                                        e = base + own
                                        lk = L1[f, v, k]
                                        if e <= lk:
                                            lst[nl, 0] = f
                                            lst[nl, 1] = v
                                            lst[nl, 2] = k
                                            lst[nl, 3] = e
                                            nl += 1
                                            if two_pass:
                                                v_fin += 1
                                            else:
                                                v_run += 1
                                                if e < lk:
                                                    vcnt[f, v, k] = 1
                                                else:
                                                    vcnt[f, v, k] += 1
                                            lk = e
                                        if lk - own > qn:
                                            qn = lk - own
                                    Q[f, v] = qn
                                    if qn - row > mb:
                                        mb = qn - row
                                else:
                                    # Line 9: "k_left on S_left, k on S_right".
                                    row = krow[f, v]
                                    base = oe + row
                                    if base > Q[f, v]:
                                        if Q[f, v] - row > mb:
                                            mb = Q[f, v] - row
                                        continue
                                    qn = -_BIG
                                    for k in range(K):
                                        if dirty[k] & ROW_STALE:
                                            own = tot[k] - _left_count(u, cnt, pe, rc, dirty,
                                                                       tot, k, f, v)
                                        else:
                                            own = rc[k, f, v]
                                        e = base + own
                                        lk = L2[f, v, k]
                                        if e <= lk:
                                            lst[nl, 0] = f
                                            lst[nl, 1] = v
                                            lst[nl, 2] = k
                                            lst[nl, 3] = e
                                            nl += 1
                                            if two_pass:
                                                v_fin += 1
                                            else:
                                                v_run += 1
                                                if e < lk:
                                                    vcnt[f, v, k] = 1
                                                else:
                                                    vcnt[f, v, k] += 1
                                            lk = e
                                        if lk - own > qn:
                                            qn = lk - own
                                    Q[f, v] = qn
                                    if qn - row > mb:
                                        mb = qn - row
                            bM[f, bi] = mb
                            bN[f, bi] = n_ev
                    first = False
                # The listed candidates' cell losses (at the stretch's other visited
                # positions, exactly the listed candidates have e = L). Where a candidate's
                # interval is the whole cell (lo, hi) and its minimiser a* is clearly
                # outside the inset cell [lo_in, hi_in], the step is a clip bound and its
                # exponentials are the position's: the same floats as cell_loss without its
                # logarithms. "Clearly": A < D e^(2 lo_in) (1 - 1e-9) gives a* < lo_in (the
                # 1e-9 dwarfs the rounding of the logs and of the products), A > D
                # e^(2 hi_in) (1 + 1e-9) gives a* > hi_in.
                if nl > 0 and rises_next:
                    per_bin = True
                    _rise_minima(jpos, ev_k, j + 1, K, correct, ev_i, ev_a, xw, ev_x, nbin,
                                 hmin, tmin, False, True)
                fast = hi < INF and nl > 0
                if fast:
                    wd = hi - lo
                    lo_in = lo + INTERVAL_INSET * wd
                    hi_in = hi - INTERVAL_INSET * wd
                    a_l = min(lo_in, hi_in)
                    em_l = np.exp(-a_l)
                    ep_l = np.exp(a_l)
                    em_h = np.exp(-hi_in)
                    ep_h = np.exp(hi_in)
                    t_lo = np.exp(2.0 * lo_in) * (1.0 - 1e-9)
                    t_hi = np.exp(2.0 * hi_in) * (1.0 + 1e-9)
                for q in range(nl):
                    f = lst[q, 0]
                    v = lst[q, 1]
                    k = lst[q, 2]
                    e = lst[q, 3]
                    nt = u[f] - 1
                    if sweep == 0:
                        a = r
                        lk = L1[f, v, k]
                        xk = X1[f, v, k]
                        xkc = X1c[f, v, k]
                    else:
                        a = np.int64(kleft[f, v])
                        lk = L2[f, v, k]
                        xk = X2[f, v, k]
                        xkc = X2c[f, v, k]
                    if rowver[a, f] != kver[a]:
                        _apply_kinks(a, f, xw, sc, sd, kl_i, kl_m, kl_w, kstart, kdone, kcur)
                        _loss_row(sa, sc, sd, a, f, nt, pa, pc, pd, rowver, kver)
                    if rowver[k, f] != kver[k]:
                        _apply_kinks(k, f, xw, sc, sd, kl_i, kl_m, kl_w, kstart, kdone, kcur)
                        _loss_row(sa, sc, sd, k, f, nt, pa, pc, pd, rowver, kver)
                    if sweep == 0:
                        A = oA + tsa[a] - pa[a, f, v] + pa[k, f, v]
                        C = oc + tsc[a] - pc[a, f, v] + pc[k, f, v]
                        D = od + tsd[a] - pd[a, f, v] + pd[k, f, v]
                    else:
                        A = oA + pa[a, f, v] + tsa[k] - pa[k, f, v]
                        C = oc + pc[a, f, v] + tsc[k] - pc[k, f, v]
                        D = od + pd[a, f, v] + tsd[k] - pd[k, f, v]
                    h = hi
                    if sweep == 0:
                        if tmin[a] < INF:
                            if hstamp[a, f] != pos_id:
                                _rise_row(hmin, a, f, nt, ph, sh, hstamp, pos_id)
                            h = min(h, sh[a, f, v])
                        if tmin[k] < INF:
                            if hstamp[k, f] != pos_id:
                                _rise_row(hmin, k, f, nt, ph, sh, hstamp, pos_id)
                            h = min(h, ph[k, f, v])
                    else:
                        if tmin[a] < INF:
                            if hstamp[a, f] != pos_id:
                                _rise_row(hmin, a, f, nt, ph, sh, hstamp, pos_id)
                            h = min(h, ph[a, f, v])
                        if tmin[k] < INF:
                            if hstamp[k, f] != pos_id:
                                _rise_row(hmin, k, f, nt, ph, sh, hstamp, pos_id)
                            h = min(h, sh[k, f, v])
                    cut = cut_on and h < cell_end
                    xcut = 0.0
                    if cut:
                        # The candidate is judged in the cell's part left of its first rise:
                        # its kinks are placed by the cell's left end, not its midpoint.
                        if not half_in:
                            _half_bucket(jpos, ev_k, j, K, hflag, ev_i, ev_a, ev_b, xw, hc,
                                         hd, thc, thd, hcnt, True)
                            half_in = True
                        hca = 0.0
                        hda = 0.0
                        if hcnt[a] > 0 or hcnt[k] > 0:
                            if hcnt[a] > 0:
                                _half_row(hc, hd, a, f, nt, phc, phd, hrow, pos_id)
                            if hcnt[k] > 0:
                                _half_row(hc, hd, k, f, nt, phc, phd, hrow, pos_id)
                            pa_c = phc[a, f, v] if hcnt[a] > 0 else 0.0
                            pa_d = phd[a, f, v] if hcnt[a] > 0 else 0.0
                            pk_c = phc[k, f, v] if hcnt[k] > 0 else 0.0
                            pk_d = phd[k, f, v] if hcnt[k] > 0 else 0.0
                            if sweep == 0:
                                hca = thc[a] - pa_c + pk_c
                                hda = thd[a] - pa_d + pk_d
                            else:
                                hca = pa_c + thc[k] - pk_c
                                hda = pa_d + thd[k] - pk_d
                        xcut = cell_loss(A, C + ohc + hca, max(D - ohd - hda, 0.0), lo, h,
                                         unit)
                    if cut and not dual:
                        x = xcut
                    elif fast and h == hi and A > 0.0 and D > 0.0 and A < D * t_lo:
                        x = C + A * em_l
                        x += D * ep_l
                    elif fast and h == hi and A > 0.0 and D > 0.0 and A > D * t_hi:
                        x = C + A * em_h
                        x += D * ep_h
                    else:
                        x = cell_loss(A, C, D, lo, h, unit)
                    if xk != xk or _key_better(e, x, lk, xk):
                        if sweep == 0:
                            L1[f, v, k] = e
                            LT1[k, f, v] = e
                            X1[f, v, k] = x
                        else:
                            L2[f, v, k] = e
                            LT2[k, f, v] = e
                            X2[f, v, k] = x
                    if dual:
                        # The cut-aware key's own fold (the same L: a listed candidate has
                        # e <= L, and L becomes e whatever the loss).
                        if not cut:
                            xcut = x
                        if xkc != xkc or _key_better(e, xcut, lk, xkc):
                            if sweep == 0:
                                X1c[f, v, k] = xcut
                            else:
                                X2c[f, v, k] = xcut
            if per_bin:
                _rise_minima(jpos, ev_k, j + 1, K, correct, ev_i, ev_a, xw, ev_x, nbin, hmin,
                             tmin, True, True)
            if half_in:
                _half_bucket(jpos, ev_k, j, K, hflag, ev_i, ev_a, ev_b, xw, hc, hd, thc, thd,
                             hcnt, False)
        if any_valid and not two_pass:
            for f in range(F):
                for v in range(u[f] - 1):
                    for k in range(K):
                        v_fin += vcnt[f, v, k]
        if sweep == 0 and any_valid:
            for f in range(F):
                for v in range(u[f] - 1):
                    best_k = 0
                    for k in range(1, K):
                        if _key_better(L1[f, v, k], X1[f, v, k], L1[f, v, best_k],
                                       X1[f, v, best_k]):
                            best_k = k
                    kleft[f, v] = best_k
                    if dual:
                        best_c = 0
                        for k in range(1, K):
                            if _key_better(L1[f, v, k], X1c[f, v, k], L1[f, v, best_c],
                                           X1c[f, v, best_c]):
                                best_c = k
                        if best_c != best_k:
                            dstat[0] = 1
            if dstat[0] == 1:
                # Line 9 would search other candidates under the cut-aware keys: this node
                # is searched again under them (``resume_cut_tree``); finish it as the
                # midpoint one.
                dual = False
                cut_on = False
    if any_valid:
        mstat[0] = 1.0 if (v_run - v_fin) * mstat[1] > n_first * tsum else 0.0
    k_single = 0
    for k in range(1, K):
        if _key_better(lmin[k], xs[k], lmin[k_single], xs[k_single]):
            k_single = k
    if dual and not want_split:
        # Only a one-leaf root uses the single label (the first search of a tree). k_c is
        # the cut-aware search's own k_single (the same errors, the cut-aware losses folded
        # alike): a restarted cut-aware tree takes it from here (dstat[4]).
        k_c = 0
        for k in range(1, K):
            if _key_better(lmin[k], xsc[k], lmin[k_c], xsc[k_c]):
                k_c = k
        dstat[4] = k_c
        if k_c != k_single:
            dstat[0] = 1
    if not any_valid:
        return False, -1, -1, k_single, k_single, k_single
    found = False
    best_e = _BIG
    best_x = INF
    bf = -1
    bt = -1
    bkl = 0
    bkr = 0
    for f in range(F):
        for v in range(u[f] - 1):
            kr = 0
            for k in range(1, K):
                if _key_better(L2[f, v, k], X2[f, v, k], L2[f, v, kr], X2[f, v, kr]):
                    kr = k
            if not found or _key_better(L2[f, v, kr], X2[f, v, kr], best_e, best_x):
                found = True
                best_e = L2[f, v, kr]
                best_x = X2[f, v, kr]
                bf = f
                bt = ub[f, v]
                bkl = kleft[f, v]
                bkr = kr
    if dual:
        # The same choice under the cut-aware keys (kleft is theirs too, checked above).
        found_c = False
        bf_c = -1
        best_ec = _BIG
        best_xc = INF
        bt_c = -1
        bkr_c = 0
        for f in range(F):
            for v in range(u[f] - 1):
                kr = 0
                for k in range(1, K):
                    if _key_better(L2[f, v, k], X2c[f, v, k], L2[f, v, kr], X2c[f, v, kr]):
                        kr = k
                if not found_c or _key_better(L2[f, v, kr], X2c[f, v, kr], best_ec, best_xc):
                    found_c = True
                    best_ec = L2[f, v, kr]
                    best_xc = X2c[f, v, kr]
                    bf_c = f
                    bt_c = ub[f, v]
                    bkr_c = kr
        if bf_c != bf or bt_c != bt or bkr_c != bkr:
            dstat[0] = 1
    return True, bf, bt, bkl, bkr, k_single


# ---------------------------------------------------------------------------------------------
# The grower
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _copy_tree_state(src, dst, n, n_nodes, top):
    """Copy a partial tree from ``src`` to ``dst``, both laid out as ``Phase1Scratch.snap``
    (sample_index, vote, feature, threshold, left, right, node_label, node_start, node_end,
    node_depth, stack): the examples' order and votes, nodes 0:n_nodes and stack[0:top].
    ``grow_phase1_pair`` keeps the tree where its two placements part (tree -> snapshot) and
    ``resume_cut_tree`` goes on from it (snapshot -> tree). Not the thresholds: a leaf's is
    whatever the workspace held, and a tree grown from the root after the midpoint one would
    find the midpoint tree's there."""
    for i in range(n):
        dst[0][i] = src[0][i]
        dst[1][i] = src[1][i]
    for m in range(n_nodes):
        dst[2][m] = src[2][m]
        dst[4][m] = src[4][m]
        dst[5][m] = src[5][m]
        dst[6][m] = src[6][m]
        dst[7][m] = src[7][m]
        dst[8][m] = src[8][m]
        dst[9][m] = src[9][m]
    for q in range(top):
        dst[10][q] = src[10][q]


@njit(cache=True, nogil=True)
def _grow_phase1(X, y, scores, n_bins, max_depth, R, unit, sample_index, partition_buf,
                 feature, threshold, left, right, node_label, node_start, node_end, node_depth,
                 stack, vote, n_nodes_out, correct, rank, s_idx, axis, em, kink_pos, ew, mark,
                 oE, oC, oD, oH, bE, bC, bD, jpos, ev_k, sa, sc, sd, tot, tsa, tsc, tsd,
                 nbin, L1, X1, L2, X2, kleft, tmin, lmin, xs, u, ub, xw, pe, rc, pa, pc, pd, ph,
                 sh, hmin, rowver, hstamp, kver, Q, lst, cnt, dirty, vcnt, mstat, half, snap,
                 resume, lazy):
    """Grow a tree (``half[11][0]``: the key's kink placement, 2 = both, see
    ``grow_phase1_pair``). With ``resume`` the tree starts from the state ``snap`` holds
    instead of the root (``resume_cut_tree``)."""
    n = X.shape[0]
    hon = half[11]
    dstat = half[15]
    # Each example's record under its vote (``_vote_records``), for the rest of the tree.
    rec = (lazy[17], lazy[18], lazy[19], lazy[20], lazy[21], lazy[22])
    # The nodes' event lists: two stores of n W entries (W = 2K - 1, the most events an
    # example has), a node at depth d listing its events in store d % 2 from W times its
    # first sample's index, so that a split node's children (``_partition_events``) and the
    # deeper nodes of the subtree grown before the right child's never overwrite that child's
    # list. node_evn: a node's number of events when its parent listed them, -1 when its
    # search must make them (``_node_events``: the root, and the nodes a resumed tree starts
    # from).
    ev_i = lazy[9]
    ev_a = lazy[10]
    ev_b = lazy[11]
    ev_bk = lazy[25]
    side = lazy[26]
    node_evn = lazy[27]
    W = 2 * scores.shape[1] - 1
    NW = n * W
    for q in range(node_evn.shape[0]):
        node_evn[q] = -1
    s_stack = snap[10]
    s_count = snap[11]
    # The tree's state in ``snap``'s layout (the thresholds' slot is never copied).
    tree = (sample_index, vote, feature, threshold, left, right, node_label, node_start,
            node_end, node_depth, stack)
    if resume:
        n_nodes = s_count[0]
        top = s_count[1]
        _copy_tree_state(snap, tree, n, n_nodes, top)
        _vote_records(sample_index, 0, n, y, scores, correct, s_idx, kink_pos, ew, half[0],
                      vote, rec)
        # Stamps above every one in ``mark`` (only equality with the node's stamp counts).
        stamp = dstat[2]
    else:
        n_nodes, top = start_tree(n, sample_index, feature, left, right, node_start, node_end,
                                  node_depth, stack)
        for i in range(n):
            mark[i] = -1
        if dstat[5] == 1:
            # A restarted cut-aware tree (``resume_cut_tree``): the pair's root label search
            # folded the cut-aware keys beside its own over the same S, order and round data,
            # and its cut-aware choice (dstat[4]) is what this search would return. The search
            # leaves nothing else the tree reads (a label search changes no mode statistic),
            # so only the root's split search makes the bins and events (dstat[3] = 0).
            dstat[5] = 0
            k0 = dstat[4]
        else:
            # The root starts as the one-leaf tree of the best single label (the rest of the
            # tree is empty, so S's current label does not matter for that choice).
            _, _, _, _, _, k0 = best_split_phase1(
                X, sample_index, 0, n, n_bins, y, scores, vote, 0, False, correct, rank, s_idx,
                R, axis, em, kink_pos, ew, unit, mark, 0, oE, oC, oD, oH, bE, bC, bD, jpos,
                ev_k, sa, sc, sd, tot, tsa, tsc, tsd, nbin, L1, X1, L2, X2, kleft, tmin,
                lmin, xs, u, ub, xw, pe, rc, pa, pc, pd, ph, sh, hmin, rowver, hstamp, kver, Q,
                lst, cnt, dirty, vcnt, mstat, half, lazy, 0, -1)
            if hon[0] == 2 and dstat[0] == 1:
                # The two placements differ on the root's label: the cut-aware tree is grown
                # from the start.
                dstat[1] = 2
                hon[0] = 0
            # The root's split search (the first node popped, if any) reuses this search's
            # bins and events (``best_split_phase1``).
            dstat[3] = 1
        node_label[0] = k0
        write_votes(sample_index, 0, n, k0, vote)
        _vote_records(sample_index, 0, n, y, scores, correct, s_idx, kink_pos, ew, half[0],
                      vote, rec)
        stamp = 1
    while top > 0:
        nd, top = pop_node(stack, top)
        start = node_start[nd]
        end = node_end[nd]
        if node_depth[nd] >= max_depth or end - start < 2:
            continue
        depth = node_depth[nd]
        ev_base = (depth % 2) * NW + start * W
        found, bf, bt, kl, kr, _ = best_split_phase1(
            X, sample_index, start, end, n_bins, y, scores, vote, node_label[nd], True,
            correct, rank, s_idx, R, axis, em, kink_pos, ew, unit, mark, stamp, oE, oC, oD, oH,
            bE, bC, bD, jpos, ev_k, sa, sc, sd, tot, tsa, tsc, tsd, nbin, L1, X1, L2, X2,
            kleft, tmin, lmin, xs, u, ub, xw, pe, rc, pa, pc, pd, ph, sh, hmin, rowver, hstamp,
            kver, Q, lst, cnt, dirty, vcnt, mstat, half, lazy, ev_base, node_evn[nd])
        stamp += 1
        if hon[0] == 2 and dstat[0] == 1:
            # The cut-aware search of this node might choose otherwise: keep the tree as it
            # stands before the node (the node back on the stack) for the cut-aware tree to
            # go on from, and grow the rest as the midpoint tree.
            dstat[1] = 1
            hon[0] = 0
            s_count[0] = n_nodes
            s_count[1] = top + 1
            _copy_tree_state(tree, snap, n, n_nodes, top)
            s_stack[top] = nd
        if not found:
            continue
        lc, rc_, mid, n_nodes, top = split_node(
            X, nd, bf, bt, n_nodes, top, sample_index, partition_buf, feature, threshold, left,
            right, node_start, node_end, node_depth, stack)
        node_label[lc] = kl
        node_label[rc_] = kr
        write_votes(sample_index, start, mid, kl, vote)
        write_votes(sample_index, mid, end, kr, vote)
        if depth + 1 < max_depth:
            # The children's events, cut out of this node's (still listed, and its jpos
            # still this node's: nothing ran since its search).
            for q in range(start, mid):
                side[sample_index[q]] = 0
            for q in range(mid, end):
                side[sample_index[q]] = 1
            dst = ((depth + 1) % 2) * NW
            m = jpos[3 * R + 3]
            mL, mR = _partition_events(
                ev_k[ev_base:], ev_i[ev_base:], ev_a[ev_base:], ev_b[ev_base:],
                ev_bk[ev_base:], m, side, ev_k, ev_i, ev_a, ev_b, ev_bk, dst + start * W,
                dst + mid * W, lazy[30][ev_base:], lazy[30])
            node_evn[lc] = mL
            node_evn[rc_] = mR
        _vote_records(sample_index, start, end, y, scores, correct, s_idx, kink_pos, ew,
                      half[0], vote, rec)
    n_nodes_out[0] = n_nodes
    dstat[2] = stamp
    dstat[3] = 0          # (the root unsearched: its events are not the next tree's)


@njit(cache=True, nogil=True)
def _grow_phase1_views(X, y, scores, n_bins, max_depth, R, unit, sample_index, partition_buf,
                       feature, threshold, left, right, node_label, node_start, node_end,
                       node_depth, stack, vote, n_nodes_out, correct, rank, s_idx, axis, em,
                       kink_pos, ew, mark, oE, oC, oD, oH, bE, bC, bD, jpos, ev_k, sa, sc,
                       sd, tot, tsa, tsc, tsd, nbin, L1, X1, L2, X2, kleft, tmin, lmin, xs, u,
                       ub, xw, pe, rc, pa, pc, pd, ph, sh, hmin, rowver, hstamp, kver, Q, lst,
                       cnt, dirty, vcnt, mstat, half, snap, resume, lazy):
    """``_grow_phase1`` on borrowed views of its arrays (``borrowed``): the node search calls
    its helpers at every axis position with tens of arrays, and the runtime's reference
    counting of those arguments is then a null test. The same types and data: the same
    compiled search, the same numbers."""
    X = borrowed(X)
    y = borrowed(y)
    scores = borrowed(scores)
    n_bins = borrowed(n_bins)
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
    correct = borrowed(correct)
    rank = borrowed(rank)
    s_idx = borrowed(s_idx)
    axis = borrowed(axis)
    em = borrowed(em)
    kink_pos = borrowed(kink_pos)
    ew = borrowed(ew)
    mark = borrowed(mark)
    oE = borrowed(oE)
    oC = borrowed(oC)
    oD = borrowed(oD)
    oH = borrowed(oH)
    bE = borrowed(bE)
    bC = borrowed(bC)
    bD = borrowed(bD)
    jpos = borrowed(jpos)
    ev_k = borrowed(ev_k)
    sa = borrowed(sa)
    sc = borrowed(sc)
    sd = borrowed(sd)
    tot = borrowed(tot)
    tsa = borrowed(tsa)
    tsc = borrowed(tsc)
    tsd = borrowed(tsd)
    nbin = borrowed(nbin)
    L1 = borrowed(L1)
    X1 = borrowed(X1)
    L2 = borrowed(L2)
    X2 = borrowed(X2)
    kleft = borrowed(kleft)
    tmin = borrowed(tmin)
    lmin = borrowed(lmin)
    xs = borrowed(xs)
    u = borrowed(u)
    ub = borrowed(ub)
    xw = borrowed(xw)
    pe = borrowed(pe)
    rc = borrowed(rc)
    pa = borrowed(pa)
    pc = borrowed(pc)
    pd = borrowed(pd)
    ph = borrowed(ph)
    sh = borrowed(sh)
    hmin = borrowed(hmin)
    rowver = borrowed(rowver)
    hstamp = borrowed(hstamp)
    kver = borrowed(kver)
    Q = borrowed(Q)
    lst = borrowed(lst)
    cnt = borrowed(cnt)
    dirty = borrowed(dirty)
    vcnt = borrowed(vcnt)
    mstat = borrowed(mstat)
    half = (borrowed(half[0]), borrowed(half[1]), borrowed(half[2]), borrowed(half[3]),
            borrowed(half[4]), borrowed(half[5]), borrowed(half[6]), borrowed(half[7]),
            borrowed(half[8]), borrowed(half[9]), borrowed(half[10]), borrowed(half[11]),
            borrowed(half[12]), borrowed(half[13]), borrowed(half[14]), borrowed(half[15]))
    snap = (borrowed(snap[0]), borrowed(snap[1]), borrowed(snap[2]), borrowed(snap[3]),
            borrowed(snap[4]), borrowed(snap[5]), borrowed(snap[6]), borrowed(snap[7]),
            borrowed(snap[8]), borrowed(snap[9]), borrowed(snap[10]), borrowed(snap[11]))
    lazy = (borrowed(lazy[0]), borrowed(lazy[1]), borrowed(lazy[2]), borrowed(lazy[3]),
            borrowed(lazy[4]), borrowed(lazy[5]), borrowed(lazy[6]), borrowed(lazy[7]),
            borrowed(lazy[8]), borrowed(lazy[9]), borrowed(lazy[10]), borrowed(lazy[11]),
            borrowed(lazy[12]), borrowed(lazy[13]), borrowed(lazy[14]), borrowed(lazy[15]),
            borrowed(lazy[16]), borrowed(lazy[17]), borrowed(lazy[18]), borrowed(lazy[19]),
            borrowed(lazy[20]), borrowed(lazy[21]), borrowed(lazy[22]), borrowed(lazy[23]),
            borrowed(lazy[24]), borrowed(lazy[25]), borrowed(lazy[26]), borrowed(lazy[27]),
            borrowed(lazy[28]), borrowed(lazy[29]), borrowed(lazy[30]))
    _grow_phase1(X, y, scores, n_bins, max_depth, R, unit, sample_index, partition_buf,
                 feature, threshold, left, right, node_label, node_start, node_end, node_depth,
                 stack, vote, n_nodes_out, correct, rank, s_idx, axis, em, kink_pos, ew, mark,
                 oE, oC, oD, oH, bE, bC, bD, jpos, ev_k, sa, sc, sd, tot, tsa, tsc, tsd,
                 nbin, L1, X1, L2, X2, kleft, tmin, lmin, xs, u, ub, xw, pe, rc, pa, pc, pd,
                 ph, sh, hmin, rowver, hstamp, kver, Q, lst, cnt, dirty, vcnt, mstat, half,
                 snap, resume, lazy)


class Phase1Scratch:
    """Phase I buffers beyond ``ZeroOneWorkspace``'s (allocated once per fit, on the first
    tree, and kept on the workspace): the node's non-empty bins (u, ub, xw), per (label,
    feature, threshold) error counts (pe, rc), memoised loss and rise prefixes (pa, pc, pd,
    ph, sh with rowver, hstamp, kver), rise minima per non-empty bin (hmin), the filter bound
    per (feature, threshold) (Q) and a stretch's list of candidates (lst)."""

    def __init__(self, n, F, B, K, max_nodes):
        self.shape = (n, F, B, K, max_nodes)
        self.u = np.zeros(F, np.int64)
        self.ub = np.zeros((F, B), np.int32)
        # xw holds indices < B: one byte each when they fit (X is binned to uint8), so a
        # row is 1/4 of the int32 one in the caches; unsigned, so indexing by it needs no
        # wraparound test.
        self.xw = np.zeros((n, F), np.uint8 if B <= 256 else np.uint32)
        self.pe = np.zeros((K, F, B), np.int64)
        self.rc = np.zeros((K, F, B), np.int64)
        self.pa = np.zeros((K, F, B), np.float64)
        self.pc = np.zeros((K, F, B), np.float64)
        self.pd = np.zeros((K, F, B), np.float64)
        self.ph = np.zeros((K, F, B), np.float64)
        self.sh = np.zeros((K, F, B), np.float64)
        self.hmin = np.full((K, F, B), np.inf)
        self.rowver = np.full((K, F), -1, np.int64)
        self.hstamp = np.full((K, F), -1, np.int64)
        self.kver = np.zeros(K, np.int64)
        self.Q = np.zeros((F, B), np.int64)
        self.lst = np.zeros((max(F * B * K, 1), 4), np.int64)
        self.cnt = np.zeros((K, F, B), np.int64)
        self.dirty = np.zeros(K, np.int64)     # ROW_* bits per label (_count_rows)
        self.vcnt = np.zeros((F, B, K), np.int64)
        # [0]: the next node finds the smallest errors first (1.0) or not; [1]: the cost of
        # a candidate's cell loss in threshold scans (the mode rule of best_split_phase1);
        # [2]: -1 (that rule), or 0 / 1 to force one mode (tests); [3]: 1 remakes every
        # stale error-prefix row at each visited position (tests; ``_count_rows``).
        self.mstat = np.array([1.0, VISIT_COST, -1.0, 0.0, 0.0])
        # The kinks of a cell's left half (half_cell_flags, _half_bucket); hon (index 11):
        # the kink placement of the key, 0 midpoint, 1 cut-aware, 2 both (grow_phase1_pair),
        # with the cut-aware keys beside the midpoint ones (X1c, X2c, xsc) and dstat: [0] the
        # node's search might choose otherwise under the cut-aware keys, [1] the pair's
        # status (PAIR_*), [2] the next free node stamp, [3] the next search is the root's
        # split search and reuses the root label search's bins and events, [4] the root
        # label the pair's fold chose under the cut-aware keys, [5] 1: the next tree is the
        # restarted cut-aware one and takes that label (``resume_cut_tree``).
        self.half = (np.zeros((n, K), np.bool_), np.zeros(n + 2), np.zeros(n + 2),
                     np.zeros((K, F, B)), np.zeros((K, F, B)), np.zeros(K), np.zeros(K),
                     np.zeros(K, np.int64), np.zeros((K, F, B)), np.zeros((K, F, B)),
                     np.full((K, F), -1, np.int64), np.ones(1, np.int64),
                     np.zeros((F, B, K)), np.zeros((F, B, K)), np.zeros(K),
                     np.zeros(6, np.int64))
        # The tree as it stood before the node where the pair's two placements part
        # (grow_phase1_pair), for the cut-aware tree to go on from (resume_cut_tree).
        m = max_nodes
        self.snap = (np.zeros(n, np.int32), np.zeros(n, np.int32), np.zeros(m, np.int32),
                     np.zeros(m, np.int32), np.zeros(m, np.int32), np.zeros(m, np.int32),
                     np.zeros(m, np.int32), np.zeros(m, np.int64), np.zeros(m, np.int64),
                     np.zeros(m, np.int32), np.zeros(m, np.int32), np.zeros(2, np.int64))
        self.R = 0
        # The cells guiding prepare_round's searches on the axis and on the midpoints
        # (2R + 1 entries, R <= n + 1).
        self.gax = np.zeros(2 * n + 5, np.int64)
        # The node's event buckets, three per axis position (``_node_events``; R <= n + 1).
        self.jpos = np.zeros(3 * n + 10, np.int64)
        self.grf = np.zeros(2 * n + 5, np.int64)
        # The node's kinks per label and how far each (label, feature) row of the loss sums
        # has moved them (``_apply_bucket``, ``_apply_kinks``); the loss sums before
        # position 0, kept for the node's second sweep (``_reset_sweep``); the node's events'
        # payloads beside ``ev_k`` (``_node_events``: ev_i, ev_a, ev_b) and the kink lists'
        # (kl_i, kl_m, kl_w).
        n_ev = max(n * (2 * K - 1), 1)
        # (The event payloads ev_i, ev_a, ev_b and buckets: two stores of n_ev, one per
        # depth parity; ``_grow_phase1``.)
        self.lazy = (np.zeros(max(n * K, 1), np.uint32), np.zeros(K + 1, np.int64),
                     np.zeros(K, np.int64), np.zeros((K, F), np.int64),
                     np.zeros(0, np.int64), np.zeros((K, F, B)), np.zeros((K, F, B)),
                     np.zeros(K), np.zeros(K), np.zeros(2 * n_ev, np.uint32),
                     np.zeros(2 * n_ev), np.zeros(2 * n_ev), np.zeros(max(n * K, 1)),
                     np.zeros(max(n * K, 1)),
                     np.zeros(F * B * K), np.zeros((K, F, B), np.int64),
                     np.zeros((K, F, B), np.int64), np.zeros(n, np.bool_),
                     np.zeros(n, np.int32), np.zeros(n), np.zeros(n, np.int32), np.zeros(n),
                     np.zeros(n, np.bool_),
                     # The filter scan's block bounds and the 0-1 event count they were
                     # made at (``best_split_phase1``).
                     np.zeros((F, (max(B, 1) + SCAN_BLOCK - 1) // SCAN_BLOCK), np.int64),
                     np.zeros((F, (max(B, 1) + SCAN_BLOCK - 1) // SCAN_BLOCK), np.int64),
                     # Each listed event's bucket, each sample's side of the split being
                     # cut, each node's number of listed events (``_grow_phase1``).
                     np.zeros(2 * n_ev, np.int32), np.zeros(n, np.uint8),
                     np.full(max(max_nodes, 1), -1, np.int64),
                     # Line 9's k_left entries of the error prefixes and, per (label,
                     # feature), the largest threshold they need (``_count_rows``).
                     np.zeros((F, B), np.int64), np.zeros((K, F), np.int64),
                     # The events' copies of their examples' bins (PACKED_ROWS_MIN; none
                     # below it), beside the other payloads.
                     np.zeros((2 * n_ev if n * F >= PACKED_ROWS_MIN else 0, F),
                              np.uint8 if B <= 256 else np.uint32))


# Status of ``grow_phase1_pair``: the cut-aware tree is the midpoint tree; it goes on from
# the node where they part (``resume_cut_tree``); it parts at the root's label (grown anew).
PAIR_SAME = 0
PAIR_RESUME = 1
PAIR_RESTART = 2


def _scratch(ws, n, F):
    B = ws.sa.shape[2]
    K = ws.sa.shape[0]
    s = getattr(ws, "_phase1_scratch", None)
    if s is None or s.shape != (n, F, B, K, ws.max_nodes):
        s = Phase1Scratch(n, F, B, K, ws.max_nodes)
        ws._phase1_scratch = s
    return s


def _run_grower(ws, s, X_binned, y, n_bins, scores, R, unit, resume, borrow_views=True):
    grow = _grow_phase1_views if borrow_views else _grow_phase1
    # The first call may compile the grower: once for all processes (_kernel_cache).
    with kernel_compile_lock(grow):
        grow(X_binned, y, scores, n_bins, ws.max_depth, R, float(unit), ws.sample_index,
             ws.partition_buf, ws.feature, ws.threshold, ws.left, ws.right, ws.node_label,
             ws.node_start, ws.node_end, ws.node_depth, ws.stack, ws.vote, ws.n_nodes,
             ws.correct, ws.rank, ws.s_idx, ws.axis, ws.em, ws.kink_pos, ws.ew, ws.mark,
             ws.oE, ws.oC, ws.oD, ws.oH, ws.bE, ws.bC, ws.bD, s.jpos, ws.ev_k, ws.sa,
             ws.sc, ws.sd, ws.tot, ws.tsa, ws.tsc, ws.tsd, ws.nbin, ws.L1, ws.X1, ws.L2,
             ws.X2, ws.kleft, ws.tmin, ws.lmin, ws.xs, s.u, s.ub, s.xw, s.pe, s.rc, s.pa,
             s.pc, s.pd, s.ph, s.sh, s.hmin, s.rowver, s.hstamp, s.kver, s.Q, s.lst,
             s.cnt, s.dirty, s.vcnt, s.mstat, s.half, s.snap, bool(resume), s.lazy)
    return int(ws.n_nodes[0])


def _prepare(ws, X_binned, y, scores, unit, two_pass, half_flags, eager_rows=False):
    s = _scratch(ws, X_binned.shape[0], X_binned.shape[1])
    s.mstat[2] = -1.0 if two_pass is None else float(bool(two_pass))
    s.mstat[3] = float(bool(eager_rows))
    R = int(prepare_round(scores, y, float(unit), ws.correct, ws.rank, ws.s_idx, ws.axis,
                          ws.ref, ws.em, ws.kink_pos, ws.ew, s.gax, s.grf))
    if half_flags:
        half_cell_flags(scores, y, R, ws.axis, ws.kink_pos, s.half[0])
    s.R = R
    s.half[15][1] = PAIR_SAME
    s.half[15][5] = 0
    return s, R


def grow_zero_one_tree(ws, X_binned, y, n_bins, scores, c=None, unit=1.0, two_pass=None,
                       cut_aware=False, borrow_views=True, eager_rows=False):
    """Grow a Phase I tree for the ensemble with training scores ``scores``; ``unit`` is the
    step of an unbounded interval whose loss has no positive minimiser (the line search's
    convention). Returns the number of nodes; the tree is in ``ws`` (a
    ``zero_one_workspace.ZeroOneWorkspace``; ``vote`` = each training sample's label). ``c`` is
    accepted for the callers' convenience and not used (the losses are shifted by the
    largest term instead). ``two_pass`` (tests): None lets each node choose whether it finds
    its candidates' smallest errors first, True / False forces it (same trees). ``cut_aware``:
    the kink placement of the key (module docstring); False, the cells' midpoints.
    ``borrow_views``: the search receives borrowed views of the arrays
    (``_grow_phase1_views``), the same trees (False: the plain arrays, for the tests).
    ``eager_rows`` (tests): every stale error-prefix row is remade at each visited position
    instead of only those that can raise the filter bound or are read there
    (``_count_rows``); the same trees."""
    s, R = _prepare(ws, X_binned, y, scores, unit, two_pass, cut_aware, eager_rows)
    s.half[11][0] = 1 if cut_aware else 0
    return _run_grower(ws, s, X_binned, y, n_bins, scores, R, unit, False, borrow_views)


def grow_phase1_pair(ws, X_binned, y, n_bins, scores, c=None, unit=1.0, two_pass=None,
                     borrow_views=True, eager_rows=False):
    """The midpoint tree of ``grow_zero_one_tree`` (the same tree, in ``ws``), grown with the
    cut-aware keys folded beside the midpoint ones at every node, so that the cut-aware tree
    need not be grown where it is the same. Returns (n_nodes, status): ``PAIR_SAME`` when
    every node's search chooses the same under both placements (the cut-aware tree *is* this
    tree), ``PAIR_RESUME`` when they part at some node (the tree before it is kept for
    ``resume_cut_tree``), ``PAIR_RESTART`` when they part at the root's label.

    Why that is exact: which (candidate, position) pairs get a cell loss, and the running
    smallest errors, depend on the errors alone, and the placements differ only in the
    losses of candidates whose interval ends inside the cell (``h < cell_end``); so both
    keys are folded over the same evaluations, and a node whose choices (line 7's labels,
    line 13's split, a one-leaf root's label) agree under both is the node either tree
    grows. Only the speed differs (ALGORITHMS.md, "Speed")."""
    s, R = _prepare(ws, X_binned, y, scores, unit, two_pass, True, eager_rows)
    s.half[11][0] = 2
    m = _run_grower(ws, s, X_binned, y, n_bins, scores, R, unit, False, borrow_views)
    return m, int(s.half[15][1])


def resume_cut_tree(ws, X_binned, y, n_bins, scores, status, c=None, unit=1.0,
                    two_pass=None, borrow_views=True, eager_rows=False):
    """After ``grow_phase1_pair`` with a status other than ``PAIR_SAME`` (the midpoint tree
    set aside by the caller): the cut-aware tree of ``grow_zero_one_tree(cut_aware=True)``,
    from the node where the two parted (``PAIR_RESUME``) or from the start
    (``PAIR_RESTART``). Returns its number of nodes; the tree is in ``ws``.

    Either way on the round data the pair prepared (``prepare_round`` and the half-cell
    flags, which no grower writes; the scores have not changed): a restart is
    ``grow_zero_one_tree(cut_aware=True)`` without preparing the same round again, and
    without searching the root's label again: the pair's root search folded the cut-aware
    keys beside its own, and its cut-aware choice is that search's result."""
    if status not in (PAIR_RESUME, PAIR_RESTART):
        raise ValueError(f"status must be PAIR_RESUME or PAIR_RESTART, got {status!r}")
    s = _scratch(ws, X_binned.shape[0], X_binned.shape[1])
    s.mstat[2] = -1.0 if two_pass is None else float(bool(two_pass))
    s.mstat[3] = float(bool(eager_rows))
    s.half[11][0] = 1
    s.half[15][1] = PAIR_SAME
    s.half[15][5] = 1 if status == PAIR_RESTART else 0
    return _run_grower(ws, s, X_binned, y, n_bins, scores, s.R, unit,
                       status == PAIR_RESUME, borrow_views)
