"""Minimal cost-complexity pruning of a grown tree (Breiman et al. 1984, ch. 3 and 10).

A tree T_max grown by a grower (``histogram_tree``: node arrays in ``tree_layout``'s layout,
children numbered after their parent) is pruned along the weakest-link sequence

    T_0 ⊃ T_1 ⊃ ... ⊃ T_K = {root},   0 = alpha_0 < alpha_1 < ... < alpha_K,

where T_k is the smallest subtree minimising R_alpha(T) = R(T) + alpha |leaves(T)| for alpha in
[alpha_k, alpha_{k+1}) (Breiman, sec. 3.3 and Theorem 10.7). R(T) is the sum over the leaves of
a node cost R(t): its weighted misclassification as a leaf (``COST_ERROR``, Breiman's R(t) of
ch. 3) or its weighted Gini impurity (``COST_GINI``, what scikit-learn's
``cost_complexity_pruning_path`` uses), both divided by the root's weight. T_0 is the smallest
subtree with R(T_0) = R(T_max) (Breiman's T_1): every branch whose leaves cost as much as the
node alone is pruned first, with alpha 0. Then, with

    g_k(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)      (internal nodes t of T_k),

alpha_{k+1} = min_t g_k(t), and T_{k+1} is T_k with *every* branch attaining the minimum
pruned at once (Breiman's "weakest links"). scikit-learn prunes one branch per step instead, so
where several branches tie its path repeats an alpha; the distinct alphas and the subtrees at
the end of each run of equal ones are these.

The whole sequence is stored in one array: ``prune_step[t]`` is the first k at which node t is
not an internal node of T_k (0 for the leaves of T_max). Node t is internal in T_k iff
``prune_step[t] > k``, and a leaf of T_k iff it is not, while its parent is (or it is the
root). Since a branch goes with its root, ``prune_step`` never increases from parent to child.

Map of the module
-----------------
``node_costs``          R(t) of every node from its class weights (``COST_ERROR``/``COST_GINI``)
``pruning_sequence``    the alphas and ``prune_step`` of a grown tree (``_weakest_links``)
``subtree_for_alpha``   the index k of the subtree that alpha selects
``predict_subtrees``    each sample's class under several subtrees T_k at once (CV)
``compact_subtree``     T_k as fresh node arrays in the growers' layout (for a ``Forest``)

References
----------
.. [1] Breiman, Friedman, Olshen, Stone. Classification and Regression Trees. Wadsworth, 1984:
       sec. 3.3 (minimal cost-complexity pruning), 3.4 (cross-validation, the 1 SE rule),
       10.2 (the weakest-link algorithm and its optimality).
"""

from __future__ import annotations

import numpy as np
from numba import njit

COST_ERROR = 0
COST_GINI = 1

# Two values of g(t) within this distance (relative, plus an absolute floor for alpha 0) are one
# weakest link: with unit weights and COST_ERROR, g is a ratio of integers (counts up to 1e6
# over leaf counts, divided by n), and distinct ones differ by far more; with COST_GINI it
# absorbs the rounding of the impurities' sums (costs are fractions of the root's weight).
_TIE_REL = 1e-10
_TIE_ABS = 1e-14


def node_costs(node_sum: np.ndarray, n_nodes: int, kind: int) -> np.ndarray:
    """R(t) of the first ``n_nodes`` nodes, divided by the root's weight.

    Parameters
    ----------
    node_sum : ndarray (n_nodes_capacity, K), the class weights of every node
    n_nodes : int
    kind : {COST_ERROR, COST_GINI}
        ``COST_ERROR``: W(t) - max_k W_k(t), the weight a majority label misclassifies.
        ``COST_GINI``: W(t) (1 - sum_k (W_k(t) / W(t))^2), scikit-learn's node impurity times
        the node's weight.
    """
    s = np.asarray(node_sum[:n_nodes], dtype=np.float64)
    w = s.sum(axis=1)
    total = w[0]
    if kind == COST_ERROR:
        return (w - s.max(axis=1)) / total
    if kind == COST_GINI:
        safe = np.where(w > 0.0, w, 1.0)
        return w * (1.0 - ((s / safe[:, None]) ** 2).sum(axis=1)) / total
    raise ValueError(f"unknown node cost kind {kind}")


