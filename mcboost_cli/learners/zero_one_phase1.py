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
  the inset cell has a closed form (``cell_loss``).

Ties of the exponential loss (relative ``EXP_TIE_REL``) go to the lowest label, then the first
feature and the lowest threshold. The brute-force twin is
``naive_zero_one.grow_tree_naive(phase="zero_one")``.

Cost per node: O(n) for the rest of the tree, O(|S| K F) events, and O(R K F B) evaluations
(R = axis length, B = bins) for each of the two sweeps.

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

from .histogram_tree import _partition
from .line_search import INF, interval_step, top_wrong

_BIG = np.int64(2 ** 40)

# Two exponential losses closer than this (relative) are a tie.
EXP_TIE_REL = 1e-9


# ---------------------------------------------------------------------------------------------
# Round data
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def prepare_round(scores, y, unit, correct, rank, s_idx, axis, ref, em, kink_pos, ew):
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
    ax = axis[:R]
    rf = ref[:R]
    for i in range(n):
        yi = y[i]
        ay = scores[i, yi]
        t = top_wrong(scores, i, yi)
        em[i] = np.exp(-(ay - t) - shift)
        if not correct[i]:
            rank[i] = np.searchsorted(ax, t - ay)
        for k in range(K):
            if k == yi:
                continue
            ew[i, k] = np.exp(-(ay - scores[i, k]) - shift)
            kink_pos[i, k] = np.searchsorted(rf, t - scores[i, k], side="right")
            if correct[i]:
                v = ay - scores[i, k]
                if v > top:
                    s_idx[i, k] = R
                else:
                    s_idx[i, k] = np.searchsorted(ax, v)
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
def _rest_of_tree(sample_index, start, end, y, scores, cur, correct, rank, s_idx, R, em,
                  kink_pos, ew, mark, stamp, oE, oC, oD, oH, bE, bC, bD):
    """The examples outside S = sample_index[start:end], voted cur: their error at axis[j]+
    (oE[j]), their exponential loss in cell j, oA e^-a + oC[j] + oD[j] e^a, and the first
    point inside cell j where one of them turns wrong (oH[j], inf if none). Returns oA."""
    n = y.shape[0]
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
        v = cur[i]
        yi = y[i]
        if correct[i]:
            if v != yi:
                p = s_idx[i, v]
                if p < R:
                    bE[p] += 1
                # i turns wrong inside cell p - 1: the interval starting there ends at rv.
                rv = scores[i, yi] - scores[i, v]
                if rv < oH[p - 1]:
                    oH[p - 1] = rv
        else:
            e0 += 1
            if v == yi:
                bE[rank[i]] -= 1
        if v == yi:
            oA += em[i]
        else:
            kp = kink_pos[i, v]
            bC[kp] += em[i]
            if kp < R:
                bD[kp] += ew[i, v]
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
def _node_events(X, sample_index, start, end, y, correct, rank, s_idx, R, kink_pos, jpos,
                 ev_code, K):
    """Counting sort of S's events by axis position; bucket j is ev_code[jpos[j-1]:jpos[j]]
    (jpos[-1] := 0). Code = (i K + k) 2 + kind (0: 0-1 event, 1: kink). Bucket R holds the
    rises (a correct example turning wrong) beyond the last axis point, which change no error
    at any axis[j]+ but end the last cell's interval."""
    for j in range(R + 2):
        jpos[j] = 0
    for q in range(start, end):
        i = sample_index[q]
        yi = y[i]
        if not correct[i]:
            jpos[rank[i] + 1] += 1
        for k in range(K):
            if k == yi:
                continue
            if correct[i]:
                jpos[s_idx[i, k] + 1] += 1
            if kink_pos[i, k] < R:
                jpos[kink_pos[i, k] + 1] += 1
    for j in range(1, R + 2):
        jpos[j] += jpos[j - 1]
    for q in range(start, end):
        i = sample_index[q]
        yi = y[i]
        if not correct[i]:
            j = rank[i]
            ev_code[jpos[j]] = (np.int64(i) * K + yi) * 2
            jpos[j] += 1
        for k in range(K):
            if k == yi:
                continue
            if correct[i]:
                j = s_idx[i, k]       # R: the rise lies in the last, unbounded cell
                ev_code[jpos[j]] = (np.int64(i) * K + k) * 2
                jpos[j] += 1
            if kink_pos[i, k] < R:
                j = kink_pos[i, k]
                ev_code[jpos[j]] = (np.int64(i) * K + k) * 2 + 1
                jpos[j] += 1


