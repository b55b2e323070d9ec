"""AdaBoost.M1, SAMME and AdaBoost.MH: reductions, a cross-library equivalence, stop rules."""

import json
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.algorithms.adaboost import SAMME, AdaBoostM1
from mcboost_cli.algorithms.adaboost_mh import MAX_LEAVES, AdaBoostMH
from mcboost_cli.algorithms.params import ParamSpec
from mcboost_cli.algorithms.registry import validate_params
from mcboost_cli.errors import UserError
from mcboost_cli.learners.binning import BinMapper
from mcboost_cli.learners.histogram_tree import CRITERION_ERROR, CRITERION_GINI
from mcboost_cli.learners.naive_tree import grow_leafwise_hamming_tree_naive, grow_tree_naive
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
    np.testing.assert_allclose(a.class_scores(X), b.class_scores(X), rtol=1e-9)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


def test_adaboost_m1_stops_when_weighted_error_reaches_half():
    # 10 balanced classes and stumps: a stump names 2 classes, so its error is >= 0.8.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3))
    y = np.arange(500) % 10
    m1 = AdaBoostM1(n_rounds=20, max_depth=1).fit(X, y)
    assert m1.n_rounds_ == 0 and "0.5" in m1.stop_reason_
    np.testing.assert_array_equal(m1.class_scores(X), 0.0)
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
            F = est.class_scores(X)
            hamming = np.mean(np.sign(F) != Y)
            assert hamming <= bound + 1e-12
            assert all(z <= 1.0 + 1e-12 for z in zs)
    finally:
        mh._leaf_values_and_reweight = original


def test_adaboost_mh_beats_chance_and_improves():
    X, y = _integer_data(4, n=800, K=3)
    est = AdaBoostMH(n_rounds=30, max_depth=3).fit(X, y)
    assert est.train_errors_[-1] < est.train_errors_[0] <= 2 / 3


# --- AdaBoost.MH on best-first trees (max_leaves) --------------------------------------------


def _forest_arrays(est):
    f = est.forest_
    n = f.n_nodes_total
    return (f.feature[:n], f.threshold[:n], f.left[:n], f.leaf_value[:n],
            np.asarray(f.tree_offset))


@pytest.mark.parametrize("seed", range(4))
def test_adaboost_mh_two_leaves_is_the_stump_fit(seed):
    """A tree of two leaves is the root's best split, which a depth-1 tree is too: with
    max_leaves = 2 the fit (trees, leaf votes, reweighting, curves) equals max_depth = 1's
    bit for bit, while more leaves give another fit (the comparison has power)."""
    X, y = _integer_data(10 + seed, K=4)
    Xv, yv = _integer_data(20 + seed, K=4)
    stumps = AdaBoostMH(n_rounds=25, max_depth=1).fit(X, y, eval_set=[(Xv, yv)])
    two = AdaBoostMH(n_rounds=25, max_depth=5, max_leaves=2).fit(X, y, eval_set=[(Xv, yv)])
    for a, b in zip(_forest_arrays(stumps), _forest_arrays(two)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(stumps.train_errors_, two.train_errors_)
    np.testing.assert_array_equal(stumps.eval_errors_, two.eval_errors_)
    np.testing.assert_array_equal(stumps.class_scores(Xv), two.class_scores(Xv))
    eight = AdaBoostMH(n_rounds=25, max_leaves=8).fit(X, y)
    assert eight.forest_.n_nodes_total > stumps.forest_.n_nodes_total
    assert not np.array_equal(eight.class_scores(X), stumps.class_scores(X))


def _adaboost_mh_reference(X_binned, y, n_bins, K, n_rounds, max_leaves):
    """Real AdaBoost.MH (Schapire & Singer 1999, Fig. 4 with the domain-partitioning votes of
    sec. 4.2) written out plainly on the naive best-first Hamming tree: D_1 = 1/(nK),
    c_jl = 1/2 ln((W+ + eps) / (W- + eps)), D *= exp(-Y c), normalised. Returns the
    training scores after each round and the trees."""
    n = len(y)
    Y = np.where(np.arange(K)[None, :] == y[:, None], 1.0, -1.0)
    D = np.full((n, K), 1.0 / (n * K))
    eps = 1.0 / (n * K)
    F = np.zeros((n, K))
    scores, trees = [], []
    for _ in range(n_rounds):
        tree = grow_leafwise_hamming_tree_naive(X_binned, n_bins, y, D, max_leaves)
        for nd, rows in enumerate(tree["members"]):
            if tree["left"][nd] >= 0:
                continue
            w_pos = (D[rows] * (Y[rows] > 0)).sum(axis=0)
            w_neg = (D[rows] * (Y[rows] < 0)).sum(axis=0)
            c = 0.5 * np.log((w_pos + eps) / (w_neg + eps))
            F[rows] += c
            D[rows] *= np.exp(-Y[rows] * c)
        D /= D.sum()
        scores.append(F.copy())
        trees.append(tree)
    return scores, trees


@pytest.mark.parametrize("max_leaves", [3, 8])
def test_adaboost_mh_best_first_equals_the_plain_algorithm_on_naive_trees(max_leaves):
    """A few rounds of max_leaves trees equal the algorithm written out with the naive
    best-first Hamming tree: the same splits each round, the same training scores (to
    rounding: the naive sums pair weights in another order) and predictions."""
    rng = np.random.default_rng(31)
    X = rng.normal(size=(200, 4))
    y = np.digitize(X[:, 0] + 0.7 * X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=200),
                    [-0.8, 0.0, 0.8]).astype(int)
    K = 4
    mapper = BinMapper(max_bins=16).fit(X)
    Xb = mapper.transform(X)
    n_bins = mapper.n_bins_.astype(np.int32)
    n_rounds = 6
    ours = AdaBoostMH(n_rounds=n_rounds, max_leaves=max_leaves, max_bins=16).fit(X, y)
    scores, trees = _adaboost_mh_reference(Xb, y, n_bins, K, n_rounds, max_leaves)
    f = ours.forest_
    for t, (tree, ref_scores) in enumerate(zip(trees, scores)):
        o = f.tree_offset[t]
        m = tree["feature"].size
        assert m == 2 * max_leaves - 1          # every tree has its full count here
        assert f.feature[o:o + m].tolist() == tree["feature"].tolist()
        internal = tree["left"] >= 0
        assert f.threshold[o:o + m][internal].tolist() == tree["threshold"][internal].tolist()
        np.testing.assert_allclose(ours.class_scores(X, n_rounds=t + 1), ref_scores,
                                   rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), np.argmax(scores[-1], axis=1))


