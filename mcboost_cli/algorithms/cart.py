"""CART: one classification tree with minimal cost-complexity pruning, the pruning level chosen
by cross-validation on the training part (Breiman, Friedman, Olshen & Stone 1984).

The coherence-function paper [2] compares its boosters with CART on vowel, waveform,
segmentation, optdigits, pendigits and satimage without giving CART's settings; ours are
written down in ALGORITHMS.md ("CART"). A fit is one "round":

1. grow T_max on the whole training part with the histogram grower
   (``learners.histogram_tree``, ``CRITERION_GINI``, unit weights) as far as ``max_depth`` and
   ``min_samples_leaf`` allow (a node also stops when it is pure or no split separates its
   samples);
2. its weakest-link sequence T_0 ⊃ ... ⊃ T_K with 0 = alpha_0 < ... < alpha_K
   (``learners.cost_complexity``; R(t) = the node's misclassification by default, Breiman's
   ch. 3, or its Gini impurity, scikit-learn's, with ``prune_cost="gini"``);
3. V-fold cross-validation (Breiman, sec. 3.4.2 and 11.5): the training part is split into
   ``cv_folds`` class-stratified folds drawn from ``random_state`` (the runner derives it from
   the cell: ``runner.work``); for every fold v a tree T^(v)_max is grown on the other folds
   and pruned by its own sequence; T_k is scored by the errors of T^(v)(beta_k) on fold v,
   summed over v, at the geometric midpoint beta_k = sqrt(alpha_k alpha_{k+1})
   (beta_K = infinity), giving R^cv(T_k) and its standard error
   SE_k = sqrt(R^cv(T_k) (1 - R^cv(T_k)) / n);
4. the reported tree is T_k* with k* chosen by ``cv_rule``: ``"1se"`` (default) the smallest
   tree whose R^cv is within one SE of the minimum (Breiman's 1 SE rule, sec. 3.4.3),
   ``"min"`` the smallest tree of least R^cv. Leaves vote for their heaviest class (the lowest
   class code on ties).

Validation and test sets handed to ``fit`` are only recorded (the base class's curves), never
looked at by steps 1-4. The algorithm ends its one round itself (``early_stopping = False``,
``best_round_ = 1``), so the runner reports that round under every protocol.

References
----------
.. [1] L. Breiman, J. Friedman, R. Olshen, C. Stone. Classification and Regression Trees.
       Wadsworth, 1984 (ch. 3: minimal cost-complexity pruning, cross-validation, 1 SE rule).
.. [2] Z. Zhang, M. I. Jordan, W.-J. Li, D.-Y. Yeung. Coherence functions for multicategory
       margin-based classification methods. AISTATS 2009.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from .._dtypes import WEIGHT_DTYPE
from ..learners.cost_complexity import (
    COST_ERROR,
    COST_GINI,
    compact_subtree,
    node_costs,
    predict_subtrees,
    pruning_sequence,
    subtree_for_alpha,
)
from ..learners.forest import LABEL_VOTE, Forest
from ..learners.histogram_tree import CRITERION_GINI, TreeWorkspace, grow_tree
from ..protocol.seeding import rng_for
from .base import BaseBoosting, RoundOutcome
from .params import MAX_BINS, ParamSpec
from .registry import register

_PRUNE_COST = {"error": COST_ERROR, "gini": COST_GINI}
CV_RULES = ("1se", "min")

# Full growth: the grower's workspace holds 2 (max_depth + 2) histograms, so the bound is a
# memory bound too (64 levels: 60 MB on satimage's 36 features x 256 bins x 6 classes); the
# fitted ``tree_depth_`` tells whether a tree reached it.
CART_MAX_DEPTH = ParamSpec("max_depth", "int", 64,
                           "depth bound of the grown tree T_max before pruning", low=1, high=64)
MIN_SAMPLES_LEAF = ParamSpec("min_samples_leaf", "int", 1,
                             "fewest training samples a leaf of T_max may hold", low=1,
                             high=1_000_000)
CV_FOLDS = ParamSpec("cv_folds", "int", 10,
                     "folds of the cross-validation that chooses the pruning level", low=2,
                     high=100)
CV_RULE = ParamSpec("cv_rule", "choice", "1se",
                    "1se: the smallest subtree within one standard error of the least CV "
                    "error (Breiman's rule); min: the smallest subtree of least CV error",
                    choices=CV_RULES)
PRUNE_COST = ParamSpec("prune_cost", "choice", "error",
                       "node cost R(t) of the pruning: error (misclassification, Breiman) or "
                       "gini (Gini impurity, as scikit-learn)", choices=tuple(_PRUNE_COST))


@dataclass(eq=False)
class PrunedTree:
    """A grown tree T_max with its weakest-link sequence (``learners.cost_complexity``).

    Node arrays (``n_nodes``,) in the growers' layout: ``feature``, ``threshold``, ``left``,
    ``right``; ``node_label`` the heaviest class of every node, ``cost`` its R(t).
    ``alphas`` (K+1,) and ``prune_step`` (n_nodes,) encode T_0 ⊃ ... ⊃ T_K.
    """

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    node_label: np.ndarray
    cost: np.ndarray
    alphas: np.ndarray
    prune_step: np.ndarray
    depth: int

    def __eq__(self, other):
        # Field by field, arrays by value (two fits of the same data compare equal).
        return (type(other) is PrunedTree
                and all(np.array_equal(getattr(self, f), getattr(other, f))
                        for f in self.__dataclass_fields__))

    @property
    def n_nodes(self) -> int:
        return self.left.shape[0]

    def leaf_mask(self, k: int) -> np.ndarray:
        """Which nodes are the leaves of T_k."""
        internal = self.prune_step > k
        parent_internal = np.ones(self.n_nodes, bool)      # the root counts as reached
        inner = np.flatnonzero(self.left >= 0)
        parent_internal[self.left[inner]] = internal[inner]
        parent_internal[self.right[inner]] = internal[inner]
        return ~internal & parent_internal

    def n_leaves(self, k: int) -> int:
        return int(self.leaf_mask(k).sum())

    def cost_of(self, k: int) -> float:
        """R(T_k): the summed cost of its leaves."""
        return float(self.cost[self.leaf_mask(k)].sum())

    def predict_codes(self, X_binned, steps) -> np.ndarray:
        """Class codes (n, len(steps)) of the subtrees T_k, k in ``steps``."""
        return predict_subtrees(X_binned, self.feature, self.threshold, self.left,
                                self.prune_step, self.node_label, steps)


def grow_and_prune(ws: TreeWorkspace, X_binned, y, n_bins, n_classes: int, cost_kind: int,
                   min_samples_leaf: int = 1) -> PrunedTree:
    """Grow T_max on (X_binned, y) with unit weights in ``ws`` and compute its sequence.

    Parameters
    ----------
    ws : TreeWorkspace with ``n_classes`` channels, sized for at least these samples (its
        ``max_depth`` bounds the tree)
    X_binned : ndarray of uint8 (n, F), C-contiguous
    y : ndarray of int32 (n,), class codes in 0..n_classes-1
    n_bins : ndarray of int32 (F,)
    cost_kind : {COST_ERROR, COST_GINI}
    """
    weight = np.ones(X_binned.shape[0], WEIGHT_DTYPE)
    m = grow_tree(ws, X_binned, y, n_bins, CRITERION_GINI, weight=weight,
                  min_samples_leaf=min_samples_leaf)
    node_sum = ws.node_sum[:m]
    cost = node_costs(node_sum, m, cost_kind)
    alphas, prune_step = pruning_sequence(ws.left, ws.right, cost, m)
    depth = int(ws.node_depth[:m].max()) if m else 0
    return PrunedTree(feature=ws.feature[:m].copy(), threshold=ws.threshold[:m].copy(),
                      left=ws.left[:m].copy(), right=ws.right[:m].copy(),
                      node_label=np.argmax(node_sum, axis=1).astype(np.int32), cost=cost,
                      alphas=alphas, prune_step=prune_step, depth=depth)


def stratified_folds(y, n_folds: int, seed: int) -> np.ndarray:
    """Fold (0..n_folds-1) of every sample: each class's samples in an order drawn from
    ``seed`` (``protocol.seeding.rng_for``), dealt to the folds in turn, each class starting
    where the previous one stopped, so fold sizes differ by at most one and every fold has
    each class in proportion."""
    rng = rng_for("cart", "cv_folds", int(seed))
    fold = np.empty(y.shape[0], np.int64)
    start = 0
    for c in np.unique(y):
        members = rng.permutation(np.flatnonzero(y == c))
        fold[members] = (start + np.arange(members.shape[0])) % n_folds
        start = (start + members.shape[0]) % n_folds
    return fold


def choose_subtree(cv_errors: np.ndarray, n: int, rule: str) -> int:
    """k* from the CV error rates of T_0..T_K (Breiman, sec. 3.4.3).

    ``"min"``: the largest k (smallest tree) of least error. ``"1se"``: the largest k whose
    error is at most the least error plus its standard error sqrt(R (1 - R) / n).
    """
    best = float(np.min(cv_errors))
    if rule == "min":
        return int(np.flatnonzero(cv_errors <= best)[-1])
    se = np.sqrt(best * (1.0 - best) / n)
    return int(np.flatnonzero(cv_errors <= best + se)[-1])


@register
class CART(BaseBoosting):
    """One Gini classification tree, cost-complexity pruned at a CV-chosen level.

    Parameters
    ----------
    max_depth : int, default=64
        Depth bound of T_max (a node also stops when pure or when no split separates it).
    min_samples_leaf : int, default=1
    max_bins : int, default=255
    cv_folds : int, default=10
        V of the cross-validation (Breiman's V = 10).
    cv_rule : {"1se", "min"}, default="1se"
    prune_cost : {"error", "gini"}, default="error"
        R(t): misclassification (Breiman) or Gini impurity (scikit-learn's pruning path).
    random_state : int, default=0
        Seed of the CV folds; not a configurable parameter: ``runner.work.run_cell`` sets it
        from the cell (dataset, seed, fold, noise rate), whose key already fixes it.

    Fitted attributes (besides the base class's)
    ---------------------------------------------
    pruning_path_ : PrunedTree, T_max of the training part and its sequence
    ccp_alphas_ : ndarray (K+1,), alpha_0 = 0 < ... < alpha_K
    ccp_n_leaves_ : ndarray (K+1,), leaves of each T_k
    ccp_train_costs_ : ndarray (K+1,), R(T_k)
    cv_errors_ : ndarray (K+1,), R^cv(T_k); cv_standard_errors_ : their SE
    subtree_index_ : int, k*; ccp_alpha_ : float, alpha_k*; n_leaves_ : int
    tree_depth_ : int, depth of T_max (equal to max_depth: the bound was reached)
    best_round_ : int, 1 (the one round is the algorithm's choice)
    """

    name = "cart"
    family = "CART"
    reference = ("Breiman, Friedman, Olshen & Stone, Classification and Regression Trees, "
                 "1984 (ch. 3: cost-complexity pruning, cross-validation)")
    version = "1"
    param_specs = (CART_MAX_DEPTH, MIN_SAMPLES_LEAF, MAX_BINS, CV_FOLDS, CV_RULE, PRUNE_COST)
    test_params = {"max_depth": 8, "cv_folds": 3}
    # One tree: the fit's single round, which it ends itself.
    n_rounds = 1
    early_stopping = False

    def __init__(self, max_depth=64, min_samples_leaf=1, max_bins=255, cv_folds=10,
                 cv_rule="1se", prune_cost="error", random_state=0):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.max_bins = max_bins
        self.cv_folds = cv_folds
        self.cv_rule = cv_rule
        self.prune_cost = prune_cost
        self.random_state = random_state

    def _init_state(self, X_binned, y, n_bins, hist_width):
        if self.cv_rule not in CV_RULES:
            raise ValueError(f"cv_rule must be one of {CV_RULES}, got {self.cv_rule!r}")
        if self.prune_cost not in _PRUNE_COST:
            raise ValueError(f"prune_cost must be one of {tuple(_PRUNE_COST)}, got "
                             f"{self.prune_cost!r}")
        if int(self.cv_folds) < 2:
            raise ValueError(f"cv_folds must be at least 2, got {self.cv_folds!r}")
        n, n_features = X_binned.shape
        self._n_bins = n_bins
        # One workspace for T_max and every fold's tree (a fold has fewer samples).
        self._ws = TreeWorkspace(n, n_features, hist_width, self.n_classes_,
                                 int(self.max_depth))
        self.forest_ = Forest(LABEL_VOTE, self.n_classes_, node_capacity=2 * n)

    def _free_state(self):
        del self._ws

    def _boost(self, t, X_binned, y):
        ws, K = self._ws, self.n_classes_
        cost_kind = _PRUNE_COST[self.prune_cost]
        msl = int(self.min_samples_leaf)
        tree = grow_and_prune(ws, X_binned, y, self._n_bins, K, cost_kind, msl)
        alphas = tree.alphas
        # Breiman's representative alpha of T_k: the geometric midpoint of its interval.
        betas = np.append(np.sqrt(alphas[:-1] * alphas[1:]), np.inf)
        n = X_binned.shape[0]
        V = int(self.cv_folds)
        folds = stratified_folds(y, V, self.random_state)
        misses = np.zeros(alphas.shape[0], np.int64)
        for v in range(V):
            held = folds == v
            if not held.any():
                continue        # fewer samples than folds
            fold_tree = grow_and_prune(ws, np.ascontiguousarray(X_binned[~held]), y[~held],
                                       self._n_bins, K, cost_kind, msl)
            steps = [subtree_for_alpha(fold_tree.alphas, b) for b in betas]
            pred = fold_tree.predict_codes(np.ascontiguousarray(X_binned[held]), steps)
            misses += (pred != y[held][:, None]).sum(axis=0)
        cv_errors = misses / n
        k = choose_subtree(cv_errors, n, self.cv_rule)

        self.pruning_path_ = tree
        self.ccp_alphas_ = alphas
        self.ccp_n_leaves_ = np.array([tree.n_leaves(j) for j in range(alphas.shape[0])])
        self.ccp_train_costs_ = np.array([tree.cost_of(j) for j in range(alphas.shape[0])])
        self.cv_errors_ = cv_errors
        self.cv_standard_errors_ = np.sqrt(cv_errors * (1.0 - cv_errors) / n)
        self.subtree_index_ = k
        self.ccp_alpha_ = float(alphas[k])
        self.n_leaves_ = int(self.ccp_n_leaves_[k])
        self.tree_depth_ = tree.depth
        self.best_round_ = 1
        sub = compact_subtree(tree.feature, tree.threshold, tree.left, tree.prune_step,
                              tree.node_label, k)
        m = sub["left"].shape[0]
        self.forest_.append(SimpleNamespace(**sub), m, leaf_label=sub["leaf_label"], alpha=1.0)
        self.stop_reason_ = (f"one tree: subtree {k} of {alphas.shape[0] - 1} "
                             f"({self.n_leaves_} leaves, alpha {alphas[k]:.6g}, "
                             f"rule {self.cv_rule})")
        return RoundOutcome.STOP_AFTER
