"""Phase II node search of DMCBoost / DirectBoost, plain and exhaustive: the best split of
one node of a ``margin_tree`` for a margin objective, every candidate evaluated by the exact
line search.

Candidates are the splits ``bin <= t`` of every feature; each one's labels are chosen as
``margin_tree`` describes (Alg. 1.2 lines 7 and 9) and the split of the largest final maximum
is taken (line 13). The line search's objective is the bottom-n' average margin (eq. 5) or, for
DirectBoost_order, the n'-th smallest margin, both over the node's examples with n' capped at
their number; both maxima are exact (quasi-concave, resp. piecewise linear).

Ties: candidates of equal maximum are ranked (with epsilon-relaxation), for the bottom-n'
average, by ``corner_key`` (their edge under the bottom set's LPBoost dual weights) and, for
the n'-th order margin, by the objective after an epsilon-relaxed step; remaining ties go to
the lowest label, the first feature and the lowest threshold.

``margin_tree`` uses this search for the binary objectives of DirectBoost (order statistic,
zero-error region; small data sets); the unconstrained bottom-n' average has the faster
``margin_search_fast``, which finds the same splits.

References
----------
.. [1] S. Zhai, T. Xia, S. Wang. A multi-class boosting method with direct optimization.
       KDD 2014: Alg. 1.2 and the bottom-n' average margin (eq. 5).
.. [2] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013: DirectBoost_order and DirectBoost_avg, whose objectives this
       search serves (see ``margin_tree`` for the node rule quoted from sec. 3).
"""

from __future__ import annotations

from numba import njit

from .._inline import inline_helper
from .line_search import (
    INF,
    OBJ_TIE_EPS,
    _select_kth,
    max_bottom_avg_exact,
    max_order_margin_exact,
    order_margin_value,
    piece_terms,
    right_slope,
)

# The Phase II objectives (``margin_tree.grow_margin_tree``'s ``objective``).
OBJ_BOTTOM_AVG = 1
OBJ_ORDER = 2


@njit(cache=True, nogil=True)
def _objective_max(scores, y, margin, order, lo_a, hi_a, lab_a, lo_b, hi_b, lab_b, c, nprime,
                   hi, objective, constrain, eps, p, s, w, buf, inc, dec):
    """Exact maximum over alpha in [0, hi] of the margin objective of the examples
    order[lo_a:hi_a] voted lab_a and order[lo_b:hi_b] voted lab_b, with n' capped at their
    number. constrain: also stop where a currently-right example would turn wrong
    (DirectBoost_avg's zero-error region). Returns (maximum, tie-break key) — the key ranks
    candidates whose maxima tie (typically all at alpha = 0, a corner): ``corner_key`` for the
    bottom-n' average, the objective after the epsilon-relaxed step for the order margin
    (eps = 0: not used)."""
    L = 0
    d = hi
    for part in range(2):
        lo = lo_a if part == 0 else lo_b
        hi_p = hi_a if part == 0 else hi_b
        lab = lab_a if part == 0 else lab_b
        for q in range(lo, hi_p):
            i = order[q]
            pi, si, wi = piece_terms(scores, i, y[i], lab, margin[i])
            p[L] = pi
            s[L] = si
            w[L] = wi
            if constrain and si == 0.0 and pi > 0.0 and wi < d:
                d = wi
            L += 1
    k = nprime if nprime < L else L
    if objective == OBJ_BOTTOM_AVG:
        _, v = max_bottom_avg_exact(p, s, w, L, k, c, d, buf)
        v_eps = 0.0
        if eps > 0.0:
            v_eps = corner_key(p, s, w, L, k, buf)
        return v, v_eps
    # OBJ_ORDER (binary: increasing lines s = 1, decreasing lines w - alpha with w = p).
    n_inc = 0
    n_dec = 0
    for q in range(L):
        if s[q] > 0.5:
            inc[n_inc] = p[q]
            n_inc += 1
        else:
            dec[n_dec] = w[q] if w[q] < p[q] else p[q]
            n_dec += 1
    inc[:n_inc].sort()
    dec[:n_dec].sort()
    _, v = max_order_margin_exact(inc, n_inc, dec, n_dec, k, c, d)
    v_eps = 0.0
    if eps > 0.0:
        v_eps = order_margin_value(inc, n_inc, dec, n_dec, k, c, eps)
    return v, v_eps


@njit(cache=True, nogil=True)
def corner_key(p, s, w, L, kcap, buf):
    """Tie-break key of Phase II candidates whose maxima tie (typically corners, all at alpha
    = 0): the right derivative at 0 of the sum of the kcap smallest numerators, with the slots
    left at the kcap-th value shared evenly by all examples tied there (rather than taken by
    the smallest slopes, which makes it a corner), divided by kcap. This is the edge of the
    candidate under LPBoost's dual weights of the bottom set (1 below the kcap-th margin, an
    equal fraction at it). See ALGORITHMS.md, "Tie-break in Phase II"."""
    for q in range(L):
        buf[q] = p[q]
    v0 = _select_kth(buf, L, kcap - 1)
    return corner_key_at_kth(p, s, w, L, kcap, v0)


