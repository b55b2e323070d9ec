"""Binary (K = 2) Phase II node search: what a split candidate can reach, computed without its
label searches (``margin_search_fast``'s candidate skip, ``bound_cuts`` bit 8).

With two labels an example's margin is m_i = F(x_i, y_i) - F(x_i, other), and under a tree's
vote its numerator (eq. 7) is m_i + alpha when the tree votes y_i (R, rising) and
min(m_i, w_i - alpha) = m_i - alpha when it votes the other label (W, falling; w_i = m_i for
K = 2, the same subtraction). So S(alpha), the sum of the kcap smallest numerators, takes j of
its members from W and kcap - j from R:

    S(alpha) = min_j A_j + (kcap - 2 j) alpha,   A_j = (j smallest W margins)
                                                       + (kcap - j smallest R margins),

and A_{j+1} - A_j = (the (j+1)-th W margin) - (the (kcap - j)-th R margin) grows with j, so
every line is a piece of S in turn. At alpha = 0 the piece is j0, the number of W members
among the kcap smallest margins (for line 9 the node's bottom set, the same for every
candidate), with A_{j0} = S(0); piece j ends at alpha_j = (A_{j+1} - A_j) / 2, where the
next W margin above the bottom set trades places with the largest R margin still in it. On
piece j, g = S / (kcap (c + alpha)) rises iff phi_j = (kcap - 2 j) c - A_j > 0 (eq. 9 with a
constant slope), and phi_j falls with j, so the maximiser of g over [0, hi] is the start of
the first piece with phi_j <= 0 (0 when that is j0; hi when the pieces run out or pass hi
first). ``binary_vote_max`` walks those pieces: the bottom set once (for line 9 its j0 comes
from per-bin counts, ``split_wrong_counts``), then one R member backwards and one W member
forwards per piece — O(kcap + pieces) per vote instead of a label search's probes, each a scan
of the bottom region. Line 9 gives a candidate "kl on S_left, either label on S_right" with
kl line 7's label, so its maximum is at most the larger of the pair "kl | 1 - kl" (walked)
and the single-label vote "kl everywhere" (``binary_single_max``, once per node), and line
7's label is known when the two maxima of "a on S_left" are apart (``line7_label``).

These maxima are the exact real ones up to rounding, but not the bits the exact search
computes (other sums, in another order), so they only decide with a slack far above both
computations' rounding (``bound_slack``): a candidate is skipped when they put it below the
best split found so far (``binary_candidate_below``), and every other candidate is searched
as before. Within that slack of the best — typically a node where no split rises at 0, all
candidates tied at g0 = S(0) / (kcap c) and ranked by the corner key — the corners are decided
exactly instead: whether a label pair rises at 0 and its corner key are sums of +-1 over the
items with margins <= v0, computed from counts by the exact search's own float operations
(``corner_counts``, ``corner_slope_key``, ``line7_corner_label``), so the same bits. Either
way the skipped candidates cannot rank above the best split, and the trees are the same.

References
----------
.. [1] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013 (eqs. 6-10; Alg. 2).
.. [2] S. Zhai, T. Xia, S. Wang. A multi-class boosting method with direct optimization.
       KDD 2014 (eqs. 4-5, 9; Theorem 3).
"""

from __future__ import annotations

from numba import njit

from .._inline import inline_helper
from .line_search import OBJ_TIE_EPS, _rising

# Unit roundoff of float64.
_U = 2.0 ** -53


@inline_helper
def _rises(sy, sx, f, t, lab_left, lab_right, p):
    """Item p (margin-order position) is voted its own label: lab_left on bin <= t, else
    lab_right."""
    return sy[p] == (lab_left if sx[f, p] <= t else lab_right)


@inline_helper
def _member(sx, f, t, left_only, p):
    return (not left_only) or sx[f, p] <= t


