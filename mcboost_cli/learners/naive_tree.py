"""Naive, obviously correct twin of ``histogram_tree`` — used only by the tests.

It recomputes every candidate split's channel sums from scratch with numpy (no histograms, no
subtraction, no partition buffer) and follows the same rules: depth-first node numbering (left
subtree before right), thresholds over bins 0..n_bins-2 skipping empty bins, first feature and
lowest threshold on ties, purity leaves for Gini and the weighted error, and no-improvement
leaves for every criterion but Gini (the weighted error, Hamming and the dense
``MAX_CHANNEL`` / ``ABS_SUM`` criteria).
"""

from __future__ import annotations

import numpy as np

from .histogram_tree import (
    _TIE_EPS,
    _ZERO_REL,
    CRITERION_ABS_SUM,
    CRITERION_ERROR,
    CRITERION_GINI,
    CRITERION_MAX_CHANNEL,
)


def _channel_sums(idx, y, weight, weight_matrix, criterion, n_classes):
    if criterion in (CRITERION_MAX_CHANNEL, CRITERION_ABS_SUM):
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
    k = s.size // 2
    pos = s[k:]
    neg = s[:k] - pos
    tiny = _ZERO_REL * s[:k]
    ok = (pos > tiny) & (neg > tiny)
    return -float(np.sqrt(pos[ok] * neg[ok]).sum())


def grow_tree_naive(X_binned, y, n_bins, criterion, n_classes, max_depth, *, weight=None,
                    weight_matrix=None, channel_values=None, min_samples_leaf=1):
    """Return a dict of node lists: feature, threshold, left, right, node_sum, node_count.

    ``channel_values`` (n, C) is the per-sample vector G of the dense criteria.
    """
    if criterion in (CRITERION_MAX_CHANNEL, CRITERION_ABS_SUM):
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
        for f in range(X_binned.shape[1]):
            col = X_binned[idx, f]
            for t in range(int(n_bins[f]) - 1):
                if not np.any(col == t):
                    continue
                go_left = col <= t
                nl = int(go_left.sum())
                if nl < min_samples_leaf or idx.size - nl < min_samples_leaf:
                    continue
                sl = _channel_sums(idx[go_left], y, weight, weight_matrix, criterion, n_classes)
                sr = _channel_sums(idx[~go_left], y, weight, weight_matrix, criterion,
                                   n_classes)
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
