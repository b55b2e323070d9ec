"""DirectBoost_order's fast Phase II node search (``margin_search_order``) against the plain
exhaustive one (``margin_search_exhaustive``): the same maxima bit for bit, the same trees, the
same fits."""

import numpy as np
import pytest

from mcboost_cli.algorithms.directboost import DirectBoostOrder
from mcboost_cli.learners import line_search as ls
from mcboost_cli.learners.margin_search_exhaustive import OBJ_ORDER
from mcboost_cli.learners.margin_search_order import max_order_margin_pruned
from mcboost_cli.learners.margin_tree import grow_margin_tree
from mcboost_cli.learners.zero_one_workspace import ZeroOneWorkspace

from .test_directboost import binary_data, binary_state


def test_pruned_scan_is_the_exact_scan_bit_for_bit():
    rng = np.random.default_rng(0)
    for it in range(3000):
        n = int(rng.integers(1, 40))
        if it % 3 == 0:     # many ties (integer margins, few values)
            m = rng.integers(-4, 5, n).astype(float)
        else:
            m = rng.normal(size=n) * 3
        rise = rng.random(n) < rng.uniform(0.1, 0.9)
        inc, dec = np.sort(m[rise]), np.sort(m[~rise])
        k = int(rng.integers(1, n + 1))
        c = float(rng.uniform(0.5, 5)) if it % 2 else float(rng.integers(1, 6))
        hi = 2 * c + 1 if it % 4 else float(rng.uniform(0.1, 2 * c + 1))
        ref = ls.max_order_margin_exact(inc, len(inc), dec, len(dec), k, c, hi)
        got = max_order_margin_pruned(inc, len(inc), dec, len(dec), k, c, hi)
        assert np.array(got).tobytes() == np.array(ref).tobytes(), (it, ref, got)


def _trees(fast, X, y, n_bins, scores, c, nprime, eps, depth):
    n, F = X.shape
    ws = ZeroOneWorkspace(n, F, int(n_bins.max()), 2, depth)
    m = grow_margin_tree(ws, X, y, n_bins, scores, c, nprime, OBJ_ORDER, False, eps,
                         order_fast=fast)
    return (m, ws.feature[:m].copy(), ws.threshold[:m].copy(), ws.left[:m].copy(),
            ws.node_label[:m].copy(), ws.vote.copy())


@pytest.mark.parametrize("integer", [True, False])
def test_order_node_search_grows_the_exhaustive_trees(integer):
    """Random nodes and ensembles (integer weights: many tied maxima and keys), depth 1-3,
    every n', eps 0 and 0.01, features with empty bins: the trees of the exhaustive search."""
    rng = np.random.default_rng(1 + integer)
    n_split = 0
    for it in range(250):
        n = int(rng.integers(2, 60))
        F, nb = int(rng.integers(1, 5)), int(rng.integers(2, 9))
        X = rng.integers(0, nb, size=(n, F)).astype(np.uint8)
        n_bins = rng.integers(2, nb + 1, F).astype(np.int32)
        X = np.minimum(X, n_bins - 1).astype(np.uint8)
        _, scores, c = binary_state(rng, n, int(rng.integers(1, 6)), integer=integer)
        y = rng.integers(0, 2, n).astype(np.int32)
        depth, nprime = int(rng.integers(1, 4)), int(rng.integers(1, n + 1))
        eps = 0.01 * (it % 2)
        ref = _trees(False, X, y, n_bins, scores, c, nprime, eps, depth)
        got = _trees(True, X, y, n_bins, scores, c, nprime, eps, depth)
        assert ref[0] == got[0], it
        for a, b in zip(ref[1:], got[1:]):
            np.testing.assert_array_equal(a, b, err_msg=str(it))
        n_split += ref[0] > 1
    assert n_split > 100      # the comparisons are of grown trees, not only one-leaf ones


@pytest.mark.parametrize("depth", [1, 3])
@pytest.mark.parametrize("frac", [0.01, 0.1, 0.5])
def test_directboost_order_fits_are_the_same_with_the_fast_search(depth, frac):
    for seed in (0, 1):
        X, y = binary_data(seed, n=160, noise=0.8)
        fits = []
        for fast in (False, True):
            est = DirectBoostOrder(n_rounds=60, max_depth=depth, max_bins=32,
                                   n_prime_fraction=frac, phase1_patience=3)
            est._order_fast = fast
            fits.append(est.fit(X, y))
        a, b = fits
        assert a.n_rounds_ == b.n_rounds_ and a.n_rounds_ >= a.n_phase1_rounds_ + 10
        assert a.stop_reason_ == b.stop_reason_
        assert np.array(a.forest_.alpha).tobytes() == np.array(b.forest_.alpha).tobytes()
        for name in ("feature", "threshold", "left", "leaf_label"):
            np.testing.assert_array_equal(getattr(a.forest_, name), getattr(b.forest_, name))
        assert np.asarray(a.objective_).tobytes() == np.asarray(b.objective_).tobytes()
        np.testing.assert_array_equal(a.train_errors_, b.train_errors_)
        np.testing.assert_array_equal(a.relaxed_, b.relaxed_)
        assert a.class_scores(X).tobytes() == b.class_scores(X).tobytes()
