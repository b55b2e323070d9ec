"""Naive, obviously correct twins of ``line_search`` and the tree growers — tests only.

Everything here recomputes from scratch with plain numpy and Python loops: the 0-1 error at a
weight alpha is counted by adding alpha to the voted labels and comparing scores; a margin
objective is evaluated by sorting all margins; a maximiser is found by evaluating the
objective at every point where it can change (every kink and every pairwise crossing of the
examples' margin curves) plus a fine grid. The tree twin enumerates every split and every
label with these brute-force searches and follows the same rules (depth-first node numbering,
first feature / lowest threshold / lowest label on ties) as the compiled builder.
"""

from __future__ import annotations

import numpy as np

from .line_search import OBJ_TIE_EPS

# ---------------------------------------------------------------------------------------------
# Phase I
# ---------------------------------------------------------------------------------------------


def strict_error_at(scores, y, vote, alpha) -> int:
    """0-1 errors of the scores after adding alpha to each example's voted label (ties are
    errors)."""
    f = np.array(scores, dtype=float, copy=True)
    n = f.shape[0]
    f[np.arange(n), vote] += alpha
    fy = f[np.arange(n), y]
    f[np.arange(n), y] = -np.inf
    return int(np.sum(~(fy > f.max(axis=1))))


def zero_one_breakpoints(scores, y, vote):
    """Every alpha > 0 at which some example's correctness can change: where its voted
    label's line meets the true label's score or the best incorrect score."""
    n = scores.shape[0]
    pts = set()
    for i in range(n):
        h = vote[i]
        for k in range(scores.shape[1]):
            if k == h:
                continue
            v = scores[i, k] - scores[i, h]
            if v > 0:
                pts.add(float(v))
    return np.array(sorted(pts))


def scenario_breakpoints(scores, y, vote):
    """The keys of Alg. 1.1's map e: for each example, its intersection point q > 0 in
    scenario 1 (h = y, currently wrong) or scenario 2 (h != y, currently right)."""
    pts = set()
    for i in range(scores.shape[0]):
        yi, h = y[i], vote[i]
        others = np.delete(scores[i], yi)
        top = others.max()
        if h == yi and not scores[i, yi] > top:
            q = top - scores[i, yi]
            if q > 0:
                pts.add(float(q))
        elif h != yi and scores[i, yi] > top:
            pts.add(float(scores[i, yi] - scores[i, h]))
    return np.array(sorted(pts))


def line_search_zero_one_naive(scores, y, vote, unit=1.0):
    """Brute force.

    Returns (alpha, err_min, cands, errs): alpha is the midpoint of the first interval of
    minimum error between consecutive keys of Alg. 1.1 (past the last key: last + unit), its
    error counted by brute force; (cands, errs) are every crossing point of any two score lines
    and every midpoint between consecutive crossing points, with their brute-force errors —
    the global minimum over alpha > 0 is errs.min().
    """
    keys = scenario_breakpoints(scores, y, vote)
    edges = np.concatenate([[0.0], keys])
    mids = [(edges[j] + edges[j + 1]) / 2 for j in range(len(keys))]
    mids.append(edges[-1] + unit)
    mid_err = [strict_error_at(scores, y, vote, a) for a in mids]
    j = int(np.argmin(mid_err))
    bp = zero_one_breakpoints(scores, y, vote)
    e2 = np.concatenate([[0.0], bp])
    all_mids = [(e2[k] + e2[k + 1]) / 2 for k in range(len(bp))] + [e2[-1] + unit]
    cands = np.concatenate([np.array(all_mids), bp])
    errs = np.array([strict_error_at(scores, y, vote, a) for a in cands])
    return mids[j], int(mid_err[j]), cands, errs


def exp_loss_along(scores, y, vote, alpha):
    """sum_i exp(-(F(x_i, y_i) - max_{l != y_i} F(x_i, l))) after adding alpha to the voted
    labels (no shift; the tests use small scores)."""
    f = np.array(scores, dtype=float, copy=True)
    r = np.arange(f.shape[0])
    f[r, vote] += alpha
    fy = f[r, y].copy()
    f[r, y] = -np.inf
    return float(np.exp(-(fy - f.max(axis=1))).sum())


def min_error_intervals_naive(scores, y, vote):
    """Every interval (lo, hi) between consecutive keys of Alg. 1.1 (hi = inf for the last)
    with its brute-force error at the interval's midpoint (lo + 1 when unbounded)."""
    keys = scenario_breakpoints(scores, y, vote)
    edges = np.concatenate([[0.0], keys, [np.inf]])
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        mid = lo + 1.0 if hi == np.inf else (lo + hi) / 2
        out.append((float(lo), float(hi), strict_error_at(scores, y, vote, mid)))
    return out


