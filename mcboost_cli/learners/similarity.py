"""REBEL's weak learners and ensemble store: decision stumps and localized similarities.

Appel & Perona (ICML 2017) [1] boost binary weak learners f: X -> [-1, +1] with a vector
a_t in R^K per round, H(x) = sum_t f_t(x) a_t (sec. 3). This module holds what touches every
example once per candidate learner — the hot loops of a REBEL round — as numba kernels, each
with a naive numpy twin (``naive_*``, for the tests):

- ``class_moments``: G_k = sum_n f(x_n) w_nk y_nk and P_k = sum_n |f(x_n)| w_nk, the two
  quantities of a learner the loss needs: the weight sums of sec. 3, weighted by |f| for
  real-valued outputs (ALGORITHMS.md), are s^T = (P - G)/2 and s^F = (P + G)/2, and eq. 5's
  loss is <W - P, 1> + 2 <sqrt(s^T s^F), 1> (W_k = sum_n w_nk; P = W for outputs +-1, where
  this is eq. 5 as printed).
- ``isolation_losses``: eq. 5's loss of every isolating vector 2 delta_i - 1 (sec. 5) at once.
- ``binarize``: sec. 4's binary relabelling by the top eigenvector of U^T U.
- ``stump_histogram`` / ``best_stump``: the exhaustive search of decision stumps (sec. 3).
- ``squared_distances``, ``one_point_outputs_from_distances``: the isolating learner of
  sec. 5.2 step 2 at each tau tried.
- ``two_point_pass``: one step 5-6 pass of sec. 5.2 (outputs of f_ij, its G, the pruning);
  ``two_point_search``: steps 4-6, partners nearest first until no candidate is left.
- the outputs of each learner kind on a feature matrix (``RebelEnsemble.outputs``), the
  accumulation step (``accumulate``: w_nk *= exp(f_n y_nk a_k), eq. 3, renormalised) and
  the optional exact minimiser of eq. 3 for real-valued outputs (``exact_vector``).

The learners (sec. 5.1; the two-point formula's reading is in ALGORITHMS.md):

- constant: f(x) = +1, the "homogeneous stump" f_1 of sec. 5.2 step 0;
- stump: f(x) = +1 if code_j(x) > threshold else -1, on the binned codes;
- one-point: f_i(x) = (tau - |x_i - x|^2) / (tau + |x_i - x|^2), and +1 at x = x_i when tau = 0;
- two-point: f_ij(x) = sqrt(2) <d, x - m> / sqrt(|d|^4 + |x - m|^4), d = (x_i - x_j)/2,
  m = (x_i + x_j)/2: +1 at x_i, -1 at x_j, |f| <= 1, falling off as 1/|x - m|.

With ``binary`` (REBEL's ``similarity_outputs``, readings (III) and (V) of ALGORITHMS.md) a
similarity's output is the sign of the formula (0 where it is 0): a ball around x_i, or the
half-space of x_i's side of the bisector of x_i and x_j. Step 6's pruning always compares the
real values.

``RebelEnsemble`` stores the fitted learners and their vectors and adds a round's votes to
running scores, as ``forest.Forest`` does for trees (the base loop calls ``add_round`` and
``truncate``).

References
----------
.. [1] R. Appel, P. Perona. A simple multi-class boosting framework with theoretical
       guarantees and empirical proficiency. ICML 2017.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._inline import inline_helper

KIND_CONSTANT = 0
KIND_STUMP = 1
KIND_ONE_POINT = 2
KIND_TWO_POINT = 3
KIND_NAMES = ("constant", "stump", "one-point", "two-point")

_SQRT2 = np.sqrt(2.0)


# ---------------------------------------------------------------------------------------------
# learner outputs
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _stump_outputs(codes, feature, threshold, out):
    for n in range(codes.shape[0]):
        out[n] = 1.0 if codes[n, feature] > threshold else -1.0


@inline_helper
def _sign(v):
    return 1.0 if v > 0.0 else (-1.0 if v < 0.0 else 0.0)


@inline_helper
def _one_point_value(dist, tau, binary):
    """f_i = (tau - D)/(tau + D) for D = |x_i - x|^2 (sec. 5.1, one-point mode); the limit
    tau -> 0+ (an indicator of the anchor: +1 at D = 0, -1 elsewhere) when tau = 0; its sign
    when ``binary``."""
    den = tau + dist
    v = 1.0 if den == 0.0 else (tau - dist) / den
    return _sign(v) if binary else v


@njit(cache=True, nogil=True)
def _one_point_outputs(X, anchor, tau, binary, out):
    """f_i(x) for every row of X (``_one_point_value``)."""
    d = X.shape[1]
    for n in range(X.shape[0]):
        dist = 0.0
        for c in range(d):
            diff = X[n, c] - anchor[c]
            dist += diff * diff
        out[n] = _one_point_value(dist, tau, binary)


@inline_helper
def _two_point_value(X, n, mid, half, d4):
    """f_ij(x_n) = sqrt(2) <d, x_n - m> / sqrt(|d|^4 + |x_n - m|^4), d4 = |d|^4 (sec. 5.1)."""
    dot = 0.0
    r2 = 0.0
    for c in range(X.shape[1]):
        diff = X[n, c] - mid[c]
        dot += half[c] * diff
        r2 += diff * diff
    return 1.4142135623730951 * dot / np.sqrt(d4 + r2 * r2)


@njit(cache=True, nogil=True)
def _two_point_outputs(X, mid, half, binary, out):
    """f_ij(x) = sqrt(2) <d, x - m> / sqrt(|d|^4 + |x - m|^4) (sec. 5.1, two-point mode), or
    its sign when ``binary``."""
    d = X.shape[1]
    d2 = 0.0
    for c in range(d):
        d2 += half[c] * half[c]
    d4 = d2 * d2
    for n in range(X.shape[0]):
        v = _two_point_value(X, n, mid, half, d4)
        out[n] = _sign(v) if binary else v


def naive_learner_outputs(kind, X, feature=0, threshold=0, tau=0.0, center=None, half=None,
                          binary=False):
    """Numpy twin of ``RebelEnsemble.outputs``."""
    if kind == KIND_CONSTANT:
        return np.ones(X.shape[0])
    if kind == KIND_STUMP:
        return np.where(X[:, feature] > threshold, 1.0, -1.0)
    if kind == KIND_ONE_POINT:
        dist = ((X - center) ** 2).sum(axis=1)
        den = tau + dist
        with np.errstate(invalid="ignore", divide="ignore"):
            f = np.where(den == 0.0, 1.0, (tau - dist) / den)
    else:
        diff = X - center
        f = _SQRT2 * (diff @ half) / np.sqrt((half @ half) ** 2
                                             + (diff * diff).sum(axis=1) ** 2)
    return np.sign(f) if binary else f


# ---------------------------------------------------------------------------------------------
# loss terms (sec. 3, eqs. 3-5)
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def class_moments(f, V, G_out, P_out):
    """G_k = sum_n f_n V[n, k] and P_k = sum_n |f_n| |V[n, k]| = sum_n |f_n| w_nk, with
    V = w (.) y (the signed weights of eq. 3)."""
    K = V.shape[1]
    for k in range(K):
        G_out[k] = 0.0
        P_out[k] = 0.0
    for n in range(V.shape[0]):
        fn = f[n]
        an = abs(fn)
        for k in range(K):
            G_out[k] += fn * V[n, k]
            P_out[k] += an * abs(V[n, k])


def naive_class_moments(f, V):
    return f @ V, np.abs(f) @ np.abs(V)


@njit(cache=True, nogil=True)
def loss_of_moments(W, P, G):
    """Eq. 5's loss <W - P, 1> + 2 <sqrt(s^T s^F), 1> with s^T = (P - G)/2, s^F = (P + G)/2
    (P = W for learners with outputs +-1: eq. 5 as printed)."""
    total = 0.0
    for k in range(W.shape[0]):
        total += W[k] - P[k]
        p = (P[k] - G[k]) * (P[k] + G[k])
        if p > 0.0:
            total += np.sqrt(p)
    return total


def naive_loss_of_moments(W, P, G):
    return float((W - P).sum() + np.sqrt(np.maximum((P - G) * (P + G), 0.0)).sum())


@njit(cache=True, nogil=True)
def isolation_losses(V, W, G_all_minus, out):
    """out[i] = eq. 5's loss of the isolating vector 2 delta_i - 1 (sec. 5): its moments are
    G = -sum_n V[n] + 2 V[i] (``G_all_minus`` = -sum_n V[n])."""
    K = V.shape[1]
    for i in range(V.shape[0]):
        total = 0.0
        for k in range(K):
            g = G_all_minus[k] + 2.0 * V[i, k]
            p = (W[k] - g) * (W[k] + g)
            if p > 0.0:
                total += np.sqrt(p)
        out[i] = total


def naive_isolation_losses(V, W):
    G = -V.sum(axis=0)[None, :] + 2.0 * V
    return np.sqrt(np.maximum((W - G) * (W + G), 0.0)).sum(axis=1)


# ---------------------------------------------------------------------------------------------
# binarization (sec. 4, eqs. 7-8)
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _gram_of_scaled(V, scale, M):
    """M = U^T U's K x K twin U U^T in the paper's layout: M[k, l] = sum_n u_nk u_nl with
    u_nk = V[n, k] * scale[k] (U stacks the u_n as columns, eq. 7)."""
    K = V.shape[1]
    M[:] = 0.0
    for n in range(V.shape[0]):
        for k in range(K):
            uk = V[n, k] * scale[k]
            for l in range(k, K):
                M[k, l] += uk * V[n, l] * scale[l]
    for k in range(K):
        for l in range(k):
            M[k, l] = M[l, k]


@njit(cache=True, nogil=True)
def _project(V, scale, e, out):
    """out[n] = <u_n, e>: the entries of U^T e, proportional to the top eigenvector of U^T U
    when e is the top eigenvector of U U^T."""
    K = V.shape[1]
    for n in range(V.shape[0]):
        acc = 0.0
        for k in range(K):
            acc += V[n, k] * scale[k] * e[k]
        out[n] = acc


def binarize(V, W, v_out, b_out):
    """Sec. 4: b_n = sign of the n-th entry of v1, the top eigenvector of U^T U (N x N,
    eq. 8) with u_n = w_n (.) y_n / sqrt(N sum_m w_m) (eq. 7), 0 counted as +1. v1 is got
    from the K x K matrix U U^T (the same non-zero eigenvalues): v1 ~ U^T e1. The factor
    1/sqrt(N) and the norm of v1 do not change the signs and are left out. Fills ``v_out``
    (N,) with U^T e1 and ``b_out`` (N,) bool with b_n = +1."""
    scale = 1.0 / np.sqrt(np.maximum(W, 1e-300))
    M = np.empty((V.shape[1], V.shape[1]))
    _gram_of_scaled(V, scale, M)
    _, vecs = np.linalg.eigh(M)
    _project(V, scale, np.ascontiguousarray(vecs[:, -1]), v_out)
    np.greater_equal(v_out, 0.0, out=b_out)


def naive_binarize(V, W):
    """Numpy twin of ``binarize`` from the N x N matrix U^T U itself: (v1, b)."""
    U = (V / np.sqrt(V.shape[0] * W)[None, :]).T           # K x N, columns u_n
    _, vecs = np.linalg.eigh(U.T @ U)
    v1 = vecs[:, -1]
    return v1, v1 >= 0.0


# ---------------------------------------------------------------------------------------------
# decision stumps (sec. 3: "an exhaustive search through a pool of decision stumps")
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def stump_histogram(codes, V, hist):
    """hist[j, b, k] = sum of V[n, k] over the samples n with codes[n, j] == b."""
    hist[:] = 0.0
    K = V.shape[1]
    for n in range(codes.shape[0]):
        for j in range(codes.shape[1]):
            b = codes[n, j]
            for k in range(K):
                hist[j, b, k] += V[n, k]


def naive_stump_histogram(codes, V, n_bins):
    hist = np.zeros((codes.shape[1], n_bins, V.shape[1]))
    for j in range(codes.shape[1]):
        for b in range(n_bins):
            hist[j, b] = V[codes[:, j] == b].sum(axis=0)
    return hist


@njit(cache=True, nogil=True)
def best_stump(hist, W, G_total, below):
    """The stump (feature, threshold) of least eq. 5 loss: f = -1 on codes <= threshold,
    +1 above. Threshold -1 is the constant +1 learner (feature 0). Ties keep the first in
    (feature, threshold) order. ``below`` (K,) is scratch. Returns (loss, feature, threshold).
    """
    K = W.shape[0]
    best = loss_of_moments(W, W, G_total)
    best_j = 0
    best_b = -1
    for j in range(hist.shape[0]):
        for k in range(K):
            below[k] = 0.0
        for b in range(hist.shape[1] - 1):
            total = 0.0
            for k in range(K):
                below[k] += hist[j, b, k]
                g = G_total[k] - 2.0 * below[k]       # P = W: outputs +-1
                p = (W[k] - g) * (W[k] + g)
                if p > 0.0:
                    total += np.sqrt(p)
            if total < best:
                best = total
                best_j = j
                best_b = b
    return best, best_j, best_b


def naive_best_stump(codes, V, W, n_bins):
    """Numpy twin of ``best_stump``: every (feature, threshold) evaluated from its outputs."""
    best = (naive_loss_of_moments(W, W, V.sum(axis=0)), 0, -1)
    for j in range(codes.shape[1]):
        for b in range(n_bins - 1):
            f = np.where(codes[:, j] > b, 1.0, -1.0)
            loss = naive_loss_of_moments(W, W, f @ V)
            if loss < best[0]:
                best = (loss, j, b)
    return best


# ---------------------------------------------------------------------------------------------
# sec. 5.2 steps 5-6: one two-point candidate
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def squared_distances(X, i, out):
    """out[n] = |x_i - x_n|^2 for every row n."""
    for n in range(X.shape[0]):
        dist = 0.0
        for c in range(X.shape[1]):
            diff = X[n, c] - X[i, c]
            dist += diff * diff
        out[n] = dist


@njit(cache=True, nogil=True)
def one_point_outputs_from_distances(dist, tau, binary, out):
    """f_i(x_n) from D_n = |x_i - x_n|^2, as ``_one_point_outputs``."""
    for n in range(dist.shape[0]):
        out[n] = _one_point_value(dist[n], tau, binary)


@njit(cache=True, nogil=True)
def two_point_pass(X, i, j, V, W, V_sum, alive, binary, mid, half, f_out, G_out, P_out):
    """Steps 5-6 of sec. 5.2 for the supports x_i, x_j: the outputs of f_ij on every row
    (``f_out``, their signs when ``binary``; ``mid``/``half`` get m and d), their moments G
    and P (``G_out``, ``P_out``: ``class_moments``), and the pruning: every row n still
    ``alive`` (a candidate partner) with f_ij(x_n) <= f_ij(x_j)/2 (the real values) is marked
    dead (x_j itself included). Returns the number of rows killed.

    With ``binary`` the sign of f_ij is the sign of <d, x_n - m>, so |x_n - m|^2 is computed
    only for the rows still alive (the pruning), and the moments come from the rows with
    f = +1 and f = 0 alone: G = 2 sum_{f>0} V - ``V_sum``, P = ``W`` - sum_{f=0} |V|
    (``V_sum`` = sum_n V_n, ``W`` = sum_n w_n; unused otherwise)."""
    d = X.shape[1]
    K = V.shape[1]
    d2 = 0.0
    for c in range(d):
        half[c] = 0.5 * (X[i, c] - X[j, c])
        mid[c] = 0.5 * (X[i, c] + X[j, c])
        d2 += half[c] * half[c]
    d4 = d2 * d2
    for k in range(K):
        G_out[k] = 0.0
        P_out[k] = 0.0
    cut = 0.5 * _two_point_value(X, j, mid, half, d4)
    killed = 0
    if binary:
        for n in range(X.shape[0]):
            if alive[n] and _two_point_value(X, n, mid, half, d4) <= cut:
                alive[n] = False
                killed += 1
            dot = 0.0
            for c in range(d):
                dot += half[c] * (X[n, c] - mid[c])
            if dot > 0.0:
                f_out[n] = 1.0
                for k in range(K):
                    G_out[k] += V[n, k]
            elif dot < 0.0:
                f_out[n] = -1.0
            else:
                f_out[n] = 0.0
                for k in range(K):
                    P_out[k] += abs(V[n, k])
        for k in range(K):
            G_out[k] = 2.0 * G_out[k] - V_sum[k]
            P_out[k] = W[k] - P_out[k]
        return killed
    for n in range(X.shape[0]):
        value = _two_point_value(X, n, mid, half, d4)
        if alive[n] and value <= cut:
            alive[n] = False
            killed += 1
        fn = _sign(value) if binary else value
        f_out[n] = fn
        an = abs(fn)
        for k in range(K):
            G_out[k] += fn * V[n, k]
            P_out[k] += an * abs(V[n, k])
    return killed


@njit(cache=True, nogil=True)
def two_point_search(X, i, order, V, W, alive, binary, mid, half, f_out, G_out, P_out):
    """Steps 4-6 of sec. 5.2 with the anchor x_i: repeatedly take the nearest candidate x_j
    still alive (``order``: rows by increasing |x_i - x_n|^2), score f_ij by eq. 5 and prune
    (``two_point_pass``), until no candidate is left. Returns (least loss, its j or -1, number
    of partners tried)."""
    best = np.inf
    best_j = -1
    tried = 0
    K = V.shape[1]
    V_sum = np.zeros(K)
    for n in range(V.shape[0]):
        for k in range(K):
            V_sum[k] += V[n, k]
    for p in range(order.shape[0]):
        j = order[p]
        if not alive[j]:
            continue
        two_point_pass(X, i, j, V, W, V_sum, alive, binary, mid, half, f_out, G_out, P_out)
        tried += 1
        loss = loss_of_moments(W, P_out, G_out)
        if loss < best:
            best = loss
            best_j = j
    return best, best_j, tried


def naive_two_point_search(X, i, V, W, alive, binary=False):
    """Numpy twin of ``two_point_search`` (each pass by ``naive_two_point_pass``)."""
    alive = alive.copy()
    dist = ((X - X[i]) ** 2).sum(axis=1)
    best, best_j, tried = np.inf, -1, 0
    for j in np.argsort(dist, kind="stable"):
        if not alive[j]:
            continue
        _, (G, P), alive = naive_two_point_pass(X, i, j, V, alive, binary)
        tried += 1
        loss = naive_loss_of_moments(W, P, G)
        if loss < best:
            best, best_j = loss, j
    return best, best_j, tried


def naive_two_point_pass(X, i, j, V, alive, binary=False):
    """Numpy twin of ``two_point_pass``: returns (f, G, alive after the pruning)."""
    half = 0.5 * (X[i] - X[j])
    mid = 0.5 * (X[i] + X[j])
    real = naive_learner_outputs(KIND_TWO_POINT, X, center=mid, half=half)
    alive = alive & ~(real <= 0.5 * real[j])
    f = np.sign(real) if binary else real
    return f, naive_class_moments(f, V), alive


# ---------------------------------------------------------------------------------------------
# the accumulation step (eq. 3) and the vote of a round
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def accumulate(f, a, Y, w):
    """w_nk *= exp(f_n y_nk a_k) (eq. 3: w_n = 1/2 exp[y_n (.) H(x_n)] after H += f a), then
    w /= sum(w). Returns the sum before the division (the loss ratio L_{t+1}/L_t)."""
    K = w.shape[1]
    total = 0.0
    for n in range(w.shape[0]):
        fn = f[n]
        for k in range(K):
            v = w[n, k] * np.exp(fn * Y[n, k] * a[k])
            w[n, k] = v
            total += v
    inv = 1.0 / total
    for n in range(w.shape[0]):
        for k in range(K):
            w[n, k] *= inv
    return total


def naive_accumulate(f, a, Y, w):
    v = w * np.exp(f[:, None] * Y * a[None, :])
    total = v.sum()
    return v / total, total


@njit(cache=True, nogil=True)
def exact_vector(f, Y, w, a, max_iter):
    """Per class k, a_k <- the minimiser of sum_n w_nk exp(f_n y_nk a_k) (eq. 3), by Newton's
    method from the given a_k with step halving whenever the loss would rise (the problem is
    convex in each a_k and the classes separate). Stops when a step is below 1e-12 (1 + |a_k|)
    or after ``max_iter`` steps. IN/OUT: a (K,)."""
    N = w.shape[0]
    for k in range(w.shape[1]):
        ak = a[k]
        loss = 0.0
        for n in range(N):
            loss += w[n, k] * np.exp(f[n] * Y[n, k] * ak)
        for _ in range(max_iter):
            g = 0.0
            h = 0.0
            for n in range(N):
                z = f[n] * Y[n, k]
                e = w[n, k] * np.exp(z * ak)
                g += e * z
                h += e * z * z
            if h <= 0.0:
                break
            step = g / h
            while True:
                trial = ak - step
                new = 0.0
                for n in range(N):
                    new += w[n, k] * np.exp(f[n] * Y[n, k] * trial)
                if new <= loss or abs(step) < 1e-300:
                    break
                step *= 0.5
            if not new <= loss:
                break
            ak = trial
            loss = new
            if abs(step) <= 1e-12 * (1.0 + abs(ak)):
                break
        a[k] = ak


def naive_exact_vector(f, Y, w, a0):
    """Numpy twin of ``exact_vector``: scipy's bounded scalar minimiser per class."""
    from scipy.optimize import minimize_scalar

    out = np.empty_like(a0)
    for k in range(w.shape[1]):
        z = f * Y[:, k]
        res = minimize_scalar(lambda x: float(w[:, k] @ np.exp(z * x)),
                              bracket=(a0[k] - 1.0, a0[k] + 1.0), tol=1e-14)
        out[k] = res.x
    return out


