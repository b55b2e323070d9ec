"""The workspace of the direct-objective tree growers of DMCBoost / DirectBoost.

One ``ZeroOneWorkspace`` is allocated per fit and shared by every tree of both phases: Phase I
(``zero_one_phase1``), Phase II (``margin_tree`` with its node searches ``margin_search_fast``
and ``margin_search_exhaustive``) and DirectBoost_avg's whole-tree Phase II
(``margin_tree_global``). The trees are written in the node layout of ``tree_layout``.
"""

from __future__ import annotations

import numpy as np

from .._dtypes import INDEX_DTYPE
from .tree_layout import max_nodes_for_depth

# Largest number of per-(group, feature, bin) counts for which the Phase II node search
# groups interchangeable examples (int32 each: 64 MB).
GROUP_CELLS = 2 ** 24


class ZeroOneWorkspace:
    """Buffers of the direct-objective tree growers, allocated once per fit.

    Written by the growers (node-indexed, root = 0): ``feature``, ``threshold``, ``left``,
    ``right`` (-1 for leaves), ``node_label`` (the label a node got from its parent's split;
    the leaf labels), ``node_start`` / ``node_end`` (its samples in ``sample_index``) and
    ``vote`` (each training sample's label in the tree). Phase I trees are grown by
    ``zero_one_phase1`` in the same workspace.
    """

    def __init__(self, n_samples, n_features, hist_width, n_classes, max_depth):
        n, F, B, K = int(n_samples), int(n_features), int(hist_width), int(n_classes)
        max_nodes = max_nodes_for_depth(max_depth, n)
        self.max_depth = int(max_depth)
        self.max_nodes = max_nodes
        self.n_classes = K
        self.sample_index = np.empty(n, INDEX_DTYPE)
        self.partition_buf = np.empty(n, INDEX_DTYPE)
        self.feature = np.full(max_nodes, -1, np.int32)
        self.threshold = np.zeros(max_nodes, np.int32)
        self.left = np.full(max_nodes, -1, np.int32)
        self.right = np.full(max_nodes, -1, np.int32)
        self.node_label = np.zeros(max_nodes, np.int32)
        self.node_start = np.zeros(max_nodes, np.int64)
        self.node_end = np.zeros(max_nodes, np.int64)
        self.node_depth = np.zeros(max_nodes, np.int32)
        self.stack = np.zeros(max_nodes, np.int32)
        self.vote = np.zeros(n, np.int32)
        self.n_nodes = np.zeros(1, np.int64)
        # A tree set aside while another is grown (DMCBoost's Phase I grows one under each
        # kink placement and keeps one: ``save_tree`` / ``restore_tree``).
        self._kept = (np.empty(max_nodes, np.int32), np.empty(max_nodes, np.int32),
                      np.empty(max_nodes, np.int32), np.empty(max_nodes, np.int32),
                      np.empty(max_nodes, np.int32), np.empty(n, np.int32))
        # Phase I (``zero_one_phase1``): round data (``prepare_round``) ...
        self.correct = np.zeros(n, np.bool_)
        self.rank = np.zeros(n, np.int32)
        self.s_idx = np.zeros((n, K), np.int32)
        self.axis = np.zeros(n + 1, np.float64)
        self.ref = np.zeros(n + 1, np.float64)
        self.em = np.zeros(n, np.float64)
        self.kink_pos = np.zeros((n, K), np.int32)
        self.ew = np.zeros((n, K), np.float64)
        # ... a node's events and per-(label, feature, bin) sweep state ...
        # (The events' buckets, three per axis position, are in ``Phase1Scratch.jpos``.)
        # (The label of each event: one byte while K <= 256, unsigned as an index.)
        # (Two stores, one per depth parity: ``zero_one_phase1._grow_phase1``.)
        self.ev_k = np.zeros(2 * max(n * (2 * K - 1), 1),
                             np.uint8 if K <= 256 else np.uint16 if K <= 65536 else np.uint32)
        self.cnt = np.zeros((K, F, B), np.int32)
        self.sa = np.zeros((K, F, B), np.float64)
        self.sc = np.zeros((K, F, B), np.float64)
        self.sd = np.zeros((K, F, B), np.float64)
        self.hmin = np.full((K, F, B), np.inf)
        self.tot = np.zeros(K, np.int64)
        self.tsa = np.zeros(K, np.float64)
        self.tsc = np.zeros(K, np.float64)
        self.tsd = np.zeros(K, np.float64)
        self.tmin = np.zeros(K, np.float64)
        self.nbin = np.zeros((F, B), np.int64)
        self.valid = np.zeros((F, B), np.bool_)
        # ... the candidates' keys (error, loss) for lines 7 and 9, and the labels ...
        self.L1 = np.zeros((F, B, K), np.int64)
        self.L2 = np.zeros((F, B, K), np.int64)
        self.X1 = np.zeros((F, B, K), np.float64)
        self.X2 = np.zeros((F, B, K), np.float64)
        self.kleft = np.zeros((F, B), np.int32)
        self.lmin = np.zeros(K, np.int64)
        self.xs = np.zeros(K, np.float64)
        self.pe = np.zeros((K, B), np.int64)
        self.pa = np.zeros((K, B), np.float64)
        self.pc = np.zeros((K, B), np.float64)
        self.pd = np.zeros((K, B), np.float64)
        self.ph = np.zeros((K, B), np.float64)
        self.sh = np.zeros((K, B), np.float64)
        self.rowdone = np.zeros(K, np.bool_)
        # ... and the rest of the tree (the global key): per axis position, R + 1 <= n + 2
        # entries (the axis holds 0 and up to n points).
        self.mark = np.zeros(n, np.int64)
        self.oE = np.zeros(n + 2, np.int64)
        self.oC = np.zeros(n + 2, np.float64)
        self.oD = np.zeros(n + 2, np.float64)
        self.oH = np.zeros(n + 2, np.float64)
        self.bE = np.zeros(n + 2, np.int64)
        self.bC = np.zeros(n + 2, np.float64)
        self.bD = np.zeros(n + 2, np.float64)
        # np.zeros maps pages lazily; write the large buffers once now so the first round
        # does not pay the page faults.
        for a in (self.s_idx, self.kink_pos, self.ew, self.ev_k):
            a.fill(0)
        # Phase II (``margin_tree``) also uses sa, sc, tsa, tsc, tsd, nbin and valid as
        # scratch.
        self.lab_mark = np.zeros(K, np.bool_)
        self.acc_a = np.zeros(K, np.float64)
        # Phase II scratch.
        self.margin = np.zeros(n, np.float64)
        self.order = np.zeros(n, INDEX_DTYPE)
        self.binpos = np.zeros(B + 1, np.int64)
        self.p = np.zeros(n, np.float64)
        self.s = np.zeros(n, np.float64)
        self.w = np.zeros(n, np.float64)
        # Value / slope-code / weight buffers of the fast node search (up to two entries per
        # item: an item's members on either side of a split).
        self.vbuf = np.zeros(2 * n, np.float64)
        self.sbuf = np.zeros(2 * n, np.float64)
        self.vtmp = np.zeros(2 * n, np.float64)
        self.wbuf = np.zeros(2 * n, np.int64)
        self.tmpw = np.zeros(2 * n, np.int64)
        # Groups of interchangeable examples (see margin_tree.grow_margin_tree); cum grows on
        # demand.
        self.gid = np.zeros(n, np.int64)
        self.grep = np.zeros(n, np.int64)
        self.loc = np.full(n, -1, np.int64)
        self.rep = np.zeros(n, np.int64)
        self.gcnt = np.zeros(n, np.int64)
        self.gmargin = np.zeros(n, np.float64)
        self.cum = np.zeros((1, F, B), np.int32)
        # Margin-ordered views of a node's items (see margin_search_fast._node_views); sx
        # takes the binned matrix's dtype on first use.
        self.sm = np.zeros(n, np.float64)
        self.sy = np.zeros(n, np.int32)
        self.sw = np.zeros((n, K), np.float64)
        self.sx = np.zeros((F, n), np.uint8)
        self.cand_heap = np.zeros(F * B, np.int64)
        # n' = 1 tables of the node search (``margin_search_fast._min_tables``), allocated on
        # first use.
        self.mtab = np.zeros((4, 1, 1, K), np.float64)
        self.buf = np.zeros(n, np.float64)
        self.inc = np.zeros(n, np.float64)
        self.dec = np.zeros(n, np.float64)
        self.jval = np.zeros(K, np.float64)
        self.cand_f = np.zeros(F * B, np.int32)
        self.cand_t = np.zeros(F * B, np.int32)
        self.ubt = np.zeros(F * B, np.float64)
        self.ubr = np.zeros(F * B, np.float64)
        self.top_lab = np.zeros(n, np.int32)

    def _tree_arrays(self):
        return (self.feature, self.threshold, self.left, self.right, self.node_label, self.vote)

    def save_tree(self, n_nodes):
        """Set the grown tree (its first n_nodes nodes and the training votes) aside."""
        for kept, a in zip(self._kept, self._tree_arrays()):
            m = n_nodes if a is not self.vote else a.shape[0]
            kept[:m] = a[:m]

    def restore_tree(self, n_nodes):
        """Put back the tree of the last ``save_tree(n_nodes)``."""
        for kept, a in zip(self._kept, self._tree_arrays()):
            m = n_nodes if a is not self.vote else a.shape[0]
            a[:m] = kept[:m]

    def same_votes_as_saved(self):
        """The current tree votes like the one set aside on every training sample."""
        return bool(np.array_equal(self.vote, self._kept[5]))
