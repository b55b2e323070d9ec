"""The best-first trees of ``leafwise_tree`` (least squares, and the multi-class Hamming trees
of AdaBoost.MH) against their naive twins and brute force."""

import numpy as np
import pytest

from mcboost_cli.learners.forest import VECTOR_VOTE, Forest
from mcboost_cli.learners.histogram_tree import (
    CRITERION_HAMMING,
    CRITERION_LEAST_SQUARES,
    TreeWorkspace,
    grow_tree,
)
from mcboost_cli.learners.leafwise_tree import (
    LeafwiseWorkspace,
    grow_leafwise_hamming_tree,
    grow_leafwise_tree,
    predict_tree,
)
from mcboost_cli.learners.naive_tree import (
    grow_leafwise_hamming_tree_naive,
    grow_leafwise_tree_naive,
    grow_tree_naive,
)


def _problem(seed):
    """A random weighted problem; some draws have ties (integer z and w, few bins), zero
    weights, constant features, a missing-value bin, or a constant response."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    F = int(rng.integers(1, 5))
    n_bins = rng.integers(1, 12, size=F).astype(np.int32)
    X = np.empty((n, F), np.uint8)
    for f in range(F):
        X[:, f] = rng.integers(0, n_bins[f], size=n)
    if rng.random() < 0.2:
        X[rng.random(n) < 0.2, 0] = 255          # missing values: always right
    if rng.random() < 0.5:
        z = rng.integers(-2, 3, size=n).astype(float)     # exact sums: true ties
        w = rng.integers(0, 3, size=n).astype(float)
    else:
        z = rng.normal(size=n) * 10 ** rng.uniform(-3, 3)
        w = rng.exponential(size=n)
        w[rng.random(n) < 0.3] = 0.0
    if rng.random() < 0.1:
        z[:] = 1.7
    return X, n_bins, z, w, rng


def _grow(X, z, w, max_leaves, **kw):
    ws = LeafwiseWorkspace(X.shape[0], X.shape[1], int(X.max()) + 1, max_leaves)
    n_nodes = grow_leafwise_tree(ws, X, kw.pop("n_bins"), z, w, **kw)
    return ws, n_nodes


@pytest.mark.parametrize("seed", range(300))
def test_fast_equals_naive(seed):
    X, n_bins, z, w, rng = _problem(seed)
    max_leaves = int(rng.integers(2, 13))
    min_leaf = int(rng.choice([1, 1, 2, 5]))
    subset = None
    if rng.random() < 0.2:
        subset = np.flatnonzero(rng.random(X.shape[0]) < 0.6)
    ws, n = _grow(X, z, w, max_leaves, n_bins=n_bins, min_samples_leaf=min_leaf,
                  sample_subset=subset)
    ref = grow_leafwise_tree_naive(X, n_bins, z, w, max_leaves, min_samples_leaf=min_leaf,
                                   sample_subset=subset)
    assert n == ref["feature"].size
    for key in ("feature", "left", "right", "node_count"):
        assert ws.__dict__[key][:n].tolist() == ref[key].tolist(), key
    internal = ref["left"] >= 0
    assert ws.threshold[:n][internal].tolist() == ref["threshold"][internal].tolist()
    np.testing.assert_allclose(ws.leaf_value[:n], ref["leaf_value"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ws.split_gain[:n][internal], ref["split_gain"][internal],
                               rtol=1e-9, atol=1e-9 * (1 + np.abs(w * z * z).sum()))


def _sse(idx, z, w):
    """sum w (z - weighted mean)^2 over rows idx (0 without weight): the loss, directly."""
    sw = w[idx].sum()
    if sw <= 0:
        return 0.0
    return float((w[idx] * (z[idx] - (w[idx] * z[idx]).sum() / sw) ** 2).sum())


def _brute_best_gain(X, idx, n_bins, z, w, min_leaf):
    """Largest loss drop of any split of rows idx (every feature, every threshold)."""
    best = 0.0
    for f in range(X.shape[1]):
        for t in range(int(n_bins[f]) - 1):
            go_left = X[idx, f] <= t
            if min(go_left.sum(), (~go_left).sum()) < min_leaf:
                continue
            drop = _sse(idx, z, w) - _sse(idx[go_left], z, w) - _sse(idx[~go_left], z, w)
            best = max(best, drop)
    return best


@pytest.mark.parametrize("seed", range(60))
def test_each_step_splits_the_leaf_of_largest_gain_and_stops_when_nothing_splits(seed):
    """Replays the growth (the k-th split made nodes 2k-1, 2k): each split leaf had the
    largest loss drop among the leaves of that moment and took it, and the tree has
    max_leaves leaves unless no leaf has a split lowering the loss."""
    X, n_bins, z, w, rng = _problem(1000 + seed)
    max_leaves = int(rng.integers(2, 13))
    min_leaf = int(rng.choice([1, 2]))
    ws, n = _grow(X, z, w, max_leaves, n_bins=n_bins, min_samples_leaf=min_leaf)
    scale = 1e-9 * (1.0 + (w * z * z).sum())
    members = {0: np.arange(X.shape[0])}
    for k in range(1, (n - 1) // 2 + 1):
        nd = int(np.flatnonzero(ws.left[:n] == 2 * k - 1)[0])
        gains = {leaf: _brute_best_gain(X, idx, n_bins, z, w, min_leaf)
                 for leaf, idx in members.items()}
        idx = members.pop(nd)
        go_left = X[idx, ws.feature[nd]] <= ws.threshold[nd]
        drop = _sse(idx, z, w) - _sse(idx[go_left], z, w) - _sse(idx[~go_left], z, w)
        assert drop >= max(gains.values()) - scale
        assert drop > 0
        members[2 * k - 1] = idx[go_left]
        members[2 * k] = idx[~go_left]
    n_leaves = (n + 1) // 2
    assert n_leaves <= max_leaves
    if n_leaves < max_leaves:
        assert all(_brute_best_gain(X, idx, n_bins, z, w, min_leaf) <= scale
                   for idx in members.values())
    for leaf, idx in members.items():
        assert ws.left[leaf] == -1 and ws.node_count[leaf] == idx.size


def test_leaf_count_on_a_separable_response():
    """z takes 12 values on 12 bins of one feature: every max_leaves up to 12 is reached, and
    no more leaves than 12 (nothing left to split)."""
    X = np.repeat(np.arange(12, dtype=np.uint8), 3)[:, None].copy()
    z = np.repeat(np.arange(12, dtype=float) ** 2, 3)
    w = np.ones(X.shape[0])
    for max_leaves in (2, 8, 12, 20):
        ws, n = _grow(X, z, w, max_leaves, n_bins=np.array([12], np.int32))
        assert (n + 1) // 2 == min(max_leaves, 12)
    assert sorted(ws.leaf_value[:n][ws.left[:n] < 0]) == sorted(np.arange(12.0) ** 2)


def test_prediction_through_the_tree_walk_and_the_forest():
    """predict_tree on the training rows gives each row its leaf's value, from the
    workspace or from a forest holding the tree after another one."""
    X, n_bins, z, w, _ = _problem(7)
    ws, n = _grow(X, z, w, 8, n_bins=n_bins)
    out = np.empty(X.shape[0])
    predict_tree(X, ws.feature, ws.threshold, ws.left, ws.leaf_value, 0, out)
    for nd in range(n):
        if ws.left[nd] < 0:
            rows = ws.sample_index[ws.node_start[nd]:ws.node_end[nd]]
            assert np.all(out[rows] == ws.leaf_value[nd])
    forest = Forest(VECTOR_VOTE, 1)
    forest.append(ws, n, leaf_value=ws.leaf_value[:, None])
    t = forest.append(ws, n, leaf_value=ws.leaf_value[:, None])
    again = np.empty(X.shape[0])
    predict_tree(X, forest.feature, forest.threshold, forest.left, forest.leaf_value[:, 0],
                 forest.tree_offset[t], again)
    assert np.array_equal(out, again)


def test_workspace_is_reused_without_leftovers():
    """A workspace grows trees of several problems in turn, as fresh ones do."""
    X, n_bins, _, _, rng = _problem(11)
    ws = LeafwiseWorkspace(X.shape[0], X.shape[1], int(X.max()) + 1, 8)
    for _ in range(5):
        z = rng.normal(size=X.shape[0])
        w = rng.exponential(size=X.shape[0])
        n = grow_leafwise_tree(ws, X, n_bins, z, w)
        fresh, m = _grow(X, z, w, 8, n_bins=n_bins)
        assert n == m
        assert np.array_equal(ws.feature[:n], fresh.feature[:n])
        assert np.array_equal(ws.leaf_value[:n], fresh.leaf_value[:n])


@pytest.mark.parametrize("bad, match", [
    (dict(w=-np.ones(10)), "w must be finite"),
    (dict(z=np.ones(9)), "shape"),
    (dict(min_samples_leaf=0), "min_samples_leaf"),
    (dict(sample_subset=np.array([3, 2])), "strictly increasing"),
    (dict(sample_subset=np.array([0, 10])), "strictly increasing"),
])
def test_bad_arguments_are_named(bad, match):
    X = np.zeros((10, 2), np.uint8)
    args = dict(z=np.ones(10), w=np.ones(10))
    args.update(bad)
    ws = LeafwiseWorkspace(10, 2, 2, 4)
    with pytest.raises(ValueError, match=match):
        grow_leafwise_tree(ws, X, np.array([2, 2], np.int32), **args)
    with pytest.raises(ValueError, match="max_leaves"):
        LeafwiseWorkspace(10, 2, 2, 1)


@pytest.mark.parametrize("seed", range(40))
def test_depth_first_least_squares_equals_naive(seed):
    """The least-squares criterion in the depth-first grower (same scan) against its twin."""
    X, n_bins, z, w, rng = _problem(2000 + seed)
    G = np.ascontiguousarray(np.column_stack([w, w * z]))
    depth = int(rng.integers(1, 5))
    ws = TreeWorkspace(X.shape[0], X.shape[1], int(X.max()) + 1, 2, depth)
    n = grow_tree(ws, X, np.zeros(X.shape[0], np.int32), n_bins, CRITERION_LEAST_SQUARES,
                  channel_values=G)
    ref = grow_tree_naive(X, np.zeros(X.shape[0], np.int32), n_bins, CRITERION_LEAST_SQUARES,
                          2, depth, channel_values=G)
    assert ws.feature[:n].tolist() == ref["feature"].tolist()
    assert ws.left[:n].tolist() == ref["left"].tolist()


def test_least_squares_and_hamming_workspaces_are_not_mixed_up():
    X = np.zeros((10, 2), np.uint8)
    n_bins = np.array([2, 2], np.int32)
    with pytest.raises(ValueError, match="2 channels, this one has 6"):
        grow_leafwise_tree(LeafwiseWorkspace(10, 2, 2, 4, n_channels=6), X, n_bins,
                           np.ones(10), np.ones(10))
    with pytest.raises(ValueError, match="D must have shape"):
        grow_leafwise_hamming_tree(LeafwiseWorkspace(10, 2, 2, 4), X, n_bins,
                                   np.zeros(10, np.int32), np.ones((10, 3)))


# --- the multi-class Hamming trees of AdaBoost.MH ---------------------------------------------


def _hamming_problem(seed):
    """A random problem of K labels and pair weights D (n, K); some draws have ties (small
    integer weights: exact sums), zero weights (whole rows or single pairs), labels that
    never occur, constant features, a missing-value bin; some are two mirror halves (the
    second a copy of the first on higher bins of feature 0, with labels and weights rotated)
    whose leaves' gains tie once feature 0 has split them apart."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 120))
    F = int(rng.integers(1, 5))
    K = int(rng.integers(2, 7))
    n_bins = rng.integers(1, 12, size=F).astype(np.int32)
    X = np.empty((n, F), np.uint8)
    for f in range(F):
        X[:, f] = rng.integers(0, n_bins[f], size=n)
    if rng.random() < 0.2:
        X[rng.random(n) < 0.2, 0] = 255          # missing values: always right
    y = rng.integers(0, int(rng.integers(1, K + 1)), size=n).astype(np.int32)
    if rng.random() < 0.5:
        D = rng.integers(0, 4, size=(n, K)).astype(float)     # exact sums: true ties
    else:
        D = rng.exponential(size=(n, K)) * 10 ** rng.uniform(-6, 0)
        D[rng.random((n, K)) < 0.2] = 0.0
    D[rng.random(n) < 0.1] = 0.0
    if rng.random() < 0.25:
        mirror = X.copy()
        mirror[:, 0] = np.where(X[:, 0] == 255, 255, X[:, 0] + n_bins[0])
        n_bins[0] *= 2
        X = np.concatenate([X, mirror])
        y = np.concatenate([y, (y + 1) % K]).astype(np.int32)
        D = np.concatenate([D, np.roll(D, 1, axis=1)])      # D'(i, l + 1) = D(i, l)
    return X, n_bins, y, D, rng


