"""Line searches of the direct-optimisation boosters (DMCBoost, DirectBoost).

Along the coordinate of a new label-valued weak learner h (h(x) in {0..K-1}) with weight
alpha >= 0, the scores become ``F(x_i, k) = a(x_i, k) + alpha [h(x_i) = k]``, where a are the
scores of the ensemble so far. Everything an example contributes is a function of alpha of a
very simple shape, which makes the searches exact (Phase I) or provably convergent (Phase II):

Phase I — 0-1 loss (DMCBoost eq. 2, Alg. 1.1; DirectBoost Alg. 1 lines 4-10)
    An example is counted correct iff its true label's score is *strictly* the largest (a tie
    is an error; see the notes, "ties"). With m_i = a(x_i, y_i) - max_{l != y_i} a(x_i, l),
    the three scenarios of DMCBoost Fig. 1 are

    * h(x_i) = y_i, m_i <= 0 (scenario 1): wrong on (0, -m_i], correct after -m_i;
    * h(x_i) = k != y_i, m_i > 0 (scenario 2): correct on (0, v), wrong from
      v = a(x_i, y_i) - a(x_i, k) on;
    * h(x_i) != y_i, m_i <= 0 (scenario 3): wrong for every alpha > 0
      (and h(x_i) = y_i with m_i > 0 is correct for every alpha > 0).

    The error is a step function of alpha; its minimum is attained on an open interval between
    consecutive breakpoints (at a breakpoint every example is wrong if it is wrong on either
    side, so no breakpoint beats both of its intervals). ``line_search_zero_one`` sorts the
    breakpoints, scans the intervals (Alg. 1.1 lines 13-15) and returns the first interval of
    minimum error and its midpoint (Alg. 1 line 5).

Phase II — bottom-n' average margin (DMCBoost eqs. 4-5, 7-9, Alg. 2.1; DirectBoost eqs. 6-10)
    With c = sum of the previous weights, the normalised margin is M_i = N_i(alpha)/(c + alpha)
    (eq. 4, in [-1, 1]) whose numerator is concave and piecewise linear:

    * h(x_i) = y_i: N_i = m_i + alpha (increasing);
    * h(x_i) = k != y_i: N_i = min(m_i, w_i - alpha), w_i = a(x_i, y_i) - a(x_i, k) >= m_i
      (decreasing when k is a top wrong label, w_i = m_i; two pieces otherwise — the three
      scenarios of DMCBoost Fig. 2).

    We store each example as (p_i, s_i, w_i) with N_i = min(p_i + s_i alpha, w_i - alpha)
    (s in {0, 1}; w = +inf when there is no second piece). The sum S(alpha) of the n'
    smallest numerators is concave (a minimum over subsets of sums of concave functions), so
    g(alpha) = S(alpha) / (n' (c + alpha)) is quasi-concave (Theorem 3) and the sign of its
    right derivative, phi(alpha) = S'(alpha+) (c + alpha) - S(alpha) = sum_{i in B}(s_i c - p_i)
    (eq. 9 with the active piece of each bottom example), is non-increasing: it changes sign
    once, at the maximiser. ``line_search_bottom_avg`` bisects on that sign to a bracket
    narrower than th (Alg. 2.1); ``max_bottom_avg_exact`` finds the same maximiser exactly by
    intersecting the linear pieces of S at both ends of a bracket (each step discovers a new
    piece of the concave S, whose slopes are integers; it stops when the two pieces meet at
    one kink), which the tree builders use to rank candidate splits.

Order statistic — bottom n'-th margin (DirectBoost_order, binary)
    With K = 2 every example's numerator is a line of slope +1 or -1. The n'-th smallest of
    them is piecewise linear; its ratio to c + alpha is monotone on each piece, so the maximum
    lies at alpha = 0, at the end of the range, or where the n'-th order statistic turns from
    an increasing line to a decreasing one: alpha = (D_{n'-a+1} - I_a) / 2 for the a-th
    smallest increasing intercept I_a and the (n'-a+1)-th smallest decreasing one D
    (``max_order_margin_exact``, DirectBoost sec. 2.2: "choose the intersection point that led
    to the largest increasing of the bottom n'-th margin").

Every kernel works on caller-owned buffers (no allocation per call). Naive, obviously correct
twins live in ``naive_zero_one.py`` and are used only by the tests.

References
----------
.. [1] S. Zhai, T. Xia, S. Wang. A multi-class boosting method with direct optimization.
       KDD 2014 (DMCBoost).
.. [2] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013 (DirectBoost).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._inline import inline_helper

INF = np.inf

# Relative tolerance below which two objective values are the same (summation order must not
# decide a comparison).
OBJ_TIE_EPS = 1e-12


# ---------------------------------------------------------------------------------------------
# Scores of one example
# ---------------------------------------------------------------------------------------------


@inline_helper
def top_wrong(scores, i, yi):
    """max_{l != y_i} scores[i, l] (the score of the best incorrect label)."""
    best = -INF
    for k in range(scores.shape[1]):
        if k != yi and scores[i, k] > best:
            best = scores[i, k]
    return best


@njit(cache=True, nogil=True)
def strict_errors(scores, y):
    """Number of examples whose true label is not strictly the highest score (eq. 2, ties
    counted as errors)."""
    n_err = 0
    for i in range(scores.shape[0]):
        if not scores[i, y[i]] > top_wrong(scores, i, y[i]):
            n_err += 1
    return n_err


@njit(cache=True, nogil=True)
def unnormalised_margins(scores, y, out):
    """out[i] = a(x_i, y_i) - max_{l != y_i} a(x_i, l) (numerator of eq. 4)."""
    for i in range(scores.shape[0]):
        out[i] = scores[i, y[i]] - top_wrong(scores, i, y[i])


# ---------------------------------------------------------------------------------------------
# Phase I: the exact 0-1 line search (Alg. 1.1)
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def line_search_zero_one(scores, y, vote, unit, plus_buf, minus_buf):
    """Exact minimiser of the training 0-1 error along the coordinate of one weak learner.

    Parameters
    ----------
    scores : (n, K) float64, the ensemble's scores a(x, k) so far.     # IN
    y : (n,) int32 labels; vote : (n,) int32, h(x_i).                  # IN
    unit : float, the step taken past the last breakpoint when the best interval is
        unbounded (its "midpoint" is undefined; see the notes).        # IN
    plus_buf, minus_buf : (n,) float64 scratch.                        # OUT (clobbered)

    Returns
    -------
    alpha : float, the midpoint of the first interval of minimum error (Alg. 1 line 5)
    err_min : int, the error on that interval
    err_now : int, the error of the current ensemble (alpha = 0, ties are errors)
    lo, hi : float, the interval (hi = inf when unbounded)
    """
    n = scores.shape[0]
    n_plus = 0      # breakpoints where an example turns wrong (scenario 2: error +1)
    n_minus = 0     # breakpoints where an example turns right (scenario 1: error -1)
    base = 0        # error on (0, first breakpoint)
    err_now = 0
    for i in range(n):
        yi = y[i]
        ay = scores[i, yi]
        t = top_wrong(scores, i, yi)
        correct = ay > t
        if not correct:
            err_now += 1
        h = vote[i]
        if h == yi:
            if not correct:
                v = t - ay                       # Alg. 1.1 line 5: q = a(x_i, l) - a(x_i, y_i)
                if v > 0.0:
                    base += 1
                    minus_buf[n_minus] = v       # line 6: error update -1 right of q
                    n_minus += 1
        else:
            if correct:
                plus_buf[n_plus] = ay - scores[i, h]   # line 8: intersection with f(x_i, h)
                n_plus += 1                            # line 9: error update +1
            else:
                base += 1                        # scenario 3: wrong whatever alpha is
    plus = plus_buf[:n_plus]
    minus = minus_buf[:n_minus]
    plus.sort()                                  # line 13: sort the keys
    minus.sort()
    # Lines 14-15: scan the intervals left to right; keep the first one of minimum error.
    err = base
    best = base
    lo = 0.0
    hi = INF
    best_lo = 0.0
    ip = 0
    im = 0
    found_end = False
    # The interval (0, first breakpoint) is the first candidate.
    while ip < n_plus or im < n_minus:
        if im >= n_minus or (ip < n_plus and plus[ip] <= minus[im]):
            v = plus[ip]
        else:
            v = minus[im]
        if not found_end:
            # v ends the current best interval (the first breakpoint after best_lo).
            hi = v
            found_end = True
        while ip < n_plus and plus[ip] == v:
            err += 1
            ip += 1
        while im < n_minus and minus[im] == v:
            err -= 1
            im += 1
        if err < best:
            best = err
            best_lo = v
            found_end = False
            hi = INF
    lo = best_lo
    if hi == INF:
        alpha = lo + unit
    else:
        alpha = 0.5 * (lo + hi)
    return alpha, best, err_now, lo, hi


# ---------------------------------------------------------------------------------------------
# Phase I: every interval of minimum 0-1 loss, compared by the exponential loss
# ---------------------------------------------------------------------------------------------

# Where alpha is placed inside a bounded interval of minimum error: at least this fraction of
# its width away from either end (the exponential loss's minimiser, clipped; ALGORITHMS.md).
INTERVAL_INSET = 0.05


@njit(cache=True, nogil=True)
def _heapsort_by_key(key, idx, m):
    """Sort idx[:m] so that key[idx[:m]] is non-decreasing (in place, no allocation; ties in
    a deterministic but unspecified order, which no caller depends on)."""
    for q in range(m // 2 - 1, -1, -1):
        _sift_key(key, idx, q, m)
    for end in range(m - 1, 0, -1):
        t = idx[0]
        idx[0] = idx[end]
        idx[end] = t
        _sift_key(key, idx, 0, end)


@inline_helper
def _sift_key(key, idx, root, end):
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and key[idx[child + 1]] > key[idx[child]]:
            child += 1
        if key[idx[child]] > key[idx[root]]:
            t = idx[root]
            idx[root] = idx[child]
            idx[child] = t
            root = child
        else:
            return


@inline_helper
def _log_or_ninf(x):
    return np.log(x) if x > 0.0 else -INF


@inline_helper
def _logaddexp3(a, b, c):
    m = max(a, max(b, c))
    if m == -INF:
        return -INF
    return m + np.log(np.exp(a - m) + np.exp(b - m) + np.exp(c - m))


@njit(cache=True, nogil=True)
def exp_loss_log(A, Cpre, Dpre, kinks, korder, n_k, alpha):
    """log of A e^-alpha + C(alpha) + D(alpha) e^alpha (see line_search_zero_one_exp): the
    exponential loss along the coordinate, over e^shift. Cpre/Dpre[j] are the sums of c_i/d_i
    over the j smallest kinks; an example is past its kink when kink <= alpha."""
    lo = 0
    hi = n_k
    while lo < hi:                    # j = number of kinks <= alpha
        mid = (lo + hi) >> 1
        if kinks[korder[mid]] <= alpha:
            lo = mid + 1
        else:
            hi = mid
    C = Cpre[n_k] - Cpre[lo]
    D = Dpre[lo]
    if C < 0.0:
        C = 0.0                       # rounding of the prefix differences
    return _logaddexp3(_log_or_ninf(A) - alpha, _log_or_ninf(C), _log_or_ninf(D) + alpha)


@inline_helper
def interval_step(a_star, lo, hi, unit):
    """The step inside interval (lo, hi) for an exponential loss minimised at a_star (inf: it
    falls for ever): a_star clipped INTERVAL_INSET of the width inside a bounded interval;
    max(a_star, 1.05 lo) in the unbounded one, lo + unit when the loss falls for ever, unit
    when that leaves 0 (see ``line_search_zero_one_exp``)."""
    if hi == INF:
        if a_star == INF:
            return lo + unit
        a = max(a_star, 1.05 * lo)
        return a if a > 0.0 else unit
    w = hi - lo
    return min(max(a_star, lo + INTERVAL_INSET * w), hi - INTERVAL_INSET * w)


@njit(cache=True, nogil=True)
def line_search_zero_one_exp(scores, y, vote, unit, plus_buf, minus_buf, kinks, cs, ds,
                             korder, Cpre, Dpre):
    """Phase I step along one weak learner: among ALL intervals of minimum training 0-1 error,
    the one whose exponential loss is smallest, at the exponential loss's minimiser clipped
    into it.

    The 0-1 error is Alg. 1.1's step function (ties are errors; see
    ``line_search_zero_one``). The exponential loss is DirectBoost's Alg. 1 line 13 measure
    in DMCBoost's multi-class form, L(alpha) = sum_i exp(-(F(x_i, y_i) - max_{l != y_i}
    F(x_i, l))) (for K = 2 exactly AdaBoost's sum exp(-y f(x))). Along the coordinate each
    term is exp(-m_i - alpha) (voted its class) or exp(max(-m_i, alpha - w_i)) (voted a wrong
    label; kink at w_i - m_i), so L is convex: L(alpha) e^-shift = A e^-alpha + C(alpha) +
    D(alpha) e^alpha, with C and D changing at the kinks, and its minimiser alpha* over
    alpha >= 0 is found piece by piece. In a bounded interval (lo, hi) the step is alpha*
    clipped into [lo + 5% (hi - lo), hi - 5% (hi - lo)] (by convexity the smallest loss there);
    in the unbounded one (lo, inf) it is max(alpha*, 1.05 lo), lo + unit when L falls for
    ever, and unit when lo = 0 and alpha* = 0 (round 1 of a multi-class fit, whose trees are
    right on fewer than half the examples: the unit fixes the scale of the weights).
    Intervals are compared by log L at their step; ties (relative 1e-12) go to the first.

    Parameters
    ----------
    scores, y, vote, unit : as ``line_search_zero_one``.                          # IN
    plus_buf, minus_buf, kinks, cs, ds : (n,) float64 scratch.                     # OUT
    korder : (n,) int64 scratch; Cpre, Dpre : (n + 1,) float64 scratch.            # OUT

    Returns
    -------
    alpha : float, the step (Alg. 1 line 5 under this reading)
    err_min : int, the minimum error over alpha > 0
    err_now : int, the error of the current ensemble (alpha = 0)
    lo, hi : float, the chosen interval (hi = inf when unbounded)
    loss : float, log of the exponential loss at alpha (over e^shift, as ``loss0``)
    loss0 : float, log of the exponential loss of the current ensemble (alpha = 0)
    """
    n = scores.shape[0]
    n_plus = 0
    n_minus = 0
    base = 0
    err_now = 0
    # shift = max_i(-m_i): every coefficient below is <= 1 (no overflow; see docstring).
    shift = -INF
    for i in range(n):
        yi = y[i]
        mi = scores[i, yi] - top_wrong(scores, i, yi)
        if -mi > shift:
            shift = -mi
    A = 0.0
    n_k = 0
    for i in range(n):
        yi = y[i]
        ay = scores[i, yi]
        t = top_wrong(scores, i, yi)
        mi = ay - t
        correct = ay > t
        if not correct:
            err_now += 1
        h = vote[i]
        if h == yi:
            A += np.exp(-mi - shift)
            if not correct:
                v = t - ay
                if v > 0.0:
                    base += 1
                    minus_buf[n_minus] = v
                    n_minus += 1
        else:
            wi = ay - scores[i, h]
            kinks[n_k] = wi - mi
            cs[n_k] = np.exp(-mi - shift)
            ds[n_k] = np.exp(-wi - shift)
            korder[n_k] = n_k
            n_k += 1
            if correct:
                plus_buf[n_plus] = wi
                n_plus += 1
            else:
                base += 1
    plus = plus_buf[:n_plus]
    minus = minus_buf[:n_minus]
    plus.sort()
    minus.sort()
    _heapsort_by_key(kinks, korder, n_k)
    Cpre[0] = 0.0
    Dpre[0] = 0.0
    for j in range(n_k):
        Cpre[j + 1] = Cpre[j] + cs[korder[j]]
        Dpre[j + 1] = Dpre[j] + ds[korder[j]]
    # The minimiser alpha* >= 0 of the convex L: its derivative -A e^-a + D(a) e^a rises;
    # walk the pieces between kinks (a kink <= 0 is already past).
    j = 0
    while j < n_k and kinks[korder[j]] <= 0.0:
        j += 1
    piece_lo = 0.0
    a_star = INF
    if A <= 0.0:
        a_star = 0.0
    else:
        lnA = np.log(A)
        while True:
            piece_hi = kinks[korder[j]] if j < n_k else INF
            D = Dpre[j]
            if D > 0.0:
                a_s = 0.5 * (lnA - np.log(D))
                if a_s <= piece_lo:
                    a_star = piece_lo
                    break
                if a_s <= piece_hi:
                    a_star = a_s
                    break
            if j >= n_k:
                break                 # L falls for ever (every example voted its class)
            piece_lo = piece_hi
            j += 1
            while j < n_k and kinks[korder[j]] <= piece_lo:
                j += 1
    # Pass 1 over the intervals (Alg. 1.1 lines 13-15): the minimum error.
    best = base
    err = base
    ip = 0
    im = 0
    while ip < n_plus or im < n_minus:
        if im >= n_minus or (ip < n_plus and plus[ip] <= minus[im]):
            v = plus[ip]
        else:
            v = minus[im]
        while ip < n_plus and plus[ip] == v:
            err += 1
            ip += 1
        while im < n_minus and minus[im] == v:
            err -= 1
            im += 1
        if err < best:
            best = err
    # Pass 2: every interval of that error, at its clipped minimiser.
    best_loss = INF
    b_alpha = 0.0
    b_lo = 0.0
    b_hi = INF
    err = base
    lo = 0.0
    ip = 0
    im = 0
    while True:
        if ip < n_plus or im < n_minus:
            if im >= n_minus or (ip < n_plus and plus[ip] <= minus[im]):
                hi = plus[ip]
            else:
                hi = minus[im]
        else:
            hi = INF
        if err == best:
            a = interval_step(a_star, lo, hi, unit)
            val = exp_loss_log(A, Cpre, Dpre, kinks, korder, n_k, a)
            if val < best_loss - OBJ_TIE_EPS * (1.0 + abs(best_loss)) or best_loss == INF:
                best_loss = val
                b_alpha = a
                b_lo = lo
                b_hi = hi
        if hi == INF:
            break
        while ip < n_plus and plus[ip] == hi:
            err += 1
            ip += 1
        while im < n_minus and minus[im] == hi:
            err -= 1
            im += 1
        lo = hi
    loss0 = exp_loss_log(A, Cpre, Dpre, kinks, korder, n_k, 0.0)
    return b_alpha, best, err_now, b_lo, b_hi, best_loss, loss0


# ---------------------------------------------------------------------------------------------
# Phase II: numerators N_i(alpha) = min(p + s alpha, w - alpha)
# ---------------------------------------------------------------------------------------------


@inline_helper
def piece_terms(scores, i, yi, h, m_i):
    """(p, s, w) of example i under label h: N_i(alpha) = min(p + s alpha, w - alpha)."""
    if h == yi:
        return m_i, 1.0, INF
    return m_i, 0.0, scores[i, yi] - scores[i, h]


@inline_helper
def numerator(p, s, w, alpha):
    a = p + s * alpha
    b = w - alpha
    return a if a <= b else b


@inline_helper
def right_slope(p, s, w, alpha):
    """Slope of N just right of alpha (at the kink the falling piece takes over)."""
    a = p + s * alpha
    b = w - alpha
    return s if a < b else -1.0


@inline_helper
def left_slope(p, s, w, alpha):
    """Slope of N just left of alpha."""
    a = p + s * alpha
    b = w - alpha
    return s if a <= b else -1.0


@inline_helper
def median_of_three(buf, lo, hi):
    """Median of buf[lo], buf[(lo + hi) // 2] and buf[hi]: the selections' pivot."""
    a = buf[lo]
    b = buf[(lo + hi) >> 1]
    c = buf[hi]
    if a > b:
        a, b = b, a
    if b > c:
        b = c
        if a > b:
            b = a
    return b


@njit(cache=True, nogil=True)
def _select_kth(buf, L, k):
    """In-place selection: returns the k-th smallest (0-based) of buf[:L] (Hoare partition
    with median-of-three pivots; deterministic)."""
    lo = 0
    hi = L - 1
    while hi > lo:
        pivot = median_of_three(buf, lo, hi)
        i = lo
        j = hi
        while i <= j:
            while buf[i] < pivot:
                i += 1
            while buf[j] > pivot:
                j -= 1
            if i <= j:
                t = buf[i]
                buf[i] = buf[j]
                buf[j] = t
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return buf[k]
    return buf[k]


@njit(cache=True, nogil=True)
def bottom_sum(p, s, w, L, nprime, alpha, side, buf):
    """S(alpha) = sum of the n' smallest N_i(alpha) over the first L examples, and the
    one-sided slope of S (side = +1: right, -1: left).

    Among numerators tied at the n'-th value, the ones that are smallest just beside alpha
    belong to the bottom set on that side: the smallest right slopes (right side) or the
    largest left slopes (left side). buf is (>= L,) float64 scratch.
    """
    for i in range(L):
        buf[i] = numerator(p[i], s[i], w[i], alpha)
    vk = _select_kth(buf, L, nprime - 1)
    return bottom_sum_at_kth(p, s, w, L, nprime, alpha, side, vk)


@njit(cache=True, nogil=True)
def bottom_sum_at_kth(p, s, w, L, nprime, alpha, side, vk):
    """``bottom_sum`` given vk, the n'-th smallest numerator at alpha (the same floats: the
    selection's result is the order statistic, whatever the order of buf). At alpha = 0 every
    numerator is p_i (w_i >= p_i, also in floating point: see ``piece_terms``), so vk is the
    n'-th smallest margin, the same for every vote vector of a round
    (``margin_tree_global``)."""
    total = 0.0
    slope = 0.0
    n_less = 0
    # Slopes of the examples tied at vk, counted by value (slopes are -1, 0 or 1).
    t_m1 = 0
    t_0 = 0
    t_p1 = 0
    for i in range(L):
        v = numerator(p[i], s[i], w[i], alpha)
        if side > 0:
            sl = right_slope(p[i], s[i], w[i], alpha)
        else:
            sl = left_slope(p[i], s[i], w[i], alpha)
        if v < vk:
            total += v
            slope += sl
            n_less += 1
        elif v == vk:
            if sl < -0.5:
                t_m1 += 1
            elif sl < 0.5:
                t_0 += 1
            else:
                t_p1 += 1
    need = nprime - n_less
    total += need * vk
    return total, tied_slope(slope, need, t_m1, t_0, t_p1, side)


@njit(cache=True, nogil=True)
def tied_slope(slope, need, t_m1, t_0, t_p1, side):
    """The one-sided slope of S: slope (the examples below the n'-th value) plus the slopes
    of the ``need`` examples tied at it that belong to the bottom set on that side (t_m1,
    t_0, t_p1 tied examples of slope -1, 0, +1)."""
    if side > 0:        # smallest right slopes first
        take = min(need, t_m1)
        slope -= take
        need -= take
        take = min(need, t_0)
        need -= take
        slope += need
    else:               # largest left slopes first
        take = min(need, t_p1)
        slope += take
        need -= take
        take = min(need, t_0)
        need -= take
        slope -= need
    return slope


@njit(cache=True, nogil=True)
def bottom_avg_value(p, s, w, L, nprime, c, alpha, buf):
    """g(alpha) = S(alpha) / (n' (c + alpha)), the bottom-n' average margin (eq. 5)."""
    S, _ = bottom_sum(p, s, w, L, nprime, alpha, 1, buf)
    return S / (nprime * (c + alpha))


@inline_helper
def _rising(S, slope, nprime, c, alpha):
    """True when g rises beside alpha: phi = S' (c + alpha) - S > 0 (eq. 9).

    phi is a difference of sums of n' scores; on a flat piece of g it is 0 up to rounding, so
    values within OBJ_TIE_EPS of the scale n' (c + alpha) count as 0 (flat pieces are
    maxima, so the search then stops at their left end).
    """
    return slope * (c + alpha) - S > OBJ_TIE_EPS * nprime * (c + alpha)


@njit(cache=True, nogil=True)
def _phi_positive(p, s, w, L, nprime, c, alpha, side, buf):
    """Sign of the one-sided derivative of g (eq. 9) at alpha: True when positive."""
    S, slope = bottom_sum(p, s, w, L, nprime, alpha, side, buf)
    return _rising(S, slope, nprime, c, alpha)


@njit(cache=True, nogil=True)
def line_search_bottom_avg(p, s, w, L, nprime, c, hi, th, buf):
    """Alg. 2.1: bisection on the sign of the derivative (9) over [0, hi] to width < th.

    Returns q, the midpoint of the final bracket (0 when g does not increase right of 0; hi
    when it still increases just left of hi). By Theorem 3 the maximiser lies in the bracket.
    """
    if not _phi_positive(p, s, w, L, nprime, c, 0.0, 1, buf):
        return 0.0
    if _phi_positive(p, s, w, L, nprime, c, hi, -1, buf):
        return hi
    begin = 0.0
    end = hi
    while end - begin >= th:                      # line 9: until end - begin < th
        q = 0.5 * (begin + end)                   # line 3
        if not begin < q < end:
            # The bracket is one ulp wide but still >= th (large alpha: above 2**36 ~ 6.9e10
            # the spacing of float64 exceeds th = 1e-5), so the midpoint rounds to an end and
            # bisection makes no progress. Stop at that end: the value the loop returned
            # whenever it terminated (q = begin with phi <= 0 gives end = begin, q = end with
            # phi > 0 gives begin = end); the other two cases looped forever.
            break
        if _phi_positive(p, s, w, L, nprime, c, q, 1, buf):   # line 4: derivative (9) > 0
            begin = q                             # line 5
        else:
            end = q                               # line 7
        if end <= begin:
            break
    return 0.5 * (begin + end)


@njit(cache=True, nogil=True)
def max_bottom_avg_exact(p, s, w, L, nprime, c, hi, buf):
    """Exact maximiser and maximum of g over [0, hi] (the quantity Alg. 2.1 brackets).

    S is concave piecewise linear with integer slopes, so the maximiser is the kink where
    phi turns from positive to non-positive. Starting from the pieces of S just right of 0
    and just left of hi, intersect them; at the intersection either both pieces are still
    S's own (then it is that kink — decided by integer slope equality, so exactly) or a new
    piece is found and replaces the end on its side. Returns (alpha, g(alpha)).
    """
    S0, Q0 = bottom_sum(p, s, w, L, nprime, 0.0, 1, buf)
    return max_bottom_avg_from(p, s, w, L, nprime, c, hi, buf, S0, Q0)


@njit(cache=True, nogil=True)
def max_bottom_avg_from(p, s, w, L, nprime, c, hi, buf, S0, Q0):
    """``max_bottom_avg_exact`` given S(0) and its right slope (``bottom_sum`` at 0, +1)."""
    if not _rising(S0, Q0, nprime, c, 0.0):
        return 0.0, S0 / (nprime * c)
    S1, Q1 = bottom_sum(p, s, w, L, nprime, hi, -1, buf)
    if _rising(S1, Q1, nprime, c, hi):
        return hi, S1 / (nprime * (c + hi))
    # Lines: S = P + Q alpha.
    P0 = S0
    P1 = S1 - Q1 * hi
    a0 = 0.0
    a1 = hi
    for _ in range(4 * L + 64):
        if Q0 <= Q1:      # cannot happen for a concave S with phi0 > 0 >= phi1; be safe
            break
        x = (P1 - P0) / (Q0 - Q1)
        if x <= a0 or x >= a1:
            # The pieces meet at (or, by rounding, beyond) an end: that end is the kink.
            x = a0 if x <= a0 else a1
            Sx, _ = bottom_sum(p, s, w, L, nprime, x, 1, buf)
            return x, Sx / (nprime * (c + x))
        Sl, Ql = bottom_sum(p, s, w, L, nprime, x, -1, buf)
        Sr, Qr = bottom_sum(p, s, w, L, nprime, x, 1, buf)
        if Ql == Q0 and Qr == Q1:
            return x, Sr / (nprime * (c + x))
        if _rising(Sr, Qr, nprime, c, x):
            a0 = x
            P0 = Sr - Qr * x
            Q0 = Qr
        elif _rising(Sl, Ql, nprime, c, x):
            return x, Sr / (nprime * (c + x))
        else:
            a1 = x
            P1 = Sl - Ql * x
            Q1 = Ql
    # Fallback (not reached for well-formed input): the better end of the bracket.
    g0 = bottom_avg_value(p, s, w, L, nprime, c, a0, buf)
    g1 = bottom_avg_value(p, s, w, L, nprime, c, a1, buf)
    return (a0, g0) if g0 >= g1 else (a1, g1)


# ---------------------------------------------------------------------------------------------
# DirectBoost_order: the n'-th smallest margin, binary case
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _kth_two_sorted(inc, n_inc, dec, n_dec, k, alpha):
    """k-th smallest (1-based) of {inc[a] + alpha} U {dec[b] - alpha}, both arrays sorted."""
    # Binary search on a = how many of the k come from inc.
    lo = max(0, k - n_dec)
    hi = min(k, n_inc)
    while lo < hi:
        a = (lo + hi) >> 1
        # If inc's (a+1)-th is below dec's (k-a)-th, take more from inc.
        if inc[a] + alpha < dec[k - a - 1] - alpha:
            lo = a + 1
        else:
            hi = a
    a = lo
    best = -INF
    if a > 0:
        best = inc[a - 1] + alpha
    if k - a > 0:
        v = dec[k - a - 1] - alpha
        if v > best:
            best = v
    return best


@njit(cache=True, nogil=True)
def order_margin_value(inc, n_inc, dec, n_dec, k, c, alpha):
    """n'-th smallest margin at alpha (k = n')."""
    return _kth_two_sorted(inc, n_inc, dec, n_dec, k, alpha) / (c + alpha)


@njit(cache=True, nogil=True)
def max_order_margin_exact(inc, n_inc, dec, n_dec, k, c, hi):
    """Exact maximiser of the k-th smallest margin over [0, hi] for lines of slope +-1.

    inc / dec: sorted intercepts of the increasing (h = y) and decreasing (h != y) numerators.
    Candidates: 0, hi and the points (D_{k-a+1} - I_a)/2 where the k-th order statistic turns
    from the a-th increasing line to a decreasing one. Ties go to the smallest alpha.
    Returns (alpha, value).
    """
    best_a = 0.0
    best_v = order_margin_value(inc, n_inc, dec, n_dec, k, c, 0.0)
    for a in range(1, min(k, n_inc) + 1):
        b = k - a + 1
        if b < 1 or b > n_dec:
            continue
        x = 0.5 * (dec[b - 1] - inc[a - 1])
        if x <= 0.0 or x > hi:
            continue
        v = order_margin_value(inc, n_inc, dec, n_dec, k, c, x)
        if v > best_v + OBJ_TIE_EPS * (1.0 + abs(best_v)) or (
                abs(v - best_v) <= OBJ_TIE_EPS * (1.0 + abs(best_v)) and x < best_a):
            best_v = v
            best_a = x
    v = order_margin_value(inc, n_inc, dec, n_dec, k, c, hi)
    if v > best_v + OBJ_TIE_EPS * (1.0 + abs(best_v)):
        best_v = v
        best_a = hi
    return best_a, best_v
