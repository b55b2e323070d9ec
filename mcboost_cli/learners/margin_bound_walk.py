"""An upper bound of a Phase II label search's maximum from the bottom set at alpha = 0 alone,
computed by walking that set's kinks in increasing order (``margin_search_fast``'s cheap
pre-search).

For a candidate (a set of the node's items, each voted a label) S(alpha) is the sum of the
kcap smallest numerators N_i(alpha) = min(m_i + s_i alpha, w_i - alpha). For any kcap of the
set's members B, S(alpha) <= U_B(alpha) = sum over B of N_i(alpha) (the kcap smallest sum to
at most any kcap), so max g <= max U_B / (kcap (c + alpha)) over [0, hi]. With B the bottom
set at 0 (the first kcap members in margin order) U_B is tight while that set does not
change, which at the small maximisers of late rounds it barely does: measured at the root of
two Letter-4k states, U's maximum sits a median 2e-5 above the exact one, while the 26
labels' maxima spread over ~4e-4 (ALGORITHMS.md, "Speed").

U_B is concave with one kink per member voted a wrong label, at its gap
g_i = w_i - m_i >= 0 (the member's numerator is m_i up to g_i and falls after it), and a
slope of +1 per member voted its own label:

    U_B(alpha) = S(0) + r alpha - sum over B's wrong-voted members of (alpha - g_i)^+ .

On each piece between kinks phi = U' (c + alpha) - U is constant (eq. 9), so the maximiser of
U / (c + alpha) is the first kink where phi stops being positive. The node keeps, per label k,
its items voted k wrongly sorted by gap (``kink_lists``); a candidate's walk reads the lists
of its labels in gap order and keeps the entries that are members of its bottom set
(``walk_bound``): the walk reads the kinks below the maximiser only, not the set.

Entries beyond ``gcap`` may be left out of the lists: a missing kink only raises U, so the
bound stays valid (looser).

A walk reads every list entry below the maximiser and keeps those in its bottom set, so at a
node whose bottom set holds a tenth of its items it skips ~9 of 10 entries it reads. The node
also keeps the lists restricted to the first R_j = kcap 2^j margin-order positions
(``tier_lists``); a walk whose bottom set lies within R_j positions reads tier j (``tier_of``):
the same member entries in the same order, fewer others, so the same floats.
"""

from __future__ import annotations

from numba import njit

from .._inline import inline_helper
from .line_search import INF, _rising

MODE_LEFT = 0      # members: bin <= t, voted label a (as in margin_search_fast)
MODE_SPLIT = 1     # members: all, voted lab_fixed (bin <= t) or k
MODE_ALL = 2       # members: all, voted k


@inline_helper
def _pair_less(g, q, a, b):
    return g[a] < g[b] or (g[a] == g[b] and q[a] < q[b])