@njit(cache=True, nogil=True)
def _stretch_minima(jpos, ev_code, R, oE, keep):
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
            has01 = False
            for q in range(jpos[b - 1], jpos[b]):
                if ev_code[q] & 1 == 0:
                    has01 = True
                    break
            if has01:
                break
            b += 1
        m = oE[a]
        for j in range(a + 1, b):
            if oE[j] < m:
                m = oE[j]
        for j in range(a, b):
            keep[j] = 1 if oE[j] == m else 0
        a = b


@njit(cache=True, nogil=True)
def _reset_state(X, sample_index, start, end, y, correct, em, cnt, sa, sc, sd, tot, tsa, tsc,
                 tsd):
    """The per-(label, feature, bin) state before position 0: every wrong example counted
    as an error under every label, every loss term before its kink."""
    K, F, B = cnt.shape
    for k in range(K):
        tot[k] = 0
        tsa[k] = 0.0
        tsc[k] = 0.0
        tsd[k] = 0.0
        for f in range(F):
            for b in range(B):
                cnt[k, f, b] = 0
                sa[k, f, b] = 0.0
                sc[k, f, b] = 0.0
                sd[k, f, b] = 0.0
    for q in range(start, end):
        i = sample_index[q]
        yi = y[i]
        wi = 0 if correct[i] else 1
        e = em[i]
        for k in range(K):
            tot[k] += wi
            if k == yi:
                tsa[k] += e
            else:
                tsc[k] += e
            for f in range(F):
                b = X[i, f]
                cnt[k, f, b] += wi
                if k == yi:
                    sa[k, f, b] += e
                else:
                    sc[k, f, b] += e


@njit(cache=True, nogil=True)
def _apply_events(X, jpos, ev_code, j, K, correct, em, ew, cnt, sc, sd, tot, tsc, tsd):
    a = 0 if j == 0 else jpos[j - 1]
    F = cnt.shape[1]
    n01 = 0
    for q in range(a, jpos[j]):
        code = ev_code[q]
        ik = code >> 1
        i = ik // K
        k = ik - i * K
        if code & 1 == 1:             # past the kink: e^-m -> e^(a - w)
            mv = em[i]
            dv = ew[i, k]
            tsc[k] -= mv
            tsd[k] += dv
            for f in range(F):
                b = X[i, f]
                sc[k, f, b] -= mv
                sd[k, f, b] += dv
        else:                         # a wrong example turns right (-1), a right one wrong
            d = 1 if correct[i] else -1
            n01 += 1
            tot[k] += d
            for f in range(F):
                cnt[k, f, X[i, f]] += d
    return n01


@njit(cache=True, nogil=True)
def _prefix_counts(cnt, f, nb, pe):
    """Per label, the errors over bins <= t of feature f (t < nb - 1)."""
    K = cnt.shape[0]
    for k in range(K):
        ce = 0
        for t in range(nb - 1):
            ce += cnt[k, f, t]
            pe[k, t] = ce


@njit(cache=True, nogil=True)
def _prefix_row(sa, sc, sd, hmin, k, f, nb, pa, pc, pd, ph, sh):
    """For label k: the loss sums over bins <= t of feature f, the smallest rise point over
    bins <= t (ph) and over bins > t (sh)."""
    ca = 0.0
    cc = 0.0
    cd = 0.0
    ch = INF
    for t in range(nb - 1):
        ca += sa[k, f, t]
        cc += sc[k, f, t]
        cd += sd[k, f, t]
        if hmin[k, f, t] < ch:
            ch = hmin[k, f, t]
        pa[k, t] = ca
        pc[k, t] = cc
        pd[k, t] = cd
        ph[k, t] = ch
    ch = hmin[k, f, nb - 1]
    for t in range(nb - 2, -1, -1):
        sh[k, t] = ch
        if hmin[k, f, t] < ch:
            ch = hmin[k, f, t]


@njit(cache=True, nogil=True)
def _rise_minima(X, jpos, ev_code, j, K, correct, y, scores, hmin, tmin, reset):
    """Per (label, feature, bin) and per label (tmin), the smallest point where an example
    of S turns wrong among the rises of bucket j — or, with reset, put them back to inf."""
    F = hmin.shape[1]
    a = jpos[j - 1]
    for k in range(K):
        tmin[k] = INF
    for q in range(a, jpos[j]):
        code = ev_code[q]
        if code & 1 == 1:
            continue
        ik = code >> 1
        i = ik // K
        if not correct[i]:
            continue
        k = ik - i * K
        if reset:
            for f in range(F):
                hmin[k, f, X[i, f]] = INF
            continue
        v = scores[i, y[i]] - scores[i, k]
        if v < tmin[k]:
            tmin[k] = v
        for f in range(F):
            b = X[i, f]
            if v < hmin[k, f, b]:
                hmin[k, f, b] = v


