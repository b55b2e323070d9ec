"""Compiled best-first (leaf-wise) tree grower: the "8-node trees" of LogitBoost.

Friedman, Hastie & Tibshirani [1] boost regression trees with a fixed number of terminal
nodes (8 in their experiments, and in those of the coherence-function paper [2] for
MulLogitBoost, GentleBoost.E and GentleBoost.C), fitted by weighted least squares to a
working response: a leaf answers the weighted mean of the response z of its samples, and a
split's gain is the drop of ``sum_i w_i (z_i - c)^2``. The tree is grown best-first, as
LightGBM's leaf-wise growth [3] does: of all current leaves, the one whose best split lowers
the loss most is split, until the tree has ``max_leaves`` leaves or no leaf can be split
(a leaf can be split when some split leaves ``min_samples_leaf`` samples on each side and
has a positive gain).

The same kernel grows the multi-class Hamming trees of Real AdaBoost.MH with a fixed number
of leaves (the "eight-node classification trees" of [2], sec. 5; ALGORITHMS.md): the
criterion is then ``CRITERION_HAMMING``, whose split score is ``-Z`` of Schapire & Singer
[4], on 2K histogram channels of the pair weights D (n, K); a leaf's gain is the drop of Z
its best split gives.

Map of the module:

``LeafwiseWorkspace``
    every buffer one tree needs, allocated once per fit (no allocation per tree), sized for
    the criterion's channel count (2 for least squares, 2K for Hamming), and the grown tree:
    ``feature``, ``threshold``, ``left``, ``right`` (the node layout of ``tree_layout``,
    which the forest stores and walks), ``leaf_value`` (least squares), ``node_count``,
    ``node_sum`` (the node's channel sums), ``split_gain``, and each leaf's rows
    (``sample_index[node_start:node_end]``).
``grow_leafwise_tree``
    the least-squares entry point: checks its inputs, fills the workspace's (w, w z)
    channels and calls the kernel ``_grow_leafwise``; returns the node count.
``grow_leafwise_hamming_tree``
    the Hamming entry point: checks y and D and calls the same kernel with D as the weight
    matrix; the caller computes the leaves' K values from ``node_sum``.
``_grow_leafwise``, ``_scan_leaf``
    the compiled best-first growth and the scan that finds and keeps a new leaf's best
    split, for either criterion (the channel count is the histogram's last axis).
``predict_tree``
    the leaf value each row of a binned matrix reaches (``histogram_tree.leaf_of``, the
    forest's tree walk), for a tree in a workspace or in a forest's node arrays.

Everything per node is shared with the depth-first grower of ``histogram_tree``: the
histograms (``CRITERION_LEAST_SQUARES``: channels sum w and sum w z per (feature, bin), plus
the sample count; ``CRITERION_HAMMING``: label l's total weight and its W+ part), the
sibling-subtraction trick and sparse histograms of small nodes (``sibling_histograms``),
the split scan with its tie rule (first feature, lowest threshold;
``_find_best_split``), and the node bookkeeping (``tree_layout``). This module adds the
best-first order: each leaf's best split is found once, when the leaf is made, and kept
(``split_gain``, ``best_feature``, ``best_threshold``, ``best_left``) until the leaf is
split or the tree is done; a leaf keeps its histogram slot while it may still be split.

Rules, which the naive twins ``naive_tree.grow_leafwise_tree_naive`` and
``naive_tree.grow_leafwise_hamming_tree_naive`` follow too:

- Nodes are numbered in creation order: the root is 0, the k-th split (k = 1, 2, ...) makes
  nodes 2k - 1 (left, ``bin <= threshold``) and 2k (right); the missing-value bin goes right.
- A leaf's gain is ``score(best split) - score(leaf)`` with ``score = (sum w z)^2 / sum w``
  per side (0 for a side of zero weight) for least squares, ``score = -2 sum_l
  sqrt(W+_l W-_l)`` per side for Hamming (``histogram_tree._side_score``); the leaf is
  splittable when its best split scores above its own score by more than the tie
  tolerance ``_TIE_EPS * (1 + |score(leaf)|)`` (a constant response, or zero weights, give
  only rounding-level gains).
- Each step splits the splittable leaf of largest gain; a later leaf wins only if its gain
  exceeds the best so far by more than ``_TIE_EPS * (1 + |best gain|)``, so ties go to the
  lowest node number.
- (Least squares) ``leaf_value`` of a leaf is ``sum w z / sum w`` over its samples, summed
  directly over them (not from the histograms, whose subtraction leaves rounding residue),
  0 when the leaf's weight is zero; internal nodes hold 0.

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
.. [4] Schapire, Singer. Improved boosting algorithms using confidence-rated predictions.
       Machine Learning 37(3), 297-336, 1999 (sec. 4: Z of a partition; AdaBoost.MH).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._dtypes import HIST_DTYPE, INDEX_DTYPE, X_BINNED_DTYPE
from .histogram_tree import (
    _TIE_EPS,
    CRITERION_HAMMING,
    CRITERION_LEAST_SQUARES,
    allocate_sparse_histograms,
    _build_histogram,
    _find_best_split,
    _side_score,
    leaf_of,
    sibling_histograms,
)
from .tree_layout import split_node, start_tree

_LEAST_SQUARES_CHANNELS = 2     # sum w, sum w z (``histogram_tree.n_channels``)
# The histogram kernels' label argument, unused by the least-squares channels, and their
# per-sample weight vector, unused by both criteria here (Gini's and the error's).
_DUMMY_Y = np.zeros(1, dtype=np.int32)
_DUMMY_W = np.zeros(1, dtype=HIST_DTYPE)


class LeafwiseWorkspace:
    """Every buffer one best-first tree needs, allocated once per fit.

    Parameters
    ----------
    n_samples, n_features : int
        Shape of the binned training matrix.
    hist_width : int
        Bins per feature in the histograms: the largest bin code + 1 (256 when the
        missing-value bin 255 occurs).
    max_leaves : int
        Leaves of a full tree (8 in [1] and [2]); at least 2.
    n_channels : int, default 2
        Histogram channels of the criterion: 2 for least squares (sum w, sum w z), 2K for
        the Hamming trees of K labels (``histogram_tree.n_channels``).

    Attributes written by the growers (node-indexed, creation order, root 0):
    ``feature``, ``threshold``, ``left``, ``right`` (-1 for leaves), ``leaf_value``
    (least squares only), ``node_count`` (samples), ``node_sum`` (the node's channel sums
    from the split scan), ``split_gain`` (gain of the split a node got; of its best split,
    or -inf if it has none, for a leaf), ``node_start`` / ``node_end`` (leaf nd holds the rows
    ``sample_index[node_start[nd]:node_end[nd]]``); ``n_nodes[0]`` is the node count.
    """

    def __init__(self, n_samples, n_features, hist_width, max_leaves, n_channels=2):
        max_leaves = int(max_leaves)
        if max_leaves < 2:
            raise ValueError(f"max_leaves must be at least 2, got {max_leaves}")
        n_channels = int(n_channels)
        if n_channels < 1:
            raise ValueError(f"n_channels must be at least 1, got {n_channels}")
        self.n_samples = int(n_samples)
        self.max_leaves = max_leaves
        self.max_nodes = max_nodes = 2 * max_leaves - 1
        # Every leaf that may still be split keeps its histogram: at most max_leaves - 1 of
        # them live at once (children of the last split are not scanned), plus the one a
        # split builds for its smaller child.
        n_slots = max_leaves
        self.hist = np.zeros((n_slots, n_features, hist_width, n_channels), dtype=HIST_DTYPE)
        self.count = np.zeros((n_slots, n_features, hist_width), dtype=np.int64)
        # The least-squares channels (w, w z) of each sample; a Hamming tree reads its
        # weight matrix D directly and needs none.
        n_rows = n_samples if n_channels == _LEAST_SQUARES_CHANNELS else 0
        self.channels = np.zeros((n_rows, _LEAST_SQUARES_CHANNELS), dtype=HIST_DTYPE)
        self.sample_index = np.empty(n_samples, dtype=INDEX_DTYPE)
        self.partition_buf = np.empty(n_samples, dtype=INDEX_DTYPE)
        self.feature = np.full(max_nodes, -1, dtype=np.int32)
        self.threshold = np.zeros(max_nodes, dtype=np.int32)
        self.left = np.full(max_nodes, -1, dtype=np.int32)
        self.right = np.full(max_nodes, -1, dtype=np.int32)
        self.leaf_value = np.zeros(max_nodes, dtype=np.float64)
        self.node_sum = np.zeros((max_nodes, n_channels), dtype=HIST_DTYPE)
        self.node_count = np.zeros(max_nodes, dtype=np.int64)
        self.split_gain = np.full(max_nodes, -np.inf, dtype=np.float64)
        # Per-node scratch: sample range, depth, histogram slot, the best split found.
        self.node_start = np.zeros(max_nodes, dtype=np.int64)
        self.node_end = np.zeros(max_nodes, dtype=np.int64)
        self.node_depth = np.zeros(max_nodes, dtype=np.int32)
        self.node_slot = np.full(max_nodes, -1, dtype=np.int32)
        self.best_feature = np.full(max_nodes, -1, dtype=np.int32)
        self.best_threshold = np.zeros(max_nodes, dtype=np.int32)
        self.best_left = np.zeros((max_nodes, n_channels), dtype=HIST_DTYPE)
        self.stack = np.zeros(2, dtype=np.int32)   # tree_layout's stack; unused order here
        self.free_slots = np.zeros(n_slots, dtype=np.int32)
        self.scratch = np.zeros((3, n_channels), dtype=HIST_DTYPE)
        self.n_nodes = np.zeros(1, dtype=np.int64)
        allocate_sparse_histograms(self, n_slots, n_features, hist_width)


@njit(cache=True, nogil=True)
def _fill_channels(z, w, channels):
    """channels[i] = (w_i, w_i z_i): the per-sample vector the histograms sum."""
    for i in range(z.shape[0]):
        channels[i, 0] = w[i]
        channels[i, 1] = w[i] * z[i]


@njit(cache=True, nogil=True)
def _scan_leaf(nd, criterion, hist, count, n_bins, node_sum, node_count, min_samples_leaf,
               slot, slot_sparse, support, n_support, scratch, best_feature, best_threshold,
               best_left, split_gain):
    """Find leaf nd's best split and keep it; split_gain[nd] = its gain, -inf if none."""
    split_gain[nd] = -np.inf
    if node_count[nd] < 2 * min_samples_leaf:
        return
    found, bf, bt, best = _find_best_split(
        hist[slot], count[slot], n_bins, node_sum[nd], node_count[nd], criterion,
        min_samples_leaf, scratch[0], scratch[1], scratch[2], slot_sparse[slot], support[slot],
        n_support[slot])
    parent = _side_score(criterion, node_sum[nd])
    if not found or not best > parent + _TIE_EPS * (1.0 + abs(parent)):
        return
    split_gain[nd] = best - parent
    best_feature[nd] = bf
    best_threshold[nd] = bt
    for c in range(hist.shape[3]):
        best_left[nd, c] = scratch[2, c]


