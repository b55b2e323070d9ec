"""What GentleBoost.C, GentleBoost.E and MulLogitBoost share: one regression tree per class
per round, fitted by weighted least squares to a working response, and a centred update.

The three boosters of the coherence paper's experiments (Zhang, Jordan, Li & Yeung, AISTATS
2009, sec. 5) differ only in the working responses and weights they hand to the trees and in
the factor of the centring; each round otherwise runs the same steps:

1. the subclass's ``_working_responses(t, y)`` gives z (n, m) and w (n, m); each class's
   weights are scaled to sum 1 (the fit does not depend on their scale, the grower's
   tie tolerance does: see ``_boost``);
2. for each class j, a best-first least-squares tree with ``max_leaves`` leaves is fitted to
   z_.j with weights w_.j (``learners.leafwise_tree``, the "8-node trees");
3. the round's fits h_j(x) are added after centring:
   g <- g + s (h - mean_l h_l), with s = ``_centre_scale(m)``: (m-1)/m for LogitBoost's and
   GentleBoost.C's symmetrisation, 1 for GentleBoost.E's f = G - mean G.

The update is linear in the fits, so tree j's part of it is the vector
s h_j(x) (e_j - 1/m): every tree is stored as a ``VECTOR_VOTE`` tree whose leaf of value v
votes s v (e_j - 1/m). ``ClassTreeForest`` keeps the m trees of a round together, so the
base loop's round t (``add_round``, ``truncate``, staged scores) is all of them.

The training margins g(x_i) are the booster's state (``_margins``). They are updated tree by
tree from the grower's partition (leaf nd holds the rows
``sample_index[node_start[nd]:node_end[nd]]``), adding the very leaf vectors the forest
stores in the same order, so they equal the forest's scores of the training set bit for
bit, and the training curve is read from them without walking the trees.

Map of the module: ``ClassTreeForest``, ``PerClassTreeBoosting`` (the round), and
``MAX_LEAVES`` (the shared parameter).
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np

from .._dtypes import SCORE_DTYPE
from ..learners.forest import VECTOR_VOTE, Forest, _add_vector_round
from ..learners.leafwise_tree import LeafwiseWorkspace, grow_leafwise_tree
from .base import BaseBoosting, RoundOutcome
from .params import ParamSpec

MAX_LEAVES = ParamSpec("max_leaves", "int", 8,
                       "leaves of each per-class regression tree (8 = the '8-node trees' of "
                       "Friedman et al. 2000 and the coherence paper)", low=2, high=1024)


class ClassTreeForest(Forest):
    """A ``VECTOR_VOTE`` forest whose round t is the ``trees_per_round`` trees
    t * trees_per_round, ..., (t + 1) * trees_per_round - 1 (one per class).

    ``add_round`` and ``truncate`` count rounds, as the base loop does; ``n_trees`` and
    ``alpha`` (all 1) count trees.
    """

    def __init__(self, n_classes: int, trees_per_round: int, node_capacity: int = 1024):
        super().__init__(VECTOR_VOTE, n_classes, node_capacity)
        self.trees_per_round = int(trees_per_round)

    def add_round(self, t: int, X_binned, y, scores, pred) -> int:
        """Add every tree of round t to ``scores`` in order; returns the error count after
        the last one (each tree's kernel rewrites ``pred`` from the whole row)."""
        n_errors = 0
        for tree in range(t * self.trees_per_round, (t + 1) * self.trees_per_round):
            n_errors = _add_vector_round(X_binned, self.feature, self.threshold, self.left,
                                         self.tree_offset[tree], self.leaf_value, y, scores,
                                         pred)
        return n_errors

    def truncate(self, n_rounds: int):
        super().truncate(n_rounds * self.trees_per_round)


class PerClassTreeBoosting(BaseBoosting):
    """Base of the boosters that fit one least-squares tree per class per round.

    Subclasses define ``_working_responses(t, y) -> (z, w)`` (arrays (n, m) from the current
    ``self._margins``) and ``_centre_scale(m)``, and may use ``_init_extra`` for their own
    state. The parameters ``n_rounds``, ``max_leaves``, ``max_bins`` are this class's; a
    subclass with more (GentleBoost.C's ``temperature``) defines its own ``__init__``.
    """

    def __init__(self, n_rounds=100, max_leaves=8, max_bins=255):
        self.n_rounds = n_rounds
        self.max_leaves = max_leaves
        self.max_bins = max_bins

    # The per-tree leaf votes are rewritten for every tree: scratch, like the workspace.
    _scratch_attrs = ("_ws", "_leaf_vote")

    def _init_state(self, X_binned, y, n_bins, hist_width):
        n, n_features = X_binned.shape
        m = self.n_classes_
        self._n_bins = n_bins
        self._ws = LeafwiseWorkspace(n, n_features, hist_width, int(self.max_leaves))
        self._margins = np.zeros((n, m), SCORE_DTYPE)           # g(x_i), in G: rows sum to 0
        self._leaf_vote = np.zeros((self._ws.max_nodes, m), SCORE_DTYPE)
        self.forest_ = ClassTreeForest(m, m, node_capacity=self._ws.max_nodes * m * 64)

    def _free_state(self):
        del self._ws, self._leaf_vote, self._margins

    @abstractmethod
    def _working_responses(self, t, y):
        """The hook each booster defines: (z, w), working responses and weights (n, m)."""

    @abstractmethod
    def _centre_scale(self, m: int) -> float:
        """The hook each booster defines: the factor of the centred update (e.g. (m-1)/m)."""

    def _boost(self, t, X_binned, y):
        ws = self._ws
        m = self.n_classes_
        z, w = self._working_responses(t, y)
        # The weighted least-squares fit does not depend on the scale of a class's weights,
        # but the grower's tie tolerance is absolute near zero gain (1e-12 (1 + |score|)):
        # once the fit separates the training set, w = p (1 - p) shrinks towards 0 and every
        # gain would fall under it, ending every tree at its root (on Vowel from round ~33).
        # Each class's weights are therefore scaled to sum 1, which changes no fit.
        total = w.sum(axis=0)
        np.divide(w, total, out=w, where=total > 0.0)
        # Tree j's leaf of value v votes s v (e_j - 1/m): the centred update, split by tree.
        s = self._centre_scale(m)
        for j in range(m):
            centring = np.full(m, -1.0 / m)
            centring[j] += 1.0
            n_nodes = grow_leafwise_tree(ws, X_binned, self._n_bins, z[:, j], w[:, j])
            # A leaf keeps the threshold an earlier tree's node of its number had (unused by
            # the walk); zero it so the stored forest does not depend on the workspace's past
            # (a fit resumed from a checkpoint starts with a fresh workspace).
            ws.threshold[:n_nodes][ws.left[:n_nodes] < 0] = 0
            vote = self._leaf_vote
            vote[:n_nodes] = (s * ws.leaf_value[:n_nodes])[:, None] * centring[None, :]
            for nd in range(n_nodes):
                if ws.left[nd] < 0:
                    rows = ws.sample_index[ws.node_start[nd]:ws.node_end[nd]]
                    self._margins[rows] += vote[nd]
            self.forest_.append(ws, n_nodes, leaf_value=vote)
        return RoundOutcome.CONTINUE

    def _add_train_round(self, t, X_binned, y, scores, pred) -> int:
        """The training scores after round t are the margins (the same additions in the same
        order as the forest's walk)."""
        scores[...] = self._margins
        pred[...] = np.argmax(scores, axis=1)
        return int(np.count_nonzero(pred != y))
