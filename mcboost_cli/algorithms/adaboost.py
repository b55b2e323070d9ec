"""AdaBoost.M1 and SAMME: multi-class AdaBoost with label-valued trees.

Both grow one weighted multi-class classification tree per round (each leaf votes for its
heaviest class) and differ only in the step size and the stopping rule. The tree's splits
follow ``split_criterion``: ``"gini"`` (default) maximises the weighted Gini proxy
(``learners.histogram_tree.CRITERION_GINI``, CART); ``"error"`` minimises the weighted
misclassification of the majority-labelled children (``CRITERION_ERROR``), the trees "built
with a greedy procedure so as to minimize the weighted error rate of AdaBoost-M1 and
AdaBoost-SAMME" of the MCBoost paper [3], sec. 5.3; there a node stays a leaf when no split
lowers its weighted error (ALGORITHMS.md, "Split criterion of the label trees").

========== ============================================ ==============================
algorithm  vote weight alpha_t                         stops (round discarded) when
========== ============================================ ==============================
M1         log((1 - err) / err)                         err >= 1/2
SAMME      log((1 - err) / err) + log(K - 1)            err >= 1 - 1/K
========== ============================================ ==============================

where err is the weighted training error of the round's tree (weights sum to one). A tree
with err = 0 ends the fit: its vote weight would be infinite, so it gets
``1 + sum of the previous alphas``, which makes the ensemble predict exactly that tree's labels,
the limit the infinite weight describes (ALGORITHMS.md, "Perfect weak learners").

References
----------
.. [1] Y. Freund, R. E. Schapire. Experiments with a new boosting algorithm. ICML 1996
       (AdaBoost.M1, Fig. 1).
.. [2] J. Zhu, H. Zou, S. Rosset, T. Hastie. Multi-class AdaBoost. Statistics and Its
       Interface 2(3), 2009 (SAMME, Algorithm 2).
.. [3] M. Saberian, N. Vasconcelos. Multiclass boosting: theory and algorithms. NIPS 2011.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._dtypes import WEIGHT_DTYPE, Y_DTYPE
from ..learners.forest import LABEL_VOTE, Forest
from ..learners.histogram_tree import (
    CRITERION_ERROR,
    CRITERION_GINI,
    TreeWorkspace,
    grow_tree,
)
from .base import BaseBoosting, RoundOutcome
from .params import MAX_BINS, MAX_DEPTH, N_ROUNDS, SPLIT_CRITERION
from .registry import register

# split_criterion -> the grower's criterion (both use the K-channel class-weight histogram).
_TREE_CRITERION = {"gini": CRITERION_GINI, "error": CRITERION_ERROR}


@njit(cache=True, nogil=True)
def _leaf_labels_and_error(left, node_sum, n_nodes, node_start, node_end, sample_index, y, w,
                           leaf_label, miss, vote):
    """Leaf label = heaviest class (first on ties); per-sample miss flags; weighted error.

    IN: the workspace's tree (its partition ``sample_index`` groups each leaf's samples in
    ``node_start..node_end``), labels y, weights w. OUT: leaf_label (nodes,), miss (n,) bool.
    """
    err = 0.0
    total = 0.0
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        best = 0
        for c in range(1, node_sum.shape[1]):
            if node_sum[nd, c] > node_sum[nd, best]:
                best = c
        leaf_label[nd] = best
        for p in range(node_start[nd], node_end[nd]):
            i = sample_index[p]
            vote[i] = best
            m = y[i] != best
            miss[i] = m
            total += w[i]
            if m:
                err += w[i]
    return err / total


@njit(cache=True, nogil=True)
def _reweight(w, miss, factor_miss, factor_hit):
    """w_i *= factor (miss or hit), then normalise to sum one."""
    s = 0.0
    for i in range(w.shape[0]):
        w[i] *= factor_miss if miss[i] else factor_hit
        s += w[i]
    for i in range(w.shape[0]):
        w[i] /= s


class _LabelTreeBoosting(BaseBoosting):
    """Shared round of AdaBoost.M1 and SAMME; subclasses give ``_step(err)``."""

    param_specs = (N_ROUNDS, MAX_DEPTH, MAX_BINS, SPLIT_CRITERION)
    test_params = {"n_rounds": 15, "max_depth": 2}
    # _leaf_labels_and_error fills _vote (each training sample's label of the round) from the
    # grower's partition; the fit loop applies it to the training scores.
    _train_vote_attr = "_vote"

    def __init__(self, n_rounds=100, max_depth=3, max_bins=255, split_criterion="gini"):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.split_criterion = split_criterion

    def _init_state(self, X_binned, y, n_bins, hist_width):
        n, n_features = X_binned.shape
        K = self.n_classes_
        self._n_bins = n_bins
        if self.split_criterion not in _TREE_CRITERION:
            raise ValueError(f"split_criterion must be one of {tuple(_TREE_CRITERION)}, got "
                             f"{self.split_criterion!r}")
        self._criterion = _TREE_CRITERION[self.split_criterion]
        self._w = np.full(n, 1.0 / n, WEIGHT_DTYPE)                     # D_1(i) = 1/n
        self._miss = np.zeros(n, np.bool_)
        self._vote = np.zeros(n, Y_DTYPE)       # this round's label of each training sample
        self._ws = TreeWorkspace(n, n_features, hist_width, K, int(self.max_depth))
        self._leaf_label = np.zeros(self._ws.max_nodes, np.int32)
        self.forest_ = Forest(LABEL_VOTE, K, node_capacity=self._ws.max_nodes * 64)
        self._alpha_sum = 0.0

    def _free_state(self):
        del self._w, self._miss, self._vote, self._ws, self._leaf_label

    def _boost(self, t, X_binned, y):
        ws = self._ws
        m = grow_tree(ws, X_binned, y, self._n_bins, self._criterion, weight=self._w)
        err = _leaf_labels_and_error(ws.left, ws.node_sum, m, ws.node_start, ws.node_end,
                                     ws.sample_index, y, self._w, self._leaf_label, self._miss,
                                     self._vote)
        if err >= self._max_error():
            self.stop_reason_ = f"weighted error {err:.6g} >= {self._max_error():.6g}"
            return RoundOutcome.DISCARD_STOP
        if err <= 0.0:
            # Perfect tree: infinite vote weight in the paper; see the module docstring.
            alpha = 1.0 + self._alpha_sum
            self.forest_.append(ws, m, leaf_label=self._leaf_label, alpha=alpha)
            self.stop_reason_ = "weighted error 0 (perfect weak learner)"
            return RoundOutcome.STOP_AFTER
        alpha, factor_miss, factor_hit = self._step(err)
        self.forest_.append(ws, m, leaf_label=self._leaf_label, alpha=alpha)
        self._alpha_sum += alpha
        _reweight(self._w, self._miss, factor_miss, factor_hit)
        return RoundOutcome.CONTINUE


@register
class AdaBoostM1(_LabelTreeBoosting):
    """AdaBoost.M1 (Freund & Schapire 1996) with multi-class trees.

    Round t (Fig. 1 of [1]): fit h_t on weights D_t; err_t = sum_i D_t(i) [h_t(x_i) != y_i];
    if err_t > 1/2 stop (we also stop at exactly 1/2, where beta_t = 1 and alpha_t = 0 adds
    nothing); beta_t = err_t / (1 - err_t); D_{t+1}(i) = D_t(i) beta_t if h_t(x_i) = y_i,
    normalised; H(x) = argmax_y sum_t log(1/beta_t) [h_t(x) = y].

    Parameters
    ----------
    n_rounds : int, default=100
    max_depth : int, default=3
    max_bins : int, default=255
    split_criterion : {"gini", "error"}, default="gini"
        How the round's tree chooses its splits (module docstring).
    """

    name = "adaboost_m1"
    family = "AdaBoost"
    reference = "Freund & Schapire, Experiments with a new boosting algorithm, ICML 1996"
    version = "1"

    def _max_error(self):
        return 0.5

    def _step(self, err):
        beta = err / (1.0 - err)
        return math.log(1.0 / beta), 1.0, beta


@register
class SAMME(_LabelTreeBoosting):
    """SAMME (Zhu, Zou, Rosset & Hastie 2009), Algorithm 2.

    Round t: fit h_t on weights w; err = sum_i w_i [h_t(x_i) != y_i] / sum_i w_i;
    alpha_t = log((1 - err)/err) + log(K - 1) (step 2c); w_i <- w_i exp(alpha_t [miss]) (2d),
    renormalised (2e); stop when alpha_t <= 0, i.e. err >= 1 - 1/K (the weak learner is no
    better than random guessing among K classes). C(x) = argmax_k sum_t alpha_t [h_t(x) = k].

    With K = 2 this is binary AdaBoost (Freund & Schapire 1997).

    Parameters
    ----------
    n_rounds : int, default=100
    max_depth : int, default=3
    max_bins : int, default=255
    split_criterion : {"gini", "error"}, default="gini"
        How the round's tree chooses its splits (module docstring).
    """

    name = "samme"
    family = "AdaBoost"
    reference = ("Zhu, Zou, Rosset & Hastie, Multi-class AdaBoost, Statistics and Its "
                 "Interface 2009")
    version = "1"

    def _max_error(self):
        return 1.0 - 1.0 / self.n_classes_

    def _step(self, err):
        alpha = math.log((1.0 - err) / err) + math.log(self.n_classes_ - 1.0)
        return alpha, math.exp(alpha), 1.0
