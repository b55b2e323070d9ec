"""The incremental argmax bookkeeping of ``learners.forest`` against naive recomputation.

A round adds one label vote per row (``_add_label_votes``, the training-curve path of SAMME,
AdaBoost.M1, DMCBoost, AdaBoost.MM) or one vector per row; the kernels update ``pred`` (first
argmax, lowest class on ties) from the old argmax instead of rescanning the row. These tests replay random rounds with many ties (K = 2, integer-valued
and zero vote weights) and compare every round with ``np.argmax`` of scores summed naively.
"""

import numpy as np
import pytest

from mcboost_cli.algorithms.registry import all_algorithms
from mcboost_cli.learners.forest import DeferredLabelVotes, _add_label_votes


def _alphas(rng, kind, n_rounds):
    if kind == "integer":        # equal sums are frequent: ties decide most rows
        return rng.integers(0, 3, n_rounds).astype(np.float64)
    if kind == "signed_integer":  # negative weights take the rescan path, ties kept
        return rng.integers(-2, 3, n_rounds).astype(np.float64)
    return rng.normal(size=n_rounds)


@pytest.mark.parametrize("K", [2, 3, 7])
@pytest.mark.parametrize("kind", ["integer", "signed_integer", "real"])
def test_label_votes_match_naive_argmax_with_ties(K, kind):
    rng = np.random.default_rng(1000 * K + len(kind))
    n, n_rounds = 400, 60
    y = rng.integers(0, K, n).astype(np.int32)
    y[:7] = -1                                   # labels unseen in training: always errors
    scores = np.zeros((n, K))
    pred = np.zeros(n, np.int32)
    naive = np.zeros((n, K))
    n_ties = 0
    for alpha in _alphas(rng, kind, n_rounds):
        # Few distinct votes per round, as a tree's leaves give.
        leaf_label = rng.integers(0, K, 4).astype(np.int32)
        vote = leaf_label[rng.integers(0, 4, n)]
        n_err = _add_label_votes(vote, float(alpha), y, scores, pred)
        naive[np.arange(n), vote] += alpha
        expected = np.argmax(naive, axis=1)      # first maximum: the tie rule kept
        np.testing.assert_array_equal(scores, naive)
        np.testing.assert_array_equal(pred, expected)
        assert n_err == int(np.count_nonzero(expected != y))
        n_ties += int(np.count_nonzero((naive == naive.max(axis=1, keepdims=True)).sum(axis=1)
                                       > 1))
    if kind != "real":
        assert n_ties > n_rounds * n // 50   # the data does exercise the tie rule


@pytest.mark.parametrize("K", [2, 5])
@pytest.mark.parametrize("kind", ["integer", "signed_integer", "real"])
def test_batched_rounds_equal_round_by_round(K, kind):
    """``DeferredLabelVotes`` (the fit loop's batched bookkeeping) gives the scores, argmax
    and per-round errors of applying each round as it comes, bit for bit, whatever the
    batch boundaries (full batches, a partial one, flushes at arbitrary rounds)."""
    rng = np.random.default_rng(7 * K + len(kind))
    n, n_rounds = 300, 37
    y = rng.integers(0, K, n).astype(np.int32)
    scores_a, pred_a = np.zeros((n, K)), np.zeros(n, np.int32)
    scores_b, pred_b = np.zeros((n, K)), np.zeros(n, np.int32)
    errors_a = np.full(n_rounds, np.nan)
    errors_b = np.full(n_rounds, np.nan)
    deferred = DeferredLabelVotes(n, batch=8)
    flush_at = {3, 4, 20}                # besides full batches: as checkpoints would
    for t, alpha in enumerate(_alphas(rng, kind, n_rounds)):
        vote = rng.integers(0, K, 4).astype(np.int32)[rng.integers(0, 4, n)]
        errors_a[t] = _add_label_votes(vote, float(alpha), y, scores_a, pred_a) / n
        if deferred.add(t, vote, float(alpha)) or t in flush_at:
            deferred.flush(y, scores_b, pred_b, errors_b)
    deferred.flush(y, scores_b, pred_b, errors_b)
    assert scores_a.tobytes() == scores_b.tobytes()
    np.testing.assert_array_equal(pred_a, pred_b)
    assert errors_a.tobytes() == errors_b.tobytes()


def _tie_prone_data(K, seed, n=240, F=4):
    """Integer features with three values and labels partly set by two of them: many
    identical rows, so the ensembles' scores tie often, and learnable enough that every
    algorithm keeps rounds (AdaBoost.M1 keeps none on random 4-class labels)."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, F)).astype(np.float64)
    y = np.minimum(X[:, 0] + X[:, 1], K - 1).astype(int)
    flip = rng.random(n) < 0.15
    y[flip] = rng.integers(0, K, int(flip.sum()))
    return X, y


# (algorithm, K): every algorithm with K = 2, the multi-class ones with K = 4 as well.
CASES = [(name, algo, K) for name, algo in sorted(all_algorithms().items())
         for K in (2, 4) if K == 2 or not getattr(algo, "binary_only", False)]


@pytest.mark.parametrize("name,algo,K", CASES, ids=[f"{a}-K{k}" for a, _, k in CASES])
def test_fit_curves_equal_naive_argmax_of_staged_scores(name, algo, K):
    """Every algorithm's recorded curves (train and eval set) equal the 0-1 error of
    ``np.argmax`` of its staged scores: the incremental argmax of the fit loop (each
    algorithm's own training-set kernel included) never departs from the naive argmax."""
    X, y = _tie_prone_data(K, 10 + K)
    Xv, yv = _tie_prone_data(K, 20 + K)
    est = algo(**algo.test_params).fit(X, y, eval_set=[(Xv, yv)])
    assert est.n_rounds_ > 0, "no round kept: the curves would compare nothing"
    classes = est.classes_
    train = [np.mean(classes[np.argmax(s, axis=1)] != y) for s in est.staged_class_scores(X)]
    evals = [np.mean(classes[np.argmax(s, axis=1)] != yv)
             for s in est.staged_class_scores(Xv)]
    np.testing.assert_array_equal(est.train_errors_, train)
    np.testing.assert_array_equal(est.eval_errors_[0], evals)
