"""Phase II node search of DirectBoost_order (binary, the n'-th smallest margin), fast: the
same splits as ``margin_search_exhaustive._best_split_phase2`` with ``OBJ_ORDER``, unconstrained.

With two labels an example's numerator (eq. 7) is m_i + alpha when the tree votes y_i (a
rising line) and min(m_i, w_i - alpha) = m_i - alpha otherwise (a falling line; w_i = m_i for
K = 2, the same subtraction), so under every label pair its intercept is the same m_i and a
candidate only decides which of the node's margins rise. The exhaustive search rebuilds and
sorts the two intercept lists for each of the four line searches of each threshold; here

* the node's examples are sorted by margin once (``_heapsort_by_key``), and for a threshold t
  one pass over that order writes the four sorted lists every line search of t takes:
  A_0, A_1 = the margins of S_left with y = 0, 1 (line 7: label k on S_left rises on A_k and
  falls on A_{1-k}) and U, V = (S_left, y = 0) + (S_right, y = 1) and its complement (line 9
  with the labels "0 | 1" rises on U and falls on V; "1 | 0" the reverse). A filtered pass of
  a sorted sequence is sorted, so these are, value for value, the arrays the exhaustive
  search sorts (O(n) instead of O(n log n));
* line 9 with k_right = k_left votes k_left on all of S: that search does not depend on the
  threshold (nor the feature) and is the single-label search of the node, done once per
  node for both labels;
* ``max_order_margin_exact`` and ``order_margin_value`` (the epsilon-relaxed key) are called on
  those arrays with the same n' (capped at the examples searched), so every maximum and key
  has the same bits, and the candidates are compared by the same ``_better`` in the same
  order (label 0 before 1, feature by feature, thresholds upwards): the same split.

References
----------
.. [1] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013: DirectBoost_order (sec. 2.2, "choose the intersection point
       that led to the largest increasing of the bottom n'th margin"; the trees as sec. 3).
.. [2] S. Zhai, T. Xia, S. Wang. A multi-class boosting method with direct optimization.
       KDD 2014: Alg. 1.2 lines 7, 9 and 13 (the node rule).
"""

from __future__ import annotations

from numba import njit

from .._inline import inline_helper
from .line_search import INF, OBJ_TIE_EPS, _heapsort_by_key, order_margin_value
from .margin_search_exhaustive import _better, bin_offsets


@njit(cache=True, nogil=True)
def max_order_margin_pruned(inc, n_inc, dec, n_dec, k, c, hi):
    """``line_search.max_order_margin_exact`` (the same (alpha, value), bit for bit) with two
    exact shortcuts in its scan of the intersection points x_a = (D_{k-a+1} - I_a) / 2:

    * x_a falls with a (I_a rises, D_{k-a+1} falls, and rounding is monotone), so once
      x_a <= 0 every later point is skipped by the exact scan too: the scan stops;
    * at x_a, the a increasing lines up to I_a and the k - a + 1 decreasing lines up to
      D_{k-a+1} all lie at or below max(I_a + x_a, D_{k-a+1} - x_a) (float sums, monotone in
      the intercept), k + 1 lines in all, so the k-th smallest — which
      ``_kth_two_sorted`` returns as one of those float sums — is at most that maximum, and
      its ratio to c + x_a at most the maximum's ratio (division by the same positive float is
      monotone). A point whose bound is below the running best by more than the tie
      tolerance can neither replace it nor tie with it, so it is not evaluated; the running
      best is then the exact scan's at every step.
    """
    best_a = 0.0
    best_v = order_margin_value(inc, n_inc, dec, n_dec, k, c, 0.0)
    a_lo = k + 1 - n_dec
    if a_lo < 1:
        a_lo = 1
    a_hi = k if k < n_inc else n_inc
    for a in range(a_lo, a_hi + 1):
        b = k - a + 1
        x = 0.5 * (dec[b - 1] - inc[a - 1])
        if x <= 0.0:
            break
        if x > hi:
            continue
        tol = OBJ_TIE_EPS * (1.0 + abs(best_v))
        up = inc[a - 1] + x
        down = dec[b - 1] - x
        if (up if up >= down else down) / (c + x) < best_v - tol:
            continue
        v = order_margin_value(inc, n_inc, dec, n_dec, k, c, x)
        if v > best_v + tol or (abs(v - best_v) <= tol and x < best_a):
            best_v = v
            best_a = x
    v = order_margin_value(inc, n_inc, dec, n_dec, k, c, hi)
    if v > best_v + OBJ_TIE_EPS * (1.0 + abs(best_v)):
        best_v = v
        best_a = hi
    return best_a, best_v


