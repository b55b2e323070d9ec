"""Naive, obviously correct twin of ``histogram_tree`` — used only by the tests.

It recomputes every candidate split's channel sums from scratch with numpy (no histograms, no
subtraction, no partition buffer) and follows the same rules: depth-first node numbering (left
subtree before right), thresholds over bins 0..n_bins-2 skipping empty bins, first feature and
lowest threshold on ties, purity leaves for Gini and the weighted error, and no-improvement
leaves for every criterion but Gini (the weighted error, Hamming and the dense
``MAX_CHANNEL`` / ``ABS_SUM`` / ``LEAST_SQUARES`` criteria).

``grow_leafwise_tree_naive`` and ``grow_leafwise_hamming_tree_naive`` are the twins of
``leafwise_tree``'s best-first regression tree and multi-class Hamming tree: at every step
they try every leaf x feature x threshold from scratch and split the leaf of largest gain,
with that module's rules (creation-order numbering, tie tolerances, a leaf splittable only
when its best split beats its own score, zero-weight sides scoring 0); the growth loop is
``_grow_best_first``, the two differ in the scores they hand it.
"""

from __future__ import annotations

import numpy as np

from .histogram_tree import (
    _TIE_EPS,
    _ZERO_REL,
    CRITERION_ABS_SUM,
    CRITERION_ERROR,
    CRITERION_GINI,
    CRITERION_HAMMING,
    CRITERION_LEAST_SQUARES,
    CRITERION_MAX_CHANNEL,
)


def _channel_sums(idx, y, weight, weight_matrix, criterion, n_classes):
    if criterion in (CRITERION_MAX_CHANNEL, CRITERION_ABS_SUM, CRITERION_LEAST_SQUARES):
        return weight_matrix[idx].sum(axis=0)     # weight_matrix = channel values G
    if criterion in (CRITERION_GINI, CRITERION_ERROR):
        return np.bincount(y[idx], weights=weight[idx], minlength=n_classes).astype(float)
    total = weight_matrix[idx].sum(axis=0)
    pos = np.bincount(y[idx], weights=weight_matrix[idx, y[idx]], minlength=n_classes)
    return np.concatenate([total, pos])


def _score(criterion, s):
    if criterion == CRITERION_GINI:
        tot = s.sum()
        return 0.0 if tot <= 0 else float((s ** 2).sum() / tot)
    if criterion in (CRITERION_MAX_CHANNEL, CRITERION_ERROR):
        # ERROR: the weight the side's majority label gets right (its error is total - this).
        return float(s.max())
    if criterion == CRITERION_ABS_SUM:
        return float(abs(s[0]))
    if criterion == CRITERION_LEAST_SQUARES:
        return _least_squares_score(s[0], s[1])
    k = s.size // 2
    pos = s[k:]
    neg = s[:k] - pos
    tiny = _ZERO_REL * s[:k]
    ok = (pos > tiny) & (neg > tiny)
    return -float(np.sqrt(pos[ok] * neg[ok]).sum())


def _candidate_splits(X_binned, idx, n_bins, min_samples_leaf):
    """Every split of the rows idx both growers may make, in scan order (feature, then
    threshold): (f, t, go_left) for thresholds over bins 0..n_bins-2 at occupied bins, with
    at least ``min_samples_leaf`` rows on each side."""
    for f in range(X_binned.shape[1]):
        col = X_binned[idx, f]
        for t in range(int(n_bins[f]) - 1):
            if not np.any(col == t):
                continue
            go_left = col <= t
            nl = int(go_left.sum())
            if nl < min_samples_leaf or idx.size - nl < min_samples_leaf:
                continue
            yield f, t, go_left