@njit(cache=True, nogil=True)
def _grow_leafwise(X_binned, n_rows, criterion, y, weight_matrix, n_bins, max_leaves,
                   min_samples_leaf, hist, count, sample_index, feature, threshold, left, right,
                   leaf_value, node_sum, node_count, split_gain, node_start, node_end,
                   node_depth, node_slot, best_feature, best_threshold, best_left, stack,
                   free_slots, scratch, n_nodes_out, partition_buf, sparse_max, slot_sparse,
                   support, n_support, mark, dummy_w):
    """Grow one tree on the rows ``sample_index[:n_rows]`` (set by the caller, increasing),
    or on every row when ``n_rows`` < 0.

    IN: X_binned (n, F) uint8; criterion ``CRITERION_LEAST_SQUARES`` with weight_matrix =
    the channels (n, 2) = (w, w z) (y unused), or ``CRITERION_HAMMING`` with y (n,) int32
    and weight_matrix = D (n, K); n_bins (F,) int32. The histograms' channel count,
    hist.shape[3], is the criterion's (2, or 2K). OUT: the workspace's node arrays (see
    ``LeafwiseWorkspace``; ``leaf_value`` for least squares only), n_nodes_out[0].
    """
    n_slots = hist.shape[0]
    n_ch = hist.shape[3]
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
    _build_histogram(X_binned, sample_index, 0, n_rows, y, dummy_w, weight_matrix, criterion,
                     hist[slot], count[slot])
    for c in range(n_ch):
        acc = 0.0
        for b in range(hist.shape[2]):
            acc += hist[slot, 0, b, c]
        node_sum[0, c] = acc
    node_count[0] = n_rows
    _scan_leaf(0, criterion, hist, count, n_bins, node_sum, node_count, min_samples_leaf,
               slot, slot_sparse, support, n_support, scratch, best_feature, best_threshold,
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
        for c in range(n_ch):
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
                           y, dummy_w, weight_matrix, criterion, hist, count, slot,
                           s_small, sparse_max, slot_sparse, support, n_support, mark)
        node_slot[small] = s_small
        node_slot[large] = slot
        for child in (lc, rc):
            _scan_leaf(child, criterion, hist, count, n_bins, node_sum, node_count,
                       min_samples_leaf, node_slot[child], slot_sparse, support, n_support,
                       scratch, best_feature, best_threshold, best_left, split_gain)
            if split_gain[child] == -np.inf:
                # Never split: its histogram slot is free again.
                free_slots[n_free] = node_slot[child]
                n_free += 1
                node_slot[child] = -1

    n_nodes_out[0] = n_nodes
    if criterion != CRITERION_LEAST_SQUARES:
        return      # a Hamming tree's K values per leaf are the caller's (from node_sum)
    # Leaf values from the samples themselves (histogram subtraction leaves residue).
    for nd in range(n_nodes):
        leaf_value[nd] = 0.0
        if left[nd] >= 0:
            continue
        sw = 0.0
        swz = 0.0
        for p in range(node_start[nd], node_end[nd]):
            i = sample_index[p]
            sw += weight_matrix[i, 0]
            swz += weight_matrix[i, 1]
        leaf_value[nd] = swz / sw if sw > 0.0 else 0.0