@njit(cache=True, nogil=True)
def _sort_pairs(g, q, n):
    """Sort (g, q)[0:n] by (g, q) in place (heapsort on the pair: no allocation, and a
    deterministic order)."""
    for start in range(n // 2 - 1, -1, -1):
        _pairs_sift(g, q, start, n)
    for end in range(n - 1, 0, -1):
        tg = g[0]
        g[0] = g[end]
        g[end] = tg
        tq = q[0]
        q[0] = q[end]
        q[end] = tq
        _pairs_sift(g, q, 0, end)


@inline_helper
def _pairs_sift(g, q, root, end):
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        if child + 1 < end and _pair_less(g, q, child, child + 1):
            child += 1
        if not _pair_less(g, q, root, child):
            return
        tg = g[root]
        g[root] = g[child]
        g[child] = tg
        tq = q[root]
        q[root] = q[child]
        q[child] = tq
        root = child


@njit(cache=True, nogil=True)
def kink_lists(sm, sy, sw, L, kg, kq, nk, gcap):
    """Per label k, the node's items (margin-order positions q < L) that label k votes wrongly,
    as (gap, position) sorted by gap: kg[k, :nk[k]], kq[k, :nk[k]]. The gap is the alpha where
    the item's numerator under k turns from m to w - alpha (w = sw[q, k], the same
    subtraction as the numerator's). Gaps above ``gcap`` are left out."""
    K = kg.shape[0]
    for k in range(K):
        n = 0
        for q in range(L):
            if sy[q] == k:
                continue
            g = sw[q, k] - sm[q]
            if g < 0.0:
                g = 0.0
            if g <= gcap:
                kg[k, n] = g
                kq[k, n] = q
                n += 1
        _sort_pairs(kg[k], kq[k], n)
        nk[k] = n


@njit(cache=True, nogil=True)
def bottom_counts(sy, sx, f, t, lab_fixed, mode, L, kcap, rcnt):
    """The bottom set at 0 of a candidate (non-grouped items): its first kcap members in
    margin order. Returns readk, the margin-order position after its last member, and writes
    rcnt[k] = the number of its members voted their own label when the varying label is k
    (MODE_SPLIT: members left of the split voted lab_fixed, the others k)."""
    K = rcnt.shape[0]
    for k in range(K):
        rcnt[k] = 0.0
    fixed_r = 0.0
    seen = 0
    readk = 0
    for q in range(L):
        if seen >= kcap:
            break
        inside = sx[f, q] <= t
        if mode == MODE_LEFT and not inside:
            continue
        seen += 1
        readk = q + 1
        yq = sy[q]
        if mode == MODE_SPLIT and inside:
            if yq == lab_fixed:
                fixed_r += 1.0
        else:
            rcnt[yq] += 1.0
    if fixed_r != 0.0:
        for k in range(K):
            rcnt[k] += fixed_r
    return readk


@inline_helper
def _next_kink(kg, kq, n, i, lab, sx, f, t, readk, side):
    """Index of the next entry of label lab's list from i on that is a member of the bottom
    set: position < readk and on the given side (0: any, 1: bin <= t, 2: bin > t)."""
    while i < n:
        pos = kq[lab, i]
        if pos < readk:
            if side == 0:
                return i
            inside = sx[f, pos] <= t
            if inside == (side == 1):
                return i
        i += 1
    return n


@njit(cache=True, nogil=True)
def walk_bound(kg, kq, nk, sx, f, t, lab_fixed, k, mode, kcap, readk, S0, r, c, hi):
    """(max over [0, hi] of U(alpha) / (kcap (c + alpha)), its maximiser) for the varying
    label k (see the module docstring), U = S0 + r alpha - (the wrong-voted bottom members' kinks). In
    MODE_SPLIT the left members' kinks come from lab_fixed's list and the right members' from
    k's; otherwise all from k's."""
    if mode == MODE_SPLIT:
        la = lab_fixed
        na = nk[la]
        side_a = 1
        side_b = 2
    else:
        la = k
        na = 0
        side_a = 0
        side_b = 1 if mode == MODE_LEFT else 0
    nb = nk[k]
    ia = _next_kink(kg, kq, na, 0, la, sx, f, t, readk, side_a)
    ib = _next_kink(kg, kq, nb, 0, k, sx, f, t, readk, side_b)
    a = 0.0
    U = S0
    slope = r
    while True:
        # Kinks at or left of a: the members already falling right of a.
        while True:
            ga = kg[la, ia] if ia < na else INF
            gb = kg[k, ib] if ib < nb else INF
            if ga <= a and ga <= gb:
                slope -= 1.0
                ia = _next_kink(kg, kq, na, ia + 1, la, sx, f, t, readk, side_a)
            elif gb <= a:
                slope -= 1.0
                ib = _next_kink(kg, kq, nb, ib + 1, k, sx, f, t, readk, side_b)
            else:
                break
        if not _rising(U, slope, kcap, c, a):
            return U / (kcap * (c + a)), a
        g_next = ga if ga < gb else gb
        if g_next >= hi:
            return (U + slope * (hi - a)) / (kcap * (c + hi)), hi
        U += slope * (g_next - a)
        a = g_next


@njit(cache=True, nogil=True)
def tier_lists(kg, kq, nk, L, base, tkg, tkq, tnk, tR):
    """The kink lists (``kink_lists``) restricted to the first R_j = base 2^j margin-order
    positions, for the tiers j < T with R_j < L (at most tkg.shape[0]): tkg[j, k, :tnk[j, k]]
    and tkq[j, k, :tnk[j, k]] hold the entries of label k's list with position < R_j, in the
    list's order (each tier filtered from the next larger one). Writes tR[j] = R_j; returns T."""
    TM = tkg.shape[0]
    K = kg.shape[0]
    T = 0
    R = base if base > 0 else 1
    while T < TM and R < L:
        tR[T] = R
        T += 1
        R *= 2
    for j in range(T - 1, -1, -1):
        R = tR[j]
        for k in range(K):
            if j == T - 1:
                src_g = kg[k]
                src_q = kq[k]
                ns = nk[k]
            else:
                src_g = tkg[j + 1, k]
                src_q = tkq[j + 1, k]
                ns = tnk[j + 1, k]
            dg = tkg[j, k]
            dq = tkq[j, k]
            n = 0
            for i in range(ns):
                pos = src_q[i]
                if pos < R:
                    dg[n] = src_g[i]
                    dq[n] = pos
                    n += 1
            tnk[j, k] = n
    return T


@inline_helper
def tier_of(tR, T, readk):
    """The smallest tier whose positions hold a bottom set ending at readk (-1: none; use the
    full lists)."""
    for j in range(T):
        if readk <= tR[j]:
            return j
    return -1