def _grow_hamming(X, y, D, max_leaves, n_bins, **kw):
    ws = LeafwiseWorkspace(X.shape[0], X.shape[1], int(X.max()) + 1, max_leaves,
                           n_channels=2 * D.shape[1])
    return ws, grow_leafwise_hamming_tree(ws, X, n_bins, y, D, **kw)


def _z_of(y, D, blocks):
    """Z = 2 sum_blocks sum_l sqrt(W+ W-) of a partition, from D directly."""
    K = D.shape[1]
    Y = np.arange(K)[None, :] == y[:, None]
    return 2.0 * sum(np.sqrt((D[idx] * Y[idx]).sum(0) * (D[idx] * ~Y[idx]).sum(0)).sum()
                     for idx in blocks)


@pytest.mark.parametrize("seed", range(300))
def test_hamming_fast_equals_naive(seed):
    X, n_bins, y, D, rng = _hamming_problem(seed)
    max_leaves = int(rng.integers(2, 13))
    min_leaf = int(rng.choice([1, 1, 2, 5]))
    ws, n = _grow_hamming(X, y, D, max_leaves, n_bins, min_samples_leaf=min_leaf)
    if rng.random() < 0.3:                       # dense histograms only: the same tree
        dense = LeafwiseWorkspace(X.shape[0], X.shape[1], int(X.max()) + 1, max_leaves,
                                  n_channels=2 * D.shape[1])
        dense.sparse_max = 0
        assert grow_leafwise_hamming_tree(dense, X, n_bins, y, D,
                                          min_samples_leaf=min_leaf) == n
        assert np.array_equal(dense.feature[:n], ws.feature[:n])
        assert np.array_equal(dense.node_sum[:n], ws.node_sum[:n])
    ref = grow_leafwise_hamming_tree_naive(X, n_bins, y, D, max_leaves,
                                           min_samples_leaf=min_leaf)
    assert n == ref["feature"].size
    for key in ("feature", "left", "right", "node_count"):
        assert ws.__dict__[key][:n].tolist() == ref[key].tolist(), key
    internal = ref["left"] >= 0
    assert ws.threshold[:n][internal].tolist() == ref["threshold"][internal].tolist()
    np.testing.assert_allclose(ws.node_sum[:n], ref["node_sum"], rtol=1e-12,
                               atol=1e-12 * D.sum())
    scale = 1e-9 * (1.0 + D.sum())
    np.testing.assert_allclose(ws.split_gain[:n][internal], ref["split_gain"][internal],
                               rtol=1e-9, atol=scale)
    leaves = np.flatnonzero(~internal)
    for nd in leaves:       # each leaf holds its rows, in increasing order
        rows = ws.sample_index[ws.node_start[nd]:ws.node_end[nd]]
        assert rows.tolist() == ref["members"][nd].tolist()
    # The gains of the splits add up to the drop of Z from the root to the leaves (-score
    # = Z / 2 per block: the scan's score is -sum sqrt(W+ W-)).
    z_drop = (_z_of(y, D, [np.arange(X.shape[0])])
              - _z_of(y, D, [ref["members"][i] for i in leaves]))
    assert abs(2.0 * ws.split_gain[:n][internal].sum() - z_drop) <= scale