@njit(cache=True, nogil=True)
def corner_key_at_kth(p, s, w, L, kcap, v0):
    """``corner_key`` given v0, the kcap-th smallest margin p (the same for every vote vector
    of a round: ``margin_tree_global``)."""
    strict = 0.0
    n_strict = 0
    tie_sum = 0.0
    n_tied = 0
    for q in range(L):
        sl = right_slope(p[q], s[q], w[q], 0.0)
        if p[q] < v0:
            strict += sl
            n_strict += 1
        elif p[q] == v0:
            tie_sum += sl
            n_tied += 1
    return corner_value(strict, n_strict, tie_sum, n_tied, kcap)


@njit(cache=True, nogil=True)
def corner_value(strict, n_strict, tie_sum, n_tied, kcap):
    """``corner_key`` from its sums: strict = the right slopes at 0 summed over the n_strict
    margins below the kcap-th, tie_sum over the n_tied margins equal to it."""
    return (strict + (kcap - n_strict) * tie_sum / n_tied) / kcap


@inline_helper
def _better(v, v_eps, best, best_eps):
    """(maximum, objective after a relaxed step) lexicographically larger, beyond rounding."""
    tol = OBJ_TIE_EPS * (1.0 + abs(best))
    if v > best + tol:
        return True
    if v < best - tol:
        return False
    return v_eps > best_eps + OBJ_TIE_EPS * (1.0 + abs(best_eps))


@inline_helper
def bin_offsets(X, sample_index, start, end, f, binpos, nbin):
    """The node's samples sample_index[start:end] counted by their bin of feature f:
    nbin[f, b] = the count of bin b, binpos[b] = the count of bins < b (so binpos[t + 1] =
    |S_left(t)|, the examples of bin <= t; B = binpos.shape[0] - 1 bins)."""
    B = binpos.shape[0] - 1
    for b in range(B + 1):
        binpos[b] = 0
    for q in range(start, end):
        binpos[X[sample_index[q], f] + 1] += 1
    for b in range(B):
        nbin[f, b] = binpos[b + 1]
    for b in range(1, B + 1):
        binpos[b] += binpos[b - 1]


@njit(cache=True, nogil=True)
def _best_split_phase2(X, sample_index, start, end, n_bins, y, scores, margin, c, nprime, hi,
                       objective, constrain, eps, order, binpos, nbin, p, s, w, buf, inc, dec,
                       jval, need_single):
    """Best split of node S for the Phase II margin objective (maximised); same lines of
    Alg. 1.2 as ``zero_one_phase1.best_split_phase1`` with the exact margin line search. Returns
    (found, feature, threshold, k_left, k_right, score, k_single)."""
    F = X.shape[1]
    K = jval.shape[0]
    nS = end - start
    # Best single label of the whole node (needed when the root cannot be split).
    k_single = 0
    if need_single:
        for q in range(nS):
            order[q] = sample_index[start + q]
        best_single = -INF
        best_single_eps = -INF
        for k in range(K):
            v, ve = _objective_max(scores, y, margin, order, 0, nS, k, 0, 0, k, c, nprime, hi,
                                   objective, constrain, eps, p, s, w, buf, inc, dec)
            if k == 0 or _better(v, ve, best_single, best_single_eps):
                best_single = v
                best_single_eps = ve
                k_single = k
    found = False
    best = -INF
    best_eps = -INF
    bf = -1
    bt = -1
    bkl = 0
    bkr = 0
    for f in range(F):
        # Counting sort of the node's samples by their bin of feature f (stable).
        bin_offsets(X, sample_index, start, end, f, binpos, nbin)
        for q in range(start, end):
            i = sample_index[q]
            b = X[i, f]
            order[binpos[b]] = i
            binpos[b] += 1
        # Now binpos[b] = end of bin b in order[]; S_left(t) = order[0:binpos[t]].
        for t in range(n_bins[f] - 1):
            nl = binpos[t]
            if nbin[f, t] == 0 or nl >= nS:
                continue
            # Line 7: label of S_left, its examples only.
            kl = 0
            kl_v = -INF
            kl_e = -INF
            for k in range(K):
                v, ve = _objective_max(scores, y, margin, order, 0, nl, k, 0, 0, k, c,
                                       nprime, hi, objective, constrain, eps, p, s, w, buf,
                                       inc, dec)
                if k == 0 or _better(v, ve, kl_v, kl_e):
                    kl_v = v
                    kl_e = ve
                    kl = k
            # Line 9: label of S_right with S_left's fixed, over all of S.
            kr = 0
            kr_v = -INF
            kr_e = -INF
            for k in range(K):
                v, ve = _objective_max(scores, y, margin, order, 0, nl, kl, nl, nS, k, c,
                                       nprime, hi, objective, constrain, eps, p, s, w, buf,
                                       inc, dec)
                if k == 0 or _better(v, ve, kr_v, kr_e):
                    kr_v = v
                    kr_e = ve
                    kr = k
            # Line 13: the split of maximum objective.
            if not found or _better(kr_v, kr_e, best, best_eps):
                found = True
                best = kr_v
                best_eps = kr_e
                bf = f
                bt = t
                bkl = kl
                bkr = kr
    return found, bf, bt, bkl, bkr, k_single

