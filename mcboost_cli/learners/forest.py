"""Storage of a fitted ensemble of trees, and the kernels that add one round to score matrices.

All trees of a fit live in flat node arrays (capacity doubles when full, so no allocation per
round in the steady state); ``tree_offset[t]`` is the root of round t. A leaf votes in one of
two ways:

``LABEL_VOTE``   the leaf names a class c and the round adds ``alpha_t`` to F(x, c)
                 (AdaBoost.M1, SAMME — and any booster whose weak learner outputs a label);
``VECTOR_VOTE``  the leaf holds a real vector v in R^K and the round adds v to F(x, .)
                 (AdaBoost.MH's confidence-rated Hamming trees).

``add_round`` updates running score matrices and their argmax predictions in place and
returns the number of errors, so a fit records the 0-1 error of every round on every
evaluation set in one pass, without refitting or re-predicting. ``ReweightedForest`` is the
forest of a totally corrective booster (LPBoost), which sets the vote weights of every kept
round anew in every round: its ``add_round(t, ...)`` rewrites the running scores as those of
the ensemble that stood after round t (the weights of round t on trees 0..t) instead of
adding round t's votes, so the same loop, curves and staged predictions serve it. A label vote raises one column
per row, so the argmax is updated from the old one (``_argmax_after_vote``, np.argmax's tie
rule: the lowest class among equal maxima) rather than recomputed. ``DeferredLabelVotes``
applies several rounds of training-set votes in one pass over the rows, with the same
numbers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._dtypes import SCORE_DTYPE
from .histogram_tree import leaf_of

LABEL_VOTE = 0
VECTOR_VOTE = 1


@njit(cache=True, nogil=True)
def _argmax_after_vote(c, s_c, p, s_p):
    """First argmax of a row whose first argmax was p, after only column c grew (to s_c; s_p
    is column p's score read after that update, so s_p == s_c when c == p): c if it now beats
    p, or ties it with a lower index; else p. This is ``np.argmax``'s tie rule (lowest index
    among equal maxima): the columns before p were below s_p, those after it at most s_p,
    and only c moved up. Written without branches (``|``, ``&`` on booleans, a select): the
    outcome is data-dependent, and mispredicted branches made the loops below twice slower.
    """
    take = (s_c > s_p) | ((s_c == s_p) & (c < p))
    return c if take else p


@njit(cache=True, nogil=True)
def _first_argmax_row(scores, i):
    """First argmax of row i (lowest index on ties), by a full scan."""
    best = 0
    for k in range(1, scores.shape[1]):
        if scores[i, k] > scores[i, best]:
            best = k
    return best


# The label-vote kernels below write the per-row update out rather than calling a helper that
# takes the arrays: numba's IR inlining of such a helper (inline="always") made this loop, the
# training-curve bookkeeping of every fit, 2.5x slower (0.28 vs 0.11 ms per round on
# Letter-16k, 26 classes); the scalar helpers above are inlined by LLVM at no cost. A vote
# weight alpha >= 0 raises one column, so the argmax follows from the old one
# (``_argmax_after_vote``); a negative (or NaN) alpha may lower the maximum, and the row is
# rescanned. The test on alpha is hoisted out of the row loops.


@njit(cache=True, nogil=True)
def _add_label_round(X_binned, feature, threshold, left, offset, leaf_label, alpha, y, scores,
                     pred):
    """F(x, c_leaf) += alpha for every sample; keeps pred = first argmax; returns #errors.

    IN: the forest's node arrays, the round's root ``offset``, its ``alpha``; y (n,) int32
    (labels < 0 never match). IN/OUT: scores (n, K), pred (n,) int32.
    """
    n_errors = 0
    rising = alpha >= 0.0
    for i in range(X_binned.shape[0]):
        node = leaf_of(X_binned, i, feature, threshold, left, offset)
        c = leaf_label[offset + node]
        s = scores[i, c] + alpha
        scores[i, c] = s
        if rising:
            p = _argmax_after_vote(c, s, pred[i], scores[i, pred[i]])
        else:
            p = _first_argmax_row(scores, i)
        pred[i] = p
        n_errors += np.int64(p != y[i])
    return n_errors


@njit(cache=True, nogil=True)
def _add_label_votes(vote, alpha, y, scores, pred):
    """As _add_label_round, with each sample's label of the round given (no tree walk).

    IN: vote (n,) int32 = the round's label for each sample. IN/OUT: scores, pred.
    """
    n_errors = 0
    if alpha >= 0.0:
        for i in range(vote.shape[0]):
            c = vote[i]
            s = scores[i, c] + alpha
            scores[i, c] = s
            p = _argmax_after_vote(c, s, pred[i], scores[i, pred[i]])
            pred[i] = p
            n_errors += np.int64(p != y[i])
    else:
        for i in range(vote.shape[0]):
            scores[i, vote[i]] += alpha
            p = _first_argmax_row(scores, i)
            pred[i] = p
            n_errors += np.int64(p != y[i])
    return n_errors


@njit(cache=True, nogil=True)
def _add_label_vote_rounds(votes, alphas, n_rounds, y, scores, pred, n_errors):
    """``_add_label_votes`` of ``n_rounds`` consecutive rounds in one pass over the rows.

    IN: votes (R, n) int32, row r = round r's label of each sample; alphas (R,); the first
    n_rounds rows are applied, in order. IN/OUT: scores, pred. OUT: n_errors[r] = errors
    after round r. Each score receives the same additions in the same order as n_rounds calls
    of ``_add_label_votes``, so every number is the same; but each row of scores is brought
    into cache once for all the rounds instead of once per round: that row traffic, not the
    arithmetic, was most of the per-round cost of the bookkeeping (0.2 of 1.3 ms per SAMME
    round on Letter-16k, 26 classes).
    """
    rising = True
    for r in range(n_rounds):
        n_errors[r] = 0
        rising &= alphas[r] >= 0.0
    if rising:      # the usual case (SAMME, AdaBoost.M1): no rescan, no branch in the loop
        for i in range(scores.shape[0]):
            p = pred[i]
            yi = y[i]
            for r in range(n_rounds):
                c = votes[r, i]
                s = scores[i, c] + alphas[r]
                scores[i, c] = s
                p = _argmax_after_vote(c, s, p, scores[i, p])
                n_errors[r] += np.int64(p != yi)
            pred[i] = p
        return
    for i in range(scores.shape[0]):
        p = pred[i]
        yi = y[i]
        for r in range(n_rounds):
            c = votes[r, i]
            alpha = alphas[r]
            s = scores[i, c] + alpha
            scores[i, c] = s
            if alpha >= 0.0:
                p = _argmax_after_vote(c, s, p, scores[i, p])
            else:
                p = _first_argmax_row(scores, i)
            n_errors[r] += np.int64(p != yi)
        pred[i] = p


class DeferredLabelVotes:
    """Training-set bookkeeping of label votes, applied ``batch`` rounds at a time.

    ``add(t, vote, alpha)`` keeps round t's per-sample labels (rounds come in order);
    ``flush(y, scores, pred, errors)`` applies the kept rounds with
    ``_add_label_vote_rounds`` and writes their 0-1 errors to ``errors[t]``. The numbers are
    those of applying every round at once (``Forest.add_round_votes``); only the moment they
    are known moves, so a caller flushes before it reads scores, pred or errors. It holds
    ``batch`` x n int32 labels (8 x 525,010 x 4 bytes = 17 MB on Poker525k).
    """

    def __init__(self, n_samples: int, batch: int = 8):
        self.votes = np.zeros((batch, n_samples), np.int32)
        self.alphas = np.zeros(batch, np.float64)
        self.n_errors = np.zeros(batch, np.int64)
        self.first = 0
        self.count = 0

    def add(self, t: int, vote, alpha: float) -> bool:
        """Keep round t; returns True when the batch is full (time to flush)."""
        if self.count == 0:
            self.first = t
        elif t != self.first + self.count:
            raise ValueError(f"round {t} after round {self.first + self.count - 1}")
        self.votes[self.count] = vote
        self.alphas[self.count] = alpha
        self.count += 1
        return self.count == self.alphas.shape[0]

    def flush(self, y, scores, pred, errors):
        """Apply the kept rounds; errors[first + r] = their error rates."""
        if self.count == 0:
            return
        _add_label_vote_rounds(self.votes, self.alphas, self.count, y, scores, pred,
                               self.n_errors)
        m = self.count
        errors[self.first:self.first + m] = self.n_errors[:m] / max(scores.shape[0], 1)
        self.count = 0


@njit(cache=True, nogil=True)
def _add_vector_round(X_binned, feature, threshold, left, offset, leaf_value, y, scores, pred):
    """F(x, .) += v_leaf for every sample; pred = first argmax; returns #errors."""
    n_errors = 0
    n_classes = scores.shape[1]
    for i in range(X_binned.shape[0]):
        node = leaf_of(X_binned, i, feature, threshold, left, offset)
        best = 0
        for k in range(n_classes):
            scores[i, k] += leaf_value[offset + node, k]
            if scores[i, k] > scores[i, best]:
                best = k
        pred[i] = best
        if best != y[i]:
            n_errors += 1
    return n_errors