@njit(cache=True, nogil=True)
def binary_vote_max(sm, sy, sx, f, t, lab_left, lab_right, left_only, L, kcap, c, hi):
    """Maximum over alpha in [0, hi] of g(alpha) = S(alpha) / (kcap (c + alpha)) for the vote
    "lab_left on bin <= t of feature f, lab_right on the rest" (K = 2; see the module
    docstring), in real arithmetic up to rounding. The members are all L items of the node,
    or with ``left_only`` those with bin <= t (line 7's candidate, lab_left on S_left); kcap is
    at most their number. ``sm``, ``sy``, ``sx``: the node's margins, labels and bins in
    margin order (``margin_search_fast._node_views``). Returns (maximum, the number of terms
    summed into S)."""
    # The bottom set at 0: the first kcap members; S(0) and j0, its members voted wrong.
    A = 0.0
    j0 = 0
    seen = 0
    p = 0
    while seen < kcap:
        if _member(sx, f, t, left_only, p):
            A += sm[p]
            if not _rises(sy, sx, f, t, lab_left, lab_right, p):
                j0 += 1
            seen += 1
        p += 1
    g, terms, _ = _walk(sm, sy, sx, f, t, lab_left, lab_right, left_only, L, kcap, c, hi, A,
                        j0, p, False, 0.0)
    return g, terms


@njit(cache=True, nogil=True)
def _walk(sm, sy, sx, f, t, lab_left, lab_right, left_only, L, kcap, c, hi, A, j0, p, early,
          ref):
    """``binary_vote_max`` from its bottom set at 0: S(0) = A, j0 of its members voted wrong,
    its last member at position p - 1. Walks the pieces j0, j0 + 1, ... of S and returns
    (g, terms, how): how = 0, g is the maximum. With ``early`` the walk stops as soon as the
    maximum is known to be below ``ref`` or not (slack included): how = 1, g is an upper bound
    with g + slack < ref (the line of the current piece at hi: S is concave, so it lies below
    that line, and g rises up to the piece); how = 2, g <= the maximum (g at the current
    piece's start) with g + slack >= ref."""
    terms = kcap
    sig = float(kcap - 2 * j0)
    a = 0.0
    rp = p - 1               # next R member of the bottom set, searched backwards
    wp = p                   # next W member above it, searched forwards
    while True:
        if sig * c - A <= 0.0:
            return (A + sig * a) / (kcap * (c + a)), terms, 0
        if early:
            ga = (A + sig * a) / (kcap * (c + a))
            if ga + bound_slack(ga, terms, c) >= ref:
                return ga, terms, 2
            gh = (A + sig * hi) / (kcap * (c + hi))
            if gh + bound_slack(gh, terms, c) < ref:
                return gh, terms, 1
        while rp >= 0 and not (_member(sx, f, t, left_only, rp)
                               and _rises(sy, sx, f, t, lab_left, lab_right, rp)):
            rp -= 1
        while wp < L and not (_member(sx, f, t, left_only, wp)
                              and not _rises(sy, sx, f, t, lab_left, lab_right, wp)):
            wp += 1
        if rp < 0 or wp >= L:
            break            # the last piece: it rises up to hi
        d = sm[wp] - sm[rp]
        a_end = 0.5 * d
        if a_end >= hi:
            break
        A += d
        terms += 2
        sig -= 2.0
        if a_end > a:
            a = a_end
        rp -= 1
        wp += 1
    return (A + sig * hi) / (kcap * (c + hi)), terms, 0


@njit(cache=True, nogil=True)
def split_wrong_counts(sy, sx, kcap, obin, nob, cand_lo, cand_hi, cand_t, dbin, j0c):
    """j0c[ci] = the number of the node's bottom set at 0 (its first kcap items in margin
    order) that candidate ci's vote "0 on bin <= t, 1 on the rest" votes wrong, for every
    candidate (the vote "1 | 0" votes the other kcap - j0c[ci] wrong): per feature, +1 per
    class-1 bottom item in its bin and -1 per class-0 one (``dbin``, scratch over the node's
    occupied bins ``obin[f, :nob[f]]``), summed over the bins <= t, plus the class-0 count.
    O(F (kcap + B')) per node instead of O(kcap) per candidate."""
    F = sx.shape[0]
    n0 = 0
    for p in range(kcap):
        if sy[p] == 0:
            n0 += 1
    for f in range(F):
        if cand_lo[f] == cand_hi[f]:
            continue
        for j in range(nob[f]):
            dbin[f, obin[f, j]] = 0
        for p in range(kcap):
            dbin[f, sx[f, p]] += 1 if sy[p] == 1 else -1
        acc = n0
        ci = cand_lo[f]
        for j in range(nob[f]):
            if ci >= cand_hi[f]:
                break
            b = obin[f, j]
            acc += dbin[f, b]
            if cand_t[ci] == b:
                j0c[ci] = acc
                ci += 1


