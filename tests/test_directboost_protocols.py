"""The DirectBoost paper's protocols and data: ``five_fold_train`` (5-fold 3/1/1 over a
predefined split's training rows only: Splice N = 1000, Adult = a5a N = 6414),
``predefined_test_halves`` (Table 3: the training rows train, a seeded half of the test rows
validates, the other half tests: 1000 / 5000 / 5000 for the Long & Servedio data) and the
derived entry ``adult-10000`` (Table 2: 10000 of UCI adult's training rows)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import yaml

from mcboost_cli.datasets import Dataset, get_spec, load_dataset
from mcboost_cli.datasets import _derive
from mcboost_cli.errors import UserError
from mcboost_cli.protocol.splits import (
    MULTI_FOLD, NEEDS_SPLIT, POOLED, PROTOCOLS, five_fold_train_parts, make_split,
    protocol_folds,
)
from mcboost_cli.runner.config import validate_config
from mcboost_cli.runner.plan import expand


def _mask(n_train=1000, n_test=2175, seed=4):
    # Training and test rows interleaved, as a catalog split need not be ordered.
    mask = np.zeros(n_train + n_test, dtype=bool)
    mask[np.random.default_rng(seed).choice(mask.size, n_test, replace=False)] = True
    return mask


@pytest.mark.parametrize("n_train", [1000, 6414, 23])
def test_five_fold_train_partitions_the_training_rows_only(n_train):
    mask = _mask(n_train, 300)
    train_rows = np.flatnonzero(~mask)
    tested, validated = [], []
    for fold in range(5):
        s = make_split("five_fold_train", mask.size, "splice", 0, fold, mask)
        for part in (s.train, s.valid, s.test):
            assert not mask[part].any()                    # no predefined test row is used
            assert np.all(np.diff(part) > 0)
        assert np.intersect1d(s.train, s.valid).size == np.intersect1d(s.train, s.test).size \
            == np.intersect1d(s.valid, s.test).size == 0
        assert np.array_equal(np.sort(np.concatenate([s.train, s.valid, s.test])), train_rows)
        # 3 / 1 / 1 parts of sizes differing by at most one row.
        assert abs(s.test.size - n_train / 5) < 1 and abs(s.valid.size - n_train / 5) < 1
        tested.append(s.test)
        validated.append(s.valid)
    # Every training row is tested once and validated once over the five folds, and fold i
    # validates on the part fold i + 1 tests on.
    assert np.array_equal(np.sort(np.concatenate(tested)), train_rows)
    for fold in range(5):
        assert np.array_equal(validated[fold], tested[(fold + 1) % 5])
    parts = five_fold_train_parts(mask, "splice", 0)
    assert (parts[mask] == -1).all() and set(parts[~mask]) == {0, 1, 2, 3, 4}
    # Deterministic in (dataset, seed); other seeds or datasets give other parts.
    again = make_split("five_fold_train", mask.size, "splice", 0, 2, mask)
    assert np.array_equal(again.test, tested[2])
    assert not np.array_equal(make_split("five_fold_train", mask.size, "splice", 1, 2,
                                         mask).test, tested[2])
    assert not np.array_equal(make_split("five_fold_train", mask.size, "a5a", 0, 2,
                                         mask).test, tested[2])


@pytest.mark.parametrize("n_test", [10000, 16281, 7])
def test_predefined_test_halves(n_test):
    mask = _mask(1000, n_test)
    s = make_split("predefined_test_halves", mask.size, "long-servedio-5", 0, 0, mask)
    assert np.array_equal(s.train, np.flatnonzero(~mask))
    assert s.valid.size == n_test // 2 and s.test.size == n_test - n_test // 2
    assert np.intersect1d(s.valid, s.test).size == 0
    assert np.array_equal(np.union1d(s.valid, s.test), np.flatnonzero(mask))
    assert np.all(np.diff(s.valid) > 0) and np.all(np.diff(s.test) > 0)
    # Seeded: not the first half of the test rows; the same for the same (dataset, seed).
    assert not np.array_equal(s.valid, np.flatnonzero(mask)[:n_test // 2]) or n_test < 10
    again = make_split("predefined_test_halves", mask.size, "long-servedio-5", 0, 0, mask)
    assert np.array_equal(again.valid, s.valid)
    other = make_split("predefined_test_halves", mask.size, "long-servedio-5", 1, 0, mask)
    assert not np.array_equal(other.valid, s.valid) or n_test < 10
    assert protocol_folds("predefined_test_halves") == (0,)


@pytest.mark.parametrize("protocol", ["five_fold_train", "predefined_test_halves"])
def test_the_new_protocols_need_a_split(protocol):
    assert protocol in PROTOCOLS and protocol in NEEDS_SPLIT and protocol not in POOLED
    with pytest.raises(ValueError, match="needs a dataset with a predefined"):
        make_split(protocol, 958, "tic-tac-toe", 0, 0, None)
    if protocol == "predefined_test_halves":
        with pytest.raises(ValueError, match="one fold"):
            make_split(protocol, 3175, "splice", 0, 1, _mask())
    else:
        assert protocol in MULTI_FOLD and protocol_folds(protocol) == (0, 1, 2, 3, 4)
    bad = {"experiment": "x", "datasets": ["tic-tac-toe"], "protocol": protocol,
           "algorithms": [{"algorithm": "samme"}]}
    with pytest.raises(UserError) as e:
        validate_config(bad, "c.yaml")
    assert str(e.value) == (f"c.yaml: protocol.default: '{protocol}' needs a predefined "
                            "train/test split, and tic-tac-toe has none; use five_fold or "
                            "random_splits for it")


def test_config_plans_the_new_protocols_with_a_grid():
    text = """\