def test_adaboost_mh_max_leaves_one_is_rejected():
    """max_leaves is 0 (depth-wise trees) or at least 2: a config's 1 is a one-line error
    naming the valid values, and so is the estimator's."""
    with pytest.raises(UserError, match=r"algo\.max_leaves: 1 is not valid; expected an "
                                        r"integer in \[2, 1024\] or 0$"):
        validate_params(AdaBoostMH, {"max_leaves": 1}, "algo")
    for ok in (0, 2, 8, 1024, 8.0):
        assert validate_params(AdaBoostMH, {"max_leaves": ok}, "algo") == {"max_leaves": ok}
    for bad in (-1, 1025, 2.5, True):
        with pytest.raises(UserError, match="max_leaves"):
            validate_params(AdaBoostMH, {"max_leaves": bad}, "algo")
    X, y = _integer_data(1)
    with pytest.raises(ValueError, match="max_leaves must be 0 .* or at least 2, got 1"):
        AdaBoostMH(n_rounds=2, max_leaves=1).fit(X, y)


def test_param_spec_also_accepts_values_outside_the_range():
    """``also``: values accepted beside [low, high], named in the error."""
    spec = ParamSpec("k", "float", 0.5, "help", low=1.0, high=2.0, low_open=True,
                     also=(0, -1))
    assert spec.describe_range() == "a number in (1, 2] or one of 0, -1"
    assert spec.validate(0, "x") == 0.0 and spec.validate(-1.0, "x") == -1.0
    assert spec.validate(2, "x") == 2.0
    for bad in (1.0, 0.5, -0.5, 3):
        with pytest.raises(UserError, match=r"x: .* is not valid; expected a number in"):
            spec.validate(bad, "x")
    assert MAX_LEAVES.describe_range() == "an integer in [2, 1024] or 0"


def test_stored_adaboost_mh_cells_keep_their_keys():
    """max_leaves was added after AdaBoost.MH fits were stored: at its default (0, the
    depth-wise trees) it stays out of the cell key, named or not; any other value is another
    fit with another key."""
    stored = {"n_rounds": 100, "max_depth": 3, "max_bins": 255}
    base = full_params("adaboost_mh", stored)
    assert "max_leaves" not in dict(base)
    assert full_params("adaboost_mh", {**stored, "max_leaves": 0}) == base
    eight = full_params("adaboost_mh", {**stored, "max_leaves": 8})
    assert dict(eight)["max_leaves"] == 8 and eight != base
    cells = pd.read_csv(REPO / "results" / "dmcboost_kdd14" / "cells.csv", dtype=str,
                        keep_default_na=False)
    rows = cells[cells.algorithm == "adaboost_mh"]
    assert len(rows) > 100
    for r in rows.itertuples():
        stored_params = json.loads(r.params)
        cell = Cell(experiment="dmcboost_kdd14", dataset=r.dataset, protocol=r.protocol,
                    fold=int(r.fold), noise_rate=float(r.noise_rate), seed=int(r.seed),
                    algorithm=r.algorithm, algorithm_version=r.algorithm_version,
                    params=full_params(r.algorithm, stored_params), data_source=r.data_source)
        assert cell.key == r.key, r.key