def grow_tree_naive(X_binned, y, n_bins, criterion, n_classes, max_depth, *, weight=None,
                    weight_matrix=None, channel_values=None, min_samples_leaf=1):
    """Return a dict of node lists: feature, threshold, left, right, node_sum, node_count.

    ``channel_values`` (n, C) is the per-sample vector G of the dense criteria.
    """
    if criterion in (CRITERION_MAX_CHANNEL, CRITERION_ABS_SUM, CRITERION_LEAST_SQUARES):
        weight_matrix = np.asarray(channel_values, dtype=float)
    nodes = {"feature": [], "threshold": [], "left": [], "right": [], "node_sum": [],
             "node_count": []}

    def new_node(idx):
        nodes["feature"].append(-1)
        nodes["threshold"].append(0)
        nodes["left"].append(-1)
        nodes["right"].append(-1)
        nodes["node_sum"].append(_channel_sums(idx, y, weight, weight_matrix, criterion,
                                               n_classes))
        nodes["node_count"].append(idx.size)
        return len(nodes["feature"]) - 1

    def split(nd, idx, depth):
        s = nodes["node_sum"][nd]
        if depth >= max_depth or idx.size < 2 * min_samples_leaf:
            return
        if (criterion in (CRITERION_GINI, CRITERION_ERROR)
                and (s.sum() <= 0 or s.max() >= s.sum() * (1 - 1e-12))):
            return
        best = -np.inf
        best_f = best_t = -1
        for f, t, go_left in _candidate_splits(X_binned, idx, n_bins, min_samples_leaf):
            sl = _channel_sums(idx[go_left], y, weight, weight_matrix, criterion, n_classes)
            sr = _channel_sums(idx[~go_left], y, weight, weight_matrix, criterion, n_classes)
            score = _score(criterion, sl) + _score(criterion, sr)
            if best_f < 0 or score > best + _TIE_EPS * (1.0 + abs(best)):
                best, best_f, best_t = score, f, t
        if best_f < 0:
            return
        if criterion != CRITERION_GINI:
            parent = _score(criterion, s)
            if not best > parent + _TIE_EPS * (1.0 + abs(parent)):
                return
        go_left = X_binned[idx, best_f] <= best_t
        nodes["feature"][nd] = best_f
        nodes["threshold"][nd] = best_t
        lc = new_node(idx[go_left])
        rc = new_node(idx[~go_left])
        nodes["left"][nd] = lc
        nodes["right"][nd] = rc
        split(lc, idx[go_left], depth + 1)
        split(rc, idx[~go_left], depth + 1)

    root_idx = np.arange(X_binned.shape[0])
    root = new_node(root_idx)
    split(root, root_idx, 0)
    return {k: np.asarray(v) for k, v in nodes.items()}


def _least_squares_score(sum_w, sum_wz):
    """(sum w z)^2 / sum w: the loss drop of answering the weighted mean (0 without weight)."""
    return 0.0 if sum_w <= 0 else float(sum_wz * sum_wz / sum_w)


def _best_leaf_split(X_binned, idx, n_bins, min_samples_leaf, leaf_score, split_score):
    """(gain, feature, threshold) of the best split of the leaf holding rows idx, or None.

    ``leaf_score(idx)`` is the leaf's own score, ``split_score(idx, go_left)`` a split's (the
    sum over its two sides); a split counts only if it beats the leaf by the tie tolerance.
    """
    parent = leaf_score(idx)
    if idx.size < 2 * min_samples_leaf:
        return None
    best = -np.inf
    best_f = best_t = -1
    for f, t, go_left in _candidate_splits(X_binned, idx, n_bins, min_samples_leaf):
        score = split_score(idx, go_left)
        if best_f < 0 or score > best + _TIE_EPS * (1.0 + abs(best)):
            best, best_f, best_t = score, f, t
    if best_f < 0 or not best > parent + _TIE_EPS * (1.0 + abs(parent)):
        return None
    return best - parent, best_f, best_t


