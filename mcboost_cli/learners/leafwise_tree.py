"""Compiled best-first (leaf-wise) regression tree grower: the "8-node trees" of LogitBoost.

Friedman, Hastie & Tibshirani [1] boost regression trees with a fixed number of terminal
nodes (8 in their experiments, and in those of the coherence-function paper [2] for
MulLogitBoost, GentleBoost.E and GentleBoost.C), fitted by weighted least squares to a
working response: a leaf answers the weighted mean of the response z of its samples, and a
split's gain is the drop of ``sum_i w_i (z_i - c)^2``. The tree is grown best-first, as
LightGBM's leaf-wise growth [3] does: of all current leaves, the one whose best split lowers
the loss most is split, until the tree has ``max_leaves`` leaves or no leaf can be split
(a leaf can be split when some split leaves ``min_samples_leaf`` samples on each side and
has a positive gain).

Map of the module:

``LeafwiseWorkspace``
    every buffer one tree needs, allocated once per fit (no allocation per tree), and the
    grown tree: ``feature``, ``threshold``, ``left``, ``right`` (the node layout of
    ``tree_layout``, which the forest stores and walks), ``leaf_value`` (float per node),
    ``node_count``, ``node_sum`` (sum w, sum w z of each node), ``split_gain``.
``grow_leafwise_tree``
    the entry point: checks its inputs, fills the workspace's (w, w z) channels and calls
    the kernel ``_grow_leafwise``; returns the node count.
``predict_tree``
    the leaf value each row of a binned matrix reaches (``histogram_tree.leaf_of``, the
    forest's tree walk), for a tree in a workspace or in a forest's node arrays.

Everything per node is shared with the depth-first grower of ``histogram_tree``: the
histograms (``CRITERION_LEAST_SQUARES``: channels sum w and sum w z per (feature, bin), plus
the sample count), the sibling-subtraction trick and sparse histograms of small nodes
(``sibling_histograms``), the split scan with its tie rule (first feature, lowest threshold;
``_find_best_split``), and the node bookkeeping (``tree_layout``). This module adds the
best-first order: each leaf's best split is found once, when the leaf is made, and kept
(``split_gain``, ``best_feature``, ``best_threshold``, ``best_left``) until the leaf is
split or the tree is done; a leaf keeps its histogram slot while it may still be split.

Rules, which the naive twin ``naive_tree.grow_leafwise_tree_naive`` follows too:

- Nodes are numbered in creation order: the root is 0, the k-th split (k = 1, 2, ...) makes
  nodes 2k - 1 (left, ``bin <= threshold``) and 2k (right); the missing-value bin goes right.
- A leaf's gain is ``score(best split) - score(leaf)`` with ``score = (sum w z)^2 / sum w``
  per side (0 for a side of zero weight); the leaf is splittable when its best split scores
  above its own score by more than the tie tolerance ``_TIE_EPS * (1 + |score(leaf)|)``
  (a constant response, or zero weights, give only rounding-level gains).
- Each step splits the splittable leaf of largest gain; a later leaf wins only if its gain
  exceeds the best so far by more than ``_TIE_EPS * (1 + |best gain|)``, so ties go to the
  lowest node number.
- ``leaf_value`` of a leaf is ``sum w z / sum w`` over its samples, summed directly over
  them (not from the histograms, whose subtraction leaves rounding residue), 0 when the
  leaf's weight is zero; internal nodes hold 0.

References
----------
.. [1] Friedman, Hastie, Tibshirani. Additive logistic regression: a statistical view of
       boosting. Annals of Statistics 28(2), 337-407, 2000 (sec. 6 and the 8-terminal-node
       trees of its experiments; Algorithms 3 and 4, LogitBoost and Gentle AdaBoost, fit
       the response by weighted least squares).
.. [2] Zhang, Jordan, Li, Yeung. Coherence functions for multicategory margin-based
       classification methods. AISTATS 2009.
.. [3] Ke et al. LightGBM: a highly efficient gradient boosting decision tree. NIPS 2017
       (leaf-wise growth with ``num_leaves``; the histogram-subtraction trick).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._dtypes import HIST_DTYPE, INDEX_DTYPE, X_BINNED_DTYPE
from .histogram_tree import (
    _TIE_EPS,
    CRITERION_LEAST_SQUARES,
    allocate_sparse_histograms,
    _build_histogram,
    _find_best_split,
    _side_score,
    leaf_of,
    sibling_histograms,
)
from .tree_layout import split_node, start_tree

_N_CHANNELS = 2     # sum w, sum w z
# The histogram kernels' label and weight arguments, unused by the least-squares channels.
_DUMMY_Y = np.zeros(1, dtype=np.int32)
_DUMMY_W = np.zeros(1, dtype=HIST_DTYPE)


class LeafwiseWorkspace:
    """Every buffer one best-first regression tree needs, allocated once per fit.

    Parameters
    ----------
    n_samples, n_features : int
        Shape of the binned training matrix.
    hist_width : int
        Bins per feature in the histograms: the largest bin code + 1 (256 when the
        missing-value bin 255 occurs).
    max_leaves : int
        Leaves of a full tree (8 in [1] and [2]); at least 2.

    Attributes written by :func:`grow_leafwise_tree` (node-indexed, creation order, root 0):
    ``feature``, ``threshold``, ``left``, ``right`` (-1 for leaves), ``leaf_value``,
    ``node_count`` (samples), ``node_sum`` ((sum w, sum w z) from the split scan),
    ``split_gain`` (gain of the split a node got; of its best split, or -inf if it has none,
    for a leaf); ``n_nodes[0]`` is the node count.
    """

    def __init__(self, n_samples, n_features, hist_width, max_leaves):
        max_leaves = int(max_leaves)
        if max_leaves < 2:
            raise ValueError(f"max_leaves must be at least 2, got {max_leaves}")
        self.max_leaves = max_leaves
        self.max_nodes = max_nodes = 2 * max_leaves - 1
        # Every leaf that may still be split keeps its histogram: at most max_leaves - 1 of
        # them live at once (children of the last split are not scanned), plus the one a
        # split builds for its smaller child.
        n_slots = max_leaves
        self.hist = np.zeros((n_slots, n_features, hist_width, _N_CHANNELS), dtype=HIST_DTYPE)
        self.count = np.zeros((n_slots, n_features, hist_width), dtype=np.int64)
        self.channels = np.zeros((n_samples, _N_CHANNELS), dtype=HIST_DTYPE)
        self.sample_index = np.empty(n_samples, dtype=INDEX_DTYPE)
        self.partition_buf = np.empty(n_samples, dtype=INDEX_DTYPE)
        self.feature = np.full(max_nodes, -1, dtype=np.int32)
        self.threshold = np.zeros(max_nodes, dtype=np.int32)
        self.left = np.full(max_nodes, -1, dtype=np.int32)
        self.right = np.full(max_nodes, -1, dtype=np.int32)
        self.leaf_value = np.zeros(max_nodes, dtype=np.float64)
        self.node_sum = np.zeros((max_nodes, _N_CHANNELS), dtype=HIST_DTYPE)
        self.node_count = np.zeros(max_nodes, dtype=np.int64)
        self.split_gain = np.full(max_nodes, -np.inf, dtype=np.float64)
        # Per-node scratch: sample range, depth, histogram slot, the best split found.
        self.node_start = np.zeros(max_nodes, dtype=np.int64)
        self.node_end = np.zeros(max_nodes, dtype=np.int64)
        self.node_depth = np.zeros(max_nodes, dtype=np.int32)
        self.node_slot = np.full(max_nodes, -1, dtype=np.int32)
        self.best_feature = np.full(max_nodes, -1, dtype=np.int32)
        self.best_threshold = np.zeros(max_nodes, dtype=np.int32)
        self.best_left = np.zeros((max_nodes, _N_CHANNELS), dtype=HIST_DTYPE)
        self.stack = np.zeros(2, dtype=np.int32)   # tree_layout's stack; unused order here
        self.free_slots = np.zeros(n_slots, dtype=np.int32)
        self.scratch = np.zeros((3, _N_CHANNELS), dtype=HIST_DTYPE)
        self.n_nodes = np.zeros(1, dtype=np.int64)
        allocate_sparse_histograms(self, n_slots, n_features, hist_width)


@njit(cache=True, nogil=True)
def _fill_channels(z, w, channels):
    """channels[i] = (w_i, w_i z_i): the per-sample vector the histograms sum."""
    for i in range(z.shape[0]):
        channels[i, 0] = w[i]
        channels[i, 1] = w[i] * z[i]


@njit(cache=True, nogil=True)
def _scan_leaf(nd, hist, count, n_bins, node_sum, node_count, min_samples_leaf, slot,
               slot_sparse, support, n_support, scratch, best_feature, best_threshold,
               best_left, split_gain):
    """Find leaf nd's best split and keep it; split_gain[nd] = its gain, -inf if none."""
    split_gain[nd] = -np.inf
    if node_count[nd] < 2 * min_samples_leaf:
        return
    found, bf, bt, best = _find_best_split(
        hist[slot], count[slot], n_bins, node_sum[nd], node_count[nd], CRITERION_LEAST_SQUARES,
        min_samples_leaf, scratch[0], scratch[1], scratch[2], slot_sparse[slot], support[slot],
        n_support[slot])
    parent = _side_score(CRITERION_LEAST_SQUARES, node_sum[nd])
    if not found or not best > parent + _TIE_EPS * (1.0 + abs(parent)):
        return
    split_gain[nd] = best - parent
    best_feature[nd] = bf
    best_threshold[nd] = bt
    for c in range(_N_CHANNELS):
        best_left[nd, c] = scratch[2, c]