@inline_helper
def _order_max(inc, n_inc, dec, n_dec, nprime, c, hi, eps):
    """(maximum, epsilon key) of the n'-th order margin, n' capped at n_inc + n_dec: what
    ``margin_search_exhaustive._objective_max`` returns for OBJ_ORDER on these sorted lists."""
    L = n_inc + n_dec
    k = nprime if nprime < L else L
    _, v = max_order_margin_pruned(inc, n_inc, dec, n_dec, k, c, hi)
    v_eps = 0.0
    if eps > 0.0:
        v_eps = order_margin_value(inc, n_inc, dec, n_dec, k, c, eps)
    return v, v_eps


@njit(cache=True, nogil=True)
def best_split_order(X, sample_index, start, end, n_bins, y, margin, c, nprime, hi, eps,
                     srt, binpos, nbin, a0, a1, u, v):
    """Best split of node S for the n'-th order margin (DirectBoost_order, K = 2,
    unconstrained); Alg. 1.2 lines 7, 9 and 13 as ``_best_split_phase2``, whose result it
    returns: (found, feature, threshold, k_left, k_right, k_single).

    srt : (>= n,) int scratch, the node's examples by margin; binpos : (B + 1,) int64
    scratch; nbin : (F, B) int64, the node's per-bin counts (written, as the exhaustive
    search does); a0, a1, u, v : (>= n,) float64 scratch, the candidate's sorted lists."""
    F = X.shape[1]
    nS = end - start
    for q in range(nS):
        srt[q] = sample_index[start + q]
    _heapsort_by_key(margin, srt, nS)
    # Single label k on all of S (the root's fallback, and line 9 with k_right = k_left):
    # rising lines are the margins with y = k, falling the others.
    n0 = 0
    n1 = 0
    for q in range(nS):
        i = srt[q]
        if y[i] == 0:
            a0[n0] = margin[i]
            n0 += 1
        else:
            a1[n1] = margin[i]
            n1 += 1
    all0_v, all0_e = _order_max(a0, n0, a1, n1, nprime, c, hi, eps)
    all1_v, all1_e = _order_max(a1, n1, a0, n0, nprime, c, hi, eps)
    k_single = 0
    if _better(all1_v, all1_e, all0_v, all0_e):
        k_single = 1
    found = False
    best = -INF
    best_eps = -INF
    bf = -1
    bt = -1
    bkl = 0
    bkr = 0
    for f in range(F):
        bin_offsets(X, sample_index, start, end, f, binpos, nbin)
        # binpos[t + 1] = |S_left(t)|, S_left(t) = the examples of bin <= t.
        for t in range(n_bins[f] - 1):
            nl = binpos[t + 1]
            if nbin[f, t] == 0 or nl >= nS:
                continue
            # The four sorted lists of threshold t (one pass over the margin order).
            n_a0 = 0
            n_a1 = 0
            n_u = 0
            n_v = 0
            for q in range(nS):
                i = srt[q]
                mi = margin[i]
                if X[i, f] <= t:
                    if y[i] == 0:
                        a0[n_a0] = mi
                        n_a0 += 1
                        u[n_u] = mi
                        n_u += 1
                    else:
                        a1[n_a1] = mi
                        n_a1 += 1
                        v[n_v] = mi
                        n_v += 1
                elif y[i] == 1:
                    u[n_u] = mi
                    n_u += 1
                else:
                    v[n_v] = mi
                    n_v += 1
            # Line 7: label of S_left over its examples (label 0 first; ties keep it).
            kl = 0
            kl_v, kl_e = _order_max(a0, n_a0, a1, n_a1, nprime, c, hi, eps)
            v1, e1 = _order_max(a1, n_a1, a0, n_a0, nprime, c, hi, eps)
            if _better(v1, e1, kl_v, kl_e):
                kl = 1
            # Line 9: label of S_right with S_left's fixed, over all of S. k_right = k_left is
            # the single-label search; the other label gives "0 | 1" (rising on U) or "1 | 0".
            if kl == 0:
                r0_v, r0_e = all0_v, all0_e
                r1_v, r1_e = _order_max(u, n_u, v, n_v, nprime, c, hi, eps)
            else:
                r0_v, r0_e = _order_max(v, n_v, u, n_u, nprime, c, hi, eps)
                r1_v, r1_e = all1_v, all1_e
            kr = 0
            kr_v = r0_v
            kr_e = r0_e
            if _better(r1_v, r1_e, kr_v, kr_e):
                kr = 1
                kr_v = r1_v
                kr_e = r1_e
            # Line 13: the split of maximum objective (first feature, lowest threshold on ties).
            if not found or _better(kr_v, kr_e, best, best_eps):
                found = True
                best = kr_v
                best_eps = kr_e
                bf = f
                bt = t
                bkl = kl
                bkr = kr
    return found, bf, bt, bkl, bkr, k_single