class Forest:
    """The trees of one fit, in flat arrays, with one vote kind.

    Parameters
    ----------
    vote : {LABEL_VOTE, VECTOR_VOTE}
    n_classes : int
    node_capacity : int
        Initial number of node slots (grows by doubling).
    """

    def __init__(self, vote: int, n_classes: int, node_capacity: int = 1024):
        self.vote = vote
        self.n_classes = n_classes
        cap = max(int(node_capacity), 16)
        self.feature = np.full(cap, -1, np.int32)
        self.threshold = np.zeros(cap, np.int32)
        self.left = np.full(cap, -1, np.int32)
        self.leaf_label = np.zeros(cap, np.int32)
        self.leaf_value = np.zeros((cap if vote == VECTOR_VOTE else 1, n_classes), SCORE_DTYPE)
        self.tree_offset = []
        self.alpha = []
        self.n_nodes_total = 0

    @property
    def n_trees(self) -> int:
        return len(self.tree_offset)

    def _reserve(self, extra: int):
        need = self.n_nodes_total + extra
        cap = self.feature.shape[0]
        if need <= cap:
            return
        new = max(need, 2 * cap)

        def grow(a, fill):
            b = np.full((new,) + a.shape[1:], fill, a.dtype)
            b[: a.shape[0]] = a
            return b

        self.feature = grow(self.feature, -1)
        self.threshold = grow(self.threshold, 0)
        self.left = grow(self.left, -1)
        self.leaf_label = grow(self.leaf_label, 0)
        if self.vote == VECTOR_VOTE:
            self.leaf_value = grow(self.leaf_value, 0.0)

    def append(self, ws, n_nodes: int, *, leaf_label=None, leaf_value=None, alpha=1.0) -> int:
        """Copy the tree grown in workspace ``ws`` (its first n_nodes nodes); returns its index.

        ``leaf_label`` (n_nodes,) for LABEL_VOTE, ``leaf_value`` (n_nodes, K) for VECTOR_VOTE;
        entries of internal nodes are ignored.
        """
        self._reserve(n_nodes)
        o = self.n_nodes_total
        self.feature[o:o + n_nodes] = ws.feature[:n_nodes]
        self.threshold[o:o + n_nodes] = ws.threshold[:n_nodes]
        self.left[o:o + n_nodes] = ws.left[:n_nodes]
        if self.vote == LABEL_VOTE:
            self.leaf_label[o:o + n_nodes] = leaf_label[:n_nodes]
        else:
            self.leaf_value[o:o + n_nodes] = leaf_value[:n_nodes]
        self.tree_offset.append(o)
        self.alpha.append(float(alpha))
        self.n_nodes_total += n_nodes
        return len(self.tree_offset) - 1

    def set_alpha(self, t: int, alpha: float):
        self.alpha[t] = float(alpha)

    def add_round(self, t: int, X_binned, y, scores, pred) -> int:
        """Add round t's votes to ``scores`` (n, K) and ``pred``; returns the error count."""
        o = self.tree_offset[t]
        if self.vote == LABEL_VOTE:
            return _add_label_round(X_binned, self.feature, self.threshold, self.left, o,
                                    self.leaf_label, self.alpha[t], y, scores, pred)
        return _add_vector_round(X_binned, self.feature, self.threshold, self.left, o,
                                 self.leaf_value, y, scores, pred)

    def add_round_votes(self, t: int, vote, y, scores, pred) -> int:
        """``add_round`` for a set whose per-sample labels of round t are known (LABEL_VOTE)."""
        return _add_label_votes(vote, self.alpha[t], y, scores, pred)

    def truncate(self, n_trees: int):
        """Keep the first n_trees rounds (used when the last round is discarded)."""
        if n_trees < self.n_trees:
            self.n_nodes_total = self.tree_offset[n_trees] if n_trees > 0 else 0
            del self.tree_offset[n_trees:]
            del self.alpha[n_trees:]