@inline_helper
def bound_slack(g, terms, c):
    """Slack that makes ``binary_vote_max``'s value an upper bound of every float maximum
    the exact search computes for the same vote, and a lower bound minus it a lower bound:
    both are g at some alpha up to rounding, and g's absolute rounding error is a few ulps per
    summed term (|m| <= c, alpha <= 2c + 1, S divided by kcap (c + alpha); the walk sums
    ``terms`` >= kcap margins, the exact search kcap numerators), and the exact search may
    stop at the left end of a piece that rises by less than its flatness tolerance
    (``line_search._rising``: 1e-12 relative, at most ~1e-12 (3 + 1/c) of g). 1e-9 (1 + |g|)
    is far above both for any node size used here; the second term covers huge nodes and
    tiny c."""
    return 1e-9 * (1.0 + abs(g)) + (16.0 * _U * (terms + 8.0) + 1e-11) * (3.0 + 1.0 / c)


@njit(cache=True, nogil=True)
def binary_single_max(sm, sy, sx, L, kcap, c, hi):
    """Upper bounds (slack included) of the maxima of the node's two single-label votes,
    "0 everywhere" and "1 everywhere" (the same for every candidate)."""
    g0, n0 = binary_vote_max(sm, sy, sx, 0, 0, 0, 0, False, L, kcap, c, hi)
    g1, n1 = binary_vote_max(sm, sy, sx, 0, 0, 1, 1, False, L, kcap, c, hi)
    return g0 + bound_slack(g0, n0, c), g1 + bound_slack(g1, n1, c)


@inline_helper
def _below(g, terms, how, c, ref):
    """A walk's result (``_walk``) proves the maximum + slack below ref."""
    if how == 2:
        return False
    return how == 1 or g + bound_slack(g, terms, c) < ref


@njit(cache=True, nogil=True)
def binary_candidate_below(sm, sy, sx, f, t, L, kcap, kcap_left, c, hi, S0, j0, single0,
                           single1, ref):
    """True when the maximum of the binary split candidate (f, t) is below ref (slack
    included) under every label pair the node search can give it. Line 9 votes kl on S_left
    and either label on S_right over all L items, so with line 7's label kl the maximum is at
    most the larger of the single-label vote "kl everywhere" (``binary_single_max``, slack
    included) and the pair "kl | 1 - kl", walked from the node's bottom set (S0 = the sum of
    its kcap margins, j0 = ``split_wrong_counts``'s count for the candidate) until it is known
    to stay below ref or not. A label kl whose two votes stay below ref is ruled out; when
    only one is, line 7's label decides, and it is computed (``line7_label``: S_left's kcap_left
    bottom members) only then."""
    below0 = single0 < ref
    if below0:
        g, n, how = _walk(sm, sy, sx, f, t, 0, 1, False, L, kcap, c, hi, S0, j0, kcap, True,
                          ref)
        below0 = _below(g, n, how, c, ref)
    below1 = single1 < ref
    if below1:
        g, n, how = _walk(sm, sy, sx, f, t, 1, 0, False, L, kcap, c, hi, S0, kcap - j0, kcap,
                          True, ref)
        below1 = _below(g, n, how, c, ref)
    if below0 and below1:
        return True
    if not below0 and not below1:
        return False
    kl = line7_label(sm, sy, sx, f, t, L, kcap_left, c, hi)
    return kl == (0 if below0 else 1)


