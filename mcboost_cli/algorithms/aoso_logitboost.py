"""AOSO-LogitBoost: LogitBoost whose every tree node updates one adaptively chosen class pair.

Sun, Reid & Zhou [1] fit, each round, a *vector* tree to the second-order model of the
multinomial logistic loss L = -sum_i log p_{y_i}(x_i), p = softmax(F), under the sum-to-zero
constraint: a node's value is t (e_r - e_s) for one class pair (r, s), a coordinate-descent
step in the direction e_r - e_s of the dense Hessian. With g_ik = r_ik - p_ik (minus the
gradient; r_ik = [y_i = k]) and the pair's curvature
h_i(r, s) = p_ir (1 - p_ir) + p_is (1 - p_is) + 2 p_ir p_is (= (e_r - e_s)' H_i (e_r - e_s)):

- node value (Newton step): t = sum_i (g_ir - g_is) / sum_i h_i(r, s), clipped to [-5, 5];
- node gain: (sum_i (g_ir - g_is))^2 / (2 sum_i h_i(r, s)); a split's gain is its children's
  gains minus the node's, all under the pair chosen at the node;
- pair choice at a node ([1], "adaptive one-vs-one"): r = argmax_k sum_i g_ik (the class of
  steepest descent), then s = argmax_{k != r} (sum g_ir - sum g_ik)^2 / sum h_i(r, k) (the
  partner of largest second-order gain);
- F <- F + v f_t (shrinkage v, ``learning_rate``; 0.1 in [1]'s experiments).

Each round here grows a decision stump (the J = 2 leaves tree): the pair (r, s) chosen on the
whole training set scores the root's splits — the grower's ``CRITERION_LEAST_SQUARES`` on
G_i = (h_i(r, s), g_ir - g_is), whose side score (sum G_1)^2 / sum G_0 is twice the gain
above — and each of the two leaves then chooses its own pair on its own samples and takes its
Newton step (``_leaf_pairs_and_values``). A stump adds v t to F_r and -v t to F_s of the
samples of each leaf: one stump per round, so 200 stumps are 200 rounds. The numeric
details (the clip at 5, a zero curvature sum read as 1, first index on ties) are those of the
authors' code [2]; ALGORITHMS.md, "AOSO-LogitBoost", lists them.

For K = 2 the pair is the two classes and the stump is binary LogitBoost's ([3], Algorithm
3) weighted least-squares regression stump, with F_0 - F_1 as its log-odds (tested).

References
----------
.. [1] P. Sun, M. D. Reid, J. Zhou. AOSO-LogitBoost: Adaptive One-Vs-One LogitBoost for
       Multi-Class Problem. ICML 2012 (arXiv:1110.3907); extended as "An improved multiclass
       LogitBoost using adaptive-one-vs-one", Machine Learning 97, 2014.
.. [2] P. Sun. AOSOLogitBoost (github.com/pengsun/AOSOLogitBoost, src/AOSOLogitBoost.cpp):
       ``AOSOSolver::find_best_two``, ``calc_gamma``, ``calc_gain``.
.. [3] J. Friedman, T. Hastie, R. Tibshirani. Additive logistic regression: a statistical view
       of boosting. Annals of Statistics 28(2), 2000.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._dtypes import INDEX_DTYPE, SCORE_DTYPE, WEIGHT_DTYPE
from .._inline import inline_helper
from ..learners.forest import VECTOR_VOTE, Forest
from ..learners.histogram_tree import CRITERION_LEAST_SQUARES, TreeWorkspace, grow_tree
from .base import BaseBoosting, RoundOutcome
from .params import MAX_BINS, N_ROUNDS, ParamSpec
from .registry import register

LEARNING_RATE = ParamSpec("learning_rate", "float", 0.1,
                          "shrinkage v of each tree's values (0.1 in the AOSO paper)",
                          low=0.0, high=1.0, low_open=True)

# The authors' clip of a node's Newton step ([2], AOSOSolver::MAXGAMMA).
MAX_STEP = 5.0
# Pair scores this close are ties, which go to the lowest class: classes of equal counts in a
# node score alike at p = 1/K (the first round), and summation order must not decide.
_TIE_REL = 1e-12


# ---------------------------------------------------------------------------------------------
# Kernels (numba) and their naive twins (numpy, used by the tests)
# ---------------------------------------------------------------------------------------------


@inline_helper
def _pair_sums(P, y, idx, start, end, r, s):
    """(sum_i (g_ir - g_is), sum_i h_i(r, s)) over samples idx[start:end]."""
    m = 0.0
    hs = 0.0
    for q in range(start, end):
        i = idx[q]
        pr = P[i, r]
        ps = P[i, s]
        gr = (1.0 if y[i] == r else 0.0) - pr
        gs = (1.0 if y[i] == s else 0.0) - ps
        m += gr - gs
        hs += pr * (1.0 - pr) + ps * (1.0 - ps) + 2.0 * pr * ps
    return m, hs


@njit(cache=True, nogil=True)
def _best_pair(P, y, idx, start, end, mg, hk, hrk):
    """The node's class pair (r, s) over samples idx[start:end] ([2], find_best_two).

    r = first argmax_k sum_i g_ik; s = first argmax_{k != r} (ties: ``_TIE_REL``) of
    (mg_r - mg_k)^2 / (h_r + h_k + 2 sum_i p_ir p_ik) (a zero denominator read as 1).
    Scratch: mg, hk, hrk (K,).
    """
    K = P.shape[1]
    mg[:] = 0.0
    hk[:] = 0.0
    hrk[:] = 0.0
    for q in range(start, end):
        i = idx[q]
        for k in range(K):
            mg[k] += (1.0 if y[i] == k else 0.0) - P[i, k]
    r = 0
    for k in range(1, K):
        if mg[k] > mg[r] + _TIE_REL * (1.0 + abs(mg[r])):
            r = k
    for q in range(start, end):
        i = idx[q]
        pr = P[i, r]
        for k in range(K):
            pk = P[i, k]
            hk[k] += pk * (1.0 - pk)
            hrk[k] += pr * pk
    s = 0 if r != 0 else 1
    best = -1.0
    for k in range(K):
        if k == r:
            continue
        d = mg[r] - mg[k]
        den = hk[r] + hk[k] + 2.0 * hrk[k]
        if den == 0.0:
            den = 1.0
        gain = d * d / den
        if gain > best + _TIE_REL * (1.0 + abs(best)):
            best = gain
            s = k
    return r, s


@njit(cache=True, nogil=True)
def _pair_channels(P, y, r, s, G):
    """The root's channels for the split search: G[i] = (h_i(r, s), g_ir - g_is)."""
    for i in range(P.shape[0]):
        pr = P[i, r]
        ps = P[i, s]
        G[i, 0] = pr * (1.0 - pr) + ps * (1.0 - ps) + 2.0 * pr * ps
        G[i, 1] = ((1.0 if y[i] == r else 0.0) - pr) - ((1.0 if y[i] == s else 0.0) - ps)


