"""Compiled histogram tree grower with K-channel accumulators.

One grower serves every tree-based booster. A tree is grown depth-first to ``max_depth`` with
binary splits ``bin <= threshold`` on binned features; each node's statistics are a histogram
of shape (n_features, n_bins, n_channels) whose channels depend on the *criterion*:

``CRITERION_GINI`` (channels = K)
    channel k holds the weight of class-k samples. The split maximises the weighted Gini proxy
    ``sum_k L_k^2 / W_L + sum_k R_k^2 / W_R`` (CART / scikit-learn's ``gini``), the default
    weak learner of AdaBoost.M1 and SAMME. A node whose Gini impurity is zero is a leaf.
``CRITERION_ERROR`` (channels = K)
    the histogram of ``CRITERION_GINI``; a side scores ``max_k S_k``, the weight its
    weighted-majority label classifies correctly, so the split maximising the sum over both
    sides minimises the weighted misclassification of children labelled with their majority
    class: the "greedy procedure [minimising] the weighted error rate of AdaBoost-M1 and
    AdaBoost-SAMME" of [3], sec. 5.3 (``split_criterion="error"`` of those boosters).
``CRITERION_HAMMING`` (channels = 2K)
    channel l holds the total weight D(i, l) of label l, channel K + l the part of it where
    y_i = l (W+ in Schapire & Singer's notation; W- = total - W+). The split minimises
    ``Z = 2 sum_blocks sum_l sqrt(W+ W-)`` (Schapire & Singer 1999, sec. 4 and eq. (10) of the
    real AdaBoost.MH with a partition into blocks), i.e. maximises ``-Z``. A node is a leaf
    when no split lowers Z.
``CRITERION_MAX_CHANNEL`` (channels = C, dense)
    the caller gives a per-sample vector G (n, C) (``channel_values``) and channel c holds
    ``sum_i G[i, c]``: the leaf's *gain* of answering c. A side scores ``max_c sum_i G[i, c]``
    (the leaf answers its best channel). GD-MCBoost uses G[i, k] = <w_i, y^k> (projections of
    its eq. (31) weights on the codewords, so the score is its eq. (32) for a codeword-valued
    leaf); AdaBoost.MM uses G = -cost (the leaf answers the label of least summed cost).
``CRITERION_ABS_SUM`` (channels = 1, dense)
    as above with C = 1; a side scores ``|sum_i G[i, 0]|``: the best of the two outputs +1 / -1
    of a leaf against signed weights G (CD-MCBoost's eq. (25), binary AdaBoost's weighted
    error of a stump with majority-sign leaves).
``CRITERION_LEAST_SQUARES`` (channels = 2, dense)
    weighted least squares on a working response z: channel 0 holds ``sum_i w_i``, channel 1
    ``sum_i w_i z_i`` (the caller's G[i] = (w_i, w_i z_i), w_i >= 0). A side scores
    ``(sum w z)^2 / sum w``, so a split's score minus its node's is the drop of
    ``sum_i w_i (z_i - c)^2`` when each side answers its weighted mean c (the regression trees
    of LogitBoost and GentleBoost, Friedman, Hastie & Tibshirani 2000 [5]; grown best-first
    by ``leafwise_tree``). A side whose weight is zero (up to the rounding residue of the
    histogram subtraction, relative to its node's) scores 0.

For the criteria other than Gini a node is a leaf when no split raises its score (the
scores are subadditive — a split never lowers them — so equality means the split changes
nothing the booster optimises); a node whose weight is all one class's is a leaf without a
scan under ``CRITERION_ERROR`` too (no split can lower its error of zero).

The hot path allocates nothing: the caller owns a ``TreeWorkspace`` sized once per fit, and
the tree is written into its arrays. The histogram of the larger child is obtained by
subtracting the smaller child's from the parent's (LightGBM's and scikit-learn's trick), so
each level costs a pass over the smaller half of the samples. Small nodes (deep trees) keep
sparse histograms instead — only the bins their samples occupy are zeroed, filled, scanned
and subtracted — with bit-identical results (``_build_histogram_sparse``). Deep trees keep
their samples' rows (bins, label, weights) in node order, moved with the samples at each split,
so that histograms read them in sequence (``_partition_rows``; the same sums in the same
order: ``benchmarks/bench_tree_rows.py`` measures it; ``ROWS_MIN_BYTES``). Tie-breaking is
deterministic:
the first feature, then the lowest threshold, among splits of equal score.

The node layout, and the bookkeeping of growing a tree that every grower shares, are
``tree_layout``'s. A naive pure-numpy twin lives in ``naive_tree.py`` and is used only by the
tests.

References
----------
.. [1] Breiman, Friedman, Olshen, Stone. Classification and Regression Trees, 1984.
.. [2] Schapire, Singer. Improved boosting algorithms using confidence-rated predictions.
       Machine Learning 37(3), 1999.
.. [3] Saberian, Vasconcelos. Multiclass boosting: theory and algorithms. NIPS 2011.
.. [4] Mukherjee, Schapire. A theory of multiclass boosting. NIPS 2010 (JMLR 14, 2013).
.. [5] Friedman, Hastie, Tibshirani. Additive logistic regression: a statistical view of
       boosting. Annals of Statistics 28(2), 2000.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._dtypes import HIST_DTYPE, INDEX_DTYPE, X_BINNED_DTYPE
from .._inline import inline_helper
from .._kernel_cache import kernel_compile_lock
from .tree_layout import (make_children, max_nodes_for_depth, pop_node, split_node,
                          start_tree)

CRITERION_GINI = 0
CRITERION_HAMMING = 1
CRITERION_MAX_CHANNEL = 2
CRITERION_ABS_SUM = 3
CRITERION_ERROR = 4
CRITERION_LEAST_SQUARES = 5
DENSE_CRITERIA = (CRITERION_MAX_CHANNEL, CRITERION_ABS_SUM, CRITERION_LEAST_SQUARES)

# Score differences below this are ties (rounding in histogram subtraction must not decide).
_TIE_EPS = 1e-12
# Channel sums below this fraction of their label's total are rounding residue.
_ZERO_REL = 1e-10
# A node whose sample count is at most (histogram width) / SPARSE_BIN_RATIO gets a sparse
# histogram: deep trees have many such nodes, and a dense one costs O(bins x channels) to
# zero, scan and subtract whatever the node's size.
SPARSE_BIN_RATIO = 4
# Trees of at least ROWS_MIN_DEPTH over at least ROWS_MIN_BYTES of rows (bins, label and the
# weights the criterion reads, over all samples) keep the rows in node order (``_grow_tree``):
# there most reads through the sample index miss the caches, and reading in sequence pays for
# the copies; on fewer bytes or shallower trees the copies cost more than they save
# (``benchmarks/bench_tree_rows.py``: Poker525k's 393,758 rows at depth 8-12, 0.5-0.7 of the
# time; Letter, Krkopt and 30,000 rows of Poker under Gini, 1.1-1.6; speed only: the same
# trees).
ROWS_MIN_DEPTH = 5
ROWS_MIN_BYTES = 8 << 20


def n_channels(criterion: int, n_classes: int) -> int:
    """Histogram channels the criterion needs for K classes.

    For ``CRITERION_MAX_CHANNEL``, ``n_classes`` is the width C of the channel matrix G.
    """
    if criterion in (CRITERION_GINI, CRITERION_ERROR):
        return n_classes
    if criterion == CRITERION_HAMMING:
        return 2 * n_classes
    if criterion == CRITERION_MAX_CHANNEL:
        return n_classes
    if criterion == CRITERION_ABS_SUM:
        return 1
    if criterion == CRITERION_LEAST_SQUARES:
        return 2
    raise ValueError(f"unknown criterion {criterion}")


def allocate_sparse_histograms(ws, n_slots: int, n_features: int, hist_width: int) -> None:
    """The sparse-histogram scratch of a tree workspace (``TreeWorkspace`` and
    ``leafwise_tree.LeafwiseWorkspace``): a node of at most ``ws.sparse_max`` samples keeps,
    per feature, the sorted list of bins its slot may hold non-zero (``support``; see
    ``_build_histogram_sparse``); ``sparse_max`` 0 disables them (the tests compare both
    paths)."""
    ws.sparse_max = int(hist_width) // SPARSE_BIN_RATIO
    cap = max(ws.sparse_max, 1)
    ws.slot_sparse = np.zeros(n_slots, dtype=np.bool_)
    ws.support = np.zeros((n_slots, n_features, cap), dtype=np.int32)
    ws.n_support = np.zeros((n_slots, n_features), dtype=np.int32)
    ws.mark = np.zeros((n_features, hist_width), dtype=np.bool_)


class TreeWorkspace:
    """Every buffer one tree needs, allocated once per fit and reused each round.

    Attributes written by :func:`grow_tree` (node-indexed, nodes numbered in creation order,
    the root is node 0): ``feature``, ``threshold``, ``left``, ``right`` (-1 for leaves),
    ``node_sum`` (channel sums of each node), ``node_count``; ``n_nodes[0]`` is the node count.
    """

    def __init__(self, n_samples, n_features, n_bins, n_channels_, max_depth):
        max_nodes = max_nodes_for_depth(max_depth, n_samples)
        self.max_depth = int(max_depth)
        self.max_nodes = max_nodes
        n_slots = 2 * (max_depth + 2)  # depth-first: at most two live histograms per level
        self.hist = np.zeros((n_slots, n_features, n_bins, n_channels_), dtype=HIST_DTYPE)
        self.count = np.zeros((n_slots, n_features, n_bins), dtype=np.int64)
        self.sample_index = np.empty(n_samples, dtype=INDEX_DTYPE)
        self.partition_buf = np.empty(n_samples, dtype=INDEX_DTYPE)
        self.feature = np.full(max_nodes, -1, dtype=np.int32)
        self.threshold = np.zeros(max_nodes, dtype=np.int32)
        self.left = np.full(max_nodes, -1, dtype=np.int32)
        self.right = np.full(max_nodes, -1, dtype=np.int32)
        self.node_sum = np.zeros((max_nodes, n_channels_), dtype=HIST_DTYPE)
        self.node_count = np.zeros(max_nodes, dtype=np.int64)
        # Per-node scratch: sample range, depth, histogram slot.
        self.node_start = np.zeros(max_nodes, dtype=np.int64)
        self.node_end = np.zeros(max_nodes, dtype=np.int64)
        self.node_depth = np.zeros(max_nodes, dtype=np.int32)
        self.node_slot = np.full(max_nodes, -1, dtype=np.int32)
        self.stack = np.zeros(max_nodes, dtype=np.int32)
        self.free_slots = np.zeros(n_slots, dtype=np.int32)
        self.scratch = np.zeros((3, n_channels_), dtype=HIST_DTYPE)
        self.n_nodes = np.zeros(1, dtype=np.int64)
        allocate_sparse_histograms(self, n_slots, n_features, n_bins)
        # The root's bin counts, which depend on the data only (``count_bins``), and the
        # binned array they were counted on (``grow_tree`` recounts for another array).
        self.root_count = np.zeros((n_features, n_bins), dtype=np.int64)
        self.root_count_of = None


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _build_histogram(X_binned, sample_index, start, end, y, weight, weight_matrix, criterion,
                     hist, count):
    """Accumulate the histogram of samples ``sample_index[start:end]`` into hist/count (zeroed).

    IN: X_binned (n, F) uint8, y (n,) int32, weight (n,) — GINI, ERROR; weight_matrix (n, K) —
    HAMMING;
    weight_matrix = G (n, C) — dense criteria. OUT: hist (F, B, C), count (F, B).
    """
    hist[:] = 0.0
    count[:] = 0
    _accumulate(X_binned, sample_index, start, end, y, weight, weight_matrix, criterion, hist,
                count, True)


@njit(cache=True, nogil=True)
def _build_root_histogram(X_binned, sample_index, y, weight, weight_matrix, criterion,
                          root_count, hist, count):
    """``_build_histogram`` of the root (``sample_index`` = 0..n-1, as ``start_tree`` left
    it), with the counts copied from ``root_count`` (``count_bins``): they depend on the data
    only, not on the round's weights, so a fit counts them once instead of once per tree
    (a sixth of the root's histogram time on Letter)."""
    hist[:] = 0.0
    count[:] = root_count
    _accumulate(X_binned, sample_index, 0, X_binned.shape[0], y, weight, weight_matrix,
                criterion, hist, count, False)


@njit(cache=True, nogil=True)
def count_bins(X_binned, count):
    """count[f, b] = number of rows with X_binned[:, f] == b (zeroed first)."""
    count[:] = 0
    for i in range(X_binned.shape[0]):
        for f in range(X_binned.shape[1]):
            count[f, X_binned[i, f]] += 1


@inline_helper
def _accumulate(X_binned, sample_index, start, end, y, weight, weight_matrix, criterion, hist,
                count, count_samples):
    """Add the samples' channel values (and counts, if ``count_samples``) to hist/count, in
    sample order (the order fixes the float sums, so the dense and sparse builds must share
    it)."""
    n_features = X_binned.shape[1]
    if criterion == CRITERION_GINI or criterion == CRITERION_ERROR:
        for p in range(start, end):
            i = sample_index[p]
            c = y[i]
            wi = weight[i]
            for f in range(n_features):
                b = X_binned[i, f]
                hist[f, b, c] += wi
                if count_samples:
                    count[f, b] += 1
    elif criterion == CRITERION_HAMMING:
        n_classes = weight_matrix.shape[1]
        for p in range(start, end):
            i = sample_index[p]
            yi = y[i]
            wpos = weight_matrix[i, yi]
            for f in range(n_features):
                b = X_binned[i, f]
                for l in range(n_classes):
                    hist[f, b, l] += weight_matrix[i, l]
                hist[f, b, n_classes + yi] += wpos
                if count_samples:
                    count[f, b] += 1
    elif criterion == CRITERION_LEAST_SQUARES:
        # The dense loop below with its two channels written out (the same sums in the same
        # order): a fixed channel count lets the row's feature loop run without an inner one.
        for p in range(start, end):
            i = sample_index[p]
            g0 = weight_matrix[i, 0]
            g1 = weight_matrix[i, 1]
            for f in range(n_features):
                b = X_binned[i, f]
                hist[f, b, 0] += g0
                hist[f, b, 1] += g1
                if count_samples:
                    count[f, b] += 1
    else:  # dense criteria: hist[f, b, :] += G[i, :]
        n_ch = weight_matrix.shape[1]
        for p in range(start, end):
            i = sample_index[p]
            for f in range(n_features):
                b = X_binned[i, f]
                for c in range(n_ch):
                    hist[f, b, c] += weight_matrix[i, c]
                if count_samples:
                    count[f, b] += 1


@njit(cache=True, nogil=True)
def _build_histogram_sparse(X_binned, sample_index, start, end, y, weight, weight_matrix,
                            criterion, hist, count, support, n_support, mark):
    """``_build_histogram`` of a small node, touching only the bins its samples occupy.

    Those bins are zeroed and then accumulated in the same sample order as the dense build, so
    they hold bit-identical values; every other bin of the dense histogram would be exactly
    zero, and is not read: ``support[f, :n_support[f]]`` lists the occupied bins of feature f
    in increasing order (``_find_best_split`` and the sibling's subtraction walk only these).
    ``mark`` (F, B) is all False on entry and on return.
    """
    n_features = X_binned.shape[1]
    n_ch = hist.shape[2]
    for p in range(start, end):
        i = sample_index[p]
        for f in range(n_features):
            b = X_binned[i, f]
            for c in range(n_ch):
                hist[f, b, c] = 0.0
            count[f, b] = 0
    _accumulate(X_binned, sample_index, start, end, y, weight, weight_matrix, criterion, hist,
                count, True)
    for f in range(n_features):
        d = 0
        for p in range(start, end):
            b = X_binned[sample_index[p], f]
            if not mark[f, b]:
                mark[f, b] = True
                # Insertion into the sorted list (d is at most the node's sample count).
                j = d
                while j > 0 and support[f, j - 1] > b:
                    support[f, j] = support[f, j - 1]
                    j -= 1
                support[f, j] = b
                d += 1
        n_support[f] = d
        for j in range(d):
            mark[f, support[f, j]] = False


@njit(cache=True, nogil=True)
def sibling_histograms(X_binned, sample_index, start, end, y, weight, weight_matrix, criterion,
                       hist, count, slot, s_small, sparse_max, slot_sparse, support, n_support,
                       mark):
    """The histograms of a split node's two children: build the smaller child's (samples
    ``sample_index[start:end]``) into slot ``s_small``, and turn slot ``slot`` (the parent's)
    into the larger child's by subtraction (LightGBM's and scikit-learn's trick).

    A child of at most ``sparse_max`` samples gets a sparse histogram: only its bins are
    built and subtracted (the dense subtraction would take zeros from every other bin). The
    larger child keeps the parent's slot, hence its sparseness and bin lists: its bins are
    among the parent's. Shared by the depth-first grower and ``leafwise_tree``'s.
    """
    n_ch = hist.shape[3]
    if end - start <= sparse_max:
        _build_histogram_sparse(X_binned, sample_index, start, end, y, weight, weight_matrix,
                                criterion, hist[s_small], count[s_small], support[s_small],
                                n_support[s_small], mark)
        slot_sparse[s_small] = True
        for f in range(hist.shape[1]):
            for j in range(n_support[s_small, f]):
                b = support[s_small, f, j]
                for c in range(n_ch):
                    hist[slot, f, b, c] -= hist[s_small, f, b, c]
                count[slot, f, b] -= count[s_small, f, b]
    else:
        _build_histogram(X_binned, sample_index, start, end, y, weight, weight_matrix,
                         criterion, hist[s_small], count[s_small])
        slot_sparse[s_small] = False
        hist[slot] -= hist[s_small]
        count[slot] -= count[s_small]


@njit(cache=True, nogil=True)
def _partition_rows(Xs, ys, ws_, wms, Xd, yd, wd, wmd, sample_index, ibuf, start, end,
                    feature, threshold, rows):
    """Stable partition (left first) of a node whose rows are in order (row p of Xs, ys,
    ws_, wms belongs to sample ``sample_index[p]``); returns mid.

    ``sample_index`` is partitioned in place (through ``ibuf``), as ``tree_layout._partition``
    does, but the side of each sample is read from its row in sequence. With ``rows`` each
    row is also written once, to its place in the other buffer (Xd, yd, wd, wmd): the
    children's rows in order there. An array of (1, ...) shape is one the criterion does not
    read, and is not moved."""
    n_features = Xs.shape[1]
    move_y = yd.shape[0] > 1
    move_w = wd.shape[0] > 1
    n_wm = wmd.shape[1] if wmd.shape[0] > 1 else 0
    mid = start
    for p in range(start, end):
        mid += np.int64(Xs[p, feature] <= threshold)
    ql = start
    qr = mid
    for p in range(start, end):
        r = np.int64(Xs[p, feature] > threshold)
        q = ql + r * (qr - ql)       # branch-free: the left or the right cursor
        ql += 1 - r
        qr += r
        ibuf[q] = sample_index[p]
        if rows:
            for f in range(n_features):
                Xd[q, f] = Xs[p, f]
            if move_y:
                yd[q] = ys[p]
            if move_w:
                wd[q] = ws_[p]
            for c in range(n_wm):
                wmd[q, c] = wms[p, c]
    for q in range(start, end):
        sample_index[q] = ibuf[q]
    return mid


@inline_helper
def _side_score(criterion, s):
    """Score of one side of a split from its channel sums (higher is better)."""
    if criterion == CRITERION_GINI:
        total = 0.0
        sq = 0.0
        for c in range(s.shape[0]):
            total += s[c]
            sq += s[c] * s[c]
        if total <= 0.0:
            return 0.0
        return sq / total
    elif criterion == CRITERION_HAMMING:
        k = s.shape[0] // 2
        z = 0.0
        for l in range(k):
            wpos = s[k + l]
            wneg = s[l] - wpos
            # Histogram subtraction leaves rounding residue (~1e-17) where a side holds none
            # of a label's weight; sqrt would blow it up to ~1e-9, so treat it as zero.
            tiny = _ZERO_REL * s[l]
            if wpos > tiny and wneg > tiny:
                z += np.sqrt(wpos * wneg)
        return -z
    elif criterion == CRITERION_MAX_CHANNEL or criterion == CRITERION_ERROR:
        best = s[0]
        for c in range(1, s.shape[0]):
            best = max(best, s[c])
        return best
    elif criterion == CRITERION_LEAST_SQUARES:
        return 0.0 if s[0] <= 0.0 else s[1] * s[1] / s[0]
    else:  # CRITERION_ABS_SUM
        return abs(s[0])


@njit(cache=True, nogil=True)
def _is_pure(criterion, s):
    if criterion != CRITERION_GINI and criterion != CRITERION_ERROR:
        return False
    total = 0.0
    mx = 0.0
    for c in range(s.shape[0]):
        total += s[c]
        if s[c] > mx:
            mx = s[c]
    # Gini impurity 1 - sum p^2 is zero iff one class holds all the weight; so is the
    # majority label's error, which no split can lower.
    return total <= 0.0 or mx >= total * (1.0 - 1e-12)


@njit(cache=True, nogil=True)
def _find_best_split(hist, count, n_bins, node_sum, node_count, criterion, min_samples_leaf,
                     left_sum, right_sum, best_left_sum, sparse, support, n_support):
    """Best (feature, threshold) of one node; returns (found, feature, threshold, score).

    Threshold t sends bins 0..t left. Bins beyond n_bins[f] (the missing-value bin) always go
    right. Ties keep the first feature and the lowest threshold. A ``sparse`` histogram (zero
    outside the bins ``support[f, :n_support[f]]``, increasing) is scanned over those bins
    only: the dense scan's running sums would only add zeros elsewhere, and it skips
    thresholds at empty bins, so the sums, scores and tie-breaks are the same.
    """
    n_features = hist.shape[0]
    n_ch = hist.shape[2]
    best_score = -np.inf
    best_f = -1
    best_t = -1
    for f in range(n_features):
        for c in range(n_ch):
            left_sum[c] = 0.0
        n_left = 0
        last = n_bins[f] - 2
        for j in range(n_support[f] if sparse else last + 1):
            t = support[f, j] if sparse else j
            if t > last:
                break
            n_left += count[f, t]
            for c in range(n_ch):
                left_sum[c] += hist[f, t, c]
            if count[f, t] == 0:
                continue  # same partition as the previous threshold: keep the lowest one
            n_right = node_count - n_left
            if n_left < min_samples_leaf or n_right < min_samples_leaf:
                continue
            if criterion == CRITERION_GINI:
                # _side_score of both sides in one pass over the channels (the same sums in
                # the same order, so the same floats): the scan's hot loop on many classes.
                l_total = 0.0
                l_sq = 0.0
                r_total = 0.0
                r_sq = 0.0
                for c in range(n_ch):
                    lc = left_sum[c]
                    rc = node_sum[c] - lc
                    l_total += lc
                    l_sq += lc * lc
                    r_total += rc
                    r_sq += rc * rc
                score = ((0.0 if l_total <= 0.0 else l_sq / l_total)
                         + (0.0 if r_total <= 0.0 else r_sq / r_total))
            elif criterion == CRITERION_ERROR:
                # _side_score (max over the channels) of both sides in one pass, as above.
                l_max = left_sum[0]
                r_max = node_sum[0] - left_sum[0]
                for c in range(1, n_ch):
                    lc = left_sum[c]
                    rc = node_sum[c] - lc
                    if lc > l_max:
                        l_max = lc
                    if rc > r_max:
                        r_max = rc
                score = l_max + r_max
            elif criterion == CRITERION_LEAST_SQUARES:
                # A side whose weight is rounding residue of the subtraction (all its samples
                # weigh zero) answers nothing: residue over residue must not score.
                tiny = _ZERO_REL * node_sum[0]
                l_w = left_sum[0]
                r_w = node_sum[0] - l_w
                r_s = node_sum[1] - left_sum[1]
                score = ((0.0 if l_w <= tiny else left_sum[1] * left_sum[1] / l_w)
                         + (0.0 if r_w <= tiny else r_s * r_s / r_w))
            else:
                for c in range(n_ch):
                    right_sum[c] = node_sum[c] - left_sum[c]
                score = _side_score(criterion, left_sum) + _side_score(criterion, right_sum)
            if score > best_score + _TIE_EPS * (1.0 + abs(best_score)) or best_f < 0:
                best_score = score
                best_f = f
                best_t = t
                for c in range(n_ch):
                    best_left_sum[c] = left_sum[c]
    return best_f >= 0, best_f, best_t, best_score


@njit(cache=True, nogil=True)
def _grow_tree(X_binned, y, weight, weight_matrix, n_bins, criterion, max_depth,
               min_samples_leaf, hist, count, sample_index, feature, threshold, left, right,
               node_sum, node_count, node_start, node_end, node_depth, node_slot, stack,
               free_slots, scratch, n_nodes_out, partition_buf, sparse_max, slot_sparse,
               support, n_support, mark, root_count, order_rows, X0, y0, w0, wm0, X1, y1,
               w1, wm1, iota, node_rows):
    """Grow one tree (``grow_tree``).

    Rows in order (``order_rows``): a node's histogram reads each of its samples' bins,
    label and weights. Read through ``sample_index`` from the caller's arrays, a deep node's
    samples lie scattered over them and nearly every read misses the caches. So the root's
    split writes its samples' rows in the children's order into buffer 0 (X0, y0, w0, wm0:
    position p holds sample ``sample_index[p]``), and every split below moves them to the
    other buffer along with the indices (``_partition_rows``): histograms then read them in
    sequence (through ``iota``, the identity). ``node_rows[nd]``: -1 read through the
    index, 0 or 1 the buffer holding the node's rows. The same rows are read in the same
    order either way, so the sums and the tree are the same."""
    n_samples = X_binned.shape[0]
    n_ch = hist.shape[3]
    n_slots = hist.shape[0]
    n_nodes, top = start_tree(n_samples, sample_index, feature, left, right, node_start,
                              node_end, node_depth, stack)
    # Free-list of histogram slots.
    n_free = n_slots
    for s in range(n_slots):
        free_slots[s] = n_slots - 1 - s

    left_sum = scratch[0]
    right_sum = scratch[1]
    best_left = scratch[2]

    # The root's histogram and sums.
    for s in range(n_slots):
        slot_sparse[s] = False
    n_free -= 1
    slot = free_slots[n_free]
    node_slot[0] = slot
    _build_root_histogram(X_binned, sample_index, y, weight, weight_matrix, criterion,
                          root_count, hist[slot], count[slot])
    # Node sums from feature 0 over all of its bins (missing bin included).
    for c in range(n_ch):
        acc = 0.0
        for b in range(hist.shape[2]):
            acc += hist[slot, 0, b, c]
        node_sum[0, c] = acc
    node_count[0] = n_samples
    node_rows[0] = -1

    while top > 0:
        nd, top = pop_node(stack, top)
        slot = node_slot[nd]
        is_leaf = (node_depth[nd] >= max_depth or node_count[nd] < 2 * min_samples_leaf
                   or _is_pure(criterion, node_sum[nd]))
        found = False
        bf = -1
        bt = -1
        if not is_leaf:
            found, bf, bt, best = _find_best_split(
                hist[slot], count[slot], n_bins, node_sum[nd], node_count[nd], criterion,
                min_samples_leaf, left_sum, right_sum, best_left, slot_sparse[slot],
                support[slot], n_support[slot])
            if found and criterion != CRITERION_GINI:
                # A split that does not raise the score is no better than the leaf (Hamming:
                # Z only falls under refinement; error and dense criteria: max / |.| are
                # subadditive), so equality means the split carries no information.
                parent = _side_score(criterion, node_sum[nd])
                if not best > parent + _TIE_EPS * (1.0 + abs(parent)):
                    found = False
        if not found:
            if slot >= 0:
                free_slots[n_free] = slot
                n_free += 1
                node_slot[nd] = -1
            continue

        # Children that get histograms need their rows; leaves only their indices.
        rows = node_depth[nd] + 1 < max_depth
        state = node_rows[nd]
        if state < 0 and not (order_rows and rows):
            lc, rc, mid, n_nodes, top = split_node(
                X_binned, nd, bf, bt, n_nodes, top, sample_index, partition_buf, feature,
                threshold, left, right, node_start, node_end, node_depth, stack)
        else:
            if state < 0:
                # Only the root is split here from the index: its rows are the caller's.
                mid = _partition_rows(X_binned, y, weight, weight_matrix, X0, y0, w0, wm0,
                                      sample_index, partition_buf, 0, n_samples, bf, bt,
                                      True)
                state = 0
            elif state == 0:
                mid = _partition_rows(X0, y0, w0, wm0, X1, y1, w1, wm1, sample_index,
                                      partition_buf, node_start[nd], node_end[nd], bf, bt,
                                      rows)
                state = 1
            else:
                mid = _partition_rows(X1, y1, w1, wm1, X0, y0, w0, wm0, sample_index,
                                      partition_buf, node_start[nd], node_end[nd], bf, bt,
                                      rows)
                state = 0
            lc, rc, mid, n_nodes, top = make_children(
                nd, bf, bt, mid, n_nodes, top, feature, threshold, left, right, node_start,
                node_end, node_depth, stack)
        node_rows[lc] = state
        node_rows[rc] = state
        node_slot[lc] = -1
        node_slot[rc] = -1
        node_count[lc] = mid - node_start[nd]
        node_count[rc] = node_end[nd] - mid
        for c in range(n_ch):
            node_sum[lc, c] = best_left[c]
            node_sum[rc, c] = node_sum[nd, c] - best_left[c]

        if node_depth[nd] + 1 < max_depth:
            # Children will be split: they need histograms. Build the smaller child's, and
            # turn the parent's slot into the larger child's by subtraction.
            if node_count[lc] <= node_count[rc]:
                small, large = lc, rc
            else:
                small, large = rc, lc
            n_free -= 1
            s_small = free_slots[n_free]
            if state == 0:
                sibling_histograms(X0, iota, node_start[small], node_end[small], y0, w0, wm0,
                                   criterion, hist, count, slot, s_small, sparse_max,
                                   slot_sparse, support, n_support, mark)
            elif state == 1:
                sibling_histograms(X1, iota, node_start[small], node_end[small], y1, w1, wm1,
                                   criterion, hist, count, slot, s_small, sparse_max,
                                   slot_sparse, support, n_support, mark)
            else:
                sibling_histograms(X_binned, sample_index, node_start[small], node_end[small],
                                   y, weight, weight_matrix, criterion, hist, count, slot,
                                   s_small, sparse_max, slot_sparse, support, n_support, mark)
            node_slot[small] = s_small
            node_slot[large] = slot
            # Exact node sums from the histograms would drift the same way; recompute the
            # larger child's from its own (subtracted) histogram is not needed: the split scan
            # gave both sums already.
        else:
            free_slots[n_free] = slot
            n_free += 1
        node_slot[nd] = -1
    n_nodes_out[0] = n_nodes


def grow_tree(ws: TreeWorkspace, X_binned, y, n_bins, criterion, *, weight=None,
              weight_matrix=None, channel_values=None, min_samples_leaf=1, order_rows=None):
    """Grow one tree into the workspace ``ws``; returns the number of nodes.

    Parameters
    ----------
    ws : TreeWorkspace
    X_binned : ndarray of uint8, shape (n_samples, n_features), C-contiguous
    y : ndarray of int32, shape (n_samples,)
    n_bins : ndarray of int32, shape (n_features,)
        Value bins of each feature (thresholds range over 0..n_bins-2).
    criterion : {CRITERION_GINI, CRITERION_ERROR, CRITERION_HAMMING, CRITERION_MAX_CHANNEL,
                 CRITERION_ABS_SUM}
    weight : ndarray of float64, shape (n_samples,)  -- GINI, ERROR
    weight_matrix : ndarray of float64, shape (n_samples, K)  -- HAMMING
    channel_values : ndarray of float64, shape (n_samples, C), C-contiguous  -- dense criteria
        The per-sample vector G summed into the histogram channels (C = 1 for ABS_SUM).

    order_rows : bool, optional
        Keep the samples' rows in node order (``_grow_tree``); None: for trees of depth
        ``ROWS_MIN_DEPTH`` or more over ``ROWS_MIN_BYTES`` or more of rows. The same tree
        either way (False: the tests' reference).

    The workspace keeps the bin counts of the last ``X_binned`` it saw (the same array object
    in every round of a fit) and recounts only for another array: do not change an array's
    values in place between two trees of one workspace.
    """
    if criterion in DENSE_CRITERIA:
        if (channel_values is None or channel_values.ndim != 2
                or channel_values.shape[0] != X_binned.shape[0]
                or channel_values.shape[1] != ws.hist.shape[3]):
            raise ValueError("dense criteria need channel_values of shape (n_samples, "
                             f"{ws.hist.shape[3]}) (the workspace's channels)")
        weight_matrix = channel_values
    if ws.root_count_of is not X_binned:
        # A fit grows every tree on the same binned array: count its bins once.
        count_bins(X_binned, ws.root_count)
        ws.root_count_of = X_binned
    dummy_w = _DUMMY_1D if weight is None else weight
    dummy_m = _DUMMY_2D if weight_matrix is None else weight_matrix
    if order_rows is None:
        # The bytes a histogram reads per sample, over all samples (``_accumulate``).
        reads_w = criterion in (CRITERION_GINI, CRITERION_ERROR)
        reads_y = reads_w or criterion == CRITERION_HAMMING
        n_bytes = (X_binned.nbytes + (y.nbytes if reads_y else 0)
                   + (dummy_w.nbytes if reads_w else dummy_m.nbytes))
        order = ws.max_depth >= ROWS_MIN_DEPTH and n_bytes >= ROWS_MIN_BYTES
    else:
        order = bool(order_rows)
    rows = _ordered_rows(ws, X_binned, y, criterion, dummy_w, dummy_m, order)
    # The first call may compile the grower: once for all processes (_kernel_cache).
    with kernel_compile_lock(_grow_tree):
        _grow_tree(X_binned, y, dummy_w, dummy_m, n_bins, criterion, ws.max_depth, min_samples_leaf,
                   ws.hist, ws.count, ws.sample_index, ws.feature, ws.threshold, ws.left, ws.right,
                   ws.node_sum, ws.node_count, ws.node_start, ws.node_end, ws.node_depth,
                   ws.node_slot, ws.stack, ws.free_slots, ws.scratch, ws.n_nodes,
                   ws.partition_buf, ws.sparse_max, ws.slot_sparse, ws.support, ws.n_support,
                   ws.mark, ws.root_count, order, *rows)
    return int(ws.n_nodes[0])


def _ordered_rows(ws, X_binned, y, criterion, weight, weight_matrix, order):
    """The two row buffers of ``_grow_tree`` (X0, y0, w0, wm0, X1, y1, w1, wm1), the identity
    index over them and the per-node buffer state, allocated on the workspace on a fit's
    first tree that orders its rows (all of (1, ...) shape for one that does not). A
    criterion's unread arrays are (1,)-shaped: the labels are read by the Gini, error and
    Hamming criteria, the weight vector by Gini and error, the weight matrix by the others."""
    n, F = X_binned.shape
    if not order:
        n = 1
    uses_y = criterion in (CRITERION_GINI, CRITERION_ERROR, CRITERION_HAMMING)
    y_shape = (n,) if uses_y and n > 1 else (1,)
    w_shape = (n,) if weight.shape[0] == n and n > 1 else (1,)
    wm_shape = weight_matrix.shape if weight_matrix.shape[0] == n and n > 1 else (1, 1)
    parts = (((n, F), X_binned.dtype), (y_shape, y.dtype), (w_shape, weight.dtype),
             (wm_shape, weight_matrix.dtype))
    if getattr(ws, "_rows_key", None) != parts:
        ws._rows = (tuple(np.zeros(shape, dtype) for shape, dtype in parts)
                    + tuple(np.zeros(shape, dtype) for shape, dtype in parts)
                    + (np.arange(n, dtype=INDEX_DTYPE),
                       np.full(ws.max_nodes, -1, dtype=np.int8)))
        ws._rows_key = parts
    return ws._rows


_DUMMY_1D = np.zeros(1, dtype=HIST_DTYPE)
_DUMMY_2D = np.zeros((1, 1), dtype=HIST_DTYPE)


@inline_helper
def leaf_of(X_binned, i, feature, threshold, left, offset):
    """Leaf (node index relative to ``offset``) reached by sample i.

    The grower numbers a node's children consecutively (right == left + 1), so the walk is
    branch-free: go to ``left + (bin > threshold)``.
    """
    node = 0
    while left[offset + node] >= 0:
        j = offset + node
        node = left[j] + (X_binned[i, feature[j]] > threshold[j])
    return node


@njit(cache=True, nogil=True)
def apply_tree(X_binned, feature, threshold, left, offset, out_leaf):
    """Leaf (node index relative to ``offset``) reached by each sample.

    IN: node arrays of a forest, the tree's root at ``offset``. OUT: out_leaf (n,) int32.
    """
    for i in range(X_binned.shape[0]):
        out_leaf[i] = leaf_of(X_binned, i, feature, threshold, left, offset)
