"""AdaBoost.M1, SAMME and AdaBoost.MH: reductions, a cross-library equivalence, stop rules."""

import json
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.algorithms.adaboost import SAMME, AdaBoostM1
from mcboost_cli.algorithms.adaboost_mh import AdaBoostMH
from mcboost_cli.learners.binning import BinMapper
from mcboost_cli.learners.histogram_tree import CRITERION_ERROR, CRITERION_GINI
from mcboost_cli.learners.naive_tree import grow_tree_naive
from mcboost_cli.runner.cells import Cell
from mcboost_cli.runner.config import load_config
from mcboost_cli.runner.plan import expand, full_params

REPO = Path(__file__).resolve().parents[1]


def _integer_data(seed, n=400, F=5, K=3, levels=8):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n, F)).astype(float)
    y = ((X[:, 0] + 0.5 * X[:, 1] + rng.normal(0, 2, n)) // 4).astype(int) % K
    return X, y


@pytest.mark.parametrize("seed", range(6))
def test_samme_training_predictions_equal_scikit_learn(seed):
    """SAMME with stumps on small-integer features equals sklearn's AdaBoostClassifier
    (algorithm SAMME, DecisionTreeClassifier(max_depth=1)): on such features our bins are the
    values themselves, so both search the same splits with the same Gini criterion."""
    sk_ensemble = pytest.importorskip("sklearn.ensemble")
    sk_tree = pytest.importorskip("sklearn.tree")
    X, y = _integer_data(seed)
    ours = SAMME(n_rounds=40, max_depth=1).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = sk_ensemble.AdaBoostClassifier(sk_tree.DecisionTreeClassifier(max_depth=1),
                                            n_estimators=40, learning_rate=1.0,
                                            random_state=0).fit(X, y)
    assert ours.n_rounds_ == len(sk.estimators_)
    np.testing.assert_allclose(ours.forest_.alpha, sk.estimator_weights_[:ours.n_rounds_],
                               rtol=1e-9)
    np.testing.assert_array_equal(ours.predict(X), sk.predict(X))
    for a, b in zip(ours.staged_predict(X), sk.staged_predict(X)):
        np.testing.assert_array_equal(a, b)


def _leaves(tree, X_binned):
    """The leaf of a naive tree that each row reaches."""
    leaf = np.zeros(X_binned.shape[0], int)
    for i in range(X_binned.shape[0]):
        nd = 0
        while tree["left"][nd] >= 0:
            go_left = X_binned[i, tree["feature"][nd]] <= tree["threshold"][nd]
            nd = tree["left"][nd] if go_left else tree["right"][nd]
        leaf[i] = nd
    return leaf


def _binary_adaboost(X_binned, y_pm, n_bins, n_rounds, depth):
    """Discrete AdaBoost (Freund & Schapire 1997) written out plainly with the naive tree:
    alpha = 1/2 log((1-err)/err), w *= exp(-alpha y h), H = sign(sum alpha h)."""
    n = len(y_pm)
    y01 = (y_pm > 0).astype(np.int32)
    w = np.full(n, 1.0 / n)
    F = np.zeros(n)
    for _ in range(n_rounds):
        tree = grow_tree_naive(X_binned, y01, n_bins, CRITERION_GINI, 2, depth, weight=w)
        leaf = _leaves(tree, X_binned)
        leaf_label = np.argmax(tree["node_sum"], axis=1)
        h = np.where(leaf_label[leaf] == 1, 1.0, -1.0)
        err = w[h != y_pm].sum() / w.sum()
        if err >= 0.5 or err <= 0:
            break
        alpha = 0.5 * np.log((1 - err) / err)
        F += alpha * h
        w *= np.exp(-alpha * y_pm * h)
        w /= w.sum()
    return np.where(F > 0, 1, -1)


@pytest.mark.parametrize("seed", range(4))
def test_samme_with_two_classes_is_binary_adaboost(seed):
    rng = np.random.default_rng(100 + seed)
    X = rng.normal(size=(250, 4))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=250) > 0, 1, -1)
    mapper = BinMapper(max_bins=16).fit(X)
    Xb = mapper.transform(X)
    ours = SAMME(n_rounds=25, max_depth=2, max_bins=16).fit(X, y)
    ref = _binary_adaboost(Xb, y, mapper.n_bins_.astype(np.int32), 25, 2)
    np.testing.assert_array_equal(ours.predict(X), ref)