@njit(cache=True, nogil=True)
def best_split_phase1(X, sample_index, start, end, n_bins, y, scores, cur, cur_lab,
                      want_split, correct, rank, s_idx, R, axis, em, kink_pos, ew, unit, mark,
                      stamp, oE, oC, oD, oH, bE, bC, bD, jpos, ev_code, cnt, sa, sc, sd, tot,
                      tsa, tsc, tsd, nbin, valid, L1, X1, L2, X2, kleft, pe, pa, pc, pd, hmin,
                      ph, sh, tmin, lmin, xs, rowdone):
    """Best split of node S (Alg. 1.2 lines 4-13) under the global key (module docstring).

    Returns (found, feature, threshold, k_left, k_right, k_single); k_single is the best
    single label of S (the whole tree with S voting it), used for a one-leaf root.
    """
    F = X.shape[1]
    K = cnt.shape[0]
    nS = end - start
    oA = _rest_of_tree(sample_index, start, end, y, scores, cur, correct, rank, s_idx, R, em,
                       kink_pos, ew, mark, stamp, oE, oC, oD, oH, bE, bC, bD)
    for k in range(K):
        for f in range(F):
            for b in range(hmin.shape[2]):
                hmin[k, f, b] = INF
    # Valid thresholds: the bin is non-empty (else the partition of the threshold before)
    # and both sides are non-empty (line 6).
    any_valid = False
    for f in range(F):
        for b in range(nbin.shape[1]):
            nbin[f, b] = 0
            valid[f, b] = False
    for q in range(start, end):
        i = sample_index[q]
        for f in range(F):
            nbin[f, X[i, f]] += 1
    if want_split:
        for f in range(F):
            acc = 0
            for t in range(n_bins[f] - 1):
                acc += nbin[f, t]
                if nbin[f, t] > 0 and acc < nS:
                    valid[f, t] = True
                    any_valid = True
    _node_events(X, sample_index, start, end, y, correct, rank, s_idx, R, kink_pos, jpos,
                 ev_code, K)
    keep = bE     # free after _rest_of_tree
    _stretch_minima(jpos, ev_code, R, oE, keep)
    for k in range(K):
        lmin[k] = _BIG
        xs[k] = INF
    for f in range(F):
        for t in range(nbin.shape[1]):
            for k in range(K):
                L1[f, t, k] = _BIG
                L2[f, t, k] = _BIG
    n_sweeps = 2 if any_valid else 1
    for sweep in range(n_sweeps):
        _reset_state(X, sample_index, start, end, y, correct, em, cnt, sa, sc, sd, tot, tsa,
                     tsc, tsd)
        for j in range(R):
            _apply_events(X, jpos, ev_code, j, K, correct, em, ew, cnt, sc, sd, tot, tsc, tsd)
            if keep[j] == 0:
                continue      # every candidate has fewer errors elsewhere (_stretch_minima)
            lo = axis[j]
            hi = axis[j + 1] if j + 1 < R else INF
            oe = oE[j]
            oc = oC[j]
            od = oD[j]
            # A hypothesis's interval starting at axis[j] ends at its first rise inside the
            # cell (the rises of bucket j + 1): per (label, feature, bin) minima.
            _rise_minima(X, jpos, ev_code, j + 1, K, correct, y, scores, hmin, tmin, False)
            hi = min(hi, oH[j])
            if sweep == 0:
                # The single label: S votes k.
                for k in range(K):
                    e = oe + tot[k]
                    if e <= lmin[k]:
                        x = cell_loss(oA + tsa[k], oc + tsc[k], od + tsd[k], lo,
                                      min(hi, tmin[k]), unit)
                        if _key_better(e, x, lmin[k], xs[k]):
                            lmin[k] = e
                            xs[k] = x
            if not any_valid:
                _rise_minima(X, jpos, ev_code, j + 1, K, correct, y, scores, hmin, tmin, True)
                continue
            for f in range(F):
                nb = n_bins[f]
                # Error prefixes of every label now; a label's loss sums and rise minima
                # only when one of its candidates can reach its minimum error here.
                _prefix_counts(cnt, f, nb, pe)
                for k in range(K):
                    rowdone[k] = False
                for t in range(nb - 1):
                    if not valid[f, t]:
                        continue
                    if sweep == 0:
                        # Line 7: "k on S_left"; S_right keeps S's label.
                        r = cur_lab
                        re = oe + tot[r] - pe[r, t]
                        for k in range(K):
                            e = re + pe[k, t]
                            if e <= L1[f, t, k]:
                                if not rowdone[r]:
                                    _prefix_row(sa, sc, sd, hmin, r, f, nb, pa, pc, pd, ph, sh)
                                    rowdone[r] = True
                                if not rowdone[k]:
                                    _prefix_row(sa, sc, sd, hmin, k, f, nb, pa, pc, pd, ph, sh)
                                    rowdone[k] = True
                                x = cell_loss(oA + tsa[r] - pa[r, t] + pa[k, t],
                                              oc + tsc[r] - pc[r, t] + pc[k, t],
                                              od + tsd[r] - pd[r, t] + pd[k, t],
                                              lo, min(min(hi, sh[r, t]), ph[k, t]), unit)
                                if _key_better(e, x, L1[f, t, k], X1[f, t, k]):
                                    L1[f, t, k] = e
                                    X1[f, t, k] = x
                    else:
                        # Line 9: "k_left on S_left, k on S_right".
                        kl = kleft[f, t]
                        le = oe + pe[kl, t]
                        for k in range(K):
                            e = le + tot[k] - pe[k, t]
                            if e <= L2[f, t, k]:
                                if not rowdone[kl]:
                                    _prefix_row(sa, sc, sd, hmin, kl, f, nb, pa, pc, pd, ph,
                                                sh)
                                    rowdone[kl] = True
                                if not rowdone[k]:
                                    _prefix_row(sa, sc, sd, hmin, k, f, nb, pa, pc, pd, ph, sh)
                                    rowdone[k] = True
                                x = cell_loss(oA + pa[kl, t] + tsa[k] - pa[k, t],
                                              oc + pc[kl, t] + tsc[k] - pc[k, t],
                                              od + pd[kl, t] + tsd[k] - pd[k, t], lo,
                                              min(min(hi, ph[kl, t]), sh[k, t]), unit)
                                if _key_better(e, x, L2[f, t, k], X2[f, t, k]):
                                    L2[f, t, k] = e
                                    X2[f, t, k] = x
            _rise_minima(X, jpos, ev_code, j + 1, K, correct, y, scores, hmin, tmin, True)
        if sweep == 0 and any_valid:
            for f in range(F):
                for t in range(n_bins[f] - 1):
                    best_k = 0
                    for k in range(1, K):
                        if _key_better(L1[f, t, k], X1[f, t, k], L1[f, t, best_k],
                                       X1[f, t, best_k]):
                            best_k = k
                    kleft[f, t] = best_k
    k_single = 0
    for k in range(1, K):
        if _key_better(lmin[k], xs[k], lmin[k_single], xs[k_single]):
            k_single = k
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
        for t in range(n_bins[f] - 1):
            if not valid[f, t]:
                continue
            kr = 0
            for k in range(1, K):
                if _key_better(L2[f, t, k], X2[f, t, k], L2[f, t, kr], X2[f, t, kr]):
                    kr = k
            if not found or _key_better(L2[f, t, kr], X2[f, t, kr], best_e, best_x):
                found = True
                best_e = L2[f, t, kr]
                best_x = X2[f, t, kr]
                bf = f
                bt = t
                bkl = kleft[f, t]
                bkr = kr
    return True, bf, bt, bkl, bkr, k_single