@njit(cache=True, nogil=True)
def _grow_leafwise(X_binned, n_rows, channels, n_bins, max_leaves, min_samples_leaf, hist,
                   count, sample_index, feature, threshold, left, right, leaf_value, node_sum,
                   node_count, split_gain, node_start, node_end, node_depth, node_slot,
                   best_feature, best_threshold, best_left, stack, free_slots, scratch,
                   n_nodes_out, partition_buf, sparse_max, slot_sparse, support, n_support,
                   mark, dummy_y, dummy_w):
    """Grow one tree on the rows ``sample_index[:n_rows]`` (set by the caller, increasing),
    or on every row when ``n_rows`` < 0.

    IN: X_binned (n, F) uint8, channels (n, 2) = (w, w z), n_bins (F,) int32. OUT: the
    workspace's node arrays (see ``LeafwiseWorkspace``), n_nodes_out[0].
    """
    n_slots = hist.shape[0]
    if n_rows < 0:
        n_rows = X_binned.shape[0]
        for i in range(n_rows):
            sample_index[i] = i
    # start_tree over zero rows: the root's layout, leaving the caller's rows in place.
    n_nodes, _ = start_tree(0, sample_index, feature, left, right, node_start, node_end,
                            node_depth, stack)
    node_end[0] = n_rows
    n_free = n_slots
    for s in range(n_slots):
        free_slots[s] = n_slots - 1 - s
        slot_sparse[s] = False
    n_free -= 1
    slot = free_slots[n_free]
    node_slot[0] = slot
    # The root is built in full (its counts too: a subset changes them from tree to tree).
    _build_histogram(X_binned, sample_index, 0, n_rows, dummy_y, dummy_w,
                     channels, CRITERION_LEAST_SQUARES, hist[slot], count[slot])
    for c in range(_N_CHANNELS):
        acc = 0.0
        for b in range(hist.shape[2]):
            acc += hist[slot, 0, b, c]
        node_sum[0, c] = acc
    node_count[0] = n_rows
    _scan_leaf(0, hist, count, n_bins, node_sum, node_count, min_samples_leaf, slot,
               slot_sparse, support, n_support, scratch, best_feature, best_threshold,
               best_left, split_gain)

    n_leaves = 1
    while n_leaves < max_leaves:
        # The splittable leaf of largest gain (ties: the lowest node number).
        nd = -1
        best_gain = -np.inf
        for cand in range(n_nodes):
            if left[cand] >= 0 or split_gain[cand] == -np.inf:
                continue
            if nd < 0 or split_gain[cand] > best_gain + _TIE_EPS * (1.0 + abs(best_gain)):
                nd = cand
                best_gain = split_gain[cand]
        if nd < 0:
            break
        slot = node_slot[nd]
        lc, rc, mid, n_nodes, _ = split_node(
            X_binned, nd, best_feature[nd], best_threshold[nd], n_nodes, 0, sample_index,
            partition_buf, feature, threshold, left, right, node_start, node_end, node_depth,
            stack)
        n_leaves += 1
        node_count[lc] = mid - node_start[nd]
        node_count[rc] = node_end[nd] - mid
        for c in range(_N_CHANNELS):
            node_sum[lc, c] = best_left[nd, c]
            node_sum[rc, c] = node_sum[nd, c] - best_left[nd, c]
        split_gain[lc] = -np.inf
        split_gain[rc] = -np.inf
        node_slot[lc] = -1
        node_slot[rc] = -1
        node_slot[nd] = -1
        if n_leaves == max_leaves:
            break     # the children will not be split: no histograms, no scans
        small, large = (lc, rc) if node_count[lc] <= node_count[rc] else (rc, lc)
        n_free -= 1
        s_small = free_slots[n_free]
        sibling_histograms(X_binned, sample_index, node_start[small], node_end[small],
                           dummy_y, dummy_w, channels, CRITERION_LEAST_SQUARES,
                           hist, count, slot, s_small, sparse_max, slot_sparse, support,
                           n_support, mark)
        node_slot[small] = s_small
        node_slot[large] = slot
        for child in (lc, rc):
            _scan_leaf(child, hist, count, n_bins, node_sum, node_count, min_samples_leaf,
                       node_slot[child], slot_sparse, support, n_support, scratch,
                       best_feature, best_threshold, best_left, split_gain)
            if split_gain[child] == -np.inf:
                # Never split: its histogram slot is free again.
                free_slots[n_free] = node_slot[child]
                n_free += 1
                node_slot[child] = -1

    # Leaf values from the samples themselves (histogram subtraction leaves residue).
    for nd in range(n_nodes):
        leaf_value[nd] = 0.0
        if left[nd] >= 0:
            continue
        sw = 0.0
        swz = 0.0
        for p in range(node_start[nd], node_end[nd]):
            i = sample_index[p]
            sw += channels[i, 0]
            swz += channels[i, 1]
        leaf_value[nd] = swz / sw if sw > 0.0 else 0.0
    n_nodes_out[0] = n_nodes