@pytest.mark.parametrize("seed", range(40))
def test_hamming_tree_of_fewer_leaves_is_the_start_of_the_growth(seed):
    """The best-first growth does not depend on max_leaves: the tree of L + 1 leaves makes
    the L - 1 splits of the tree of L leaves first (the same nodes), then one more, unless
    no leaf lowers Z; every split lowers Z."""
    X, n_bins, y, D, _ = _hamming_problem(3000 + seed)
    trees = [_grow_hamming(X, y, D, L, n_bins) for L in range(2, 13)]
    for (small, n), (big, m) in zip(trees, trees[1:]):
        assert m in (n, n + 2)
        split = small.left[:n] >= 0
        assert np.array_equal(big.feature[:n][split], small.feature[:n][split])
        assert np.array_equal(big.threshold[:n][split], small.threshold[:n][split])
        assert np.array_equal(big.left[:n][split], small.left[:n][split])
        if m == n:   # growth stopped: no leaf of the tree has a split lowering Z
            assert np.all(big.split_gain[:m][big.left[:m] < 0] == -np.inf)
        assert np.all(big.split_gain[:m][big.left[:m] >= 0] > 0)


@pytest.mark.parametrize("seed", range(60))
def test_hamming_two_leaves_is_the_depth_one_tree(seed):
    """With two leaves the best-first tree is the root's split, as the depth-first grower's
    stump (max_depth 1) is: the same split, node sums and leaf rows, bit for bit."""
    X, n_bins, y, D, _ = _hamming_problem(4000 + seed)
    K = D.shape[1]
    ws, n = _grow_hamming(X, y, D, 2, n_bins)
    deep = TreeWorkspace(X.shape[0], X.shape[1], int(X.max()) + 1, 2 * K, 1)
    m = grow_tree(deep, X, y, n_bins, CRITERION_HAMMING, weight_matrix=D)
    assert n == m
    for key in ("feature", "left", "right", "node_count", "node_start", "node_end"):
        assert np.array_equal(ws.__dict__[key][:n], deep.__dict__[key][:n]), key
    assert np.array_equal(ws.node_sum[:n], deep.node_sum[:n])
    assert np.array_equal(ws.sample_index, deep.sample_index)
    if n == 3:
        assert ws.threshold[0] == deep.threshold[0]