# ---------------------------------------------------------------------------------------------
# The grower
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _grow_phase1(X, y, scores, n_bins, max_depth, R, unit, sample_index, partition_buf,
                 feature, threshold, left, right, node_label, node_start, node_end, node_depth,
                 stack, vote, n_nodes_out, correct, rank, s_idx, axis, em, kink_pos, ew, mark,
                 oE, oC, oD, oH, bE, bC, bD, jpos, ev_code, cnt, sa, sc, sd, tot, tsa, tsc, tsd,
                 nbin, valid, L1, X1, L2, X2, kleft, pe, pa, pc, pd, hmin, ph, sh, tmin, lmin,
                 xs, rowdone):
    n = X.shape[0]
    for i in range(n):
        sample_index[i] = i
        mark[i] = -1
    n_nodes = 1
    node_start[0] = 0
    node_end[0] = n
    node_depth[0] = 0
    feature[0] = -1
    left[0] = -1
    right[0] = -1
    # The root starts as the one-leaf tree of the best single label (the rest of the tree is
    # empty, so S's current label does not matter for that choice).
    _, _, _, _, _, k0 = best_split_phase1(
        X, sample_index, 0, n, n_bins, y, scores, vote, 0, False, correct, rank, s_idx, R,
        axis, em, kink_pos, ew, unit, mark, 0, oE, oC, oD, oH, bE, bC, bD, jpos, ev_code, cnt,
        sa, sc, sd, tot, tsa, tsc, tsd, nbin, valid, L1, X1, L2, X2, kleft, pe, pa, pc, pd,
        hmin, ph, sh, tmin, lmin, xs, rowdone)
    node_label[0] = k0
    for i in range(n):
        vote[i] = k0
    top = 0
    stack[top] = 0
    top += 1
    stamp = 1
    while top > 0:
        top -= 1
        nd = stack[top]
        start = node_start[nd]
        end = node_end[nd]
        if node_depth[nd] >= max_depth or end - start < 2:
            continue
        found, bf, bt, kl, kr, _ = best_split_phase1(
            X, sample_index, start, end, n_bins, y, scores, vote, node_label[nd], True,
            correct, rank, s_idx, R, axis, em, kink_pos, ew, unit, mark, stamp, oE, oC, oD, oH,
            bE, bC, bD, jpos, ev_code, cnt, sa, sc, sd, tot, tsa, tsc, tsd, nbin, valid, L1,
            X1, L2, X2, kleft, pe, pa, pc, pd, hmin, ph, sh, tmin, lmin, xs, rowdone)
        stamp += 1
        if not found:
            continue
        mid = _partition(X, sample_index, start, end, bf, bt, partition_buf)
        feature[nd] = bf
        threshold[nd] = bt
        lc = n_nodes
        rc = n_nodes + 1
        n_nodes += 2
        left[nd] = lc
        right[nd] = rc
        for ch in (lc, rc):
            feature[ch] = -1
            left[ch] = -1
            right[ch] = -1
            node_depth[ch] = node_depth[nd] + 1
        node_label[lc] = kl
        node_label[rc] = kr
        node_start[lc] = start
        node_end[lc] = mid
        node_start[rc] = mid
        node_end[rc] = end
        for q in range(start, mid):
            vote[sample_index[q]] = kl
        for q in range(mid, end):
            vote[sample_index[q]] = kr
        stack[top] = rc
        top += 1
        stack[top] = lc
        top += 1
    n_nodes_out[0] = n_nodes


