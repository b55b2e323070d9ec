"""AdaBoost.MH with multi-class Hamming trees (real-valued, confidence-rated votes).

Schapire & Singer reduce K-class learning to binary problems on (example, label) pairs with
Y(i, l) = +1 if y_i = l else -1 and a distribution D over pairs (D_1 = 1/(nK), Fig. 4 of [1]).
Each round one tree partitions the input space into blocks j (its leaves); the leaf predicts,
for every label l, the real value

    c_{j,l} = 1/2 ln((W+_{jl} + eps) / (W-_{jl} + eps))                 ([1], eqs. (13)/(14))

where W+/W- are the D-weights of pairs in block j with Y = +1 / -1, and eps = 1/(nK) is the
smoothing that [1] (sec. 4.2) recommends. The partition is chosen to minimise
Z = 2 sum_j sum_l sqrt(W+_{jl} W-_{jl}) ([1], sec. 4 with eq. (10) applied to each label) —
grown greedily, one split at a time, with ``CRITERION_HAMMING``: depth-first to ``max_depth``
by ``learners.histogram_tree`` (the default), or best-first to ``max_leaves`` leaves by
``learners.leafwise_tree`` (the "eight-node classification trees" of the coherence paper
[2], sec. 5: of all leaves, the one whose best split lowers Z most is split next).
The update is D_{t+1}(i, l) = D_t(i, l) exp(-Y(i, l) c_{j(i), l}) / Z_t, and the prediction
argmax_l sum_t c_t(x, l) (the "multi-class Hamming tree" of Kégl & Busa-Fekete's AdaBoost.MH
with one vote vector per leaf; ALGORITHMS.md records this reading).

References
----------
.. [1] R. E. Schapire, Y. Singer. Improved boosting algorithms using confidence-rated
       predictions. Machine Learning 37(3):297-336, 1999.
.. [2] Zhang, Jordan, Li, Yeung. Coherence functions for multicategory margin-based
       classification methods. AISTATS 2009 (sec. 5: "eight-node regression trees are used
       as weak learners for all the boosting algorithms with the exception of AdaBoost.MH,
       which is based on eight-node classification trees").
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._dtypes import WEIGHT_DTYPE
from ..learners.forest import VECTOR_VOTE, Forest
from ..learners.histogram_tree import CRITERION_HAMMING, TreeWorkspace, grow_tree
from ..learners.leafwise_tree import LeafwiseWorkspace, grow_leafwise_hamming_tree
from .base import BaseBoosting, RoundOutcome
from .params import MAX_BINS, MAX_DEPTH, N_ROUNDS, ParamSpec
from .registry import register

# Added after AdaBoost.MH fits were stored: the default (0, the depth-wise trees, the only
# trees before) is not keyed. 1 leaf is no tree: the range is {0} and [2, 1024].
MAX_LEAVES = ParamSpec(
    "max_leaves", "int", 0,
    "leaves of each Hamming tree, grown best-first (8 = the 'eight-node classification "
    "trees' of the coherence paper); 0 = depth-wise trees of max_depth",
    low=2, high=1024, also=(0,), default_in_key=False)


@njit(cache=True, nogil=True)
def _leaf_values_and_reweight(left, node_sum, n_nodes, node_start, node_end, sample_index, y,
                              D, eps, leaf_value, factor):
    """c_{j,l} for every leaf j, then D(i,l) *= exp(-Y(i,l) c_{j(i),l}) and normalise.

    IN: the workspace's tree; node_sum[:, :K] = total label weight, [:, K:] = W+.
    IN/OUT: D (n, K). OUT: leaf_value (nodes, K). SCRATCH: factor (2, K). Returns Z_t (the
    normaliser).
    """
    K = D.shape[1]
    z = 0.0
    for nd in range(n_nodes):
        if left[nd] >= 0:
            continue
        for l in range(K):
            wpos = node_sum[nd, K + l]
            wneg = node_sum[nd, l] - wpos
            if wneg < 0.0:
                wneg = 0.0
            c = 0.5 * np.log((wpos + eps) / (wneg + eps))
            leaf_value[nd, l] = c
            # exp(-Y c) takes two values per leaf and label: computed once here, not once
            # per example (the same numbers; on Poker525k, 394k examples x 10 labels, the
            # per-example exp was half of a depth-3 round).
            factor[0, l] = np.exp(-c)     # Y(i, l) = +1: l is the example's label
            factor[1, l] = np.exp(c)      # Y(i, l) = -1
        for p in range(node_start[nd], node_end[nd]):
            i = sample_index[p]
            yi = y[i]
            for l in range(K):
                D[i, l] *= factor[0, l] if l == yi else factor[1, l]
                z += D[i, l]
    for i in range(D.shape[0]):
        for l in range(K):
            D[i, l] /= z
    return z


@register
class AdaBoostMH(BaseBoosting):
    """Real AdaBoost.MH (Schapire & Singer 1999) with multi-class Hamming trees.

    Parameters
    ----------
    n_rounds : int, default=100
    max_depth : int, default=3
        Depth of the depth-wise trees (``max_leaves`` = 0).
    max_bins : int, default=255
    max_leaves : int, default=0
        0: trees grown depth-first to ``max_depth``, as every fit before this parameter.
        L >= 2: trees of (at most) L leaves grown best-first by the same Z criterion, the
        leaf of largest Z drop split first (``learners.leafwise_tree``); ``max_depth`` is then
        unused. L = 8 is the weak learner of AdaBoost.MH in the coherence paper's
        experiments (Zhang, Jordan, Li & Yeung, AISTATS 2009, sec. 5: "eight-node
        classification trees", beside the eight-node regression trees of the other
        boosters). With L = 2 both growers make the root's best split: the fit equals
        ``max_depth=1``'s.
    """

    name = "adaboost_mh"
    family = "AdaBoost"
    reference = ("Schapire & Singer, Improved boosting algorithms using confidence-rated "
                 "predictions, Machine Learning 1999")
    version = "1"
    param_specs = (N_ROUNDS, MAX_DEPTH, MAX_BINS, MAX_LEAVES)
    test_params = {"n_rounds": 15, "max_depth": 2}
    test_param_variants = ({"n_rounds": 15, "max_leaves": 5},)

    def __init__(self, n_rounds=100, max_depth=3, max_bins=255, max_leaves=0):
        self.n_rounds = n_rounds
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.max_leaves = max_leaves

    def _init_state(self, X_binned, y, n_bins, hist_width):
        n, n_features = X_binned.shape
        K = self.n_classes_
        self._n_bins = n_bins
        self._D = np.full((n, K), 1.0 / (n * K), WEIGHT_DTYPE)       # D_1(i, l) = 1/(nK)
        self._eps = 1.0 / (n * K)
        max_leaves = int(self.max_leaves)
        if max_leaves == 0:
            self._ws = TreeWorkspace(n, n_features, hist_width, 2 * K, int(self.max_depth))
        elif max_leaves >= 2:
            self._ws = LeafwiseWorkspace(n, n_features, hist_width, max_leaves,
                                         n_channels=2 * K)
        else:
            raise ValueError(f"max_leaves must be 0 (depth-wise trees of max_depth) or at "
                             f"least 2, got {self.max_leaves!r}")
        self._leaf_value = np.zeros((self._ws.max_nodes, K), np.float64)
        self._factor = np.empty((2, K), np.float64)
        self.forest_ = Forest(VECTOR_VOTE, K, node_capacity=self._ws.max_nodes * 64)

    def _free_state(self):
        del self._D, self._ws, self._leaf_value, self._factor

    def _boost(self, t, X_binned, y):
        ws = self._ws
        if isinstance(ws, LeafwiseWorkspace):
            m = grow_leafwise_hamming_tree(ws, X_binned, self._n_bins, y, self._D)
            # A leaf keeps the threshold an earlier tree's node of its number had (unused by
            # the walk); zero it so the stored forest does not depend on the workspace's past
            # (a fit resumed from a checkpoint starts with a fresh workspace).
            ws.threshold[:m][ws.left[:m] < 0] = 0
        else:
            m = grow_tree(ws, X_binned, y, self._n_bins, CRITERION_HAMMING,
                          weight_matrix=self._D)
        # Both workspaces hold the tree in the node layout of ``tree_layout`` with each
        # leaf's rows at sample_index[node_start:node_end] and its channel sums in node_sum.
        _leaf_values_and_reweight(ws.left, ws.node_sum, m, ws.node_start, ws.node_end,
                                  ws.sample_index, y, self._D, self._eps, self._leaf_value,
                                  self._factor)
        self.forest_.append(ws, m, leaf_value=self._leaf_value)
        return RoundOutcome.CONTINUE
