"""Folds, label noise and seeds."""

import numpy as np
import pytest

from mcboost_cli.protocol.noise import noisy_labels
from mcboost_cli.protocol.seeding import derive_seed
from mcboost_cli.protocol.splits import five_fold_parts, five_fold_split, make_split


@pytest.mark.parametrize("n", [10, 101, 1728, 12960])
def test_five_parts_are_an_equal_partition(n):
    parts = five_fold_parts(n, "car", 0)
    sizes = np.bincount(parts, minlength=5)
    assert sizes.sum() == n and sizes.max() - sizes.min() <= 1


def test_fold_layout_three_one_one():
    parts = five_fold_parts(1000, "nursery", 3)
    tested = np.zeros(1000, int)
    for fold in range(5):
        s = five_fold_split(parts, fold)
        assert set(parts[s.test]) == {fold}
        assert set(parts[s.valid]) == {(fold + 1) % 5}
        assert set(parts[s.train]) == set(range(5)) - {fold, (fold + 1) % 5}
        allrows = np.concatenate([s.train, s.valid, s.test])
        assert np.array_equal(np.sort(allrows), np.arange(1000))      # a partition
        tested[s.test] += 1
    assert np.all(tested == 1)                                          # each row tested once


def test_splits_depend_on_names_not_on_call_order():
    a = five_fold_parts(500, "letter", 0)
    five_fold_parts(500, "car", 7)                                      # unrelated call between
    b = five_fold_parts(500, "letter", 0)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, five_fold_parts(500, "letter", 1))
    assert not np.array_equal(a, five_fold_parts(500, "nursery", 0))
    assert derive_seed("x", 1) != derive_seed("x", 1.0) != derive_seed("x", "1")


@pytest.mark.parametrize("rate", [0.0, 0.05, 0.2, 0.5])
def test_label_noise_rate_is_exact_and_test_stays_clean(rate):
    K = 5
    rng = np.random.default_rng(0)
    y = rng.integers(0, K, 2000).astype(np.int32)
    s = make_split("five_fold", 2000, "nursery", 0, 2)
    trval = np.concatenate([s.train, s.valid])
    y_noisy, flipped = noisy_labels(y, trval, rate, K, dataset="nursery", seed=0, fold=2)
    changed = np.flatnonzero(y_noisy != y)
    assert changed.size == round(rate * trval.size)          # each flip changes the label
    assert np.array_equal(np.sort(flipped), changed)
    assert np.isin(changed, trval).all()
    assert np.array_equal(y_noisy[s.test], y[s.test])        # test labels untouched
    assert y_noisy.min() >= 0 and y_noisy.max() < K


def test_label_noise_targets_are_uniform_over_other_classes():
    K = 4
    y = np.zeros(40000, np.int32)
    rows = np.arange(40000)
    y_noisy, flipped = noisy_labels(y, rows, 0.5, K, dataset="d", seed=0, fold=0)
    counts = np.bincount(y_noisy[flipped], minlength=K)
    assert counts[0] == 0
    assert np.allclose(counts[1:] / counts[1:].sum(), 1 / 3, atol=0.01)


def test_label_noise_is_deterministic_and_order_free():
    y = np.arange(300, dtype=np.int32) % 3
    rows = np.arange(300)
    a, _ = noisy_labels(y, rows, 0.2, 3, dataset="car", seed=1, fold=0)
    b, _ = noisy_labels(y, rows[::-1].copy(), 0.2, 3, dataset="car", seed=1, fold=0)
    c, _ = noisy_labels(y, rows, 0.2, 3, dataset="car", seed=1, fold=1)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    with pytest.raises(ValueError):
        noisy_labels(y, rows, 1.0, 3, dataset="car", seed=1, fold=0)