def _check_binned(ws: LeafwiseWorkspace, X_binned):
    """X_binned must be the uint8, C-contiguous matrix the workspace was sized for."""
    n, n_features = X_binned.shape
    if (X_binned.dtype != X_BINNED_DTYPE or not X_binned.flags.c_contiguous
            or ws.n_samples != n or ws.hist.shape[1] != n_features):
        raise ValueError("X_binned must be C-contiguous uint8 of the workspace's shape "
                         f"({ws.n_samples}, {ws.hist.shape[1]}), got {X_binned.dtype} "
                         f"{X_binned.shape}")


def _grow(ws: LeafwiseWorkspace, X_binned, n_rows, criterion, y, weight_matrix, n_bins,
          min_samples_leaf):
    """Call the kernel on the workspace's buffers; returns the node count."""
    if int(min_samples_leaf) < 1:
        raise ValueError(f"min_samples_leaf must be at least 1, got {min_samples_leaf}")
    _grow_leafwise(X_binned, n_rows, criterion, y, weight_matrix,
                   np.asarray(n_bins, dtype=np.int32), ws.max_leaves, int(min_samples_leaf),
                   ws.hist, ws.count, ws.sample_index, ws.feature, ws.threshold, ws.left,
                   ws.right, ws.leaf_value, ws.node_sum, ws.node_count, ws.split_gain,
                   ws.node_start, ws.node_end, ws.node_depth, ws.node_slot, ws.best_feature,
                   ws.best_threshold, ws.best_left, ws.stack, ws.free_slots, ws.scratch,
                   ws.n_nodes, ws.partition_buf, ws.sparse_max, ws.slot_sparse, ws.support,
                   ws.n_support, ws.mark, _DUMMY_W)
    return int(ws.n_nodes[0])


