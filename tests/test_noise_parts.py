"""Which parts get label noise (config ``noise_parts``, top level or per table): by default
the training and validation labels (the DMCBoost paper), or the training labels only (the
DirectBoost paper's Tables 3-4, validation and test clean). With [train] the validation labels
equal the clean ones and the training labels differ at the configured rate; the cells of the
committed configs keep their keys; the choice is part of a noisy cell's key, in cells.csv and
in the exported noise masks; bad values are one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from mcboost_cli.algorithms.registry import get_algorithm
from mcboost_cli.errors import UserError
from mcboost_cli.protocol.noise import (
    DEFAULT_NOISE_PARTS, parts_key, parts_of_key, split_noisy_labels,
)
from mcboost_cli.protocol.splits import Split, make_split
from mcboost_cli.runner import work
from mcboost_cli.runner.cells import Cell, canonical_json
from mcboost_cli.runner.config import load_config, validate_config
from mcboost_cli.runner.plan import expand
from mcboost_cli.runner.reference import (
    cell_of, cells_frame, current_cells, file_frame, read_cells, rerun_seconds,
)

REPO = Path(__file__).resolve().parents[1]


def _split(n=1000, seed=3):
    perm = np.random.default_rng(seed).permutation(n)
    return Split(train=np.sort(perm[:600]), valid=np.sort(perm[600:800]),
                 test=np.sort(perm[800:]))


@pytest.mark.parametrize("rate", [0.05, 0.2])
def test_train_only_noise_leaves_validation_and_test_clean(rate):
    y = np.random.default_rng(0).integers(0, 3, 1000).astype(np.int32)
    split = _split()
    noisy, flipped = split_noisy_labels(y, split, rate, 3, ("train",), dataset="d", seed=0,
                                        fold=1)
    assert np.array_equal(noisy[split.valid], y[split.valid])
    assert np.array_equal(noisy[split.test], y[split.test])
    changed = np.flatnonzero(noisy != y)
    # Exactly round(rate * n_train) training labels, each to another class.
    assert changed.size == round(rate * split.train.size) == flipped.size
    assert np.array_equal(changed, flipped) and np.isin(changed, split.train).all()
    # The default: round(rate * (n_train + n_valid)) among training and validation rows.
    both, flipped2 = split_noisy_labels(y, split, rate, 3, dataset="d", seed=0, fold=1)
    assert flipped2.size == round(rate * 800) and np.isin(flipped2, split.test).sum() == 0
    assert np.isin(flipped2, split.valid).any()
    # Deterministic: the same call gives the same labels; another fold other ones.
    again, _ = split_noisy_labels(y, split, rate, 3, ("train",), dataset="d", seed=0, fold=1)
    assert np.array_equal(again, noisy)
    other, _ = split_noisy_labels(y, split, rate, 3, ("train",), dataset="d", seed=0, fold=2)
    assert not np.array_equal(other, noisy)


def test_default_parts_give_the_noise_of_versions_without_the_option():
    from mcboost_cli.protocol.noise import noisy_labels
    y = np.random.default_rng(1).integers(0, 4, 1000).astype(np.int32)
    split = _split(seed=7)
    before, _ = noisy_labels(y, np.concatenate([split.train, split.valid]), 0.2, 4,
                             dataset="car", seed=0, fold=3)
    now, _ = split_noisy_labels(y, split, 0.2, 4, DEFAULT_NOISE_PARTS, dataset="car", seed=0,
                                fold=3)
    assert np.array_equal(before, now)


def test_parts_key_round_trip():
    assert parts_key(("train", "valid")) == parts_key(["valid", "train"]) == ""
    assert parts_key(["train"]) == "train" and parts_key(["valid"]) == "valid"
    for parts in (("train",), ("valid",), ("train", "valid")):
        assert parts_of_key(parts_key(parts)) == parts
    with pytest.raises(ValueError, match="noise parts 'test' is not valid"):
        parts_of_key("test")


# -- config and cells --------------------------------------------------------------------------

BASE = """\
experiment: np
datasets: [car, nursery]
folds: [0, 1]
noise_rates: [0.0, 0.2]
tables:
  - id: t4
    algorithms:
      - {algorithm: samme, label: S, params: {n_rounds: 5, max_depth: 2}}
  - id: t1
    algorithms:
      - {algorithm: samme, label: S, params: {n_rounds: 5, max_depth: 2}}