@njit(cache=True, nogil=True)
def _leaf_pairs_and_values(left, n_nodes, node_start, node_end, sample_index, P, y, v,
                           mg, hk, hrk, leaf_value, leaf_pair):
    """Each leaf's own pair and its clipped Newton step times v: leaf_value[leaf] = v t at r,
    -v t at s, 0 elsewhere.

    OUT: leaf_value (nodes, K), leaf_pair (nodes, 2) int32.
    """
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        a = node_start[nd]
        b = node_end[nd]
        r, s = _best_pair(P, y, sample_index, a, b, mg, hk, hrk)
        m, hs = _pair_sums(P, y, sample_index, a, b, r, s)
        if hs == 0.0:
            hs = 1.0
        step = m / hs
        if step > MAX_STEP:
            step = MAX_STEP
        elif step < -MAX_STEP:
            step = -MAX_STEP
        for k in range(leaf_value.shape[1]):
            leaf_value[nd, k] = 0.0
        leaf_value[nd, r] = v * step
        leaf_value[nd, s] = -v * step
        leaf_pair[nd, 0] = r
        leaf_pair[nd, 1] = s


@njit(cache=True, nogil=True)
def _update_scores_and_probabilities(left, n_nodes, node_start, node_end, sample_index,
                                     leaf_value, y, F, P):
    """F += the stump's value of each training sample's leaf; P = softmax(F) (shifted by the
    row maximum, so no exponent overflows). Returns the loss -sum_i log p_{y_i}.

    IN/OUT: F, P (n, K).
    """
    K = F.shape[1]
    loss = 0.0
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        for q in range(node_start[nd], node_end[nd]):
            i = sample_index[q]
            top = -np.inf
            for k in range(K):
                F[i, k] += leaf_value[nd, k]
                if F[i, k] > top:
                    top = F[i, k]
            total = 0.0
            for k in range(K):
                e = math.exp(F[i, k] - top)
                P[i, k] = e
                total += e
            for k in range(K):
                P[i, k] /= total
            loss += top + math.log(total) - F[i, y[i]]
    return loss


def best_pair_naive(P, y):
    """``_best_pair`` over all rows, in numpy."""
    K = P.shape[1]
    R = np.eye(K)[y]
    mg = (R - P).sum(axis=0)
    r = _first_max(mg)
    hk = (P * (1 - P)).sum(axis=0)
    hrk = (P[:, [r]] * P).sum(axis=0)
    den = hk[r] + hk + 2 * hrk
    den = np.where(den == 0.0, 1.0, den)
    gain = (mg[r] - mg) ** 2 / den
    gain[r] = -1.0               # below every gain (>= 0): never chosen
    return r, _first_max(gain)


