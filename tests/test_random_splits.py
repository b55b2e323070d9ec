"""The REBEL paper's protocol ``random_splits``: five random 50% / 25% / 25% splits per
dataset (``protocol.splits``), selected on validation like ``five_fold``
(``protocol.selection``), and its place in configs and tables."""

from __future__ import annotations

import numpy as np
import pytest

from mcboost_cli.algorithms.registry import get_algorithm
from mcboost_cli.errors import UserError
from mcboost_cli.protocol.selection import RULE_VALIDATION
from mcboost_cli.protocol.splits import PROTOCOLS, make_split, protocol_folds, random_split
from mcboost_cli.runner import work
from mcboost_cli.runner.cells import Cell
from mcboost_cli.runner.config import validate_config
from mcboost_cli.runner.plan import expand


@pytest.mark.parametrize("n, sizes", [
    (2310, (1156, 577, 577)),     # segmentation pooled: 2310 = 4 * 577 + 2
    (214, (108, 53, 53)),         # glass: 214 = 4 * 53 + 2
    (990, (496, 247, 247)),       # vowel
    (8, (4, 2, 2)),
    (7, (5, 1, 1)),               # 7 // 4 = 1: train takes the remainder
])
def test_split_sizes_are_a_quarter_each_and_the_rest_trains(n, sizes):
    for fold in range(5):
        s = random_split(n, "glass", 0, fold)
        assert (s.train.size, s.valid.size, s.test.size) == sizes
        assert s.train.size >= n / 2


def test_parts_are_disjoint_sorted_and_cover_every_row():
    for fold in range(5):
        s = random_split(1001, "vowel", 3, fold)
        rows = np.concatenate([s.train, s.valid, s.test])
        assert np.array_equal(np.sort(rows), np.arange(1001))          # disjoint, complete
        for part in (s.train, s.valid, s.test):
            assert np.all(np.diff(part) > 0)


def test_a_split_depends_on_dataset_seed_and_fold_only():
    a = random_split(500, "glass", 0, 2)
    random_split(500, "vowel", 0, 2)                                    # unrelated call between
    make_split("five_fold", 500, "glass", 0, 2)
    b = random_split(500, "glass", 0, 2)
    assert all(np.array_equal(getattr(a, p), getattr(b, p)) for p in ("train", "valid", "test"))
    # Another fold, seed or dataset draws another split; five_fold's parts are not reused.
    for other in (random_split(500, "glass", 0, 3), random_split(500, "glass", 1, 2),
                  random_split(500, "satimage", 0, 2), make_split("five_fold", 500, "glass", 0, 2)):
        assert not np.array_equal(a.test, other.test)


def test_the_five_splits_are_independent_draws():
    tests = [set(random_split(400, "pendigits", 0, f).test) for f in range(5)]
    assert all(tests[i] != tests[j] for i in range(5) for j in range(i + 1, 5))
    # Independent draws overlap (disjoint test parts would be 4-fold CV, not random splits).
    assert any(tests[i] & tests[j] for i in range(5) for j in range(i + 1, 5))


def test_make_split_pools_a_predefined_split_and_checks_the_fold():
    mask = np.zeros(2310, bool)
    mask[210:] = True                                        # segmentation's 210 / 2100
    s = make_split("random_splits", 2310, "segmentation", 0, 1, mask)
    assert (s.train.size, s.valid.size, s.test.size) == (1156, 577, 577)
    assert np.isin(s.test, np.arange(210)).any() and (~np.isin(s.train, np.arange(210))).any()
    assert protocol_folds("random_splits") == (0, 1, 2, 3, 4)
    assert "random_splits" in PROTOCOLS
    with pytest.raises(ValueError, match="fold must be in 0..4"):
        make_split("random_splits", 100, "glass", 0, 5)


def _cell(fold):
    return Cell(experiment="t", dataset="mcboost-gaussians", protocol="random_splits",
                fold=fold, noise_rate=0.0, seed=0, algorithm="samme",
                algorithm_version=get_algorithm("samme").version,
                params=(("max_depth", 1), ("n_rounds", 25)))


def test_a_fit_reports_its_validation_best_round():
    result = work.run_cell(_cell(0))
    assert result.extra["round_rule"] == RULE_VALIDATION
    valid = np.asarray(result.curves["valid"])
    assert result.selected_round == int(np.argmin(valid)) + 1
    assert result.valid_error == pytest.approx(valid.min())
    assert result.test_error == pytest.approx(result.curves["test"][result.selected_round - 1])
    n = result.extra["n_train"] + result.extra["n_valid"] + result.extra["n_test"]
    assert result.extra["n_valid"] == result.extra["n_test"] == n // 4
    # Another split, other numbers.
    assert work.run_cell(_cell(1)).curves["valid"] != result.curves["valid"]


BASE = {"experiment": "r", "datasets": ["glass", "segmentation"], "protocol": "random_splits",
        "algorithms": [{"algorithm": "samme", "label": "S",
                        "params": {"n_rounds": 5}, "grid": {"max_depth": [1, 2]}}]}


def test_config_plans_five_splits_with_a_grid_and_the_folds_key():
    c = validate_config(BASE, "c.yaml")
    assert c.tables[0].protocols == {"glass": "random_splits", "segmentation": "random_splits"}
    assert c.tables[0].folds_for("segmentation", c.folds) == (0, 1, 2, 3, 4)
    planned = expand(c)
    assert len(planned) == 2 * 5 * 2                          # datasets x splits x grid
    assert {pc.cell.protocol for pc in planned} == {"random_splits"}
    c2 = validate_config({**BASE, "folds": [0, 3]}, "c.yaml")
    assert sorted({pc.cell.fold for pc in expand(c2)}) == [0, 3]
    from mcboost_cli.report.layouts import heading
    assert "over 5 splits" in heading(c, c.tables[0], 0.0)


@pytest.mark.parametrize("change, message", [
    ({"folds": [5]}, "c.yaml: folds[0]: 5 is not valid; expected fold numbers among "
                     "[0, 1, 2, 3, 4]"),
    ({"protocol": "random_split"}, "c.yaml: protocol.default: 'random_split' is not valid; "
                                   "expected one of five_fold, random_splits, predefined"),
    ({"protocol": "predefined"}, "has none; use five_fold or random_splits for it"),
])
def test_config_errors_are_one_line(change, message):
    with pytest.raises(UserError) as e:
        validate_config({**BASE, **change}, "c.yaml")
    assert message in str(e.value) and "\n" not in str(e.value)


def test_exported_splits_are_the_splits_run(tmp_path):
    from types import SimpleNamespace

    import pandas as pd

    from mcboost_cli.protocol.export import export_splits
    y = np.arange(30) % 3
    ds = SimpleNamespace(n_samples=30, test_mask=None, y=y, classes=["a", "b", "c"],
                         n_classes=3)
    config = SimpleNamespace(datasets=("d",), seeds=(4,), folds=(0, 2), noise_rates=(0.0, 0.2),
                             tables=(SimpleNamespace(protocols={"d": "random_splits"}),))
    written = export_splits(config, {"d": ds}, tmp_path)
    assert sorted(p.name for p in written) == ["random_splits.csv",
                                               "random_splits_fold0_noise0.2.csv",
                                               "random_splits_fold2_noise0.2.csv"]
    table = pd.read_csv(tmp_path / "d" / "seed4" / "random_splits.csv")
    for fold in range(5):
        s = random_split(30, "d", 4, fold)
        for part in ("train", "valid", "test"):
            assert np.array_equal(np.flatnonzero(table[f"fold{fold}"] == part),
                                  getattr(s, part))