def _label_tree_boosting(X_binned, y, n_bins, K, n_rounds, depth, criterion, samme):
    """AdaBoost.M1 (Freund & Schapire 1996, Fig. 1) or SAMME (Zhu et al. 2009, Alg. 2)
    written out plainly with the naive tree; returns the vote weights and the training
    predictions. Leaves answer their heaviest class (first on ties)."""
    n = len(y)
    w = np.full(n, 1.0 / n)
    F = np.zeros((n, K))
    alphas = []
    for _ in range(n_rounds):
        tree = grow_tree_naive(X_binned, y, n_bins, criterion, K, depth, weight=w)
        h = np.argmax(tree["node_sum"], axis=1)[_leaves(tree, X_binned)]
        miss = h != y
        err = w[miss].sum() / w.sum()
        if err >= (1.0 - 1.0 / K if samme else 0.5):
            break
        if err <= 0:
            alphas.append(1.0 + sum(alphas))
            F[np.arange(n), h] += alphas[-1]
            break
        if samme:
            alpha = np.log((1 - err) / err) + np.log(K - 1.0)
            w[miss] *= np.exp(alpha)
        else:
            beta = err / (1 - err)
            alpha = np.log(1 / beta)
            w[~miss] *= beta
        w /= w.sum()
        alphas.append(alpha)
        F[np.arange(n), h] += alpha
    return np.array(alphas), np.argmax(F, axis=1)


@pytest.mark.parametrize("algo", [AdaBoostM1, SAMME])
def test_both_split_criteria_equal_the_plain_algorithm_on_naive_trees(algo):
    """M1 and SAMME with split_criterion gini and error equal the algorithm written out with
    the naive tree of the same criterion (vote weights and training predictions); the two
    criteria give different ensembles (the comparison has power).

    M1's update leaves the last tree at weighted error exactly 1/2, so a round whose tree
    repeats that partition has err = 1/2 up to rounding, and which side of 1/2 it falls on
    (stop, or keep a vote of ~1e-15) depends on the summation order: rounds past the common
    ones may only be such rounds."""
    rng = np.random.default_rng(24)
    X = rng.normal(size=(300, 4))
    y = (np.digitize(X[:, 0] + 0.6 * X[:, 1] * X[:, 2] + 0.4 * rng.normal(size=300),
                     [-0.5, 0.5])).astype(int)
    K = 3
    mapper = BinMapper(max_bins=16).fit(X)
    Xb = mapper.transform(X)
    n_bins = mapper.n_bins_.astype(np.int32)
    alphas = {}
    for name, criterion in (("gini", CRITERION_GINI), ("error", CRITERION_ERROR)):
        ours = algo(n_rounds=25, max_depth=2, max_bins=16, split_criterion=name).fit(X, y)
        ref_alpha, ref_pred = _label_tree_boosting(Xb, y, n_bins, K, 25, 2, criterion,
                                                   samme=algo is SAMME)
        common = min(ours.n_rounds_, ref_alpha.size)
        assert common >= 5
        np.testing.assert_allclose(ours.forest_.alpha[:common], ref_alpha[:common], rtol=1e-9)
        assert np.all(np.abs(ours.forest_.alpha[common:]) < 1e-12)
        assert np.all(np.abs(ref_alpha[common:]) < 1e-12)
        if algo is SAMME:
            assert common == 25
        np.testing.assert_array_equal(ours.predict(X), ref_pred)
        alphas[name] = ref_alpha[:common]
    n = min(alphas["gini"].size, alphas["error"].size)
    assert not np.allclose(alphas["gini"][:n], alphas["error"][:n])


def test_bad_split_criterion_is_a_value_error():
    X, y = _integer_data(2)
    with pytest.raises(ValueError, match="split_criterion must be one of"):
        SAMME(n_rounds=2, split_criterion="entropy").fit(X, y)