def _first_max(a) -> int:
    """Index of the first entry within ``_TIE_REL`` of the running best (``_best_pair``'s rule)."""
    best = 0
    for k in range(1, len(a)):
        if a[k] > a[best] + _TIE_REL * (1.0 + abs(a[best])):
            best = k
    return best


def multinomial_loss(F, y) -> float:
    """-sum_i log softmax(F_i)_{y_i} (the loss AOSO-LogitBoost descends)."""
    top = F.max(axis=1, keepdims=True)
    lse = top[:, 0] + np.log(np.exp(F - top).sum(axis=1))
    return float((lse - F[np.arange(len(y)), y]).sum())


@register
class AOSOLogitBoost(BaseBoosting):
    """AOSO-LogitBoost (Sun, Reid & Zhou 2012) with decision stumps (J = 2 leaves).

    Parameters
    ----------
    n_rounds : int, default=100
        Rounds; each grows one stump.
    learning_rate : float, default=0.1
        Shrinkage v.
    max_bins : int, default=255

    Fitted attributes (besides the base class's)
    ---------------------------------------------
    root_pairs_ : ndarray int32 (n_rounds_, 2), the pair (r, s) that chose each stump's split
    train_losses_ : ndarray (n_rounds_,), the multinomial loss after each round
    """

    name = "aoso_logitboost"
    family = "LogitBoost"
    reference = ("Sun, Reid & Zhou, AOSO-LogitBoost: Adaptive One-Vs-One LogitBoost for "
                 "Multi-Class Problem, ICML 2012")
    version = "1"
    param_specs = (N_ROUNDS, LEARNING_RATE, MAX_BINS)
    test_params = {"n_rounds": 15, "learning_rate": 0.3}

    def __init__(self, n_rounds=100, learning_rate=0.1, max_bins=255):
        self.n_rounds = n_rounds
        self.learning_rate = learning_rate
        self.max_bins = max_bins

    _scratch_attrs = ("_ws", "_G", "_scratch", "_all_rows", "_leaf_value", "_leaf_pair")

    def _init_state(self, X_binned, y, n_bins, hist_width):
        n, n_features = X_binned.shape
        K = self.n_classes_
        self._n_bins = n_bins
        self._F = np.zeros((n, K), SCORE_DTYPE)
        self._P = np.full((n, K), 1.0 / K, WEIGHT_DTYPE)
        self._ws = TreeWorkspace(n, n_features, hist_width, 2, 1)
        self._G = np.zeros((n, 2), WEIGHT_DTYPE)
        self._scratch = np.zeros((3, K), np.float64)
        self._all_rows = np.arange(n, dtype=INDEX_DTYPE)
        self._leaf_value = np.zeros((self._ws.max_nodes, K), np.float64)
        self._leaf_pair = np.zeros((self._ws.max_nodes, 2), np.int32)
        self.forest_ = Forest(VECTOR_VOTE, K, node_capacity=self._ws.max_nodes * 64)
        self._root_pairs = []
        self._losses = []

    def _free_state(self):
        kept = self.n_rounds_
        self.root_pairs_ = np.array(self._root_pairs[:kept], np.int32).reshape(kept, 2)
        self.train_losses_ = np.array(self._losses[:kept], np.float64)
        del self._F, self._P, self._ws, self._G, self._scratch, self._all_rows, self._leaf_value
        del self._leaf_pair, self._root_pairs, self._losses

    def _boost(self, t, X_binned, y):
        ws = self._ws
        mg, hk, hrk = self._scratch
        r, s = _best_pair(self._P, y, self._all_rows, 0, self._all_rows.shape[0], mg, hk, hrk)
        _pair_channels(self._P, y, r, s, self._G)
        m = grow_tree(ws, X_binned, y, self._n_bins, CRITERION_LEAST_SQUARES,
                      channel_values=self._G)
        _leaf_pairs_and_values(ws.left, m, ws.node_start, ws.node_end, ws.sample_index,
                               self._P, y, float(self.learning_rate), mg, hk, hrk,
                               self._leaf_value, self._leaf_pair)
        loss = _update_scores_and_probabilities(ws.left, m, ws.node_start, ws.node_end,
                                                ws.sample_index, self._leaf_value, y, self._F,
                                                self._P)
        self.forest_.append(ws, m, leaf_value=self._leaf_value)
        self._root_pairs.append((r, s))
        self._losses.append(loss)
        return RoundOutcome.CONTINUE