def grow_leafwise_tree(ws: LeafwiseWorkspace, X_binned, n_bins, z, w, *, min_samples_leaf=1,
                       sample_subset=None):
    """Grow one best-first weighted least-squares tree into ``ws``; returns its node count.

    Parameters
    ----------
    ws : LeafwiseWorkspace
        Sized for ``X_binned`` and the tree's ``max_leaves``, with 2 channels (the default).
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
    _check_binned(ws, X_binned)
    n = X_binned.shape[0]
    if ws.hist.shape[3] != _LEAST_SQUARES_CHANNELS:
        raise ValueError(f"a least-squares tree needs a workspace of "
                         f"{_LEAST_SQUARES_CHANNELS} channels, this one has "
                         f"{ws.hist.shape[3]}")
    z = np.ascontiguousarray(z, dtype=np.float64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    if z.shape != (n,) or w.shape != (n,):
        raise ValueError(f"z and w must have shape ({n},), got {z.shape} and {w.shape}")
    if not (np.all(w >= 0.0) and np.all(np.isfinite(w)) and np.all(np.isfinite(z))):
        raise ValueError("w must be finite and >= 0, z finite")
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
    return _grow(ws, X_binned, n_rows, CRITERION_LEAST_SQUARES, _DUMMY_Y, ws.channels, n_bins,
                 min_samples_leaf)


def grow_leafwise_hamming_tree(ws: LeafwiseWorkspace, X_binned, n_bins, y, D, *,
                               min_samples_leaf=1):
    """Grow one best-first multi-class Hamming tree into ``ws``; returns its node count.

    The tree of Real AdaBoost.MH (``algorithms.adaboost_mh``): a split's score is
    ``-Z = -2 sum_sides sum_l sqrt(W+_l W-_l)`` (``histogram_tree.CRITERION_HAMMING``), a
    leaf's gain the drop of Z its best split gives, and the leaves are split largest gain
    first, with this module's rules, until the tree has ``ws.max_leaves`` leaves or no leaf
    lowers Z. ``ws.leaf_value`` is not written: a leaf's K values are the caller's, from its
    ``ws.node_sum`` row (total weight of label l in channel l, W+_l in channel K + l).

    Parameters
    ----------
    ws : LeafwiseWorkspace
        Sized for ``X_binned`` and the tree's ``max_leaves``, with ``n_channels = 2K``.
    X_binned : ndarray of uint8, shape (n_samples, n_features), C-contiguous
    n_bins : ndarray of int32, shape (n_features,)
    y : ndarray of int, shape (n_samples,)
        Labels 0..K-1.
    D : ndarray of float64, shape (n_samples, K)
        The weight D(i, l) of each (sample, label) pair, >= 0.
    min_samples_leaf : int, default 1
        Fewest samples on each side of a split.

    Returns
    -------
    int
        Number of nodes (``2 * leaves - 1``); the tree is ``ws.feature[:n]`` etc.
    """
    _check_binned(ws, X_binned)
    n = X_binned.shape[0]
    D = np.ascontiguousarray(D, dtype=HIST_DTYPE)
    if D.ndim != 2 or D.shape[0] != n or 2 * D.shape[1] != ws.hist.shape[3]:
        raise ValueError(f"D must have shape ({n}, {ws.hist.shape[3] // 2}) (the workspace's "
                         f"2K = {ws.hist.shape[3]} channels), got {D.shape}")
    # min >= 0 (NaN fails it) and a finite sum (an infinite entry fails it): two passes
    # without the temporaries of np.all(...) over the n x K pairs, once per round.
    if D.size and not (D.min() >= 0.0 and np.isfinite(D.sum())):
        raise ValueError("D must be finite and >= 0")
    y = np.ascontiguousarray(y, dtype=np.int32)
    if y.shape != (n,) or (n and (y.min() < 0 or y.max() >= D.shape[1])):
        raise ValueError(f"y must be {n} labels in 0..{D.shape[1] - 1}")
    return _grow(ws, X_binned, -1, CRITERION_HAMMING, y, D, n_bins, min_samples_leaf)


@njit(cache=True, nogil=True)
def predict_tree(X_binned, feature, threshold, left, leaf_value, offset, out):
    """out[i] = the value of the leaf row i reaches, for the tree rooted at ``offset``.

    IN: node arrays of a workspace (offset 0) or of a forest (its ``tree_offset[t]``),
    ``leaf_value`` indexed like them. OUT: out (n,) float64.
    """
    for i in range(X_binned.shape[0]):
        out[i] = leaf_value[offset + leaf_of(X_binned, i, feature, threshold, left, offset)]