# ---------------------------------------------------------------------------------------------
# Phase II
# ---------------------------------------------------------------------------------------------


def numerators(p, s, w, alpha):
    return np.minimum(p + s * alpha, w - alpha)


def bottom_avg_naive(p, s, w, nprime, c, alpha):
    """Average of the n' smallest margins at alpha, by sorting."""
    N = np.sort(numerators(p, s, w, alpha))
    return float(N[:nprime].sum() / (nprime * (c + alpha)))


def order_margin_naive(p, s, w, nprime, c, alpha):
    """The n'-th smallest margin at alpha, by sorting."""
    N = np.sort(numerators(p, s, w, alpha))
    return float(N[nprime - 1] / (c + alpha))


def margin_candidates(p, s, w, hi, n_grid=2001):
    """Every point of [0, hi] where some margin curve kinks or two of them cross, plus a fine
    grid: the objective's pieces all start and end at such points."""
    lines = []   # (example, intercept, slope)
    pts = [0.0, float(hi)]
    for i in range(len(p)):
        lines.append((i, float(p[i]), float(s[i])))
        if np.isfinite(w[i]):
            lines.append((i, float(w[i]), -1.0))
            x = (w[i] - p[i]) / (1.0 + s[i])     # kink of example i
            if 0.0 < x < hi:
                pts.append(float(x))
    for a in range(len(lines)):
        ia, pa, sa = lines[a]
        for b in range(a + 1, len(lines)):
            ib, pb, sb = lines[b]
            if ia == ib or sa == sb:
                continue
            x = (pb - pa) / (sa - sb)
            if 0.0 < x < hi:
                pts.append(float(x))
    pts.extend(np.linspace(0.0, hi, n_grid).tolist())
    return np.unique(np.array(pts))


def maximise_naive(objective, cands):
    """(smallest argmax, max) of objective over the candidate points."""
    vals = np.array([objective(a) for a in cands])
    vmax = vals.max()
    tol = OBJ_TIE_EPS * (1.0 + abs(vmax))
    j = int(np.flatnonzero(vals >= vmax - tol)[0])
    return float(cands[j]), float(vmax)


def order_max_naive(p, s, w, nprime, c, hi):
    """(argmax, max) of the n'-th smallest margin over [0, hi], by brute force."""
    cands = margin_candidates(p, s, w, hi, n_grid=0)
    return maximise_naive(lambda a: order_margin_naive(p, s, w, nprime, c, a), cands)


def bottom_avg_max_naive(p, s, w, nprime, c, hi, n_grid=0):
    """(argmax, max) of the bottom-n' average margin over [0, hi], by brute force."""
    cands = margin_candidates(p, s, w, hi, n_grid=n_grid)
    return maximise_naive(lambda a: bottom_avg_naive(p, s, w, nprime, c, a), cands)


def binary_vote_max_naive(sm, sy, sx, f, t, lab_left, lab_right, kcap, c, hi,
                          left_only=False):
    """``margin_bound_binary.binary_vote_max``'s twin (K = 2): the maximum over [0, hi] of the
    bottom-kcap average margin of the vote "lab_left on bin <= t of feature f, lab_right on
    the rest" (with ``left_only``, of the items with bin <= t alone), by brute force over every
    kink and crossing. An item voted its label rises (m + alpha); one voted the other label
    has w = m (K = 2), so it falls (m - alpha)."""
    inside = np.asarray(sx[f]) <= t
    keep = inside if left_only else np.ones(len(sm), bool)
    lab = np.where(inside, lab_left, lab_right)
    right = (lab == np.asarray(sy))[keep]
    p = np.asarray(sm, dtype=float)[keep]
    s = right.astype(float)
    w = np.where(right, np.inf, p)
    return bottom_avg_max_naive(p, s, w, kcap, c, hi)[1]


# ---------------------------------------------------------------------------------------------
# Trees
# ---------------------------------------------------------------------------------------------


def pieces_naive(scores, y, idx, votes):
    """(p, s, w) of examples idx voted ``votes``: N = min(p + s alpha, w - alpha)."""
    sc = scores[idx]
    yy = y[idx]
    r = np.arange(len(idx))
    ay = sc[r, yy]
    other = sc.copy()
    other[r, yy] = -np.inf
    m = ay - other.max(axis=1)
    hit = votes == yy
    s = np.where(hit, 1.0, 0.0)
    w = np.where(hit, np.inf, ay - sc[r, votes])
    return m, s, w