"""


def _config(text):
    return validate_config(yaml.safe_load(text), "c.yaml", text)


def test_config_noise_parts_top_level_and_per_table():
    default = _config(BASE)
    assert all(t.noise_parts == ("train", "valid") for t in default.tables)
    top = _config(BASE + "noise_parts: [train]\n")
    assert all(t.noise_parts == ("train",) for t in top.tables)
    per_table = _config(BASE.replace("  - id: t4\n", "  - id: t4\n    noise_parts: [train]\n"))
    assert [t.noise_parts for t in per_table.tables] == [("train",), ("train", "valid")]
    # The cells: noisy cells of a [train] table carry it; at rate 0 every cell is the same fit.
    by = {}
    for pc in expand(per_table):
        by.setdefault((pc.table_index, pc.cell.noise_rate), set()).add(pc.cell.noise_parts)
    assert by[(0, 0.2)] == {"train"} and by[(1, 0.2)] == {""}
    assert by[(0, 0.0)] == by[(1, 0.0)] == {""}
    keys = {(pc.table_index, pc.cell.dataset, pc.cell.fold, pc.cell.noise_rate): pc.cell.key
            for pc in expand(per_table)}
    for d in ("car", "nursery"):
        for f in (0, 1):
            assert keys[(0, d, f, 0.0)] == keys[(1, d, f, 0.0)]       # shared at rate 0
            assert keys[(0, d, f, 0.2)] != keys[(1, d, f, 0.2)]       # other fits
    # Without the key, or with the default given explicitly, the keys are those of before.
    plain = [pc.cell.key for pc in expand(default)]
    explicit = _config(BASE + "noise_parts: [valid, train]\n")
    assert [pc.cell.key for pc in expand(explicit)] == plain
    from mcboost_cli.report.layouts import heading
    assert heading(per_table, per_table.tables[0], 0.2).endswith(
        "label noise 0.2 on the training labels only")
    assert heading(per_table, per_table.tables[0], 0.0).endswith("label noise 0")
    assert heading(per_table, per_table.tables[1], 0.2).endswith("label noise 0.2")


@pytest.mark.parametrize("extra, message", [
    ("noise_parts: [test]\n", "c.yaml: noise_parts[0]: 'test' is not valid; expected part "
                              "names among train, valid (test labels are always clean)"),
    ("noise_parts: []\n", "c.yaml: noise_parts: [] is not valid; expected a non-empty list"),
    ("noise_parts: train\n", "c.yaml: noise_parts: 'train' is not valid; expected a "
                             "non-empty list"),
    ("noise_parts: [train, train]\n", "c.yaml: noise_parts: ['train', 'train'] has duplicates"),
])
def test_config_noise_parts_errors_are_one_line(extra, message):
    with pytest.raises(UserError) as e:
        _config(BASE + extra)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_table_noise_parts_error_names_the_table():
    with pytest.raises(UserError) as e:
        _config(BASE.replace("  - id: t1\n", "  - id: t1\n    noise_parts: [training]\n"))
    assert str(e.value).startswith("c.yaml: tables[1].noise_parts[0]: 'training' is not valid")


def _cell(**kw):
    base = dict(experiment="e", dataset="car", protocol="five_fold", fold=1, noise_rate=0.2,
                seed=0, algorithm="samme", algorithm_version="1",
                params=(("max_depth", 3), ("n_rounds", 10)))
    base.update(kw)
    return Cell(**base)


def test_cell_key_and_json_with_noise_parts():
    import hashlib
    c = _cell()
    legacy = {"dataset": "car", "protocol": "five_fold", "fold": 1, "noise_rate": 0.2,
              "seed": 0, "algorithm": "samme", "algorithm_version": "1",
              "params": {"max_depth": 3, "n_rounds": 10}}
    assert c.key == hashlib.sha256(canonical_json(legacy).encode()).hexdigest()[:32]
    t = _cell(noise_parts="train")
    assert t.key != c.key and Cell.from_json(t.to_json()) == t
    assert "noise 0.2 on train" in t.describe()


def test_committed_cells_keep_their_keys():
    """Every current row of the committed cells.csv files hashes to its key without
    noise_parts, and planning the committed configs today gives those keys."""
    configs = {"dmcboost_kdd14": ["uci.yaml", "noise.yaml"], "mcboost_nips11": ["mcboost.yaml"],
               "coherence_aistats09": ["coherence.yaml"], "rebel_icml17": ["rebel.yaml"]}
    n_rows = 0
    for experiment, names in configs.items():
        rows = current_cells(read_cells(REPO / "results" / experiment / "cells.csv"))
        assert "noise_parts" not in pd.read_csv(REPO / "results" / experiment / "cells.csv",
                                                nrows=0).columns
        planned = {pc.cell.key for name in names
                   for pc in expand(load_config(REPO / "configs" / name))}
        for _, row in rows.iterrows():
            assert row["noise_parts"] == ""
            assert cell_of(row, experiment).key == row["key"]
            if not row["data_source"]:      # generator stand-ins are planned by --source only
                assert row["key"] in planned, (experiment, row["key"])
                n_rows += 1
    assert n_rows > 1800


def test_cells_file_carries_noise_parts_only_when_set(tmp_path):
    cells = [_cell(), _cell(noise_parts="train")]
    frame = pd.DataFrame([{
        "key": c.key, "status": "done", "dataset": c.dataset, "protocol": c.protocol,
        "fold": c.fold, "noise_rate": c.noise_rate, "seed": c.seed, "algorithm": c.algorithm,
        "algorithm_version": c.algorithm_version, "params": c.params_dict,
        "data_source": c.data_source, "noise_parts": c.noise_parts, "selected_round": 3,
        "n_rounds": 10, "train_error": 0.1, "valid_error": 0.2, "test_error": 0.3,
        "extra": {}, "fit_seconds": 1.0, "cpu_seconds": 1.0} for c in cells])
    both = cells_frame(frame)
    path = tmp_path / "cells.csv"
    path.write_text(file_frame(both).to_csv(index=False))
    back = read_cells(path)
    assert list(back["noise_parts"]) == sorted(["", "train"], key=lambda p: cells[
        ["", "train"].index(p)].key)
    assert {cell_of(r, "e").key for _, r in back.iterrows()} == {c.key for c in cells}
    # Rows of the default only: the column is left out of the file and reads back as "".
    default_only = cells_frame(frame.iloc[:1])
    assert "noise_parts" not in file_frame(default_only).columns
    path.write_text(file_frame(default_only).to_csv(index=False))
    assert cell_of(read_cells(path).iloc[0], "e").key == cells[0].key
    # A train-only row with its column removed hashes to another key: refused.
    path.write_text(file_frame(both).drop(columns="noise_parts").to_csv(index=False))
    with pytest.raises(UserError, match="hash to"):
        [cell_of(r, "e") for _, r in read_cells(path).iterrows()]
    # Re-run estimates group the noisy fits apart.
    assert rerun_seconds(read_cells(tmp_path / "cells.csv")).notna().all()


def _ls_cell(rate, parts):
    return Cell(experiment="t", dataset="long-servedio-5", protocol="predefined_test_halves",
                fold=0, noise_rate=rate, seed=0, algorithm="samme",
                algorithm_version=get_algorithm("samme").version,
                params=(("max_depth", 1), ("n_rounds", 5)), noise_parts=parts)


def test_a_fit_with_train_only_noise_flips_training_labels_only():
    train_only = work.run_cell(_ls_cell(0.2, "train"))
    both = work.run_cell(_ls_cell(0.2, ""))
    valid_only = work.run_cell(_ls_cell(0.2, "valid"))
    clean = work.run_cell(_ls_cell(0.0, ""))
    assert (train_only.extra["n_train"], train_only.extra["n_valid"],
            train_only.extra["n_test"]) == (1000, 5000, 5000)
    assert train_only.extra["n_flipped"] == 200                      # 20% of 1000
    assert both.extra["n_flipped"] == 1200                           # 20% of 6000
    # Validation and test are two clean halves of the same 10000 rows: with train-only noise
    # the validation error tracks the test error round by round; with noisy validation
    # labels it is about 0.2 + 0.6 x the test error (here 0.27: a gap of 0.09).
    gap = np.subtract(train_only.curves["valid"], train_only.curves["test"])
    assert np.abs(gap).max() < 0.03
    assert (np.subtract(both.curves["valid"], both.curves["test"]) > 0.05).all()
    # Validation-only noise: the same training labels as the clean fit, so the same model.
    assert valid_only.curves["train"] == clean.curves["train"]
    assert valid_only.curves["test"] == clean.curves["test"]
    assert valid_only.curves["valid"] != clean.curves["valid"]


def test_exported_noise_masks_name_their_parts(tmp_path):
    from mcboost_cli.datasets import load_dataset
    from mcboost_cli.protocol.export import export_splits
    text = """\
experiment: ex
datasets: [long-servedio-5]
protocol: predefined_test_halves
noise_rates: [0.05]
noise_parts: [train]
algorithms:
  - {algorithm: samme, params: {n_rounds: 2}}
"""
    cfg = _config(text)
    ds = load_dataset("long-servedio-5")
    written = export_splits(cfg, {"long-servedio-5": ds}, tmp_path)
    names = sorted(p.name for p in written)
    assert names == ["predefined_test_halves.csv", "predefined_test_halves_noise0.05_train.csv"]
    mask = pd.read_csv(tmp_path / "long-servedio-5" / "seed0" / names[1])
    split = make_split("predefined_test_halves", ds.n_samples, "long-servedio-5", 0, 0,
                       ds.test_mask)
    assert len(mask) == 50 and np.isin(mask["row"], split.train).all()