def grow_zero_one_tree(ws, X_binned, y, n_bins, scores, c=None, unit=1.0):
    """Grow a Phase I tree for the ensemble with training scores ``scores``; ``unit`` is the
    step of an unbounded interval whose loss has no positive minimiser (the line search's
    convention). Returns the number of nodes; the tree is in ``ws`` (a
    ``zero_one_tree.ZeroOneWorkspace``; ``vote`` = each training sample's label). ``c`` is
    accepted for the callers' convenience and not used (the losses are shifted by the
    largest term instead)."""
    R = int(prepare_round(scores, y, float(unit), ws.correct, ws.rank, ws.s_idx, ws.axis,
                          ws.ref, ws.em, ws.kink_pos, ws.ew))
    _grow_phase1(X_binned, y, scores, n_bins, ws.max_depth, R, float(unit), ws.sample_index,
                 ws.partition_buf, ws.feature, ws.threshold, ws.left, ws.right, ws.node_label,
                 ws.node_start, ws.node_end, ws.node_depth, ws.stack, ws.vote, ws.n_nodes,
                 ws.correct, ws.rank, ws.s_idx, ws.axis, ws.em, ws.kink_pos, ws.ew, ws.mark,
                 ws.oE, ws.oC, ws.oD, ws.oH, ws.bE, ws.bC, ws.bD, ws.jpos, ws.ev_code, ws.cnt,
                 ws.sa, ws.sc, ws.sd, ws.tot, ws.tsa, ws.tsc, ws.tsd, ws.nbin, ws.valid, ws.L1,
                 ws.X1, ws.L2, ws.X2, ws.kleft, ws.pe, ws.pa, ws.pc, ws.pd, ws.hmin, ws.ph,
                 ws.sh, ws.tmin, ws.lmin, ws.xs, ws.rowdone)
    return int(ws.n_nodes[0])