def test_hamming_workspace_is_reused_without_leftovers():
    """One workspace grows the trees of several weightings in turn (AdaBoost.MH's rounds),
    as fresh ones do."""
    X, n_bins, y, D, rng = _hamming_problem(12)
    ws = LeafwiseWorkspace(X.shape[0], X.shape[1], int(X.max()) + 1, 8,
                           n_channels=2 * D.shape[1])
    for _ in range(5):
        D = rng.exponential(size=D.shape)
        n = grow_leafwise_hamming_tree(ws, X, n_bins, y, D)
        fresh, m = _grow_hamming(X, y, D, 8, n_bins)
        assert n == m
        assert np.array_equal(ws.feature[:n], fresh.feature[:n])
        assert np.array_equal(ws.node_sum[:n], fresh.node_sum[:n])


@pytest.mark.parametrize("bad, match", [
    (dict(D=-np.ones((10, 3))), "D must be finite"),
    (dict(D=np.full((10, 3), np.inf)), "D must be finite"),
    (dict(D=np.full((10, 3), np.nan)), "D must be finite"),
    (dict(D=np.ones((9, 3))), "D must have shape"),
    (dict(D=np.ones((10, 2))), "D must have shape"),
    (dict(y=np.full(10, 3)), "labels in 0..2"),
    (dict(y=np.full(10, -1)), "labels in 0..2"),
    (dict(y=np.zeros(9, int)), "labels in 0..2"),
    (dict(min_samples_leaf=0), "min_samples_leaf"),
    (dict(X=np.zeros((10, 3), np.uint8)), "X_binned"),
    (dict(X=np.zeros((10, 2), np.int64)), "X_binned"),
])
def test_hamming_bad_arguments_are_named(bad, match):
    args = dict(X=np.zeros((10, 2), np.uint8), y=np.zeros(10, np.int32), D=np.ones((10, 3)))
    args.update(bad)
    X = args.pop("X")
    ws = LeafwiseWorkspace(10, 2, 2, 4, n_channels=6)
    with pytest.raises(ValueError, match=match):
        grow_leafwise_hamming_tree(ws, X, np.array([2, 2], np.int32), **args)