def test_stored_label_tree_cells_keep_their_keys():
    """split_criterion was added after the committed AdaBoost.M1 / SAMME fits were stored:
    at its default it stays out of the cell key (``ParamSpec.default_in_key``), so every stored
    row's key is reproduced from its params today, and planning the committed configs today
    gives the stored keys; split_criterion=error is another fit with another key, and naming
    the default explicitly is the same fit."""
    cells = pd.read_csv(REPO / "results" / "dmcboost_kdd14" / "cells.csv", dtype=str,
                        keep_default_na=False)
    rows = cells[cells.algorithm.isin(["adaboost_m1", "samme"])]
    assert len(rows) > 400
    planned = {pc.cell.key for config in ("uci.yaml", "noise.yaml")
               for pc in expand(load_config(REPO / "configs" / config))}
    n_planned = 0
    for r in rows.itertuples():
        stored_params = json.loads(r.params)
        assert "split_criterion" not in stored_params
        cell = Cell(experiment="dmcboost_kdd14", dataset=r.dataset, protocol=r.protocol,
                    fold=int(r.fold), noise_rate=float(r.noise_rate), seed=int(r.seed),
                    algorithm=r.algorithm, algorithm_version=r.algorithm_version,
                    params=full_params(r.algorithm, stored_params), data_source=r.data_source)
        assert cell.key == r.key, r.key
        explicit = replace(cell, params=full_params(r.algorithm, {**stored_params,
                                                                  "split_criterion": "gini"}))
        assert explicit.key == r.key
        error = replace(cell, params=full_params(r.algorithm, {**stored_params,
                                                               "split_criterion": "error"}))
        assert error.key != r.key and error.params_dict["split_criterion"] == "error"
        if not r.data_source:        # generator stand-ins are planned only without the files
            assert r.key in planned, r.key
            n_planned += 1
    assert n_planned > 400


def test_adaboost_m1_with_two_classes_equals_samme():
    """For K = 2, log(K-1) = 0 and both rules stop at err >= 1/2: the same algorithm."""
    X, y = _integer_data(9, K=2)
    a = AdaBoostM1(n_rounds=30, max_depth=2).fit(X, y)
    b = SAMME(n_rounds=30, max_depth=2).fit(X, y)
    assert a.n_rounds_ == b.n_rounds_
    np.testing.assert_allclose(a.forest_.alpha, b.forest_.alpha, rtol=1e-12)
    # M1 shrinks the hits by beta, SAMME grows the misses by 1/beta: equal after normalising,
    # up to rounding.
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), rtol=1e-9)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_adaboost_m1_stops_when_weighted_error_reaches_half():
    # 10 balanced classes and stumps: a stump names 2 classes, so its error is >= 0.8.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3))
    y = np.arange(500) % 10
    m1 = AdaBoostM1(n_rounds=20, max_depth=1).fit(X, y)
    assert m1.n_rounds_ == 0 and "0.5" in m1.stop_reason_
    np.testing.assert_array_equal(m1.decision_function(X), 0.0)
    # SAMME's limit is 1 - 1/K = 0.9, so it boosts on.
    assert SAMME(n_rounds=20, max_depth=1).fit(X, y).n_rounds_ == 20


def test_samme_alpha_formula_and_perfect_learner():
    X, y = _integer_data(1, K=4)
    est = SAMME(n_rounds=5, max_depth=2).fit(X, y)
    assert all(a > np.log(3) - 1e-12 or a > 0 for a in est.forest_.alpha)
    # A separable problem: the first tree is perfect, gets a dominant vote and ends the fit.
    Xs = np.repeat(np.arange(3.0), 20)[:, None]
    ys = np.repeat(np.arange(3), 20)
    est = SAMME(n_rounds=10, max_depth=2).fit(Xs, ys)
    assert est.n_rounds_ == 1 and "perfect" in est.stop_reason_
    np.testing.assert_array_equal(est.predict(Xs), ys)


def test_adaboost_mh_hamming_loss_is_bounded_by_product_of_z():
    """Schapire & Singer (1999), Thm 1 for AdaBoost.MH: the training Hamming loss is at most
    prod_t Z_t, where Z_t is the normaliser of round t's weight update."""
    X, y = _integer_data(3, K=4)
    est = AdaBoostMH(n_rounds=1, max_depth=2)
    bound = 1.0
    Y = np.where(np.arange(4)[None, :] == y[:, None], 1.0, -1.0)
    from mcboost_cli.algorithms import adaboost_mh as mh
    original = mh._leaf_values_and_reweight
    zs = []

    def spy(*args):
        z = original(*args)
        zs.append(z)
        return z

    mh._leaf_values_and_reweight = spy
    try:
        for T in (1, 5, 20):
            zs.clear()
            est.set_params(n_rounds=T).fit(X, y)
            bound = float(np.prod(zs))
            F = est.decision_function(X)
            hamming = np.mean(np.sign(F) != Y)
            assert hamming <= bound + 1e-12
            assert all(z <= 1.0 + 1e-12 for z in zs)
    finally:
        mh._leaf_values_and_reweight = original


def test_adaboost_mh_beats_chance_and_improves():
    X, y = _integer_data(4, n=800, K=3)
    est = AdaBoostMH(n_rounds=30, max_depth=3).fit(X, y)
    assert est.train_errors_[-1] < est.train_errors_[0] <= 2 / 3