def _grow_best_first(X_binned, n_bins, rows, max_leaves, min_samples_leaf, leaf_score,
                     split_score):
    """The best-first growth both leaf-wise twins share: at every step every leaf's best
    split is searched from scratch, and the leaf of largest gain is split (ties: the lowest
    node number). Returns the node lists feature, threshold, left, right, split_gain and
    each node's rows (``members``)."""
    members = [rows]
    feature, threshold, left, right, gain = [-1], [0], [-1], [-1], [-np.inf]
    n_leaves = 1
    while n_leaves < max_leaves:
        chosen = None
        for nd in range(len(members)):
            if left[nd] >= 0:
                continue
            found = _best_leaf_split(X_binned, members[nd], n_bins, min_samples_leaf,
                                     leaf_score, split_score)
            if found is None:
                continue
            if chosen is None or found[0] > chosen[1][0] + _TIE_EPS * (1.0 + abs(chosen[1][0])):
                chosen = (nd, found)
        if chosen is None:
            break
        nd, (g, f, t) = chosen
        idx = members[nd]
        go_left = X_binned[idx, f] <= t
        feature[nd], threshold[nd], gain[nd] = f, t, g
        left[nd], right[nd] = len(members), len(members) + 1
        members += [idx[go_left], idx[~go_left]]
        feature += [-1, -1]
        threshold += [0, 0]
        left += [-1, -1]
        right += [-1, -1]
        gain += [-np.inf, -np.inf]
        n_leaves += 1
    return feature, threshold, left, right, gain, members


def grow_leafwise_tree_naive(X_binned, n_bins, z, w, max_leaves, *, min_samples_leaf=1,
                             sample_subset=None):
    """Return a dict of node arrays: feature, threshold, left, right, leaf_value (0 for
    internal nodes), node_count, split_gain (the gain of each internal node's split, -inf
    for leaves)."""
    z = np.asarray(z, dtype=float)
    w = np.asarray(w, dtype=float)
    rows = (np.arange(X_binned.shape[0]) if sample_subset is None
            else np.asarray(sample_subset))

    def leaf_score(idx):
        return _least_squares_score(w[idx].sum(), (w[idx] * z[idx]).sum())

    def split_score(idx, go_left):
        # A side whose weight is rounding-level against its node's scores 0 (the fast scan
        # meets such sides as residue of the histogram subtraction).
        tiny = _ZERO_REL * w[idx].sum()
        score = 0.0
        for side in (idx[go_left], idx[~go_left]):
            side_w = w[side].sum()
            if side_w > tiny:
                score += _least_squares_score(side_w, (w[side] * z[side]).sum())
        return score

    feature, threshold, left, right, gain, members = _grow_best_first(
        X_binned, n_bins, rows, max_leaves, min_samples_leaf, leaf_score, split_score)
    leaf_value = []
    for nd, idx in enumerate(members):
        sum_w = w[idx].sum()
        is_leaf = left[nd] < 0
        leaf_value.append((w[idx] * z[idx]).sum() / sum_w if is_leaf and sum_w > 0 else 0.0)
    return {"feature": np.asarray(feature), "threshold": np.asarray(threshold),
            "left": np.asarray(left), "right": np.asarray(right),
            "leaf_value": np.asarray(leaf_value, dtype=float),
            "node_count": np.asarray([m.size for m in members]),
            "split_gain": np.asarray(gain, dtype=float)}


def grow_leafwise_hamming_tree_naive(X_binned, n_bins, y, D, max_leaves, *,
                                     min_samples_leaf=1):
    """The best-first multi-class Hamming tree (``leafwise_tree.grow_leafwise_hamming_tree``)
    from scratch. Returns a dict of node arrays: feature, threshold, left, right, node_count,
    node_sum (n_nodes, 2K: label l's total weight D in column l, its W+ in column K + l,
    summed over the node's rows), split_gain (as ``grow_leafwise_tree_naive``'s) and
    members (each node's rows, increasing)."""
    y = np.asarray(y)
    D = np.asarray(D, dtype=float)
    K = D.shape[1]

    def sums(idx):
        return _channel_sums(idx, y, None, D, CRITERION_HAMMING, K)

    def leaf_score(idx):
        return _score(CRITERION_HAMMING, sums(idx))

    def split_score(idx, go_left):
        return leaf_score(idx[go_left]) + leaf_score(idx[~go_left])

    feature, threshold, left, right, gain, members = _grow_best_first(
        X_binned, n_bins, np.arange(X_binned.shape[0]), max_leaves, min_samples_leaf,
        leaf_score, split_score)
    return {"feature": np.asarray(feature), "threshold": np.asarray(threshold),
            "left": np.asarray(left), "right": np.asarray(right),
            "node_count": np.asarray([m.size for m in members]),
            "node_sum": np.asarray([sums(m) for m in members], dtype=float).reshape(-1, 2 * K),
            "split_gain": np.asarray(gain, dtype=float), "members": members}
