"""CART (``algorithms.cart``) and its pruning (``learners.cost_complexity``).

Against scikit-learn: its ``cost_complexity_pruning_path`` uses the Gini impurity as R(t), so
the comparisons use ``prune_cost="gini"``. scikit-learn visits features in a random order even
with ``max_features=None``, so where two splits of different partitions tie, its tree depends
on ``random_state``; such ties are common in small nodes of a full tree. Hence (a) the pruning
itself is compared on scikit-learn's own grown tree (ties then do not matter), and (b) grower
plus pruning are compared on data checked to be tie-free: scikit-learn's leaf partition is the
same under eight random states (a shallower tree with larger leaves; seeds chosen so).
Breiman's misclassification pruning is checked against a brute-force optimal-subtree search.
"""

import numpy as np
import pytest

from mcboost_cli.algorithms.cart import (
    CART,
    choose_subtree,
    grow_and_prune,
    stratified_folds,
)
from mcboost_cli.learners.binning import Binned, BinMapper
from mcboost_cli.learners.cost_complexity import (
    COST_ERROR,
    COST_GINI,
    predict_subtrees,
    pruning_sequence,
)
from mcboost_cli.learners.histogram_tree import TreeWorkspace

sklearn_tree = pytest.importorskip("sklearn.tree")