@njit(cache=True, nogil=True)
def _add_vote(f, a, y, scores, pred):
    """scores[n] += f_n a; pred = first argmax of each row; returns #(pred != y)."""
    K = scores.shape[1]
    n_errors = 0
    for n in range(scores.shape[0]):
        fn = f[n]
        best = 0
        for k in range(K):
            scores[n, k] += fn * a[k]
            if scores[n, k] > scores[n, best]:
                best = k
        pred[n] = best
        n_errors += np.int64(best != y[n])
    return n_errors


# ---------------------------------------------------------------------------------------------
# the ensemble store
# ---------------------------------------------------------------------------------------------


class RebelEnsemble:
    """The fitted rounds of a REBEL model: each a learner (kind and its parameters) and its
    accumulation vector a_t (K,). ``center`` holds the anchor x_i of a one-point learner and
    the midpoint m of a two-point one, ``half`` the half-difference d of a two-point one;
    ``feature``/``threshold`` a stump's (threshold on the binned codes). ``binary_one_point``
    / ``binary_two_point``: those similarities output their signs (REBEL's
    ``similarity_outputs``).
    """

    def __init__(self, n_classes: int, n_features: int, capacity: int = 64,
                 binary_one_point: bool = False, binary_two_point: bool = False):
        self.n_classes = int(n_classes)
        self.n_features = int(n_features)
        self.binary_one_point = bool(binary_one_point)
        self.binary_two_point = bool(binary_two_point)
        self.n_rounds = 0
        cap = max(1, int(capacity))
        self.kind = np.zeros(cap, np.int8)
        self.feature = np.zeros(cap, np.int32)
        self.threshold = np.zeros(cap, np.int32)
        self.tau = np.zeros(cap, np.float64)
        self.center = np.zeros((cap, self.n_features), np.float64)
        self.half = np.zeros((cap, self.n_features), np.float64)
        self.accum = np.zeros((cap, self.n_classes), np.float64)

    def _reserve(self):
        if self.n_rounds < self.kind.shape[0]:
            return
        cap = 2 * self.kind.shape[0]
        for name in ("kind", "feature", "threshold", "tau", "center", "half", "accum"):
            old = getattr(self, name)
            new = np.zeros((cap,) + old.shape[1:], old.dtype)
            new[:old.shape[0]] = old
            setattr(self, name, new)

    def append(self, kind, *, feature=0, threshold=0, tau=0.0, center=None, half=None,
               accum=None) -> int:
        """Store one round's learner (``accum`` may be set later); returns its index t."""
        self._reserve()
        t = self.n_rounds
        self.kind[t] = kind
        self.feature[t] = feature
        self.threshold[t] = threshold
        self.tau[t] = tau
        if center is not None:
            self.center[t] = center
        if half is not None:
            self.half[t] = half
        if accum is not None:
            self.accum[t] = accum
        self.n_rounds += 1
        return t

    def truncate(self, n_rounds: int):
        self.n_rounds = min(self.n_rounds, int(n_rounds))

    def compact(self):
        """Drop the spare capacity (after the fit: a stored model holds only its rounds)."""
        n = max(self.n_rounds, 1)
        for name in ("kind", "feature", "threshold", "tau", "center", "half", "accum"):
            setattr(self, name, getattr(self, name)[:n].copy())

    def outputs(self, t: int, X, out):
        """f_t(x_n) for every row of X (binned codes for stumps, raw values otherwise)."""
        kind = self.kind[t]
        if kind == KIND_CONSTANT:
            out[:] = 1.0
        elif kind == KIND_STUMP:
            _stump_outputs(X, int(self.feature[t]), int(self.threshold[t]), out)
        elif kind == KIND_ONE_POINT:
            _one_point_outputs(X, self.center[t], float(self.tau[t]), self.binary_one_point,
                               out)
        else:
            _two_point_outputs(X, self.center[t], self.half[t], self.binary_two_point, out)
        return out

    def add_votes(self, t: int, f, y, scores, pred) -> int:
        """scores += f a_t for given outputs f of round t; pred = row argmax; #errors."""
        return _add_vote(f, self.accum[t], y, scores, pred)

    def add_round(self, t: int, X, y, scores, pred) -> int:
        """Add round t's votes f_t(x) a_t to ``scores`` (n, K) and ``pred``; #errors."""
        f = self.outputs(t, X, np.empty(X.shape[0], np.float64))
        return self.add_votes(t, f, y, scores, pred)

    def state_arrays(self) -> tuple:
        """The stored rounds as arrays (for comparing two fits)."""
        n = self.n_rounds
        return (self.kind[:n], self.feature[:n], self.threshold[:n], self.tau[:n],
                self.center[:n], self.half[:n], self.accum[:n])

