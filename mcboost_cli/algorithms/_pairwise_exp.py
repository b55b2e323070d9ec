"""Shared round machinery of boosters with a pairwise exponential loss on a score vector.

CD-MCBoost, GD-MCBoost (Saberian & Vasconcelos 2011) and AdaBoost.MM (Mukherjee & Schapire
2010) all keep a score vector F(x) in R^K — ``F_k(x) = <f(x), y^k>`` for the codeword
predictors of MCBoost, ``F_k(x) = f(x, k)`` for AdaBoost.MM — and a loss of the form

    L(y_i, F(x_i)) = sum_k c_ik,      c_ik = exp(lam (F_k(x_i) - F_{y_i}(x_i)))          (*)

(MCBoost's eq. (15) with lam = 1/2, since -1/2 <f, y_i - y^k> = 1/2 (F_k - F_{y_i}); the
exponential loss of AdaBoost.MM with lam = 1, whose cost matrix entries are the c_ik). Each
round adds alpha times a weak learner g whose leaves output one of finitely many *values* v,
and value v adds ``Q[v, k]`` to F_k for a unit step (MCBoost: Q[v, k] = <g_v, y^k>;
AdaBoost.MM: Q = identity). Hence a sample of class y whose leaf outputs v has its term k
multiplied by ``exp(alpha u[v, y, k])`` with ``u[v, y, k] = lam (Q[v, k] - Q[v, y])``, and the
risk along the step is a sum of exponentials in alpha with only a few distinct exponents:

    R(alpha) = n + sum_u A_u exp(u alpha),   A_u = sum of c_ik over (i, k != y_i) with that u.

So a round costs O(nK) for the weights, one tree, one O(nK) pass collecting the masses A_u, a
line search over a handful of exponentials, and one O(nK) multiplicative update of c (the
factors exp(alpha u) are computed once per distinct u). Nothing is allocated per round: every
buffer is made in ``_init_state``.

The diagonal terms c_ii = exp(0) = 1 never change (u[v, y, y] = 0 and exp(0) is exactly 1);
they are left out of every sum (they contribute the constant n).

References
----------
.. [1] M. J. Saberian, N. Vasconcelos. Multiclass boosting: theory and algorithms. NIPS 2011.
.. [2] I. Mukherjee, R. E. Schapire. A theory of multiclass boosting. NIPS 2010; JMLR 14, 2013.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np
from numba import njit

from .._dtypes import SCORE_DTYPE, WEIGHT_DTYPE
from ..learners.forest import LABEL_VOTE, Forest
from ..learners.histogram_tree import TreeWorkspace, grow_tree, n_channels
from .base import BaseBoosting

# Line-search outcomes.
STEP_FINITE = 0      # R has a finite minimiser; alpha is it (to LINE_SEARCH_TOL)
STEP_UNBOUNDED = 1   # R decreases without bound in the step's direction (see _line_search)
STEP_FLAT = 2        # R does not depend on alpha

# Relative tolerance of the line search on alpha: |alpha - alpha*| <= tol (1 + |alpha*|).
LINE_SEARCH_TOL = 1e-12
# Unbounded steps stop where the vanishing terms fall below this fraction of the rest.
UNBOUNDED_EPS = np.finfo(np.float64).eps
# Exponents closer than this are one exponent (rounding of the same value).
_EXPONENT_MERGE = 1e-12


def exponent_table(Q: np.ndarray, lam: float):
    """Distinct exponents u and the index of u[v, y, k] = lam (Q[v, k] - Q[v, y]) among them.

    Returns ``(U, idx)``: U (n_u,) sorted, with the exponents that differ by rounding merged
    and the one closest to zero set exactly to zero; idx (V, K, K) int32 into U.
    """
    Q = np.asarray(Q, dtype=np.float64)
    u = lam * (Q[:, None, :] - Q[:, :, None])            # u[v, y, k]
    flat = u.ravel()
    order = np.argsort(flat, kind="stable")
    vals = flat[order]
    new = np.empty(vals.size, dtype=bool)
    new[0] = True
    new[1:] = np.diff(vals) > _EXPONENT_MERGE * np.maximum(1.0, np.abs(vals[1:]))
    cluster = np.cumsum(new) - 1
    U = vals[new].copy()
    U[np.abs(U) <= _EXPONENT_MERGE] = 0.0
    idx = np.empty(flat.size, dtype=np.int32)
    idx[order] = cluster
    return U, idx.reshape(u.shape)


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def cost_channels(c, y, scale, G):
    """G[i, k] = scale (delta_{k y_i} sum_{l != y_i} c_il - [k != y_i] c_ik) / Z.

    With scale = 1 this is minus AdaBoost.MM's cost matrix (its C(i, l) = c_il for l != y_i and
    C(i, y_i) = -sum_{l != y_i} c_il), normalised; with scale = M / (2 (M - 1)) it is
    <w_i, y^k> / Z for MCBoost's gradient weights w_i of eq. (31) (see ``mcboost.py``).
    Z = sum_i sum_{k != y_i} c_ik is returned (the risk minus its floor n). Normalising by Z
    changes no argmax; it keeps the tree's tie tolerance scale-free.

    IN: c (n, K), y (n,). OUT: G (n, K).
    """
    n, K = c.shape
    Z = 0.0
    for i in range(n):
        yi = y[i]
        s = 0.0
        for k in range(K):
            if k != yi:
                v = c[i, k]
                G[i, k] = -v
                s += v
        G[i, yi] = s
        Z += s
    if Z > 0.0:
        f = scale / Z
        for i in range(n):
            for k in range(K):
                G[i, k] *= f
    return Z


@njit(cache=True, nogil=True)
def argmax_leaves(left, n_nodes, node_sum, leaf_v):
    """Each leaf answers its channel of largest sum (the first on ties); returns the summed
    maxima (the tree's objective: eq. (32) of MCBoost / minus AdaBoost.MM's normalised cost).

    IN: node_sum (nodes, C). OUT: leaf_v (nodes,) for the leaves.
    """
    total = 0.0
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        best = 0
        for k in range(1, node_sum.shape[1]):
            if node_sum[nd, k] > node_sum[nd, best]:
                best = k
        leaf_v[nd] = best
        total += node_sum[nd, best]
    return total


@njit(cache=True, nogil=True)
def exponent_mass(left, n_nodes, node_start, node_end, sample_index, leaf_v, y, c, idx, A,
                  sample_v, used, acc):
    """A[u] = sum of c_ik (k != y_i) whose exponent index is u given the sample's leaf value.

    Whole rows are summed first, acc[v, y_i, :] += c[i, :] (contiguous, vectorisable), and
    folded into A through idx afterwards (V K^2 work instead of a scatter per term).
    IN: the workspace's tree and its partition; leaf_v (nodes,) value index of each leaf;
    y (n,); c (n, K); idx (V, K, K). OUT: A (n_u,), sample_v (n,) = the value of each sample;
    used (V,) bool = values some leaf outputs. SCRATCH: acc (V, K, K).
    """
    K = c.shape[1]
    for u in range(A.shape[0]):
        A[u] = 0.0
    for v in range(used.shape[0]):
        used[v] = False
    for nd in range(n_nodes):
        if left[nd] < 0 and not used[leaf_v[nd]]:
            used[leaf_v[nd]] = True
            acc[leaf_v[nd]] = 0.0
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        v = leaf_v[nd]
        for p in range(node_start[nd], node_end[nd]):
            i = sample_index[p]
            sample_v[i] = v
            row = acc[v, y[i]]
            for k in range(K):
                row[k] += c[i, k]
    for v in range(used.shape[0]):
        if used[v]:
            for yy in range(K):
                for k in range(K):
                    if k != yy:
                        A[idx[v, yy, k]] += acc[v, yy, k]


@njit(cache=True, nogil=True)
def apply_step(sample_v, y, idx, factor, A, used, mult, c):
    """c_ik *= exp(alpha u[v_i, y_i, k]) (eq. (*) after a step), with factor[u] = exp(alpha U[u]).

    The factors of every (used value, class) row are laid out first, mult[v, y, k] =
    factor[idx[v, y, k]], so the pass over c multiplies contiguous rows. The diagonal has
    u = 0, factor exactly 1, so c_ii stays exactly 1.

    An exponent without mass (A[u] = 0) gets factor 1: no positive c_ik has it (its c_ik
    would be mass), so its factor can only meet costs that are exactly 0, and after an
    unbounded or perfect-learner step it may be exp(+large) = inf, where 0 * inf would be NaN;
    0 * 1 keeps them 0, the limit of the exact arithmetic. Every positive cost is multiplied
    by exactly the factor it was before.
    SCRATCH: mult (V, K, K).
    """
    K = c.shape[1]
    for v in range(used.shape[0]):
        if used[v]:
            for yy in range(K):
                for k in range(K):
                    u = idx[v, yy, k]
                    mult[v, yy, k] = factor[u] if A[u] > 0.0 else 1.0
    for i in range(c.shape[0]):
        row = mult[sample_v[i], y[i]]
        for k in range(K):
            c[i, k] *= row[k]


@njit(cache=True, nogil=True)
def add_value_rows(sample_v, Q, alpha, y, scores, pred):
    """F(x_i, .) += alpha Q[v_i, .] for the training set (the round's votes, known from the
    grower's partition, so no tree walk); pred = first argmax; returns the error count.

    Adds exactly what ``Forest.add_round`` adds for leaf_value = alpha Q[v] (same products),
    so the training curve equals ``staged_predict`` bit for bit.
    """
    K = scores.shape[1]
    n_errors = 0
    for i in range(scores.shape[0]):
        v = sample_v[i]
        best = 0
        best_s = -np.inf
        for k in range(K):
            s = scores[i, k] + Q[v, k] * alpha
            scores[i, k] = s
            if s > best_s:
                best_s = s
                best = k
        pred[i] = best
        if best != y[i]:
            n_errors += 1
    return n_errors


@njit(cache=True, nogil=True)
def _scaled_derivatives(U, A, a):
    """(R'(a), R''(a)) both divided by the same positive factor (overflow-safe)."""
    m = -np.inf
    for t in range(U.shape[0]):
        if A[t] > 0.0 and U[t] != 0.0:
            m = max(m, np.log(A[t]) + U[t] * a)
    d1 = 0.0
    d2 = 0.0
    for t in range(U.shape[0]):
        if A[t] > 0.0 and U[t] != 0.0:
            w = np.exp(np.log(A[t]) + U[t] * a - m)
            d1 += U[t] * w
            d2 += U[t] * U[t] * w
    return d1, d2


@njit(cache=True, nogil=True)
def line_search(U, A, constant, tol):
    """Minimise R(a) = constant + sum_t A[t] exp(U[t] a) over a in R (A >= 0).

    R is convex. Returns ``(alpha, status)``:

    * ``STEP_FINITE``: terms of both signs of U carry mass, so R has one minimiser alpha*.
      A bracket [lo, hi] with R'(lo) <= 0 <= R'(hi) is found by doubling from 0, then Newton
      steps are taken inside it, falling back to bisection whenever a Newton step would leave
      the bracket (Numerical Recipes' ``rtsafe``). It stops when the last step (or the bracket)
      is below ``tol (1 + |alpha|)``; Newton's quadratic convergence makes the error then far
      smaller than the last step.
    * ``STEP_UNBOUNDED``: only one sign of U carries mass, so R falls monotonically towards
      ``constant + (mass of U = 0)`` as |a| grows and the infimum is not attained. alpha is the
      step at which the vanishing terms have fallen below double-precision resolution of the
      remaining risk: sum_{U<0} A exp(U a) <= eps * C with C = constant + mass at U = 0 (for
      a > 0; the mirror image for a < 0), from the bound sum A exp(U a) <= (sum A) exp(-u_min a)
      with u_min the smallest |U| carrying mass. At that alpha, R equals its infimum in double
      precision.
    * ``STEP_FLAT``: no term depends on a; alpha = 0.
    """
    n_pos = 0.0
    n_neg = 0.0
    c0 = constant
    for t in range(U.shape[0]):
        if A[t] > 0.0:
            if U[t] > 0.0:
                n_pos += A[t]
            elif U[t] < 0.0:
                n_neg += A[t]
            else:
                c0 += A[t]
    if n_pos == 0.0 and n_neg == 0.0:
        return 0.0, STEP_FLAT
    if n_pos == 0.0 or n_neg == 0.0:
        sign = 1.0 if n_pos == 0.0 else -1.0      # direction in which R decreases
        mass = n_neg if n_pos == 0.0 else n_pos
        u_min = np.inf
        for t in range(U.shape[0]):
            if A[t] > 0.0 and U[t] != 0.0 and abs(U[t]) < u_min:
                u_min = abs(U[t])
        if c0 <= 0.0:
            c0 = mass               # nothing else left: stop where the terms fell by 1/eps
        a = max(np.log(mass / (UNBOUNDED_EPS * c0)) / u_min, 0.0)
        return sign * a, STEP_UNBOUNDED

    d0, _ = _scaled_derivatives(U, A, 0.0)
    if d0 == 0.0:
        return 0.0, STEP_FINITE
    # Bracket the root of R' (increasing) by doubling.
    if d0 < 0.0:
        lo = 0.0
        hi = 1.0
        for _ in range(2000):
            d, _ = _scaled_derivatives(U, A, hi)
            if d >= 0.0:
                break
            lo = hi
            hi *= 2.0
    else:
        hi = 0.0
        lo = -1.0
        for _ in range(2000):
            d, _ = _scaled_derivatives(U, A, lo)
            if d <= 0.0:
                break
            hi = lo
            lo *= 2.0
    a = 0.5 * (lo + hi)
    for _ in range(200):
        d1, d2 = _scaled_derivatives(U, A, a)
        if d1 == 0.0:
            break
        if d1 < 0.0:
            lo = a
        else:
            hi = a
        nxt = a - d1 / d2
        if not (lo < nxt < hi):
            nxt = 0.5 * (lo + hi)
        step = abs(nxt - a)
        a = nxt
        if step <= tol * (1.0 + abs(a)) or hi - lo <= tol * (1.0 + abs(a)):
            break
    return a, STEP_FINITE


def risk_along(U, A, constant, alpha):
    """R(alpha) of ``line_search`` (for tests and diagnostics)."""
    return float(constant + np.sum(A * np.exp(U * alpha)))


# ---------------------------------------------------------------------------------------------
# The shared booster
# ---------------------------------------------------------------------------------------------


class PairwiseExpBoosting(BaseBoosting):
    """Round machinery for the loss (*) of the module docstring; subclasses fill in the rest.

    Subclasses set, in ``_setup`` (called by ``_init_state``): ``self._lam``, ``self._Q``
    (V, K) (score change of each leaf value for a unit step), ``self._criterion``,
    ``self._n_channels_in`` (width of G), ``self._vote`` (LABEL_VOTE or VECTOR_VOTE). Their
    ``_boost`` fills ``self._G``, calls ``_grow``, writes each leaf's value index into
    ``self._leaf_v``, calls ``_collect`` (masses A_u), chooses alpha and calls ``_take_step``.
    """

    @abstractmethod
    def _setup(self):
        """Set the loss-specific attributes listed in the class docstring."""

    def _init_state(self, X_binned, y, n_bins, hist_width):
        n, n_features = X_binned.shape
        K = self.n_classes_
        self._n_bins = n_bins
        self._setup()
        self._U, self._idx = exponent_table(self._Q, self._lam)
        zero = np.flatnonzero(self._U == 0.0)
        self._zero_u = int(zero[0]) if zero.size else -1
        self._A = np.zeros(self._U.size, np.float64)
        self._factor = np.ones(self._U.size, np.float64)
        self._c = np.ones((n, K), WEIGHT_DTYPE)            # F = 0: every c_ik = exp(0) = 1
        self._G = np.zeros((n, self._n_channels_in), WEIGHT_DTYPE)
        self._ws = TreeWorkspace(n, n_features, hist_width,
                                 n_channels(self._criterion, self._n_channels_in),
                                 int(self.max_depth))
        self._leaf_v = np.zeros(self._ws.max_nodes, np.int32)
        self._sample_v = np.zeros(n, np.int32)
        self._leaf_value = np.zeros((self._ws.max_nodes, K), SCORE_DTYPE)
        V = self._Q.shape[0]
        self._used = np.zeros(V, np.bool_)
        self._acc = np.zeros((V, K, K), np.float64)     # per-value row sums / step factors
        self.forest_ = Forest(self._vote, K, node_capacity=self._ws.max_nodes * 64)

    def _free_state(self):
        del (self._U, self._idx, self._A, self._factor, self._c, self._G, self._ws,
             self._leaf_v, self._sample_v, self._leaf_value, self._used, self._acc)

    def _grow(self, X_binned, y):
        """Grow the round's tree on the channels in ``self._G``; returns its node count."""
        return grow_tree(self._ws, X_binned, y, self._n_bins, self._criterion,
                         channel_values=self._G)

    def _collect(self, m, y):
        """Masses A_u of the round's tree (``exponent_mass``)."""
        ws = self._ws
        exponent_mass(ws.left, m, ws.node_start, ws.node_end, ws.sample_index, self._leaf_v,
                      y, self._c, self._idx, self._A, self._sample_v, self._used, self._acc)

    def _constant_mass(self, n):
        """n (the diagonal terms) plus the mass whose exponent is 0."""
        return float(n + (self._A[self._zero_u] if self._zero_u >= 0 else 0.0))

    def _take_step(self, alpha, m, y):
        """Multiply c by exp(alpha u) and append the tree with its leaf votes."""
        np.multiply(self._U, alpha, out=self._factor)
        # A step that is unbounded (STEP_UNBOUNDED) or a perfect learner's (AdaBoost.MM's
        # edge 1) is long enough that exp(alpha u) overflows for the exponents that carry no
        # mass, which is why the step is unbounded; apply_step gives those factor 1.
        with np.errstate(over="ignore"):
            np.exp(self._factor, out=self._factor)
        # acc is free after _collect: reuse it for the factor rows.
        apply_step(self._sample_v, y, self._idx, self._factor, self._A, self._used, self._acc,
                   self._c)
        if self._vote == LABEL_VOTE:
            self.forest_.append(self._ws, m, leaf_label=self._leaf_v, alpha=alpha)
        else:
            # A leaf with value v adds alpha Q[v, k] to F_k (for MCBoost: alpha <g_v, y^k>).
            out = self._leaf_value[:m]
            np.take(self._Q, self._leaf_v[:m], axis=0, out=out)
            out *= alpha
            self.forest_.append(self._ws, m, leaf_value=self._leaf_value, alpha=alpha)

    def _add_train_round(self, t, X_binned, y, scores, pred):
        if self._vote == LABEL_VOTE:
            # _collect stored each training sample's label of this round in _sample_v.
            return self.forest_.add_round_votes(t, self._sample_v, y, scores, pred)
        return add_value_rows(self._sample_v, self._Q, self.forest_.alpha[t], y, scores, pred)