def round_axis(scores, y, unit=1.0):
    """The round's axis {0} U {max_{l != y} a_l - a_y : wrong examples} and the reference
    weight of each of its cells (midpoints; the last cell's left end + unit)."""
    n = scores.shape[0]
    pts = [0.0]
    for i in range(n):
        top = np.delete(scores[i], y[i]).max()
        if not scores[i, y[i]] > top:
            pts.append(float(top - scores[i, y[i]]))
    axis = np.unique(np.array(pts))
    ref = np.append((axis[:-1] + axis[1:]) / 2, axis[-1] + unit)
    return axis, ref


def cell_loss_naive(A, C, D, lo, hi, unit):
    """min of A e^-a + C + D e^a over the 5%-inset cell (the rule of
    ``line_search_zero_one_exp``; see ``zero_one_phase1.cell_loss``)."""
    if A > 0 and D > 0:
        a_star = 0.5 * (np.log(A) - np.log(D))
    elif A > 0:
        a_star = np.inf
    else:
        a_star = 0.0
    if hi == np.inf:
        a = lo + unit if a_star == np.inf else max(a_star, 1.05 * lo)
        if a <= 0:
            a = unit
    else:
        a = min(max(a_star, lo + 0.05 * (hi - lo)), hi - 0.05 * (hi - lo))
    return C + (A * np.exp(-a) if A > 0 else 0.0) + (D * np.exp(a) if D > 0 else 0.0)


def key_better(v, best):
    """(0-1 error, exponential loss) lexicographically smaller (losses within 1e-9 relative
    tie), the compiled ``_key_better``."""
    if best is None:
        return True
    if v[0] != best[0]:
        return v[0] < best[0]
    return v[1] < best[1] - 1e-9 * (abs(v[1]) + abs(best[1]))


def zero_one_key_naive(scores, y, votes, axis, ref, unit, cut_aware=False):
    """The Phase I key of a whole vote vector (``zero_one_phase1``), by brute force: for
    every axis cell j, the error just right of axis[j] and the exponential loss's minimum
    over the cell, which ends at the hypothesis's first breakpoint inside it, the kinks
    placed by the cell's midpoint — or, with ``cut_aware``, by the cell's left end when that
    breakpoint cuts the cell short; the smallest (error, loss), first cell on ties."""
    n, K = scores.shape
    r = np.arange(n)
    ay = scores[r, y]
    other = scores.copy()
    other[r, y] = -np.inf
    top = other.max(axis=1)
    m = ay - top
    shift = float((-m).max())
    keys = scenario_breakpoints(scores, y, votes)
    hit = votes == y
    best = None
    for j, lo in enumerate(axis):
        hi = axis[j + 1] if j + 1 < len(axis) else np.inf
        cell_end = hi
        after = keys[keys > lo]
        if len(after):
            hi = min(hi, after[0])
        e = strict_error_at(scores, y, votes, lo + 1.0 if hi == np.inf else (lo + hi) / 2)
        A = float(np.exp(-m[hit] - shift).sum())
        kink = top - scores[r, votes]
        # Kinks placed by the cell's midpoint, or (cut_aware) by its left end when the
        # hypothesis's interval is cut short inside the cell (it is judged near that end).
        place = lo if cut_aware and hi < cell_end else ref[j]
        past = ~hit & (place > kink)
        before = ~hit & ~past
        C = float(np.exp(-m[before] - shift).sum())
        D = float(np.exp(-(ay - scores[r, votes])[past] - shift).sum())
        v = (e, cell_loss_naive(A, C, D, float(lo), float(hi), unit))
        if best is None or (v[0] <= best[0] and key_better(v, best)):
            best = v
    return best


def _margin_rank(scores, y, idx, votes, c, nprime, objective, constrain, eps):
    """(maximum over alpha of the margin objective, its tie-break key: the corner key for the
    bottom-n' average, the value at alpha = eps for the order margin)."""
    p, s, w = pieces_naive(scores, y, idx, votes)
    hi = 2.0 * c + 1.0
    if constrain:
        risky = (s == 0.0) & (p > 0.0)
        if risky.any():
            hi = min(hi, float(w[risky].min()))
    k = min(nprime, len(idx))
    if objective == "order":
        v = order_max_naive(p, s, w, k, c, hi)[1]
        ve = order_margin_naive(p, s, w, k, c, eps) if eps > 0 else 0.0
    else:
        v = bottom_avg_max_naive(p, s, w, k, c, hi)[1]
        ve = corner_key_naive(p, s, w, k) if eps > 0 else 0.0
    return v, ve


