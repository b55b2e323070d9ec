"""Binning and the compiled histogram tree against its naive twin."""

import numpy as np
import pytest

from mcboost_cli._dtypes import MISSING_BIN
from mcboost_cli.learners.binning import BinMapper
from mcboost_cli.learners.forest import LABEL_VOTE, VECTOR_VOTE, Forest
from mcboost_cli.learners.histogram_tree import (
    CRITERION_ABS_SUM,
    CRITERION_ERROR,
    CRITERION_GINI,
    CRITERION_HAMMING,
    CRITERION_LEAST_SQUARES,
    CRITERION_MAX_CHANNEL,
    TreeWorkspace,
    apply_tree,
    grow_tree,
    n_channels,
)
from mcboost_cli.learners.naive_tree import grow_tree_naive


def test_binning_few_distinct_values_is_exact():
    X = np.array([[1.0, 10], [2, 10], [2, 20], [5, 30], [7, 30]])
    m = BinMapper().fit(X)
    codes = m.transform(X)
    assert m.n_bins_.tolist() == [4, 3]
    assert codes[:, 0].tolist() == [0, 1, 1, 2, 3]
    # Unseen values fall in the bin of the nearest training interval.
    assert m.transform(np.array([[1.4, 25.0], [1.6, 100.0]])).tolist() == [[0, 1], [1, 2]]


def test_binning_many_values_caps_bins_and_keeps_order():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(5000, 1))
    m = BinMapper(max_bins=32).fit(x)
    codes = m.transform(x)[:, 0]
    assert m.n_bins_[0] <= 32 and codes.max() == m.n_bins_[0] - 1
    order = np.argsort(x[:, 0], kind="stable")
    assert np.all(np.diff(codes[order].astype(int)) >= 0)   # monotone map


def test_binning_missing_and_categorical():
    X = np.array([[0.0, 1.5], [2, np.nan], [1, 3.0]])
    m = BinMapper(categorical=[True, False]).fit(X)
    codes = m.transform(X)
    assert codes[:, 0].tolist() == [0, 2, 1]
    assert codes[1, 1] == MISSING_BIN
    assert m.n_bins_.tolist() == [3, 2]


@pytest.mark.parametrize("max_bins", [2, 7, 40, 255])
def test_binning_transform_equals_searchsorted_per_column(max_bins):
    """The compiled transform (count of edges below, or binary search past 32 edges) maps
    every value as ``np.searchsorted(edges, x, 'left')`` does, NaN to the missing bin:
    rounded values, adjacent doubles, infinities, unseen values, C or Fortran order."""
    rng = np.random.default_rng(max_bins)
    n, F = 2000, 4
    X = rng.normal(size=(n, F)) * 100.0
    X[:, 0] = np.round(X[:, 0] / 10.0)
    X[:, 1] = 1.0 + rng.integers(0, 5, n) * np.spacing(1.0)
    X[rng.random(n) < 0.01, 2] = np.inf
    X[rng.random((n, F)) < 0.05] = np.nan
    mapper = BinMapper(max_bins=max_bins).fit(X)
    X_new = np.concatenate([X[:100], rng.normal(size=(300, F)) * 300.0])
    for Z in (X, X_new, np.asfortranarray(X_new)):
        want = np.empty(Z.shape, np.uint8)
        for f, edges in enumerate(mapper.bin_edges_):
            b = np.searchsorted(edges, Z[:, f], side="left")
            b[np.isnan(Z[:, f])] = MISSING_BIN
            want[:, f] = b
        np.testing.assert_array_equal(mapper.transform(Z), want)
    with pytest.raises(ValueError, match="fitted on 4 features"):
        mapper.transform(X[:, :3])


def _random_problem(rng):
    n = int(rng.integers(5, 400))
    F = int(rng.integers(1, 6))
    K = int(rng.integers(2, 7))
    X_binned = rng.integers(0, int(rng.integers(2, 12)), size=(n, F)).astype(np.uint8)
    y = rng.integers(0, K, n).astype(np.int32)
    return X_binned, y, K