@njit(cache=True, nogil=True)
def line7_label(sm, sy, sx, f, t, L, kcap_left, c, hi):
    """Line 7's label of candidate (f, t) when it is certain: the maxima of "a on S_left" (its
    kcap_left bottom members) for a = 0, 1, apart by more than their slacks — line 7 takes
    the larger. -1 when they are not that far apart."""
    g0, n0 = binary_vote_max(sm, sy, sx, f, t, 0, 0, True, L, kcap_left, c, hi)
    g1, n1 = binary_vote_max(sm, sy, sx, f, t, 1, 1, True, L, kcap_left, c, hi)
    s0 = bound_slack(g0, n0, c)
    s1 = bound_slack(g1, n1, c)
    if g0 - s0 > g1 + s1:
        return 0
    if g1 - s1 > g0 + s0:
        return 1
    return -1


# Corner candidates. When none of a candidate's label pairs rises at alpha = 0 its maximum is
# S(0) / (kcap c) = g0 — the same float for every candidate of the node (its bottom set at 0
# is the node's first kcap margins, summed in order) — and ties between such candidates are
# broken by the corner key (``margin_search_fast._slopes_at_zero``). Both the right slope at
# 0 and the corner key are sums of +-1 and 0 over the node's items with a margin <= v0 (the
# kcap-th margin), so they follow from counts of those items by kind: strict (m < v0) or
# tied (m == v0), class y, and whether the exact search counts the other label as falling
# at 0 when it is the fixed label of S_left (``_fixed_slope0``: its float test
# scores[other] == scores[y] - m, which rounding can fail). Kind code: 4 tied + 2 y + fall.


@inline_helper
def _kind(scores, order_m, sm, sy, q, n_strict):
    """Kind code of the item at margin position q (see above)."""
    r = order_m[q]
    yq = sy[q]
    fall = 1 if scores[r, 1 - yq] == scores[r, yq] - sm[q] else 0
    return (4 if q >= n_strict else 0) + 2 * yq + fall


@njit(cache=True, nogil=True)
def corner_counts(scores, order_m, sm, sy, sx, L, kcap, obin, nob, cand_lo, cand_hi, cand_t,
                  cbin, ccnt, tot):
    """Counts of the node's items with a margin <= v0 by kind (see above): tot[kind] over the
    node's L items, and ccnt[ci, kind] over S_left (bin <= t) of every candidate ci, from
    per-bin counts (``cbin``, scratch) summed over the occupied bins <= t. Returns
    (n_strict, n_tied)."""
    F = sx.shape[0]
    v0 = sm[kcap - 1]
    n_strict = kcap
    while n_strict > 0 and sm[n_strict - 1] == v0:
        n_strict -= 1
    end = kcap
    while end < L and sm[end] == v0:
        end += 1
    for k in range(8):
        tot[k] = 0
    for q in range(end):
        tot[_kind(scores, order_m, sm, sy, q, n_strict)] += 1
    for f in range(F):
        if cand_lo[f] == cand_hi[f]:
            continue
        no = nob[f]
        for j in range(no):
            for k in range(8):
                cbin[f, obin[f, j], k] = 0
        for q in range(end):
            cbin[f, sx[f, q], _kind(scores, order_m, sm, sy, q, n_strict)] += 1
        for j in range(1, no):
            for k in range(8):
                cbin[f, obin[f, j], k] += cbin[f, obin[f, j - 1], k]
        for ci in range(cand_lo[f], cand_hi[f]):
            for k in range(8):
                ccnt[ci, k] = cbin[f, cand_t[ci], k]
    return n_strict, end - n_strict


