"""One-vs-all AdaBoost: K binary AdaBoost detectors, the class of largest score wins.

The "One Vs All" baseline of Saberian & Vasconcelos (NIPS 2011, Table 1 and sec. 5.2). Detector
k is discrete binary AdaBoost (Freund & Schapire 1997) on the labels y_i^k = +1 if y_i = k
else -1, with +-1-valued decision stumps: each round it grows the stump of least weighted error
(each leaf outputs the sign of its weighted label sum, i.e. its weighted majority; that is
``CRITERION_ABS_SUM`` on G_i = D_k(i) y_i^k), then

    err = sum_i D_k(i) [h(x_i) != y_i^k],  alpha = 1/2 ln((1 - err) / err),
    D_k(i) <- D_k(i) exp(-alpha y_i^k h(x_i)) / normaliser,   F_k += alpha h.

The classifier is argmax_k F_k(x) (the forest stores F with vector votes whose only non-zero
entry is the detector's own class).

**Budget.** The paper trains each detector for 20 iterations and then gives the other methods
"the same number of weak learners in their final decision rules" (sec. 5.2). Here one round
is one weak learner: round t adds a stump to detector t mod K (round-robin), so ``n_rounds``
counts weak learners exactly as CD-MCBoost's ``n_rounds`` does, and ``n_rounds = 20 K`` gives
each detector the paper's 20 iterations (the ensemble after T K rounds equals K independent
T-round AdaBoosts, since the detectors do not interact). Equal budgets = equal ``n_rounds``.

A detector stops (and later rounds skip it) when its best stump has err = 1/2 (no edge: AdaBoost
has nothing to add) or err = 0 (a perfect stump; as for the project's AdaBoost.M1 / SAMME it
gets the vote 1 + the detector's previous alphas, which makes the detector's sign that stump's,
the limit of the infinite alpha). The fit ends when every detector has stopped.

References
----------
.. [1] Y. Freund, R. E. Schapire. A decision-theoretic generalization of on-line learning and an
       application to boosting. JCSS 55(1), 1997.
.. [2] M. J. Saberian, N. Vasconcelos. Multiclass boosting: theory and algorithms. NIPS 2011
       (sec. 5.2 and Table 1: one-vs-all with 20 iterations per detector).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._dtypes import SCORE_DTYPE, WEIGHT_DTYPE
from ..learners.forest import VECTOR_VOTE, Forest
from ..learners.histogram_tree import CRITERION_ABS_SUM, TreeWorkspace, grow_tree
from .base import BaseBoosting, RoundOutcome
from .mcboost import STUMP_DEPTH
from .params import MAX_BINS, N_ROUNDS
from .registry import register


@njit(cache=True, nogil=True)
def _signed_weights(D, y, k, G):
    """G[i, 0] = D(i) y_i^k with y_i^k = +1 for class k, -1 otherwise."""
    for i in range(y.shape[0]):
        G[i, 0] = D[i] if y[i] == k else -D[i]


@njit(cache=True, nogil=True)
def _stump_error(left, n_nodes, node_sum, node_start, node_end, sample_index, y, k, D,
                 leaf_sign, miss):
    """Leaf outputs h = sign of the leaf's weight sum (+1 on 0); per-sample miss flags;
    returns (weighted error, number of misses)."""
    err = 0.0
    n_miss = 0
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        h = 1.0 if node_sum[nd, 0] >= 0.0 else -1.0
        leaf_sign[nd] = h
        for p in range(node_start[nd], node_end[nd]):
            i = sample_index[p]
            yk = 1.0 if y[i] == k else -1.0
            m = h != yk
            miss[i] = m
            if m:
                err += D[i]
                n_miss += 1
    return err, n_miss


@njit(cache=True, nogil=True)
def _add_detector_votes(k, alpha, leaf_sign, left, n_nodes, node_start, node_end,
                        sample_index, y, scores, pred):
    """F_k(x_i) += alpha h(x_i) on the training set from the grower's partition (no tree walk);
    only column k changes, so pred (first argmax) needs a rescan only when the current winner
    k falls. Returns the error count."""
    K = scores.shape[1]
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        a = alpha * leaf_sign[nd]
        for q in range(node_start[nd], node_end[nd]):
            i = sample_index[q]
            s = scores[i, k] + a
            scores[i, k] = s
            p = pred[i]
            if a >= 0.0:
                if k != p and (s > scores[i, p] or (s == scores[i, p] and k < p)):
                    pred[i] = k
            elif p == k:
                best = 0
                for c in range(1, K):
                    if scores[i, c] > scores[i, best]:
                        best = c
                pred[i] = best
    n_errors = 0
    for i in range(y.shape[0]):
        if pred[i] != y[i]:
            n_errors += 1
    return n_errors


@njit(cache=True, nogil=True)
def _reweight(D, miss, alpha):
    """D(i) *= exp(-alpha y h) = exp(alpha) on misses, exp(-alpha) on hits; normalise."""
    up = math.exp(alpha)
    down = math.exp(-alpha)
    s = 0.0
    for i in range(D.shape[0]):
        D[i] *= up if miss[i] else down
        s += D[i]
    for i in range(D.shape[0]):
        D[i] /= s


@register
class OneVsAllAdaBoost(BaseBoosting):
    """K binary AdaBoost detectors with stumps, trained round-robin; argmax of their scores.

    Parameters
    ----------
    n_rounds : int, default=100
        Total number of weak learners over all detectors (``20 K`` = the MCBoost paper's
        20 iterations per detector).
    max_depth : int, default=1
        Depth of the +-1-valued trees (1 = decision stumps, the paper's weak learner).
    max_bins : int, default=255

    References
    ----------
    .. [1] Y. Freund, R. E. Schapire. JCSS 1997 (binary AdaBoost).
    .. [2] M. J. Saberian, N. Vasconcelos. NIPS 2011, Table 1 ("One Vs All").
    """

    name = "one_vs_all_adaboost"
    family = "AdaBoost"
    reference = ("one-vs-all binary AdaBoost (Freund & Schapire 1997), the baseline of "
                 "Saberian & Vasconcelos, NIPS 2011, Table 1")
    version = "1"
    param_specs = (N_ROUNDS, STUMP_DEPTH, MAX_BINS)
    test_params = {"n_rounds": 24, "max_depth": 1}

    def __init__(self, n_rounds=100, max_depth=1, max_bins=255):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins

    def _init_state(self, X_binned, y, n_bins, hist_width):
        n, n_features = X_binned.shape
        K = self.n_classes_
        self._n_bins = n_bins
        self._D = np.full((K, n), 1.0 / n, WEIGHT_DTYPE)       # D_1^k(i) = 1/n per detector
        self._G = np.zeros((n, 1), WEIGHT_DTYPE)
        self._miss = np.zeros(n, np.bool_)
        self._ws = TreeWorkspace(n, n_features, hist_width, 1, int(self.max_depth))
        self._leaf_sign = np.zeros(self._ws.max_nodes, np.float64)
        self._leaf_value = np.zeros((self._ws.max_nodes, K), SCORE_DTYPE)
        self._active = np.ones(K, np.bool_)
        self._alpha_sum = np.zeros(K)
        self._next = 0
        self.forest_ = Forest(VECTOR_VOTE, K, node_capacity=self._ws.max_nodes * 64)
        self.detector_ = []          # the detector (class code) of each kept round

    def _free_state(self):
        del (self._D, self._G, self._miss, self._ws, self._leaf_sign, self._leaf_value,
             self._active, self._alpha_sum, self._next)
        self.__dict__.pop("_m", None)

    def _add_train_round(self, t, X_binned, y, scores, pred):
        ws = self._ws
        return _add_detector_votes(self.detector_[t], self.forest_.alpha[t], self._leaf_sign,
                                   ws.left, self._m, ws.node_start, ws.node_end,
                                   ws.sample_index, y, scores, pred)

    def _boost(self, t, X_binned, y):
        K = self.n_classes_
        ws = self._ws
        for _ in range(K):
            k = self._next
            self._next = (k + 1) % K
            if not self._active[k]:
                continue
            _signed_weights(self._D[k], y, k, self._G)
            m = grow_tree(ws, X_binned, y, self._n_bins, CRITERION_ABS_SUM,
                          channel_values=self._G)
            err, n_miss = _stump_error(ws.left, m, ws.node_sum, ws.node_start, ws.node_end,
                                       ws.sample_index, y, k, self._D[k], self._leaf_sign,
                                       self._miss)
            if n_miss > 0 and err >= 0.5:
                self._active[k] = False       # no edge: binary AdaBoost would stop here
                continue
            if n_miss == 0:
                alpha = 1.0 + self._alpha_sum[k]      # perfect stump: see module docstring
                self._active[k] = False
            else:
                alpha = 0.5 * math.log((1.0 - err) / err)
                self._alpha_sum[k] += alpha
                _reweight(self._D[k], self._miss, alpha)
            lv = self._leaf_value[:m]
            lv[:] = 0.0
            np.multiply(self._leaf_sign[:m], alpha, out=lv[:, k])
            self.forest_.append(ws, m, leaf_value=self._leaf_value, alpha=alpha)
            self.detector_.append(k)
            self._m = m
            if not self._active.any():
                self.stop_reason_ = "every detector stopped (no edge or a perfect stump)"
                return RoundOutcome.STOP_AFTER
            return RoundOutcome.CONTINUE
        self.stop_reason_ = "every detector stopped (no edge or a perfect stump)"
        return RoundOutcome.DISCARD_STOP