def _data(seed, n=400, F=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    y = np.digitize(X[:, 0] + 0.6 * X[:, 1] + 0.8 * rng.normal(size=n), [-0.7, 0.7])
    return X, y.astype(np.int32)


def _binned(X):
    mapper = BinMapper().fit(X)
    return Binned(mapper.transform(X), mapper)


def _canonical(leaf_ids):
    """A partition as labels numbered by first appearance (independent of node numbering)."""
    _, first, inv = np.unique(leaf_ids, return_index=True, return_inverse=True)
    return np.argsort(np.argsort(first))[inv]


def _dedup_last(alphas, rtol=1e-9):
    """Index of the last entry of each run of (nearly) equal alphas: scikit-learn prunes one
    branch per step, so tied weakest links repeat an alpha."""
    keep = [i for i in range(len(alphas) - 1)
            if not np.isclose(alphas[i + 1], alphas[i], rtol=rtol, atol=1e-15)]
    return keep + [len(alphas) - 1]


def _our_partitions(tree, codes):
    """Training partition of every T_k of a ``PrunedTree`` (leaf = its node index)."""
    ids = np.arange(tree.n_nodes, dtype=np.int32)
    steps = np.arange(tree.alphas.shape[0])
    leaf = predict_subtrees(codes, tree.feature, tree.threshold, tree.left, tree.prune_step,
                            ids, steps)
    return [_canonical(leaf[:, k]) for k in steps]


def test_pruning_of_sklearns_own_tree_equals_its_path():
    X, y = _data(0)
    C = _binned(X).codes.astype(float)
    clf = sklearn_tree.DecisionTreeClassifier(random_state=0).fit(C, y)
    t = clf.tree_
    counts = t.value[:, 0, :] * t.weighted_n_node_samples[:, None]
    w = counts.sum(axis=1)
    cost = w * (1 - ((counts / w[:, None]) ** 2).sum(axis=1)) / w[0]
    left = t.children_left.astype(np.int32)
    right = t.children_right.astype(np.int32)
    alphas, prune_step = pruning_sequence(left, right, cost, t.node_count)
    path = clf.cost_complexity_pruning_path(C, y)
    ends = _dedup_last(path.ccp_alphas)
    assert len(alphas) == len(ends) > 20
    np.testing.assert_allclose(alphas, path.ccp_alphas[ends], rtol=1e-9, atol=1e-15)
    # Subtrees: leaves of T_k = first node on each sample's path that is not internal in T_k.
    on_path = clf.decision_path(C).toarray().astype(bool)
    for k, e in enumerate(ends):
        pruned = sklearn_tree.DecisionTreeClassifier(
            random_state=0, ccp_alpha=path.ccp_alphas[e]).fit(C, y)
        ours = np.array([np.flatnonzero(row & (prune_step <= k))[0] for row in on_path])
        np.testing.assert_array_equal(_canonical(ours), _canonical(pruned.apply(C)),
                                      err_msg=f"subtree {k}")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_grown_and_pruned_tree_equals_sklearn_on_tie_free_data(seed):
    max_depth, min_leaf = 4, 10
    X, y = _data(seed)
    b = _binned(X)
    C = b.codes.astype(float)

    def sk(**kw):
        return sklearn_tree.DecisionTreeClassifier(max_depth=max_depth,
                                                   min_samples_leaf=min_leaf, **kw).fit(C, y)

    # Precondition: no tie changes scikit-learn's tree (see the module docstring).
    reference = _canonical(sk(random_state=0).apply(C))
    for r in range(1, 8):
        assert np.array_equal(_canonical(sk(random_state=r).apply(C)), reference), \
            f"data seed {seed} has ties; choose another"
    est = CART(max_depth=max_depth, min_samples_leaf=min_leaf, prune_cost="gini").fit(b, y)
    tree = est.pruning_path_
    path = sk(random_state=0).cost_complexity_pruning_path(C, y)
    ends = _dedup_last(path.ccp_alphas)
    np.testing.assert_allclose(est.ccp_alphas_, path.ccp_alphas[ends], rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(est.ccp_train_costs_, path.impurities[ends], rtol=1e-9,
                               atol=1e-12)
    ours = _our_partitions(tree, b.codes)
    assert len(ours) == len(ends) > 3
    for k, e in enumerate(ends):
        theirs = _canonical(sk(random_state=0, ccp_alpha=path.ccp_alphas[e]).apply(C))
        np.testing.assert_array_equal(ours[k], theirs, err_msg=f"subtree {k}")


def _optimal_leaves(tree, alpha):
    """Brute force: the smallest subtree minimising R(T) + alpha |leaves| (recursion over
    every node: prune it or keep the best of both children), as a leaf mask."""
    def best(t):
        if tree.left[t] < 0:
            return tree.cost[t] + alpha, [t]
        cl, ll = best(tree.left[t])
        cr, lr = best(tree.right[t])
        if tree.cost[t] + alpha <= cl + cr + 1e-12:
            return tree.cost[t] + alpha, [t]
        return cl + cr, ll + lr
    mask = np.zeros(tree.n_nodes, bool)
    mask[best(0)[1]] = True
    return mask


@pytest.mark.parametrize("prune_cost", [COST_ERROR, COST_GINI])
def test_each_subtree_is_the_optimum_of_its_alpha_interval(prune_cost):
    X, y = _data(4, n=300)
    b = _binned(X)
    ws = TreeWorkspace(300, 4, 256, 3, 64)
    tree = grow_and_prune(ws, b.codes, y, b.mapper.n_bins_.astype(np.int32), 3, prune_cost)
    a = tree.alphas
    assert len(a) > 5 and np.all(np.diff(a) > 0) and a[0] == 0.0
    for k in range(len(a)):
        inside = (a[k] + a[k + 1]) / 2 if k + 1 < len(a) else 2 * a[k] + 1e-3
        np.testing.assert_array_equal(tree.leaf_mask(k), _optimal_leaves(tree, inside),
                                      err_msg=f"subtree {k}")


@pytest.mark.parametrize("prune_cost", ["error", "gini"])
def test_training_error_never_falls_along_the_sequence(prune_cost):
    X, y = _data(5, n=500)
    b = _binned(X)
    est = CART(prune_cost=prune_cost, cv_folds=5).fit(b, y)
    tree = est.pruning_path_
    steps = np.arange(est.ccp_alphas_.shape[0])
    pred = tree.predict_codes(b.codes, steps)
    train_err = (pred != y[:, None]).mean(axis=0)
    assert np.all(np.diff(est.ccp_n_leaves_) < 0) and est.ccp_n_leaves_[-1] == 1
    assert np.all(np.diff(est.ccp_train_costs_) >= -1e-15)      # R(T_k), the pruned cost
    if prune_cost == "error":
        # The misclassification of the predicted labels is R(T_k) itself, never falling.
        np.testing.assert_allclose(train_err, est.ccp_train_costs_, atol=1e-12)
        assert np.all(np.diff(train_err) >= 0)
    # Nested subtrees: a node is never internal longer than its parent.
    inner = np.flatnonzero(tree.left >= 0)
    assert np.all(tree.prune_step[tree.left[inner]] <= tree.prune_step[inner])
    # The fit's recorded training error is that of the chosen subtree.
    assert est.train_errors_[0] == pytest.approx(train_err[est.subtree_index_])


def test_cross_validation_never_looks_at_eval_labels():
    X, y = _data(6, n=400)
    Xv, yv = _data(7, n=200)
    Xt, yt = _data(8, n=200)
    rng = np.random.default_rng(0)
    a = CART(cv_folds=5).fit(X, y, eval_set=[(Xv, yv), (Xt, yt)])
    b = CART(cv_folds=5).fit(X, y, eval_set=[(Xv, rng.permutation(yv)),
                                             (Xt, rng.permutation(yt))])
    for attr in ("ccp_alphas_", "cv_errors_", "train_errors_"):
        np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
    assert a.subtree_index_ == b.subtree_index_
    np.testing.assert_array_equal(a.class_scores(Xt), b.class_scores(Xt))
    assert not np.array_equal(a.eval_errors_, b.eval_errors_)   # the scrambling was seen


def test_folds_are_stratified_seeded_and_the_rule_is_breimans():
    y = np.repeat([0, 1, 2], [50, 31, 19]).astype(np.int32)
    f = stratified_folds(y, 5, 11)
    np.testing.assert_array_equal(f, stratified_folds(y, 5, 11))
    assert not np.array_equal(f, stratified_folds(y, 5, 12))
    assert np.ptp(np.bincount(f)) <= 1
    for c in range(3):
        assert np.ptp(np.bincount(f[y == c], minlength=5)) <= 1
    cv = np.array([0.30, 0.20, 0.21, 0.20, 0.25, 0.60])
    assert choose_subtree(cv, 100, "min") == 3               # the smaller of the tied minima
    se = np.sqrt(0.2 * 0.8 / 100)                             # 0.04: 0.24 is within, 0.25 not
    assert 0.24 < 0.2 + se < 0.25
    assert choose_subtree(cv, 100, "1se") == 3
    assert choose_subtree(np.array([0.30, 0.20, 0.22, 0.23, 0.60]), 100, "1se") == 3


def test_runner_seeds_the_folds_from_the_cell_and_reports_the_one_round():
    from mcboost_cli.protocol.selection import RULE_OWN, reported_round
    from mcboost_cli.runner.cells import Cell
    from mcboost_cli.runner.work import cell_random_state

    def cell(seed, fold):
        return Cell("e", "vowel", "five_fold", fold, 0.0, seed, "cart", "1", ())
    assert cell_random_state(cell(0, 1)) == cell_random_state(cell(0, 1))
    assert len({cell_random_state(cell(s, f)) for s in range(2) for f in range(3)}) == 6
    X, y = _data(9, n=200)
    est = CART(cv_folds=3).fit(X, y, eval_set=[(X, y)])
    assert est.n_rounds_ == 1
    assert reported_round(est, True) == (1, RULE_OWN)
    assert reported_round(est, False) == (1, RULE_OWN)