def grow_leafwise_tree(ws: LeafwiseWorkspace, X_binned, n_bins, z, w, *, min_samples_leaf=1,
                       sample_subset=None):
    """Grow one best-first weighted least-squares tree into ``ws``; returns its node count.

    Parameters
    ----------
    ws : LeafwiseWorkspace
        Sized for ``X_binned`` and the tree's ``max_leaves``.
    X_binned : ndarray of uint8, shape (n_samples, n_features), C-contiguous
    n_bins : ndarray of int32, shape (n_features,)
        Value bins of each feature (thresholds range over 0..n_bins-2; the missing-value bin
        always goes right).
    z : ndarray of float64, shape (n_samples,)
        The working response.
    w : ndarray of float64, shape (n_samples,)
        Sample weights, >= 0 (a zero-weight sample counts towards ``min_samples_leaf`` only).
    min_samples_leaf : int, default 1
        Fewest samples on each side of a split.
    sample_subset : ndarray of int, optional
        Rows to grow the tree on, strictly increasing (e.g. FHT's weight trimming); all rows
        by default.

    Returns
    -------
    int
        Number of nodes (``2 * leaves - 1``); the tree is ``ws.feature[:n]`` etc.
    """
    n, n_features = X_binned.shape
    if (X_binned.dtype != X_BINNED_DTYPE or not X_binned.flags.c_contiguous
            or ws.channels.shape[0] != n or ws.hist.shape[1] != n_features):
        raise ValueError("X_binned must be C-contiguous uint8 of the workspace's shape "
                         f"({ws.channels.shape[0]}, {ws.hist.shape[1]}), got {X_binned.dtype} "
                         f"{X_binned.shape}")
    z = np.ascontiguousarray(z, dtype=np.float64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    if z.shape != (n,) or w.shape != (n,):
        raise ValueError(f"z and w must have shape ({n},), got {z.shape} and {w.shape}")
    if not (np.all(w >= 0.0) and np.all(np.isfinite(w)) and np.all(np.isfinite(z))):
        raise ValueError("w must be finite and >= 0, z finite")
    if int(min_samples_leaf) < 1:
        raise ValueError(f"min_samples_leaf must be at least 1, got {min_samples_leaf}")
    if sample_subset is None:
        n_rows = -1           # every row, numbered by the kernel
    else:
        rows = np.asarray(sample_subset)
        if (rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer)
                or (rows.size and (rows[0] < 0 or rows[-1] >= n))
                or np.any(np.diff(rows) <= 0)):
            raise ValueError(f"sample_subset must be strictly increasing row numbers in "
                             f"0..{n - 1}")
        n_rows = rows.size
        ws.sample_index[:n_rows] = rows
    _fill_channels(z, w, ws.channels)
    _grow_leafwise(X_binned, n_rows, ws.channels, np.asarray(n_bins, dtype=np.int32),
                   ws.max_leaves, int(min_samples_leaf), ws.hist, ws.count, ws.sample_index,
                   ws.feature, ws.threshold, ws.left, ws.right, ws.leaf_value, ws.node_sum,
                   ws.node_count, ws.split_gain, ws.node_start, ws.node_end, ws.node_depth,
                   ws.node_slot, ws.best_feature, ws.best_threshold, ws.best_left, ws.stack,
                   ws.free_slots, ws.scratch, ws.n_nodes, ws.partition_buf, ws.sparse_max,
                   ws.slot_sparse, ws.support, ws.n_support, ws.mark, _DUMMY_Y, _DUMMY_W)
    return int(ws.n_nodes[0])


@njit(cache=True, nogil=True)
def predict_tree(X_binned, feature, threshold, left, leaf_value, offset, out):
    """out[i] = the value of the leaf row i reaches, for the tree rooted at ``offset``.

    IN: node arrays of a workspace (offset 0) or of a forest (its ``tree_offset[t]``),
    ``leaf_value`` indexed like them. OUT: out (n,) float64.
    """
    for i in range(X_binned.shape[0]):
        out[i] = leaf_value[offset + leaf_of(X_binned, i, feature, threshold, left, offset)]