# ---------------------------------------------------------------------------------------------
# Totally corrective ensembles
# ---------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _set_label_scores(X_binned, feature, threshold, left, offsets, leaf_label, weights, used,
                      y, scores, pred):
    """scores[i, c] = sum of weights[j] over the trees j in ``used`` whose leaf for x_i names
    class c (in the order of ``used``); pred = first argmax; returns #errors.

    IN: the forest's node arrays, ``offsets`` (T,) the trees' roots, ``weights`` (T,),
    ``used`` (U,) int64 the trees with a non-zero weight, increasing; y (n,) int32 (labels
    < 0 never match). OUT: scores (n, K) (overwritten), pred (n,) int32.
    """
    n_errors = 0
    for i in range(X_binned.shape[0]):
        for k in range(scores.shape[1]):
            scores[i, k] = 0.0
        for u in range(used.shape[0]):
            j = used[u]
            o = offsets[j]
            node = leaf_of(X_binned, i, feature, threshold, left, o)
            scores[i, leaf_label[o + node]] += weights[j]
        p = _first_argmax_row(scores, i)
        pred[i] = p
        n_errors += np.int64(p != y[i])
    return n_errors


def set_label_scores_naive(forest, weights, X_binned, y):
    """Numpy twin of ``_set_label_scores`` (tests only): (scores, pred, #errors) of the
    label-vote ensemble of ``forest``'s first len(weights) trees with these weights."""
    from .histogram_tree import apply_tree

    n = X_binned.shape[0]
    scores = np.zeros((n, forest.n_classes), SCORE_DTYPE)
    leaf = np.empty(n, np.int32)
    for j, w in enumerate(weights):
        if w == 0.0:
            continue
        o = forest.tree_offset[j]
        apply_tree(X_binned, forest.feature, forest.threshold, forest.left, o, leaf)
        np.add.at(scores, (np.arange(n), forest.leaf_label[o + leaf]), w)
    pred = np.argmax(scores, axis=1).astype(np.int32)
    return scores, pred, int(np.sum(pred != y))