experiment: x
datasets: [splice, long-servedio-5]
protocol: {splice: five_fold_train, long-servedio-5: predefined_test_halves}
folds: [0, 2]
algorithms:
  - {algorithm: samme, params: {n_rounds: 3}, grid: {max_depth: [1, 2]}}
"""
    cfg = validate_config(yaml.safe_load(text), "c.yaml", text)
    planned = expand(cfg)
    folds = {(pc.cell.dataset, pc.cell.protocol): set() for pc in planned}
    for pc in planned:
        folds[(pc.cell.dataset, pc.cell.protocol)].add(pc.cell.fold)
    assert folds == {("splice", "five_fold_train"): {0, 2},
                     ("long-servedio-5", "predefined_test_halves"): {0}}
    assert len(planned) == (2 + 1) * 2


def _adult_like(n_train=50, n_test=20):
    rng = np.random.default_rng(0)
    n = n_train + n_test
    X = np.column_stack([np.arange(n, dtype=float), rng.random(n)])
    return Dataset(name="adult", X=X, y=(np.arange(n) % 2).astype(np.int32),
                   classes=("<=50K", ">50K"), feature_names=("i", "r"),
                   categorical=np.zeros(2, dtype=bool),
                   test_mask=np.arange(n) >= n_train, source="test rows")


def test_sample_train_rule_keeps_a_seeded_sample_of_training_rows():
    spec = get_spec("adult-10000")
    base = _adult_like()
    small = replace(spec, derived=replace(spec.derived, params=(("seed", 0), ("train", 10))))
    ds = _derive(small, base)
    assert ds.n_samples == 30 and ds.test_mask.sum() == 20 and not ds.test_mask[:10].any()
    picked = ds.X[:10, 0].astype(int)
    expected = np.sort(np.random.Generator(np.random.PCG64(0)).choice(50, 10, replace=False))
    assert np.array_equal(picked, expected)                  # the documented rule, in order
    assert np.array_equal(ds.X[10:, 0], np.arange(50, 70))   # every test row, in order
    assert np.array_equal(ds.y, base.y[ds.X[:, 0].astype(int)])
    assert "sample_train(seed=0, train=10) of adult" in ds.source
    other = _derive(replace(small, derived=replace(small.derived, params=(("seed", 1),
                                                                          ("train", 10)))),
                    base)
    assert not np.array_equal(other.X[:10, 0], picked)
    too_many = replace(small, derived=replace(small.derived, params=(("train", 51),)))
    with pytest.raises(Exception, match="cannot draw 51 training rows from the 50"):
        _derive(too_many, base)


def test_adult_10000_from_the_mirror(uci_dir):
    ds = load_dataset("adult-10000", mirror=str(uci_dir))
    full = load_dataset("adult", mirror=str(uci_dir))
    assert (ds.n_samples, int(ds.test_mask.sum()), ds.n_features) == (26281, 16281, 14)
    train_rows = np.flatnonzero(~full.test_mask)
    picked = train_rows[np.sort(np.random.Generator(np.random.PCG64(0)).choice(
        train_rows.size, 10000, replace=False))]
    np.testing.assert_array_equal(ds.X[:10000], full.X[picked])
    np.testing.assert_array_equal(ds.X[10000:], full.X[full.test_mask])
    np.testing.assert_array_equal(ds.y[:10000], full.y[picked])
