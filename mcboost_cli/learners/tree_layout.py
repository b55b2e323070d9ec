"""The node layout every tree grower writes, and the bookkeeping of growing one.

The growers (``histogram_tree``, ``zero_one_phase1``, ``margin_tree``, ``margin_tree_global``)
grow a tree top-down and depth-first from a stack of nodes, with binary splits
``bin <= threshold`` on binned features, and differ only in how a node's split is chosen.
Node arrays are indexed by node, the root is node 0; a split node's two children are numbered
consecutively in creation order (right = left + 1), which the forest's branch-free tree walk
(``histogram_tree.leaf_of``) relies on; a leaf has feature = left = right = -1. Each node owns
the range ``sample_index[node_start:node_end]`` of its samples, and a split partitions that
range stably, left child first, so every node's samples stay in increasing row order.

The helpers do the bookkeeping the growers share (start a tree, split a node, write the
training samples' votes); everything a grower keeps per node beyond this layout (histogram
slots, channel sums, labels) stays in the grower.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._inline import inline_helper


def max_nodes_for_depth(max_depth: int, n_samples: int) -> int:
    """Upper bound on the nodes of a binary tree of that depth over n samples."""
    return int(min(2 ** (max_depth + 1) - 1, 2 * max(n_samples, 1) - 1))


@njit(cache=True, nogil=True)
def _partition(X_binned, sample_index, start, end, feature, threshold, buf):
    """Stable partition of sample_index[start:end] (left first); returns mid.

    Branch-free: every sample is written to both the left write position (in place; it never
    passes the read position) and the right buffer, and only one cursor advances. Stability
    keeps each node's samples in increasing row order, so the histogram passes over a child
    read X_binned forwards.
    """
    nl = start
    nr = 0
    for p in range(start, end):
        i = sample_index[p]
        r = np.int64(X_binned[i, feature] > threshold)
        sample_index[nl] = i
        buf[nr] = i
        nl += 1 - r
        nr += r
    for q in range(nr):
        sample_index[nl + q] = buf[q]
    return nl


# The per-node helpers are inlined (by LLVM: ``_inline``), so each grower compiles to the loop
# it had with the bookkeeping written out: sharing it costs no call per node.
@inline_helper
def start_tree(n_samples, sample_index, feature, left, right, node_start, node_end, node_depth,
               stack):
    """Make the root (node 0) a leaf at depth 0 holding all samples in row order, and the
    only node on the stack. Returns (n_nodes, top) = (1, 1): the number of nodes and the
    stack height."""
    for i in range(n_samples):
        sample_index[i] = i
    node_start[0] = 0
    node_end[0] = n_samples
    node_depth[0] = 0
    feature[0] = -1
    left[0] = -1
    right[0] = -1
    stack[0] = 0
    return 1, 1


@inline_helper
def pop_node(stack, top):
    """Take the next node to grow off the stack. Returns (node, top)."""
    top -= 1
    return stack[top], top


@inline_helper
def split_node(X_binned, nd, bf, bt, n_nodes, top, sample_index, partition_buf, feature,
               threshold, left, right, node_start, node_end, node_depth, stack):
    """Split node ``nd`` on ``bin <= bt`` of feature ``bf``: partition its samples, make its
    two children leaves one level deeper, and push them right first, so that the left
    subtree is grown (and numbered) first.

    Children are numbered consecutively (rc = lc + 1): tree walks rely on it. Returns
    (lc, rc, mid, n_nodes, top): the children, where the right child's samples start in
    ``sample_index``, and the updated node count and stack height.
    """
    mid = _partition(X_binned, sample_index, node_start[nd], node_end[nd], bf, bt,
                     partition_buf)
    return make_children(nd, bf, bt, mid, n_nodes, top, feature, threshold, left, right,
                         node_start, node_end, node_depth, stack)


@inline_helper
def make_children(nd, bf, bt, mid, n_nodes, top, feature, threshold, left, right, node_start,
                  node_end, node_depth, stack):
    """``split_node``'s bookkeeping once the node's samples are partitioned at ``mid`` (for
    growers that partition them their own way, e.g. with the node-ordered rows of
    ``histogram_tree``). Returns (lc, rc, mid, n_nodes, top) as ``split_node`` does."""
    start = node_start[nd]
    end = node_end[nd]
    feature[nd] = bf
    threshold[nd] = bt
    lc = n_nodes
    rc = n_nodes + 1
    left[nd] = lc
    right[nd] = rc
    for ch in (lc, rc):
        feature[ch] = -1
        left[ch] = -1
        right[ch] = -1
        node_depth[ch] = node_depth[nd] + 1
    node_start[lc] = start
    node_end[lc] = mid
    node_start[rc] = mid
    node_end[rc] = end
    stack[top] = rc
    stack[top + 1] = lc
    return lc, rc, mid, n_nodes + 2, top + 2


@inline_helper
def write_votes(sample_index, lo, hi, label, vote):
    """Vote ``label`` for the samples sample_index[lo:hi] (a node's)."""
    for q in range(lo, hi):
        vote[sample_index[q]] = label


@njit(cache=True, nogil=True)
def write_leaf_votes(n_nodes, left, node_start, node_end, node_label, sample_index, vote):
    """Each training sample's vote: the label of its leaf."""
    for nd in range(n_nodes):
        if left[nd] < 0:
            write_votes(sample_index, node_start[nd], node_end[nd], node_label[nd], vote)