def corner_key_naive(p, s, w, k):
    """Right slope at 0 of the sum of the k smallest numerators, the slots at the k-th value
    shared evenly by the examples tied there, over k (the compiled ``corner_key``)."""
    slope = np.where(s > 0, 1.0, np.where(w <= p, -1.0, 0.0))
    v0 = np.sort(p)[k - 1]
    below = p < v0
    tied = p == v0
    return float((slope[below].sum() + (k - below.sum()) * slope[tied].sum() / tied.sum()) / k)


def grow_tree_naive(X_binned, y, n_bins, scores, max_depth, *, phase="zero_one", c=1.0,
                    nprime=1, objective="avg", constrain=False, eps=0.0, unit=1.0,
                    cut_aware=False):
    """Brute-force twin of ``zero_one_phase1``'s and ``margin_tree``'s growers.

    Candidates are ranked like the compiled growers: Phase I by ``zero_one_key_naive`` of the
    whole tree they make (the rest of the tree keeps its votes; the root starts as the best
    single label), Phase II by
    (maximum of the margin objective, then for the bottom-n' average its corner key — see
    ``corner_key_naive`` — and for the order margin its value at alpha = eps); remaining ties go to the
    lowest label, feature and threshold. Returns a dict of node lists (feature, threshold,
    left, right, label) and the per-sample vote array.
    """
    n, F = X_binned.shape
    K = scores.shape[1]
    maximise = phase != "zero_one"
    axis, ref = round_axis(scores, y, unit)
    cur = np.zeros(n, np.int64)     # Phase I: the partial tree's votes (global key)

    def evaluate(idx, votes):
        if maximise:
            return _margin_rank(scores, y, idx, votes, c, nprime, objective, constrain, eps)
        full = cur.copy()
        full[idx] = votes
        return zero_one_key_naive(scores, y, full, axis, ref, unit, cut_aware)

    def better(v, best):
        if best is None:
            return True
        if maximise:
            tol = OBJ_TIE_EPS * (1.0 + abs(best[0]))
            if v[0] > best[0] + tol:
                return True
            if v[0] < best[0] - tol:
                return False
            return v[1] > best[1] + OBJ_TIE_EPS * (1.0 + abs(best[1]))
        return key_better(v, best)

    nodes = {"feature": [-1], "threshold": [0], "left": [-1], "right": [-1], "label": [0]}
    vote = np.zeros(n, np.int32)

    def best_split(idx):
        best = None
        out = None
        for f in range(F):
            col = X_binned[idx, f]
            for t in range(int(n_bins[f]) - 1):
                if not np.any(col == t):
                    continue
                go_left = col <= t
                nl = int(go_left.sum())
                if nl == 0 or nl == len(idx):
                    continue
                SL = idx[go_left]
                order = np.concatenate([SL, idx[~go_left]])
                kl, kl_v = 0, None
                for k in range(K):
                    # Phase I scores the whole tree: S_right keeps S's current label.
                    v = evaluate(SL, np.full(nl, k))
                    if better(v, kl_v):
                        kl, kl_v = k, v
                kr, kr_v = 0, None
                for k in range(K):
                    votes = np.concatenate([np.full(nl, kl), np.full(len(idx) - nl, k)])
                    v = evaluate(order, votes)
                    if better(v, kr_v):
                        kr, kr_v = k, v
                if better(kr_v, best):
                    best, out = kr_v, (f, t, kl, kr)
        return out

    def single_label(idx):
        kb, vb = 0, None
        for k in range(K):
            v = evaluate(idx, np.full(len(idx), k))
            if better(v, vb):
                kb, vb = k, v
        return kb

    def grow(nd, idx, depth):
        split = best_split(idx) if depth < max_depth and len(idx) >= 2 else None
        if split is None:
            if nd == 0 and maximise:
                nodes["label"][0] = single_label(idx)
            vote[idx] = nodes["label"][nd]
            return
        f, t, kl, kr = split
        nodes["feature"][nd] = f
        nodes["threshold"][nd] = t
        lc = len(nodes["feature"])
        for key in nodes:
            nodes[key].extend([-1, -1] if key in ("feature", "left", "right") else [0, 0])
        nodes["left"][nd] = lc
        nodes["right"][nd] = lc + 1
        nodes["label"][lc] = kl
        nodes["label"][lc + 1] = kr
        go_left = X_binned[idx, f] <= t
        cur[idx[go_left]] = kl
        cur[idx[~go_left]] = kr
        grow(lc, idx[go_left], depth + 1)
        grow(lc + 1, idx[~go_left], depth + 1)

    if not maximise:
        # Phase I: the root starts as the one-leaf tree of the best single label.
        nodes["label"][0] = single_label(np.arange(n))
        cur[:] = nodes["label"][0]
    grow(0, np.arange(n), 0)
    return nodes, vote