def _channel_values(rng, n, C):
    """Signed per-sample vectors for the dense criteria: half of the problems get small
    integers (so that many splits tie exactly and the tie-breaking is exercised)."""
    if rng.random() < 0.5:
        return rng.integers(-2, 3, size=(n, C)).astype(float)
    return rng.normal(size=(n, C))


@pytest.mark.parametrize("criterion", [CRITERION_GINI, CRITERION_ERROR, CRITERION_HAMMING,
                                       CRITERION_MAX_CHANNEL, CRITERION_ABS_SUM])
def test_fast_tree_equals_naive_twin(criterion):
    rng = np.random.default_rng(12345 + criterion)
    for _ in range(60):
        X_binned, y, K = _random_problem(rng)
        n, F = X_binned.shape
        depth = int(rng.integers(1, 6))
        w = rng.random(n)
        W = rng.random((n, K))
        G = _channel_values(rng, n, n_channels(criterion, K))
        n_bins = (X_binned.max(axis=0) + 1).astype(np.int32)
        ws = TreeWorkspace(n, F, int(n_bins.max()), n_channels(criterion, K), depth)
        m = grow_tree(ws, X_binned, y, n_bins, criterion, weight=w, weight_matrix=W,
                      channel_values=G)
        ref = grow_tree_naive(X_binned, y, n_bins, criterion, K, depth, weight=w,
                              weight_matrix=W, channel_values=G)
        assert m == ref["feature"].size
        np.testing.assert_array_equal(ws.feature[:m], ref["feature"])
        np.testing.assert_array_equal(ws.left[:m], ref["left"])
        np.testing.assert_array_equal(ws.right[:m], ref["right"])
        internal = ref["left"] >= 0           # tree walks rely on right == left + 1
        np.testing.assert_array_equal(ws.right[:m][internal], ws.left[:m][internal] + 1)
        internal = ref["left"] >= 0
        np.testing.assert_array_equal(ws.threshold[:m][internal], ref["threshold"][internal])
        np.testing.assert_allclose(ws.node_sum[:m], ref["node_sum"], rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(ws.node_count[:m], ref["node_count"])


def _binned_problem(rng, n_range, F_max, width_min, clustered=False):
    """Binned features over up to 255 bins with 5% missing values (the missing-value bin),
    K in 2..5 labels; ``clustered``: half of the problems put several samples per bin.
    Returns (X_binned, y, n_bins, K)."""
    n = int(rng.integers(*n_range))
    F = int(rng.integers(1, F_max))
    K = int(rng.integers(2, 6))
    width = int(rng.integers(width_min, 255))
    X_binned = rng.integers(0, width, size=(n, F)).astype(np.uint8)
    if clustered and rng.random() < 0.5:
        X_binned = (X_binned // 7 * 7).astype(np.uint8)
    X_binned[rng.random((n, F)) < 0.05] = MISSING_BIN
    y = rng.integers(0, K, n).astype(np.int32)
    n_bins = np.array([X_binned[X_binned[:, f] != MISSING_BIN, f].max(initial=0) + 1
                       for f in range(F)], dtype=np.int32)
    return X_binned, y, n_bins, K


@pytest.mark.parametrize("criterion", [CRITERION_GINI, CRITERION_ERROR, CRITERION_HAMMING,
                                       CRITERION_MAX_CHANNEL, CRITERION_ABS_SUM])
def test_sparse_small_node_histograms_give_the_dense_tree_bit_for_bit(criterion):
    """Deep trees over many bins (with a missing-value bin), where most nodes are small enough
    for sparse histograms: every node array equals the all-dense grower's exactly, and the
    tree equals the naive twin's."""
    rng = np.random.default_rng(2024 + criterion)
    n_sparse_nodes = 0
    for _ in range(25):
        X_binned, y, n_bins, K = _binned_problem(rng, (50, 700), 5, 40, clustered=True)
        n, F = X_binned.shape
        w = rng.random(n)
        W = rng.random((n, K))
        G = _channel_values(rng, n, n_channels(criterion, K))
        depth = int(rng.integers(4, 11))
        grown = []
        for sparse in (True, False):
            ws = TreeWorkspace(n, F, MISSING_BIN + 1, n_channels(criterion, K), depth)
            assert ws.sparse_max == (MISSING_BIN + 1) // 4
            if not sparse:
                ws.sparse_max = 0
            m = grow_tree(ws, X_binned, y, n_bins, criterion, weight=w, weight_matrix=W,
                          channel_values=G)
            grown.append((m, ws))
            if sparse:
                n_sparse_nodes += int((ws.node_count[:m] <= ws.sparse_max).sum())
        (m, a), (m2, b) = grown
        assert m == m2
        for name in ("feature", "threshold", "left", "right", "node_count"):
            np.testing.assert_array_equal(getattr(a, name)[:m], getattr(b, name)[:m], name)
        assert a.node_sum[:m].tobytes() == b.node_sum[:m].tobytes()
        ref = grow_tree_naive(X_binned, y, n_bins, criterion, K, depth, weight=w,
                              weight_matrix=W, channel_values=G)
        np.testing.assert_array_equal(a.feature[:m], ref["feature"])
    assert n_sparse_nodes > 500      # the sparse path was exercised


@pytest.mark.parametrize("criterion", [CRITERION_GINI, CRITERION_ERROR, CRITERION_HAMMING,
                                       CRITERION_MAX_CHANNEL, CRITERION_ABS_SUM,
                                       CRITERION_LEAST_SQUARES])
def test_node_ordered_rows_give_the_indexed_tree_bit_for_bit(criterion):
    """The grower that keeps the samples' rows in node order and moves them with the samples
    at each split (``order_rows``) grows, tree after tree in one workspace, every node
    array, node sum and sample order of the grower that reads the rows through the sample
    index: deep trees (sparse and dense nodes), stumps, tied and continuous weights."""
    rng = np.random.default_rng(4242 + criterion)
    for _ in range(20):
        X_binned, y, n_bins, K = _binned_problem(rng, (2, 900), 6, 2)
        n, F = X_binned.shape
        depth = int(rng.integers(1, 11))
        C = n_channels(criterion, K) if criterion != CRITERION_HAMMING else K
        grown = {True: [], False: []}
        for order_rows in grown:
            ws = TreeWorkspace(n, F, MISSING_BIN + 1, n_channels(criterion, K), depth)
            trees_rng = np.random.default_rng(n)
            for _tree in range(3):
                w = trees_rng.random(n)
                W = trees_rng.random((n, K))
                G = _channel_values(trees_rng, n, C)
                if criterion == CRITERION_LEAST_SQUARES:
                    G[:, 0] = np.abs(G[:, 0])
                m = grow_tree(ws, X_binned, y, n_bins, criterion, weight=w, weight_matrix=W,
                              channel_values=G, order_rows=order_rows)
                grown[order_rows].append((m, {name: getattr(ws, name)[:m].copy() for name in
                                           ("feature", "threshold", "left", "right",
                                            "node_count", "node_start", "node_sum")},
                                       ws.sample_index.copy()))
        for (m, a, order_a), (m2, b, order_b) in zip(grown[True], grown[False]):
            assert m == m2
            for name in a:
                assert a[name].tobytes() == b[name].tobytes(), name
            np.testing.assert_array_equal(order_a, order_b)


def _assert_same_tree(ws, m, ref):
    assert m == ref["feature"].size
    internal = ref["left"] >= 0
    np.testing.assert_array_equal(ws.feature[:m], ref["feature"])
    np.testing.assert_array_equal(ws.threshold[:m][internal], ref["threshold"][internal])
    np.testing.assert_array_equal(ws.left[:m], ref["left"])
    np.testing.assert_array_equal(ws.node_count[:m], ref["node_count"])
    np.testing.assert_allclose(ws.node_sum[:m], ref["node_sum"], rtol=1e-9, atol=1e-12)


def _tree_signature(ws, m):
    internal = ws.left[:m] >= 0
    return (m, tuple(ws.feature[:m]), tuple(ws.threshold[:m][internal]))


def test_label_trees_equal_naive_twin_under_gini_and_error_and_the_criteria_differ():
    """AdaBoost.M1 / SAMME's trees (per-sample weights, K channels) under both
    ``split_criterion`` values equal the naive twin's on random weighted problems, half of
    them with small-integer weights (exact ties between splits exercise the tie-breaking);
    and the two criteria grow different trees on many of them, so the equality is no
    accident of both criteria picking the same splits."""
    rng = np.random.default_rng(777)
    n_differ = 0
    n_problems = 80
    for _ in range(n_problems):
        X_binned, y, K = _random_problem(rng)
        n, F = X_binned.shape
        depth = int(rng.integers(1, 5))
        w = rng.integers(1, 4, n).astype(float) if rng.random() < 0.5 else rng.random(n)
        n_bins = (X_binned.max(axis=0) + 1).astype(np.int32)
        signature = {}
        for criterion in (CRITERION_GINI, CRITERION_ERROR):
            ws = TreeWorkspace(n, F, int(n_bins.max()), K, depth)
            m = grow_tree(ws, X_binned, y, n_bins, criterion, weight=w)
            ref = grow_tree_naive(X_binned, y, n_bins, criterion, K, depth, weight=w)
            _assert_same_tree(ws, m, ref)
            signature[criterion] = _tree_signature(ws, m)
        n_differ += signature[CRITERION_GINI] != signature[CRITERION_ERROR]
    assert n_differ >= n_problems // 4


def _majority_error(y, w, K, mask):
    """Weighted misclassification of the samples in ``mask`` labelled with their
    weighted-majority class."""
    cw = np.bincount(y[mask], weights=w[mask], minlength=K)
    return cw.sum() - cw.max()


def test_error_split_minimises_the_weighted_error_by_brute_force():
    """The root split of CRITERION_ERROR has the least weighted error of majority-labelled
    children over every (feature, threshold), the first such feature and lowest threshold on
    ties; when no split lowers the unsplit node's error the root stays a leaf."""
    rng = np.random.default_rng(31)
    n_split = n_leaf = 0
    for _ in range(60):
        X_binned, y, K = _random_problem(rng)
        n, F = X_binned.shape
        if rng.random() < 0.3:
            # One dominant class: every split often leaves it the majority of both children,
            # so that none lowers the error.
            y = np.where(rng.random(n) < 0.7, 0, y).astype(np.int32)
        w = rng.integers(1, 4, n).astype(float) if rng.random() < 0.5 else rng.random(n)
        n_bins = (X_binned.max(axis=0) + 1).astype(np.int32)
        ws = TreeWorkspace(n, F, int(n_bins.max()), K, 1)
        m = grow_tree(ws, X_binned, y, n_bins, CRITERION_ERROR, weight=w)
        candidates = [(_majority_error(y, w, K, X_binned[:, f] <= t)
                       + _majority_error(y, w, K, X_binned[:, f] > t), f, t)
                      for f in range(F) for t in range(n_bins[f] - 1)
                      if 0 < (X_binned[:, f] <= t).sum() < n]
        unsplit = _majority_error(y, w, K, np.ones(n, bool))
        least = min((c[0] for c in candidates), default=np.inf)
        if m == 1:
            n_leaf += 1
            assert least >= unsplit - 1e-9 * (1 + unsplit)
            continue
        n_split += 1
        first = next((f, t) for e, f, t in candidates if e <= least + 1e-9 * (1 + least))
        assert (ws.feature[0], ws.threshold[0]) == first
        assert least < unsplit
    assert n_split >= 20 and n_leaf >= 3


def test_tree_partition_matches_apply():
    """Each leaf's sample range in the partition holds exactly the samples routed to it."""
    rng = np.random.default_rng(7)
    X_binned, y, K = _random_problem(rng)
    n, F = X_binned.shape
    n_bins = (X_binned.max(axis=0) + 1).astype(np.int32)
    ws = TreeWorkspace(n, F, int(n_bins.max()), K, 4)
    m = grow_tree(ws, X_binned, y, n_bins, CRITERION_GINI, weight=rng.random(n))
    leaf = np.empty(n, np.int32)
    apply_tree(X_binned, ws.feature, ws.threshold, ws.left, 0, leaf)
    for nd in range(m):
        if ws.left[nd] < 0:
            members = np.sort(ws.sample_index[ws.node_start[nd]:ws.node_end[nd]])
            np.testing.assert_array_equal(members, np.flatnonzero(leaf == nd))


def test_gini_split_is_best_by_brute_force():
    """The root split maximises the Gini proxy over every (feature, threshold)."""
    rng = np.random.default_rng(3)
    for _ in range(30):
        X_binned, y, K = _random_problem(rng)
        n, F = X_binned.shape
        w = rng.random(n)
        n_bins = (X_binned.max(axis=0) + 1).astype(np.int32)
        ws = TreeWorkspace(n, F, int(n_bins.max()), K, 1)
        if grow_tree(ws, X_binned, y, n_bins, CRITERION_GINI, weight=w) == 1:
            continue

        def proxy(mask):
            s = 0.0
            for side in (mask, ~mask):
                cw = np.bincount(y[side], weights=w[side], minlength=K)
                s += (cw ** 2).sum() / cw.sum()
            return s

        best = max(proxy(X_binned[:, f] <= t) for f in range(F)
                   for t in range(n_bins[f] - 1)
                   if 0 < (X_binned[:, f] <= t).sum() < n)
        got = proxy(X_binned[:, ws.feature[0]] <= ws.threshold[0])
        assert got == pytest.approx(best, rel=1e-12)


@pytest.mark.parametrize("criterion", [CRITERION_MAX_CHANNEL, CRITERION_ABS_SUM])
def test_dense_criteria_splits_are_best_by_brute_force(criterion):
    """The root split maximises the sum over both sides of max_c (sum G[:, c]) (MAX_CHANNEL)
    or |sum G[:, 0]| (ABS_SUM) over every (feature, threshold); a split that does not beat the
    unsplit node is not taken; the node sums are the channel sums of the node's samples."""
    rng = np.random.default_rng(5 + criterion)
    n_split = 0
    for _ in range(40):
        X_binned, y, K = _random_problem(rng)
        n, F = X_binned.shape
        C = n_channels(criterion, K)
        G = _channel_values(rng, n, C)
        n_bins = (X_binned.max(axis=0) + 1).astype(np.int32)
        ws = TreeWorkspace(n, F, int(n_bins.max()), C, 1)

        def side(mask, G=G):
            s = G[mask].sum(axis=0)
            return s.max() if criterion == CRITERION_MAX_CHANNEL else abs(s[0])

        m = grow_tree(ws, X_binned, y, n_bins, criterion, channel_values=G)
        np.testing.assert_allclose(ws.node_sum[0], G.sum(axis=0), atol=1e-9)
        every = np.ones(n, bool)
        cands = [side(X_binned[:, f] <= t) + side(X_binned[:, f] > t) for f in range(F)
                 for t in range(n_bins[f] - 1) if 0 < (X_binned[:, f] <= t).sum() < n]
        best = max(cands, default=-np.inf)
        if m == 1:
            assert best <= side(every) + 1e-9 * (1 + abs(side(every)))
            continue
        n_split += 1
        mask = X_binned[:, ws.feature[0]] <= ws.threshold[0]
        got = side(mask) + side(~mask)
        assert got == pytest.approx(best, rel=1e-12, abs=1e-12)
        assert got > side(every)
        np.testing.assert_allclose(ws.node_sum[1], G[mask].sum(axis=0), atol=1e-9)
        np.testing.assert_allclose(ws.node_sum[2], G[~mask].sum(axis=0), atol=1e-9)
    assert n_split >= 10


def test_dense_criteria_reject_bad_channel_values():
    X_binned = np.zeros((5, 1), np.uint8)
    X_binned[3:] = 1
    ws = TreeWorkspace(5, 1, 2, 3, 1)
    with pytest.raises(ValueError, match="channel_values"):
        grow_tree(ws, X_binned, np.zeros(5, np.int32), np.array([2], np.int32),
                  CRITERION_MAX_CHANNEL, channel_values=np.zeros((5, 2)))


def test_forest_round_updates_match_dense_recomputation():
    rng = np.random.default_rng(11)
    X_binned, y, K = _random_problem(rng)
    n, F = X_binned.shape
    n_bins = (X_binned.max(axis=0) + 1).astype(np.int32)
    ws = TreeWorkspace(n, F, int(n_bins.max()), K, 3)
    for vote in (LABEL_VOTE, VECTOR_VOTE):
        forest = Forest(vote, K, node_capacity=4)   # tiny: forces capacity growth
        scores = np.zeros((n, K))
        pred = np.zeros(n, np.int32)
        ref = np.zeros((n, K))
        leaf = np.empty(n, np.int32)
        for t in range(12):
            m = grow_tree(ws, X_binned, y, n_bins, CRITERION_GINI, weight=rng.random(n))
            labels = rng.integers(0, K, m).astype(np.int32)
            values = rng.normal(size=(m, K))
            alpha = float(rng.normal())      # negative alphas exercise the full argmax path
            forest.append(ws, m, leaf_label=labels, leaf_value=values, alpha=alpha)
            n_err = forest.add_round(t, X_binned, y, scores, pred)
            apply_tree(X_binned, ws.feature, ws.threshold, ws.left, 0, leaf)
            if vote == LABEL_VOTE:
                ref[np.arange(n), labels[leaf]] += alpha
            else:
                ref += values[leaf]
            np.testing.assert_allclose(scores, ref, rtol=0, atol=1e-12)
            np.testing.assert_array_equal(pred, np.argmax(ref, axis=1))
            assert n_err == int((np.argmax(ref, axis=1) != y).sum())


def test_workspace_counts_root_bins_of_each_array():
    """A workspace counts the root's bins once per binned array (``count_bins``): reused on
    another array with other values, it recounts, and grows the tree a fresh workspace
    grows; the counts it keeps equal a recount."""
    rng = np.random.default_rng(5)
    n, F, K = 300, 3, 3
    X_a = rng.integers(0, 4, (n, F)).astype(np.uint8)
    X_b = X_a.copy()
    X_b[: n // 2] = 3               # other values: the counts of X_a would be wrong for X_b
    y = rng.integers(0, K, n).astype(np.int32)
    w = rng.random(n)
    n_bins = np.full(F, 4, np.int32)

    def tree(ws, X):
        m = grow_tree(ws, X, y, n_bins, CRITERION_GINI, weight=w)
        return (ws.feature[:m].copy(), ws.threshold[:m].copy(), ws.left[:m].copy(),
                ws.node_count[:m].copy(), ws.node_sum[:m].copy())

    reused = TreeWorkspace(n, F, 4, K, 3)
    tree(reused, X_a)
    got = tree(reused, X_b)
    want = tree(TreeWorkspace(n, F, 4, K, 3), X_b)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
    expected = np.stack([np.bincount(X_b[:, f], minlength=4) for f in range(F)])
    np.testing.assert_array_equal(reused.root_count, expected)


def test_binned_keeps_the_raw_values_of_its_rows_for_learners_that_need_them():
    from mcboost_cli.algorithms.base import BaseBoosting
    from mcboost_cli.learners.binning import Binned, BinMapper
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    mapper = BinMapper(max_bins=8).fit(X)
    b = Binned(mapper.transform(X), mapper, raw=X)
    assert np.array_equal(BaseBoosting._raw(b), X)
    assert np.array_equal(BaseBoosting._raw(X), X)         # unbinned input: itself
    with pytest.raises(ValueError, match="needs the raw feature values"):
        BaseBoosting._raw(Binned(mapper.transform(X), mapper))
    with pytest.raises(ValueError, match="raw has shape"):
        Binned(mapper.transform(X), mapper, raw=X[:5])
