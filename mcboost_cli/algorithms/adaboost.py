"""AdaBoost.M1, SAMME and binary AdaBoost: AdaBoost with label-valued trees.

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

``AdaBoost`` (``adaboost``) is binary AdaBoost [4], the DirectBoost paper's baseline [5]: with
K = 2 classes, AdaBoost.M1's round is [4]'s round and its vote weight log(1/beta) is [4]'s, so
it is ``AdaBoostM1`` restricted to two classes, with the weighted-error trees by default and
the paper's stopping rule on the exponential loss (``loss_tolerance``; ALGORITHMS.md, "Binary
AdaBoost and LogitBoost").

References
----------
.. [1] Y. Freund, R. E. Schapire. Experiments with a new boosting algorithm. ICML 1996
       (AdaBoost.M1, Fig. 1).
.. [2] J. Zhu, H. Zou, S. Rosset, T. Hastie. Multi-class AdaBoost. Statistics and Its
       Interface 2(3), 2009 (SAMME, Algorithm 2).
.. [3] M. Saberian, N. Vasconcelos. Multiclass boosting: theory and algorithms. NIPS 2011.
.. [4] Y. Freund, R. E. Schapire. A decision-theoretic generalization of on-line learning and
       an application to boosting. Journal of Computer and System Sciences 55(1), 1997
       (AdaBoost, Fig. 2).
.. [5] S. Zhai, T. Xia, M. Tan, S. Wang. Direct 0-1 loss minimization and margin maximization
       with boosting. NIPS 2013 (sec. 3.1).
"""

from __future__ import annotations

import math
from dataclasses import replace

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
from .params import LOSS_TOLERANCE, LOSS_TOLERANCE_OF, MAX_BINS, MAX_DEPTH, N_ROUNDS, SPLIT_CRITERION
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
            self._round_kept(err)
            return RoundOutcome.STOP_AFTER
        alpha, factor_miss, factor_hit = self._step(err)
        self.forest_.append(ws, m, leaf_label=self._leaf_label, alpha=alpha)
        self._alpha_sum += alpha
        _reweight(self._w, self._miss, factor_miss, factor_hit)
        return self._round_kept(err)

    def _round_kept(self, err) -> RoundOutcome:
        """Hook after a kept round whose tree had weighted error ``err``: binary AdaBoost's
        training loss and its stopping rule (``AdaBoost``); nothing here."""
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


# Binary AdaBoost's trees minimise the weighted error unless told otherwise: the DirectBoost
# paper grows AdaBoost's trees on its sample distribution where DirectBoost "simply chooses
# the attribute to split on by minimizing 0-1 loss" (ALGORITHMS.md, "Binary AdaBoost and
# LogitBoost"). A new algorithm: its default is in the cell key.
BINARY_SPLIT_CRITERION = replace(SPLIT_CRITERION, default="error", default_in_key=True)