def step_key_naive(scores, y, votes, c, nprime, eps):
    """DirectBoost_avg's key of a whole tree's votes: the largest bottom-n' average over alpha
    in [0, d - eps], d the weight at which the first currently-right example turns wrong
    (capped at 2c + 1); g(0) when d - eps <= 0 (compiled: ``margin_tree_global.step_key``)."""
    n = len(y)
    p, s, w = pieces_naive(scores, y, np.arange(n), np.asarray(votes))
    hi = 2.0 * c + 1.0
    risky = (s == 0.0) & (p > 0.0)
    if risky.any():
        hi = min(hi, float(w[risky].min()))
    H = hi - eps
    if not H > 0.0:
        return bottom_avg_naive(p, s, w, nprime, c, 0.0)
    return bottom_avg_max_naive(p, s, w, nprime, c, H)[1]


def grow_tree_global_naive(X_binned, y, n_bins, scores, max_depth, *, c, nprime, eps,
                           corner=False):
    """Brute-force twin of ``margin_tree_global.grow_margin_tree_global``: every candidate is
    scored by ``step_key_naive`` of the whole tree it makes (the rest keeps the partial tree's
    votes; during line 7 S_right keeps S's label; the root starts as the best single label);
    ties to the lowest label, feature, threshold. Returns (nodes, vote) as
    ``grow_tree_naive``. ``corner``: ties of the key broken by ``corner_key_naive`` of the
    whole tree's votes."""
    n, F = X_binned.shape
    K = scores.shape[1]
    cur = np.zeros(n, np.int64)

    def evaluate(idx, labs):
        full = cur.copy()
        full[idx] = labs
        v = step_key_naive(scores, y, full, c, nprime, eps)
        if not corner:
            return v, 0.0
        p, s, w = pieces_naive(scores, y, np.arange(n), full)
        return v, corner_key_naive(p, s, w, nprime)

    def better(v, best):
        if best is None:
            return True
        tol = OBJ_TIE_EPS * (1.0 + abs(best[0]))
        if v[0] > best[0] + tol:
            return True
        if v[0] < best[0] - tol:
            return False
        return v[1] > best[1] + OBJ_TIE_EPS * (1.0 + abs(best[1]))

    nodes = {"feature": [-1], "threshold": [0], "left": [-1], "right": [-1], "label": [0]}
    kb, vb = 0, None
    for k in range(K):
        v = evaluate(np.arange(n), np.full(n, k))
        if better(v, vb):
            kb, vb = k, v
    nodes["label"][0] = kb
    cur[:] = kb

    def best_split(idx):
        best = None
        out = None
        for f in range(F):
            col = X_binned[idx, f]
            for t in range(int(n_bins[f]) - 1):
                if not np.any(col == t):
                    continue
                go_left = col <= t
                nl = int(go_left.sum())
                if nl == len(idx):
                    continue
                SL = idx[go_left]
                kl, kl_v = 0, None
                for k in range(K):
                    v = evaluate(SL, np.full(nl, k))
                    if better(v, kl_v):
                        kl, kl_v = k, v
                kr, kr_v = 0, None
                for k in range(K):
                    v = evaluate(idx, np.where(go_left, kl, k))
                    if better(v, kr_v):
                        kr, kr_v = k, v
                if better(kr_v, best):
                    best, out = kr_v, (f, t, kl, kr)
        return out

    def grow(nd, idx, depth):
        split = best_split(idx) if depth < max_depth and len(idx) >= 2 else None
        if split is None:
            return
        f, t, kl, kr = split
        nodes["feature"][nd] = f
        nodes["threshold"][nd] = t
        lc = len(nodes["feature"])
        for key in nodes:
            nodes[key].extend([-1, -1] if key in ("feature", "left", "right") else [0, 0])
        nodes["left"][nd] = lc
        nodes["right"][nd] = lc + 1
        nodes["label"][lc] = kl
        nodes["label"][lc + 1] = kr
        go_left = X_binned[idx, f] <= t
        cur[idx[go_left]] = kl
        cur[idx[~go_left]] = kr
        grow(lc, idx[go_left], depth + 1)
        grow(lc + 1, idx[~go_left], depth + 1)

    grow(0, np.arange(n), 0)
    return nodes, cur.astype(np.int32)