@njit(cache=True, nogil=True)
def corner_slope_key(ccnt, ci, tot, a, b, n_strict, n_tied, kcap):
    """(S'(0+), corner key) of candidate ci's vote "a on S_left, b on S_right" over the node,
    as ``margin_search_fast._slopes_at_zero`` computes them in MODE_SPLIT (S_left's members
    voted the fixed label a, the others the varying label b), from the counts of
    ``corner_counts``: the same integers, and the key by the same float operations on them,
    so the same bits. The tied slots (kcap - n_strict) take the smallest slopes for S'(0+)
    and are shared evenly by all tied items for the key."""
    # Left (fixed a): +1 if y == a; -1 if y != a and the float test says falling, else 0.
    # Right (varying b): +1 if y == b, else -1 (the other label is always the top wrong one).
    lr = 2 * a               # kinds of class a: 2a (not falling), 2a + 1 (falling)
    lw = 2 * (1 - a)
    rr = 2 * b
    rw = 2 * (1 - b)
    fixed_strict = (ccnt[ci, lr] + ccnt[ci, lr + 1]) - ccnt[ci, lw + 1]
    r_right = (tot[rr] + tot[rr + 1]) - (ccnt[ci, rr] + ccnt[ci, rr + 1])
    r_wrong = (tot[rw] + tot[rw + 1]) - (ccnt[ci, rw] + ccnt[ci, rw + 1])
    vstrict = r_right - r_wrong
    f_p1 = ccnt[ci, 4 + lr] + ccnt[ci, 4 + lr + 1]
    f_m1 = ccnt[ci, 4 + lw + 1]
    f_0 = ccnt[ci, 4 + lw]
    vp1 = (tot[4 + rr] + tot[4 + rr + 1]) - (ccnt[ci, 4 + rr] + ccnt[ci, 4 + rr + 1])
    vm1 = (tot[4 + rw] + tot[4 + rw + 1]) - (ccnt[ci, 4 + rw] + ccnt[ci, 4 + rw + 1])
    need0 = kcap - n_strict
    # _slopes_at_zero's float expressions on these integers.
    fs = float(fixed_strict)
    vs = float(vstrict)
    tie_sum = (f_p1 - f_m1) + (float(vp1) - float(vm1))
    key = ((fs + vs) + need0 * tie_sum / n_tied) / kcap
    slope = fs + vs
    need = need0
    take = min(need, f_m1 + vm1)
    slope -= take
    need -= take
    take = min(need, f_0)
    need -= take
    slope += need
    return slope, key


@njit(cache=True, nogil=True)
def line7_corner_label(sm, sy, sx, f, t, L, kcap_left, c, eps):
    """Line 7's label of candidate (f, t) when neither label rises at 0 on S_left, exactly as
    ``margin_search_fast._pick_label`` decides it in MODE_LEFT: both maxima are then
    S_left(0) / (kcap_left c), the same float, and the corner keys (``_slopes_at_zero``'s,
    from S_left's counts by the same float operations) decide — label 1 when its key is
    above label 0's beyond the tie tolerance (with ``eps`` = 0 the keys are 0: label 0).
    -1 when a label rises at 0 (then the walks decide, ``line7_label``)."""
    S0 = 0.0
    seen = 0
    p = 0
    v0 = 0.0
    while seen < kcap_left:
        if sx[f, p] <= t:
            S0 += sm[p]
            seen += 1
            v0 = sm[p]
        p += 1
    # S_left's members with a margin <= v0: strict (< v0) and tied, by class.
    s0 = 0
    s1 = 0
    t0 = 0
    t1 = 0
    q = 0
    while q < L and sm[q] <= v0:
        if sx[f, q] <= t:
            if sm[q] < v0:
                if sy[q] == 0:
                    s0 += 1
                else:
                    s1 += 1
            elif sy[q] == 0:
                t0 += 1
            else:
                t1 += 1
        q += 1
    n_tied = t0 + t1
    need0 = kcap_left - (s0 + s1)
    e0 = 0.0
    e1 = 0.0
    for k in range(2):
        # Every member varies with the label: +1 when voted its class, else -1.
        vs = float((s0 - s1) if k == 0 else (s1 - s0))
        vp1 = float(t0 if k == 0 else t1)
        vm1 = float(t1 if k == 0 else t0)
        tie_sum = 0 + (vp1 - vm1)
        key = ((0.0 + vs) + need0 * tie_sum / n_tied) / kcap_left
        slope = 0.0 + vs
        need = need0
        take = min(need, vm1)
        slope -= take
        need -= take
        slope += need          # (no zero slopes: every member rises or falls)
        if _rising(S0, slope, kcap_left, c, 0.0):
            return -1
        if k == 0:
            e0 = key
        else:
            e1 = key
    if eps > 0.0 and e1 > e0 + OBJ_TIE_EPS * (1.0 + abs(e0)):
        return 1
    return 0