@njit(cache=True, nogil=True)
def _weakest_links(left, right, cost, n_nodes, prune_step, alphas):
    """The weakest-link sequence (module docstring); returns K, the index of the root's step.

    IN: left, right (nodes,) int32 (-1 at leaves; children numbered after their parent), cost
    (nodes,) float64 = R(t). OUT: prune_step (nodes,) int64, alphas (>= n_nodes,) float64,
    the first K + 1 entries written.
    """
    parent = np.full(n_nodes, -1, np.int64)
    for t in range(n_nodes):
        if left[t] >= 0:
            parent[left[t]] = t
            parent[right[t]] = t
    big = np.iinfo(np.int64).max
    for t in range(n_nodes):
        prune_step[t] = big if left[t] >= 0 else 0
    n_leaves = np.zeros(n_nodes, np.int64)
    branch = np.zeros(n_nodes, np.float64)
    g = np.zeros(n_nodes, np.float64)
    k = 0
    alphas[0] = 0.0
    while prune_step[0] > k:
        # R(T_t) and |leaves(T_t)| of the current subtree, children before parents (reverse
        # creation order); a node is current iff its parent is internal in T_k.
        for t in range(n_nodes - 1, -1, -1):
            if prune_step[t] > k:
                n_leaves[t] = n_leaves[left[t]] + n_leaves[right[t]]
                branch[t] = branch[left[t]] + branch[right[t]]
            else:
                n_leaves[t] = 1
                branch[t] = cost[t]
        g_min = np.inf
        for t in range(n_nodes):
            if prune_step[t] > k:
                # R(t) >= R(T_t) in exact arithmetic; rounding (Gini) must not make it < 0.
                g[t] = max((cost[t] - branch[t]) / (n_leaves[t] - 1), 0.0)
                if g[t] < g_min:
                    g_min = g[t]
        if g_min > alphas[k] * (1.0 + _TIE_REL) + _TIE_ABS:
            # A new subtree; at k = 0 (alpha 0) the branches of zero gain are pruned into
            # T_0 itself, Breiman's T_1 = the smallest subtree as good as T_max. An ancestor
            # whose g equalled alpha_k before its branch was cut still equals it after (up to
            # rounding): it joins T_k's pruning instead of opening a step.
            k += 1
            alphas[k] = g_min
        cut = alphas[k] * (1.0 + _TIE_REL) + _TIE_ABS
        for t in range(n_nodes):
            # Parents come first: a pruned node's descendants are marked when reached.
            if prune_step[t] > k and (g[t] <= cut
                                      or (parent[t] >= 0 and prune_step[parent[t]] <= k)):
                prune_step[t] = k
    return k


def pruning_sequence(left, right, cost, n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """(alphas (K+1,), prune_step (n_nodes,)) of a grown tree (module docstring).

    Parameters
    ----------
    left, right : ndarray of int32, the grower's child arrays (-1 at leaves)
    cost : ndarray (n_nodes,), R(t) of every node (``node_costs``)
    n_nodes : int
    """
    prune_step = np.empty(n_nodes, np.int64)
    alphas = np.empty(max(n_nodes, 1), np.float64)
    last = _weakest_links(np.ascontiguousarray(left[:n_nodes]),
                          np.ascontiguousarray(right[:n_nodes]),
                          np.ascontiguousarray(cost, dtype=np.float64), n_nodes, prune_step,
                          alphas)
    return alphas[:last + 1].copy(), prune_step


def subtree_for_alpha(alphas: np.ndarray, alpha: float) -> int:
    """Index k of the subtree minimising R_alpha: the largest k with alphas[k] <= alpha."""
    return int(np.searchsorted(alphas, alpha, side="right")) - 1


@njit(cache=True, nogil=True)
def _predict_subtrees(X_binned, feature, threshold, left, prune_step, node_label, steps, out):
    """out[i, j] = the label of the leaf of T_{steps[j]} that sample i reaches.

    One walk per sample down T_max: the leaf of T_k on the path is its first node with
    prune_step <= k (prune_step never increases along a path).
    """
    n_steps = steps.shape[0]
    for i in range(X_binned.shape[0]):
        for j in range(n_steps):
            k = steps[j]
            node = 0
            while prune_step[node] > k:
                node = left[node] + (X_binned[i, feature[node]] > threshold[node])
            out[i, j] = node_label[node]


def predict_subtrees(X_binned, feature, threshold, left, prune_step, node_label,
                     steps) -> np.ndarray:
    """Class codes (n, len(steps)) of the subtrees T_k, k in ``steps``, of one grown tree."""
    steps = np.asarray(steps, dtype=np.int64)
    out = np.empty((X_binned.shape[0], steps.shape[0]), np.int32)
    _predict_subtrees(X_binned, feature, threshold, left, prune_step, node_label, steps, out)
    return out


def compact_subtree(feature, threshold, left, prune_step, node_label, k: int) -> dict:
    """T_k as fresh node arrays in the growers' layout: root 0, children consecutive
    (right = left + 1) and numbered after their parent, leaves with feature = left = right = -1.

    Returns a dict of ``feature``, ``threshold``, ``left``, ``right``, ``leaf_label`` (int32
    arrays of its nodes) and ``old`` (each new node's index in T_max).
    """
    old = [0]
    new_left = [-1]
    q = 0
    while q < len(old):
        t = old[q]
        if prune_step[t] > k:
            new_left[q] = len(old)
            old.extend((int(left[t]), int(left[t]) + 1))
            new_left.extend((-1, -1))
        q += 1
    old = np.asarray(old, np.int64)
    new_left = np.asarray(new_left, np.int32)
    internal = new_left >= 0
    return {
        "feature": np.where(internal, feature[old], -1).astype(np.int32),
        "threshold": np.where(internal, threshold[old], 0).astype(np.int32),
        "left": new_left,
        "right": np.where(internal, new_left + 1, -1).astype(np.int32),
        "leaf_label": node_label[old].astype(np.int32),
        "old": old,
    }