class ReweightedForest(Forest):
    """Label-vote trees whose vote weights are all set anew after every round (a totally
    corrective booster: LPBoost re-solves its master LP over every tree kept so far).

    ``set_weights(w)`` after round t records the weights w (t + 1,) of the ensemble that
    round produced (``weight_path[t]``) and makes them the forest's ``alpha``. ``add_round(t,
    X, y, scores, pred)`` *rewrites* ``scores`` and ``pred`` as those of that ensemble (its
    previous content is not read) and returns its error count: the base loop calls it once
    per kept round, in order, and so records, on every set, the errors of the ensemble as it
    stood after each round; ``staged_predict`` and ``class_scores(X, n_rounds)`` give
    the same ensembles. A round costs a walk of the trees of non-zero weight (an LP
    solution's are few: it is a vertex).
    """

    def __init__(self, n_classes: int, node_capacity: int = 1024):
        super().__init__(LABEL_VOTE, n_classes, node_capacity)
        self.weight_path = []

    def set_weights(self, weights):
        """The weights of every tree after the round that appended the last one."""
        w = np.array(weights, dtype=np.float64)
        if w.shape != (self.n_trees,):
            raise ValueError(f"{w.shape[0]} weights for {self.n_trees} trees")
        self.weight_path.append(w)
        self.alpha = [float(v) for v in w]

    def add_round(self, t: int, X_binned, y, scores, pred) -> int:
        """scores, pred := those of the ensemble after round t; returns its error count."""
        w = self.weight_path[t]
        offsets = np.asarray(self.tree_offset[:t + 1], dtype=np.int64)
        used = np.flatnonzero(w).astype(np.int64)
        return _set_label_scores(X_binned, self.feature, self.threshold, self.left, offsets,
                                 self.leaf_label, w, used, y, scores, pred)

    def add_round_votes(self, t, vote, y, scores, pred):
        # Totally corrective: round t re-weights every earlier tree, so no round's votes can
        # be added on top of the previous scores; ``add_round`` rewrites them instead.
        raise TypeError("a reweighted forest's rounds are not additive: use add_round(t, ...)")

    def truncate(self, n_trees: int):
        super().truncate(n_trees)
        del self.weight_path[n_trees:]