@register
class AdaBoost(AdaBoostM1):
    """Binary AdaBoost (Freund & Schapire 1997, Fig. 2) with trees of depth ``max_depth``.

    Round t of [4], Fig. 2, with labels y in {0, 1}: p^t = w^t / sum_i w_i^t (step 1); the
    weak hypothesis h_t (a tree whose leaves name the heavier class) and its error
    eps_t = sum_i p_i^t |h_t(x_i) - y_i| (steps 2-3); beta_t = eps_t / (1 - eps_t) (step 4);
    w_i^{t+1} = w_i^t beta_t^{1 - |h_t(x_i) - y_i|}: the correctly classified examples are
    multiplied by beta_t (step 5); h_f(x) = 1 iff sum_t log(1/beta_t) h_t(x) >=
    (1/2) sum_t log(1/beta_t). This is AdaBoost.M1's round (``AdaBoostM1``, the same code)
    with K = 2: in +-1 form h_f = sign(sum_t alpha_t h_t) with alpha_t = log(1/beta_t), M1's
    vote weight. (The exponential-loss form of Schapire & Singer and FHT halves every
    alpha_t, which changes no prediction.) On an exact tie of the vote the ensemble predicts
    the lower class code (the project's argmax rule) where [4]'s ">=" predicts 1.

    Training loss (``train_losses_``): the exponential loss L_t = (1/n) sum_i
    exp(-y_i f_t(x_i)) of f_t = (1/2) sum_s alpha_s h_s (y, h in {-1, +1}), which AdaBoost
    minimises: L_0 = 1 and L_t = L_{t-1} Z_t with Z_t = 2 sqrt(eps_t (1 - eps_t)), the
    normaliser of round t's reweighting (exact, since p^t is proportional to
    exp(-y f_{t-1})); a perfect tree (eps_t = 0) gives L_t = 0, the limit of its infinite
    vote. With ``loss_tolerance`` > 0 the fit stops after the round whose L_t differs from
    L_{t-1} by less than it (the DirectBoost paper's rule [5], sec. 3.1).

    Parameters
    ----------
    n_rounds : int, default=100
    max_depth : int, default=3
        1 or 3 in [5]'s experiments.
    max_bins : int, default=255
    split_criterion : {"error", "gini"}, default="error"
        How the round's tree chooses its splits (module docstring).
    loss_tolerance : float, default=0.0
        Stop after the round that changed L by less than this (0: run ``n_rounds``).
    loss_tolerance_of : {"mean", "sum"}, default="mean"
        Compare ``loss_tolerance`` with the change of the mean training loss or of the loss
        summed over the training rows (n times the mean's change; the DirectBoost paper's
        configs, ALGORITHMS.md).

    Fitted attributes (besides the base class's)
    ---------------------------------------------
    train_losses_ : ndarray (n_rounds_,), L_t after each kept round
    """

    name = "adaboost"
    family = "AdaBoost"
    reference = ("Freund & Schapire, A decision-theoretic generalization of on-line learning "
                 "and an application to boosting, JCSS 1997")
    version = "1"
    binary_only = True
    param_specs = (N_ROUNDS, MAX_DEPTH, MAX_BINS, BINARY_SPLIT_CRITERION, LOSS_TOLERANCE,
                   LOSS_TOLERANCE_OF)
    test_params = {"n_rounds": 15, "max_depth": 2}
    test_param_variants = ({"n_rounds": 200, "max_depth": 1, "loss_tolerance": 1e-4},
                           {"n_rounds": 200, "max_depth": 1, "loss_tolerance": 1e-4,
                            "loss_tolerance_of": "sum"})

    def __init__(self, n_rounds=100, max_depth=3, max_bins=255, split_criterion="error",
                 loss_tolerance=0.0, loss_tolerance_of="mean"):
        super().__init__(n_rounds=n_rounds, max_depth=max_depth, max_bins=max_bins,
                         split_criterion=split_criterion)
        self.loss_tolerance = loss_tolerance
        self.loss_tolerance_of = loss_tolerance_of

    def _init_state(self, X_binned, y, n_bins, hist_width):
        if self.n_classes_ != 2:
            raise ValueError(f"Only binary classification is supported by adaboost, binary "
                             f"AdaBoost (Freund & Schapire 1997): y has {self.n_classes_} "
                             f"classes, expected 2 (use adaboost_m1 or samme for more)")
        self._init_loss_rule(X_binned.shape[0])
        super()._init_state(X_binned, y, n_bins, hist_width)
        self._loss = 1.0            # L_0: f = 0
        self._losses = []

    def _round_kept(self, err) -> RoundOutcome:
        previous = self._loss
        if err <= 0.0:
            # Perfect tree: the fit ends here (``_boost``); L is the infinite vote's limit.
            self._loss = 0.0
            self._losses.append(0.0)
            return RoundOutcome.STOP_AFTER
        self._loss = previous * (2.0 * math.sqrt(err * (1.0 - err)))        # L_t = L_{t-1} Z_t
        self._losses.append(self._loss)
        if self._loss_change_stops(previous, self._loss, self._n_train):
            return RoundOutcome.STOP_AFTER
        return RoundOutcome.CONTINUE

    def _free_state(self):
        self.train_losses_ = np.array(self._losses[:self.n_rounds_], np.float64)
        del self._losses, self._loss
        super()._free_state()
