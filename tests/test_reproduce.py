"""Reproduction machinery: predefined splits, multi-table configs, the --quick budget, the
per-cell results file (cells.csv: write, read, import, sample, recheck) and the CLI end to end
on a tiny two-table config (car 5-fold + segmentation predefined)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.errors import UserError
from mcboost_cli.protocol.splits import HOLDOUT_FRACTION, make_split, protocol_folds
from mcboost_cli.runner.cells import DONE, FAILED, CellResult
from mcboost_cli.runner.config import QUICK_LABEL, narrow, quick_variant, validate_config
from mcboost_cli.runner.plan import expand
from mcboost_cli.runner.reference import (
    CELL_COLUMNS, cells_frame, current_cells, import_cells, merged_cells, read_cells, recheck,
    sample_cells,
)
from mcboost_cli.runner.store import ResultStore

from .test_cli import invoke, mirror_env  # noqa: F401  (a fixture)

REPO = Path(__file__).resolve().parents[1]


def bits(x) -> int:
    return int(np.float64(x).view(np.int64))


def user_error(data, match=None) -> str:
    """The message of the UserError that validating ``data`` raises (checked to be one line
    that starts with the file name)."""
    with pytest.raises(UserError) as info:
        validate_config(data, "c.yaml")
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith("c.yaml: "), msg
    if match is not None:
        assert match in msg, msg
    return msg


# -- 1. predefined splits ----------------------------------------------------------------------

def _mask(n_train=37, n_test=13):
    # Train and test rows interleaved (not a prefix), as a catalog split need not be ordered.
    mask = np.zeros(n_train + n_test, dtype=bool)
    mask[np.random.default_rng(5).choice(n_train + n_test, n_test, replace=False)] = True
    return mask


def test_predefined_split_is_the_catalog_split_without_validation():
    mask = _mask()
    s = make_split("predefined", mask.size, "segmentation", 0, 0, mask)
    assert np.array_equal(s.train, np.flatnonzero(~mask))
    assert np.array_equal(s.test, np.flatnonzero(mask))
    assert s.valid.size == 0
    # The seed does not matter: there is nothing random in it.
    s7 = make_split("predefined", mask.size, "segmentation", 7, 0, mask)
    assert np.array_equal(s7.train, s.train) and np.array_equal(s7.test, s.test)
    assert protocol_folds("predefined") == (0,) == protocol_folds("predefined_holdout")


@pytest.mark.parametrize("n_train", [37, 210, 41])
def test_predefined_holdout_quarter_of_training_rows(n_train):
    mask = _mask(n_train, 19)
    s = make_split("predefined_holdout", mask.size, "segmentation", 0, 0, mask)
    train_rows = np.flatnonzero(~mask)
    assert s.valid.size == round(HOLDOUT_FRACTION * n_train) == round(0.25 * n_train)
    assert np.array_equal(s.test, np.flatnonzero(mask))
    assert np.intersect1d(s.train, s.valid).size == 0
    assert np.array_equal(np.union1d(s.train, s.valid), train_rows)
    assert s.train.size + s.valid.size == n_train
    assert np.all(np.diff(s.valid) > 0) and np.all(np.diff(s.train) > 0)   # sorted
    # Deterministic in (dataset, seed); another seed or dataset holds out other rows.
    again = make_split("predefined_holdout", mask.size, "segmentation", 0, 0, mask)
    assert np.array_equal(again.valid, s.valid) and np.array_equal(again.train, s.train)
    other_seed = make_split("predefined_holdout", mask.size, "segmentation", 1, 0, mask)
    assert not np.array_equal(other_seed.valid, s.valid)
    assert other_seed.valid.size == s.valid.size
    other_ds = make_split("predefined_holdout", mask.size, "poker525k", 0, 0, mask)
    assert not np.array_equal(other_ds.valid, s.valid)


@pytest.mark.parametrize("protocol", ["predefined", "predefined_holdout"])
def test_make_split_rejects_other_folds_and_datasets_without_split(protocol):
    mask = _mask()
    with pytest.raises(ValueError, match="one fold"):
        make_split(protocol, mask.size, "segmentation", 0, 1, mask)
    with pytest.raises(ValueError, match="predefined"):
        make_split(protocol, 1728, "car", 0, 0, None)
    with pytest.raises(ValueError, match="unknown protocol"):
        make_split("cv5", 100, "car", 0, 0)


# -- 2. config validation ----------------------------------------------------------------------

def tables_config(**extra):
    base = {
        "experiment": "x", "datasets": ["car", "segmentation"], "folds": [0, 1],
        "protocol": {"default": "five_fold", "segmentation": "predefined"},
        "tables": [
            {"id": "a", "algorithms": [{"algorithm": "samme", "label": "S",
                                        "params": {"n_rounds": 10, "max_depth": 2}}]},
            {"id": "b", "algorithms": [{"algorithm": "adaboost_mh", "label": "MH",
                                        "params": {"n_rounds": 10, "max_depth": 1}}]},
        ],
    }
    base.update(extra)
    return base


def test_config_unknown_table_key():
    cfg = tables_config()
    cfg["tables"][1]["colour"] = "blue"
    user_error(cfg, "tables[1].colour: unknown key")


def test_config_duplicate_table_id():
    cfg = tables_config()
    cfg["tables"][1]["id"] = "a"
    user_error(cfg, "tables[1].id: 'a' is used twice")


def test_config_predefined_for_dataset_without_split():
    msg = user_error(tables_config(protocol={"default": "five_fold", "car": "predefined"}),
                     "protocol.car: 'predefined' needs a predefined train/test split")
    assert "car has none" in msg
    user_error(tables_config(protocol="predefined_holdout"),
               "protocol.default: 'predefined_holdout' needs a predefined")
    # ... and in a table-level override too.
    cfg = tables_config()
    cfg["tables"][1]["protocol"] = {"car": "predefined"}
    user_error(cfg, "tables[1].protocol.car: 'predefined' needs a predefined")


def test_config_grid_on_predefined_dataset_needs_per_dataset():
    cfg = tables_config()
    cfg["tables"][1]["algorithms"][0] = {"algorithm": "samme", "params": {"n_rounds": 10},
                                         "grid": {"max_depth": [1, 2]}}
    msg = user_error(cfg, "algorithms[0].grid: segmentation uses protocol 'predefined'")
    assert "per_dataset" in msg and "predefined_holdout" in msg
    # Under predefined_holdout there is a validation part: the same grid is fine.
    cfg["tables"][1]["protocol"] = {"segmentation": "predefined_holdout"}
    ok = validate_config(cfg, "c.yaml")
    assert ok.tables[1].protocols == {"car": "five_fold", "segmentation": "predefined_holdout"}
    # The single-table form names the top-level key.
    single = {"experiment": "x", "datasets": ["segmentation"], "protocol": "predefined",
              "algorithms": [{"algorithm": "samme", "grid": {"max_depth": [1, 2]}}]}
    user_error(single, "c.yaml: algorithms[0].grid: segmentation")


def test_config_algorithms_and_tables_together():
    cfg = tables_config(algorithms=["samme"])
    user_error(cfg, "algorithms: give either 'algorithms' (one table) or 'tables'")
    cfg = tables_config()
    del cfg["tables"]
    user_error(cfg, "algorithms: give either")


@pytest.mark.parametrize("bad", [0, -3, True, "ten", 2.5, None])
def test_config_bad_quick_max_rounds(bad):
    user_error(tables_config(quick={"max_rounds": bad}), f"quick.max_rounds: {bad!r} is not "
                                                         "valid; expected a positive integer")


def test_config_quick_datasets_and_keys():
    user_error(tables_config(quick={"datasets": ["car", "letter"]}),
               "quick.datasets[1]: 'letter' is not valid")
    user_error(tables_config(quick={"datasets": ["car"], "rounds": 5}), "quick.rounds: unknown key")
    user_error(tables_config(quick={"folds": [7]}), "quick.folds[0]: 7 is not valid")


@pytest.mark.parametrize("ref, text", [
    ("nopaper/table2", "no published numbers for paper 'nopaper'"),
    ("dmcboost_kdd14/table99", "has no table 'table99'"),
])
def test_config_unknown_published_ref(ref, text):
    cfg = tables_config()
    cfg["tables"][0]["published"] = ref
    user_error(cfg, f"tables[0].published: '{ref}'")
    user_error(cfg, text)


def test_config_per_dataset_fixes_grid_parameter():
    cfg = tables_config()
    cfg["tables"][0]["algorithms"][0] = {
        "algorithm": "samme", "label": "S", "params": {"n_rounds": 10},
        "grid": {"max_depth": [1, 2, 3]}, "per_dataset": {"segmentation": {"max_depth": 2}}}
    c = validate_config(cfg, "c.yaml")
    entry = c.tables[0].algorithms[0]
    assert [p["max_depth"] for p in entry.grid_points("car")] == [1, 2, 3]
    assert entry.grid_points("segmentation") == [{"n_rounds": 10, "max_depth": 2}]
    seg = [pc for pc in expand(c) if pc.table_index == 0 and pc.cell.dataset == "segmentation"]
    assert [(pc.cell.fold, pc.cell.params_dict["max_depth"], pc.cell.protocol) for pc in seg] \
        == [(0, 2, "predefined")]
    car = [pc for pc in expand(c) if pc.table_index == 0 and pc.cell.dataset == "car"]
    assert len(car) == 2 * 3


def test_config_protocol_mapping_and_table_override():
    cfg = tables_config()
    cfg["tables"][1]["protocol"] = {"segmentation": "predefined_holdout"}
    c = validate_config(cfg, "c.yaml")
    a, b = c.tables
    assert a.protocols == {"car": "five_fold", "segmentation": "predefined"}
    assert b.protocols == {"car": "five_fold", "segmentation": "predefined_holdout"}
    assert a.folds_for("car", c.folds) == (0, 1) and a.folds_for("segmentation", c.folds) == (0,)
    assert c.protocols_used() == {"five_fold", "predefined", "predefined_holdout"}
    protos = {(pc.table_index, pc.cell.dataset): pc.cell.protocol for pc in expand(c)}
    assert protos == {(0, "car"): "five_fold", (0, "segmentation"): "predefined",
                      (1, "car"): "five_fold", (1, "segmentation"): "predefined_holdout"}
    # A plain protocol name as the default of the whole config.
    c2 = validate_config(tables_config(protocol="five_fold"), "c.yaml")
    assert all(p == "five_fold" for t in c2.tables for p in t.protocols.values())
    # A table-level 'default' replaces the config's for that table only.
    cfg = tables_config()
    cfg["tables"][1]["protocol"] = {"default": "five_fold"}
    c3 = validate_config(cfg, "c.yaml")
    assert c3.tables[0].protocols["segmentation"] == "predefined"
    assert c3.tables[1].protocols["segmentation"] == "five_fold"


def test_table_protocol_name_applies_to_the_tables_datasets_only():
    cfg = tables_config(protocol="five_fold")
    cfg["tables"][1]["datasets"] = ["segmentation"]
    cfg["tables"][1]["protocol"] = "predefined"
    c = validate_config(cfg, "c.yaml")
    assert c.tables[1].protocols == {"segmentation": "predefined"}


def test_grid_on_predefined_error_names_the_tables_index():
    cfg = tables_config()
    cfg["tables"][0]["id"] = "results"
    cfg["tables"][0]["algorithms"][0] = {"algorithm": "samme", "grid": {"max_depth": [1, 2]}}
    user_error(cfg, "c.yaml: tables[0].algorithms[0].grid: segmentation")


# -- 3. plan -----------------------------------------------------------------------------------

def test_tables_share_cells_of_the_same_fit():
    cfg = validate_config({
        "experiment": "x", "datasets": ["car"], "folds": [0, 1],
        "tables": [
            {"id": "t2", "algorithms": [{"algorithm": "samme", "label": "SAMME",
                                         "params": {"max_depth": 3, "n_rounds": 100}}]},
            {"id": "t3", "algorithms": [
                {"algorithm": "adaboost_mh", "params": {"n_rounds": 20}},
                # n_rounds left at its default (100): the same fit as t2's.
                {"algorithm": "samme", "label": "SAMME d", "grid": {"max_depth": [2, 3]}}]},
        ]}, "c.yaml")
    planned = expand(cfg)
    t2 = {pc.cell.fold: pc for pc in planned if pc.table_index == 0}
    t3 = {pc.cell.fold: pc for pc in planned
          if pc.table_index == 1 and pc.entry_index == 1 and pc.grid_index == 1}
    assert set(t2) == set(t3) == {0, 1}
    for fold in (0, 1):
        a, b = t2[fold].cell, t3[fold].cell
        assert a.params_dict["max_depth"] == b.params_dict["max_depth"] == 3
        assert a.key == b.key
        assert a.grid_id == "t2:0:0" and b.grid_id == "t3:1:1"
        assert a.label == "SAMME" and b.label == "SAMME d"
    assert t2[0].cell.key != t2[1].cell.key
    keys = [pc.cell.key for pc in planned]
    # 2 folds × (1 + 1 + 2) planned cells, of which the two depth-3 SAMME fits are shared.
    assert len(keys) == 8 and len(set(keys)) == 6
    depth2 = [pc.cell.key for pc in planned if pc.table_index == 1 and pc.grid_index == 0
              and pc.entry_index == 1]
    assert not set(depth2) & {pc.cell.key for pc in t2.values()}


QUICK_CFG = {
    "experiment": "q", "title": "Full", "datasets": ["car", "segmentation", "nursery"],
    "folds": [0, 1, 2, 3, 4],
    "protocol": {"default": "five_fold", "segmentation": "predefined"},
    "quick": {"datasets": ["car", "segmentation"], "folds": [1, 3], "max_rounds": 7},
    "tables": [
        {"id": "t2", "title": "Table 2", "algorithms": [
            {"algorithm": "samme", "label": "S", "params": {"n_rounds": 50, "max_depth": 2}},
            {"algorithm": "adaboost_m1", "label": "M1", "params": {"max_depth": 1}},
            {"algorithm": "adaboost_mh", "label": "MH", "params": {"n_rounds": 5}}]},
        {"id": "t3", "title": "Table 3", "datasets": ["car"], "algorithms": [
            {"algorithm": "samme", "label": "S", "params": {"n_rounds": 50},
             "grid": {"max_depth": [1, 2]}}]},
        {"id": "t9", "title": "Nursery only", "datasets": ["nursery"],
         "algorithms": ["samme"]},
    ],
}


def test_quick_variant_reduces_the_budget():
    full = validate_config(QUICK_CFG, "c.yaml")
    q = quick_variant(full)
    assert q.is_quick and not full.is_quick and q.max_rounds == 7
    assert q.datasets == ("car", "segmentation") and q.folds == (1, 3)
    assert [t.id for t in q.tables] == ["t2", "t3"]                     # t9 has no quick dataset
    assert all(t.title.startswith("QUICK") for t in q.tables)
    assert q.title.startswith("QUICK") and q.tables[0].title == f"{QUICK_LABEL}: Table 2"
    planned = expand(q)
    assert {pc.cell.dataset for pc in planned} == {"car", "segmentation"}
    assert {pc.cell.fold for pc in planned if pc.cell.dataset == "car"} == {1, 3}
    assert {pc.cell.fold for pc in planned if pc.cell.dataset == "segmentation"} == {0}
    rounds = {(pc.cell.label, pc.table_index): pc.cell.params_dict["n_rounds"] for pc in planned}
    # 50 -> 7; the algorithm's default (100, not given in the entry) -> 7; 5 stays 5.
    assert rounds == {("S", 0): 7, ("M1", 0): 7, ("MH", 0): 5, ("S", 1): 7}
    # The full plan is untouched.
    full_rounds = {pc.cell.label: pc.cell.params_dict["n_rounds"] for pc in expand(full)
                   if pc.table_index == 0}
    assert full_rounds == {"S": 50, "M1": 100, "MH": 5}
    assert len(planned) == 2 * 3 + 1 * 3 + 2 * 2
    # Without a quick section --quick is a one-line user error.
    no_quick = validate_config({k: v for k, v in QUICK_CFG.items() if k != "quick"}, "c.yaml")
    with pytest.raises(UserError, match="--quick needs a 'quick' section"):
        quick_variant(no_quick)


def test_quick_variant_cap_above_the_default_keeps_the_default():
    data = dict(QUICK_CFG, quick={"max_rounds": 300})
    q = quick_variant(validate_config(data, "c.yaml"))
    assert q.folds == (0, 1, 2, 3, 4) and q.datasets == ("car", "segmentation", "nursery")
    rounds = {pc.cell.label: pc.cell.params_dict["n_rounds"] for pc in expand(q)
              if pc.table_index == 0}
    assert rounds == {"S": 50, "M1": 100, "MH": 5}


def test_narrow_by_label_and_registry_name():
    cfg = validate_config(QUICK_CFG, "c.yaml")
    n = narrow(cfg, datasets=["car"])
    assert n.datasets == ("car",) and [t.id for t in n.tables] == ["t2", "t3"]
    assert all(t.datasets == ("car",) and set(t.protocols) == {"car"} for t in n.tables)
    by_label = narrow(cfg, algorithms=["M1"])
    assert [(t.id, [e.label for e in t.algorithms]) for t in by_label.tables] == [("t2", ["M1"])]
    by_name = narrow(cfg, algorithms=["samme"])
    assert [(t.id, [e.label for e in t.algorithms]) for t in by_name.tables] == \
        [("t2", ["S"]), ("t3", ["S"]), ("t9", ["samme"])]
    both = narrow(cfg, datasets=["segmentation"], algorithms=["MH", "samme"])
    assert [(t.id, [e.label for e in t.algorithms]) for t in both.tables] == [("t2", ["S", "MH"])]
    assert {pc.cell.dataset for pc in expand(both)} == {"segmentation"}
    assert narrow(cfg) == cfg


def test_narrow_by_table_keeps_its_datasets_and_figures_only():
    cfg = validate_config(QUICK_CFG, "c.yaml")
    t3 = narrow(cfg, tables=["t3"])
    assert [t.id for t in t3.tables] == ["t3"] and t3.datasets == ("car",)
    assert {pc.cell.dataset for pc in expand(t3)} == {"car"}
    assert {pc.table_index for pc in expand(t3)} == {0}
    # The plan of a narrowed table is a subset of the whole plan (same cell keys).
    assert {pc.cell.key for pc in expand(t3)} <= {pc.cell.key for pc in expand(cfg)}
    assert narrow(cfg, tables=[t.id for t in cfg.tables]).tables == cfg.tables
    with pytest.raises(UserError) as info:
        narrow(cfg, tables=["t2", "table7"])
    assert info.value.args[0] == "--tables: table7 is not valid; expected table ids among " \
        "t2, t3, t9"


def test_narrow_errors():
    cfg = validate_config(QUICK_CFG, "c.yaml")
    with pytest.raises(UserError) as info:
        narrow(cfg, datasets=["car", "nope"])
    msg = str(info.value)
    assert msg.startswith("--datasets: nope is not valid") and "car, segmentation, nursery" in msg
    with pytest.raises(UserError, match=r"--datasets: \(empty\)"):
        narrow(cfg, datasets=[])
    with pytest.raises(UserError) as info:
        narrow(cfg, algorithms=["SAMME"])
    assert info.value.args[0].startswith("--algorithms: SAMME is not valid")
    assert "M1" in str(info.value) and "adaboost_mh" in str(info.value)
    with pytest.raises(UserError, match=r"--algorithms: \(empty\)"):
        narrow(cfg, algorithms=[])
    # After narrowing to nursery, t3 (car only) is gone: its label no longer selects it.
    nur = narrow(narrow(cfg, datasets=["nursery"]), algorithms=["S"])
    assert [(t.id, [e.label for e in t.algorithms]) for t in nur.tables] == [("t2", ["S"])]


# -- 4. the per-cell results file --------------------------------------------------------------

REF_CFG = {
    "experiment": "ref", "datasets": ["car", "segmentation"], "folds": [0, 1],
    "protocol": {"default": "five_fold", "segmentation": "predefined"},
    "tables": [{"id": "t", "algorithms": [
        {"algorithm": "samme", "label": "S", "params": {"n_rounds": 10, "max_depth": 2}},
        {"algorithm": "adaboost_mh", "label": "MH", "params": {"n_rounds": 10, "max_depth": 1}},
    ]}],
}


def _ref_plan():
    cfg = validate_config(REF_CFG, "c.yaml")
    planned = expand(cfg)
    by = {(pc.cell.dataset, pc.cell.fold, pc.cell.label): pc.cell for pc in planned}
    assert len(by) == len(planned) == 6
    return cfg, planned, by


def _ref_results(by):
    """(cell, result) per stored cell: 4 done (one without validation), 1 failed; the
    segmentation MH cell is not stored (pending)."""
    def done(cell, **kw):
        return CellResult(key=cell.key, status=DONE, curves={"train": [0.5]}, **kw)
    rows = [
        (by["car", 0, "S"], done(by["car", 0, "S"], selected_round=7, n_rounds=10,
                                 train_error=1 / 3, valid_error=0.1 + 0.2, test_error=2 / 3,
                                 extra={"n_phase1_rounds": 3, "stop_reason": "max_rounds",
                                        "round_rule": "validation early stopping"},
                                 fit_seconds=0.25, cpu_seconds=0.125)),
        (by["car", 0, "MH"], done(by["car", 0, "MH"], selected_round=10, n_rounds=10,
                                  train_error=5e-324, valid_error=np.nextafter(0.1, 1.0),
                                  test_error=0.1 + 0.7,
                                  extra={"stop_reason": "max_rounds",
                                         "round_rule": "validation early stopping"},
                                  fit_seconds=1.5)),
        (by["car", 1, "S"], CellResult(key=by["car", 1, "S"].key, status=FAILED,
                                       traceback="ValueError: boom")),
        (by["car", 1, "MH"], done(by["car", 1, "MH"], selected_round=3, n_rounds=10,
                                  train_error=0.0, valid_error=1 / 7, test_error=2 / 7,
                                  extra={"stop_reason": "max_rounds"}, fit_seconds=0.01)),
        (by["segmentation", 0, "S"], done(by["segmentation", 0, "S"], selected_round=10,
                                          n_rounds=10, train_error=1 / 210, valid_error=None,
                                          test_error=1 / 3 + 1e-12,
                                          extra={"stop_reason": "max_rounds",
                                                 "round_rule": "last round (no validation "
                                                               "part)"},
                                          fit_seconds=0.5)),
    ]
    return rows


@pytest.fixture
def ref(tmp_path):
    cfg, planned, by = _ref_plan()
    rows = _ref_results(by)
    with ResultStore(tmp_path / "a.sqlite") as store:
        for cell, res in rows:
            store.put(cell, res)
        frame = cells_frame(store.frame(keys=[pc.cell.key for pc in planned]))
    path = tmp_path / "cells.csv"
    path.write_text(frame.to_csv(index=False))
    return SimpleNamespace(cfg=cfg, planned=planned, by=by, rows=rows, frame=frame, path=path,
                           results={c.key: r for c, r in rows})


def test_cells_frame_keeps_done_cells_and_floats_round_trip(ref):
    f = ref.frame
    assert list(f.columns) == list(CELL_COLUMNS)
    done = {c.key: r for c, r in ref.rows if r.status == DONE}
    assert sorted(f["key"]) == list(f["key"]) and set(f["key"]) == set(done)
    back = read_cells(ref.path)
    assert list(back["key"]) == list(f["key"])
    assert all(pd.api.types.is_string_dtype(back[c]) for c in back.columns)   # read as text
    for _, row in back.iterrows():
        res = done[row["key"]]
        for col in ("train_error", "valid_error", "test_error"):
            want = getattr(res, col)
            if want is None:
                assert row[col] == ""
            else:
                assert bits(float(row[col])) == bits(want), (col, row[col], want)
        assert int(row["selected_round"]) == res.selected_round
        assert int(row["n_rounds"]) == res.n_rounds
        assert row["round_rule"] == res.extra.get("round_rule", "")
        assert row["stop_reason"] == "max_rounds"
        assert row["n_phase1_rounds"] == str(res.extra.get("n_phase1_rounds", ""))
        assert float(row["fit_seconds"]) == round(res.fit_seconds, 3)
        assert row["cpu_seconds"] == ("" if res.cpu_seconds is None
                                      else f"{res.cpu_seconds:.3f}")
    seg = back[back["dataset"] == "segmentation"].iloc[0]
    assert seg["protocol"] == "predefined" and seg["valid_error"] == ""


def test_current_cells_drops_superseded_algorithm_versions(tmp_path, ref):
    car0 = ref.by["car", 0, "S"]
    old = replace(car0, algorithm_version=car0.algorithm_version + ".old")
    assert old.key != car0.key
    with ResultStore(tmp_path / "v.sqlite") as store:
        for cell, res in ref.rows:
            store.put(cell, res)
        store.put(old, replace(ref.results[car0.key], key=old.key))
        frame = store.frame()
    assert old.key in set(frame["key"])
    kept = current_cells(frame)
    assert set(kept["key"]) == {c.key for c, _ in ref.rows}
    assert set(cells_frame(kept)["key"]) == set(ref.frame["key"])


def test_read_cells_errors(tmp_path, ref):
    with pytest.raises(UserError, match="no per-cell results file"):
        read_cells(tmp_path / "missing.csv")
    bad = tmp_path / "bad.csv"
    ref.frame.drop(columns=["test_error", "params"]).to_csv(bad, index=False)
    with pytest.raises(UserError, match="missing columns params, test_error"):
        read_cells(bad)


def test_a_file_without_cpu_seconds_reads_as_unknown_cpu_time(tmp_path, ref):
    # cells.csv files written before the CPU time was recorded lack the column.
    old = tmp_path / "old.csv"
    ref.frame.drop(columns=["cpu_seconds"]).to_csv(old, index=False)
    back = read_cells(old)
    assert list(back.columns) == list(CELL_COLUMNS) and (back["cpu_seconds"] == "").all()
    with ResultStore(tmp_path / "fresh.sqlite") as store:
        assert import_cells(store, back, ref.planned) == 4
        got = store.get(ref.by["car", 0, "S"].key)[1]
        assert got.cpu_seconds is None and got.fit_seconds == 0.25


def test_import_cells_puts_exactly_the_missing_plan_rows(tmp_path, ref):
    frame = read_cells(ref.path)
    # A row of another plan (unknown key) is ignored, not checked.
    foreign = frame.iloc[[0]].assign(key="0" * 32, fold="4")
    frame = pd.concat([frame, foreign], ignore_index=True)
    car1_mh, seg_s = ref.by["car", 1, "MH"], ref.by["segmentation", 0, "S"]
    kept = CellResult(key=car1_mh.key, status=DONE, selected_round=1, n_rounds=1,
                      train_error=0.5, valid_error=0.5, test_error=0.5)
    with ResultStore(tmp_path / "fresh.sqlite") as store:
        store.put(car1_mh, kept)                                         # done: not replaced
        store.put(seg_s, CellResult(key=seg_s.key, status=FAILED, traceback="x"))
        n = import_cells(store, frame, ref.planned, "hash1")
        assert n == 3
        st = store.statuses()
        assert st == {k: DONE for k in (ref.by["car", 0, "S"].key, ref.by["car", 0, "MH"].key,
                                          car1_mh.key, seg_s.key)}
        assert store.get(car1_mh.key)[1].test_error == 0.5
        for key in (ref.by["car", 0, "S"].key, ref.by["car", 0, "MH"].key, seg_s.key):
            cell, got = store.get(key)
            want = ref.results[key]
            assert cell.key == key and cell.label in ("S", "MH") and cell.grid_id.startswith("t:")
            for col in ("train_error", "valid_error", "test_error"):
                w, g = getattr(want, col), getattr(got, col)
                assert (w is None and g is None) or bits(w) == bits(g)
            assert (got.selected_round, got.n_rounds) == (want.selected_round, want.n_rounds)
            assert got.extra["imported"] is True
            assert got.extra.get("n_phase1_rounds") == want.extra.get("n_phase1_rounds")
            assert got.cpu_seconds == want.cpu_seconds       # 0.125, or None where unknown
        assert store.frame()["config_hash"].isin(["", "hash1"]).all()
        # Importing again adds nothing.
        assert import_cells(store, frame, ref.planned) == 0


@pytest.mark.parametrize("column, value", [
    ("fold", "1"),
    ("params", '{"max_bins":255,"max_depth":3,"n_rounds":10}'),
    ("dataset", "nursery"),
    ("algorithm_version", "99"),
])
def test_import_cells_refuses_an_edited_row(tmp_path, ref, column, value):
    frame = read_cells(ref.path)
    i = int(np.flatnonzero(frame["key"] == ref.by["car", 0, "S"].key)[0])
    frame.loc[i, column] = value
    with ResultStore(tmp_path / "fresh.sqlite") as store:
        with pytest.raises(UserError, match="edited or written by another mcboost") as info:
            import_cells(store, frame, ref.planned)
        assert "\n" not in str(info.value) and frame.loc[i, "key"] in str(info.value)
        assert store.statuses().get(frame.loc[i, "key"]) is None


def _synthetic_frame():
    rows = []
    for alg in ("samme", "adaboost_mh", "adaboost_m1"):
        for ds in ("car", "nursery"):
            for j in range(3):
                # Keys in a scrambled (but fixed) order relative to algorithm and dataset.
                key = hashlib.sha256(f"{alg}/{ds}/{j}".encode()).hexdigest()[:32]
                secs = {0: "0.100", 1: "0.900", 2: "9.000"}[j]
                rows.append({c: "" for c in CELL_COLUMNS} | {
                    "key": key, "dataset": ds, "algorithm": alg, "fit_seconds": secs})
    rows.append({c: "" for c in CELL_COLUMNS} | {"key": "zz-no-time", "dataset": "car",
                                                  "algorithm": "samme", "fit_seconds": ""})
    return pd.DataFrame(rows, columns=list(CELL_COLUMNS))


def test_sample_cells_deterministic_cheap_and_spread():
    frame = _synthetic_frame()
    s3 = sample_cells(frame, 3, max_seconds=5.0)
    assert len(s3) == 3 and sorted(s3["algorithm"]) == ["adaboost_m1", "adaboost_mh", "samme"]
    s6 = sample_cells(frame, 6, max_seconds=5.0)
    assert s6["algorithm"].value_counts().to_dict() == {"samme": 2, "adaboost_mh": 2,
                                                         "adaboost_m1": 2}
    # Within an algorithm, two picks cover both datasets.
    assert (s6.groupby("algorithm")["dataset"].nunique() == 2).all()
    assert list(s6["key"][:3]) == list(s3["key"])                       # a prefix of the order
    # Same rows whatever the order of the file's rows, and every time.
    shuffled = frame.sample(frac=1.0, random_state=3)
    assert list(sample_cells(shuffled, 6, 5.0)["key"]) == list(s6["key"])
    assert sample_cells(frame, 6, 5.0).equals(s6)
    # max_seconds: 9 s fits and a row without a recorded time are never sampled.
    everything = sample_cells(frame, 100, max_seconds=5.0)
    assert len(everything) == 12
    assert pd.to_numeric(everything["fit_seconds"]).le(5.0).all()
    assert "zz-no-time" not in set(everything["key"])
    tight = sample_cells(frame, 100, max_seconds=0.5)
    assert len(tight) == 6 and set(tight["fit_seconds"]) == {"0.100"}
    assert sample_cells(frame, 5, max_seconds=0.01).empty


def test_recheck_same_numbers_and_one_ulp(ref):
    frame = read_cells(ref.path)
    results = ref.results

    def same(cell):
        return replace(results[cell.key], curves=None)

    assert recheck(frame, "ref", same) == []
    target = ref.by["car", 0, "MH"]
    old = results[target.key].test_error
    new = float(np.nextafter(old, 1.0))
    assert new != old

    def one_ulp(cell):
        r = same(cell)
        return replace(r, test_error=new) if cell.key == target.key else r

    bad = recheck(frame, "ref", one_ulp)
    assert len(bad) == 1
    m = bad[0]
    assert (m.key, m.column, m.committed, m.rerun) == (target.key, "test_error", repr(old),
                                                       repr(new))
    assert "car fold 0" in m.describe and "adaboost_mh" in m.describe

    # A cell without a validation part must re-run without one; a failure is one mismatch.
    seg = ref.by["segmentation", 0, "S"]

    def other(cell):
        r = same(cell)
        if cell.key == seg.key:
            return replace(r, valid_error=0.5, selected_round=9)
        if cell.key == target.key:
            return CellResult(key=cell.key, status=FAILED, traceback="boom")
        return r

    got = sorted((m.key, m.column, m.committed, m.rerun) for m in recheck(frame, "ref", other))
    assert got == sorted([(seg.key, "selected_round", "10", "9"),
                          (seg.key, "valid_error", "", "0.5"),
                          (target.key, "status", DONE, FAILED)])


def test_recheck_compares_floats_not_texts(ref):
    frame = read_cells(ref.path)
    key = ref.by["car", 1, "MH"].key
    i = int(np.flatnonzero(frame["key"] == key)[0])
    frame.loc[i, "train_error"] = "0.00"                       # the same float64 as 0.0
    assert float(frame.loc[i, "train_error"]) == ref.results[key].train_error
    assert recheck(frame, "ref", lambda c: ref.results[c.key]) == []


def test_merged_cells_keeps_the_files_rows_the_store_lacks(tmp_path, ref):
    # A store with one of the file's 4 done cells, with other numbers, and a cell the file
    # lacks; the file also has a row of a superseded algorithm version.
    car0, car1 = ref.by["car", 0, "S"], ref.by["car", 1, "S"]
    newer = replace(ref.results[car0.key], test_error=0.5)
    new_cell = CellResult(key=car1.key, status=DONE, selected_round=2, n_rounds=10,
                          train_error=0.0, valid_error=0.25, test_error=0.75)
    stale = read_cells(ref.path).iloc[[1]].assign(key="f" * 32, algorithm_version="0")
    file_text = pd.concat([read_cells(ref.path), stale], ignore_index=True)
    path = tmp_path / "with_stale.csv"
    path.write_text(file_text.to_csv(index=False))
    with ResultStore(tmp_path / "part.sqlite") as store:
        store.put(car0, newer)
        store.put(car1, new_cell)
        own = cells_frame(store.frame())
    merged, kept = merged_cells(own, path)
    file_keys = set(read_cells(ref.path)["key"])
    assert sorted(kept) == sorted(file_keys - {car0.key})            # 3 rows kept
    assert list(merged["key"]) == sorted(file_keys | {car1.key})     # no stale row, sorted
    by_key = merged.set_index("key")
    assert float(by_key.loc[car0.key, "test_error"]) == 0.5           # the store wins
    assert float(by_key.loc[car1.key, "test_error"]) == 0.75
    # Kept rows are the file's text, unchanged; a store with every cell gives the file back.
    assert (by_key.loc[sorted(kept)].reset_index()[list(CELL_COLUMNS)].to_csv(index=False)
            == read_cells(ref.path).set_index("key").loc[sorted(kept)].reset_index()
            [list(CELL_COLUMNS)].to_csv(index=False))
    again, none = merged_cells(ref.frame, ref.path)
    assert none == [] and again.to_csv(index=False) == ref.path.read_text()
    # No file (or not a cells file): the store's rows only.
    alone, none = merged_cells(own, tmp_path / "missing.csv")
    assert none == [] and list(alone["key"]) == sorted([car0.key, car1.key])


# -- 5. the CLI end to end ---------------------------------------------------------------------

E2E = """\
experiment: e2e
title: "E2E"
datasets: [car, segmentation]
protocol: {default: five_fold, segmentation: predefined}
folds: [0, 1]
tables:
  - id: table2
    title: "Table 2 tiny"
    published: dmcboost_kdd14/table2
    algorithms:
      - algorithm: samme
        label: SAMME
        params: {max_depth: 2, n_rounds: 10}
      - algorithm: adaboost_m1
        label: AdaBoost.M1
        params: {max_depth: 2, n_rounds: 10}
  - id: extra
    title: "Depth on validation"
    protocol: {segmentation: predefined_holdout}
    layout: {extra: [cpu_seconds]}
    algorithms:
      - algorithm: samme
        label: SAMME
        params: {n_rounds: 10}
        grid: {max_depth: [1, 2]}
"""
# Unique cells: table2 car 2×2 + segmentation 2; extra car 2×2 (depth 2 shared with table2's
# SAMME) + segmentation (holdout) 2  ->  6 + 2 + 2 = 10.
N_CELLS = 10


@pytest.mark.slow
def test_tables_config_run_recheck_import(tmp_path, mirror_env):
    cfg = tmp_path / "e2e.yaml"
    cfg.write_text(E2E)
    out, store = tmp_path / "out", tmp_path / "s.sqlite"
    r = invoke(["run", str(cfg), "--jobs", "1", "-q", "--results-dir", str(out),
                "--store", str(store)], tmp_path)
    assert r.exit_code == 0, r.output
    assert f"{N_CELLS} done, 0 failed" in r.stderr
    # The plan's summary counts a fit shared by two tables once.
    r = invoke(["run", str(cfg), "--dry-run", "--store", str(store)], tmp_path)
    assert r.exit_code == 0, r.output
    assert (f"{N_CELLS} cells" in r.stdout
            and f"{N_CELLS} done, 0 failed/timed out, 0 pending" in r.stdout), r.output
    for name in ("table2.md", "table2.csv", "table2.tex", "extra.md", "extra.csv", "extra.tex",
                 "cells.csv"):
        assert (out / name).stat().st_size > 0, name
    md = (out / "table2.md").read_text()
    assert "SAMME paper" in md and "AdaBoost.M1 paper" in md and "**Agreement.**" in md
    assert "6.43" in md                                  # the paper's SAMME on segmentation
    assert "paper" not in (out / "extra.md").read_text().split("Protocol")[0]
    t2 = pd.read_csv(out / "table2.csv")
    assert {"published_mean", "published_printed", "agrees"} <= set(t2.columns)
    seg = t2[(t2["dataset"] == "segmentation") & (t2["algorithm"] == "SAMME")].iloc[0]
    assert seg["published_mean"] == 6.43 and seg["n"] == 1
    assert set(t2.loc[t2["dataset"] == "car", "n"]) == {2}

    cells = read_cells(out / "cells.csv")
    assert len(cells) == N_CELLS and cells["key"].is_unique
    pre = cells[cells["protocol"] == "predefined"]
    assert len(pre) == 2 and (pre["valid_error"] == "").all()
    fitted = pre[pre["n_rounds"] != "0"]    # AdaBoost.M1 may not boost (no fit): no round rule
    assert len(fitted) >= 1 and set(fitted["algorithm"]) >= {"samme"}
    assert (fitted["round_rule"] == "last round (no validation part)").all()
    assert (fitted["selected_round"] == fitted["n_rounds"]).all()
    hold = cells[cells["protocol"] == "predefined_holdout"]
    assert len(hold) == 2 and (hold["valid_error"] != "").all()
    assert (cells.loc[cells["protocol"] == "five_fold", "valid_error"] != "").all()
    # Every fit records its CPU time; one thread's CPU time cannot exceed the wall clock
    # (both rounded to the millisecond).
    cpu, wall = (pd.to_numeric(cells[c], errors="raise") for c in ("cpu_seconds", "fit_seconds"))
    assert (cpu >= 0).all() and (cpu <= wall + 0.002).all()
    # ... and the machine it ran on, which a table showing times names (the DirectBoost
    # paper's Table 2 names its own); it survives an import (the tables compared below).
    from mcboost_cli.runner.work import machine
    assert (cells["machine"] == machine()).all()
    assert f"were measured on: {machine()}." in (out / "extra.md").read_text()
    assert "measured on" not in (out / "table2.md").read_text()     # no times shown there

    # Re-running a sample reproduces every number.
    r = invoke(["recheck", str(cfg), "--cells", str(out / "cells.csv"), "--sample", "4"],
               tmp_path)
    assert r.exit_code == 0, r.output
    assert "differs" not in r.stdout and "4 cells" in r.stderr and "0 numbers differ" in r.stderr

    # One edited test error in a copy is reported, with exit 1.
    edited = cells.copy()
    key = sample_cells(edited, 4, 5.0).iloc[0]["key"]
    i = int(np.flatnonzero(edited["key"] == key)[0])
    old = edited.loc[i, "test_error"]
    edited.loc[i, "test_error"] = repr(float(old) + 0.125)
    copy = tmp_path / "edited.csv"
    copy.write_text(edited.to_csv(index=False))
    r = invoke(["recheck", str(cfg), "--cells", str(copy), "--sample", "4"], tmp_path)
    assert r.exit_code == 1, r.output
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("differs:")]
    assert len(lines) == 1 and "test_error" in lines[0]
    assert f"re-run {old}" in lines[0] and "1 numbers differ" in r.stderr

    # --all --retime re-runs every cell of the copy and writes the new timings of the cells
    # that reproduced, and only theirs: the edited cell keeps its (made-up) times and its
    # number, every other column of every row stays as it was.
    stale = edited.assign(fit_seconds="999.000", cpu_seconds="998.000", machine="old box")
    copy.write_text(stale.to_csv(index=False))
    r = invoke(["recheck", str(cfg), "--cells", str(copy), "--all", "--retime"], tmp_path)
    assert r.exit_code == 1 and f"{N_CELLS} cells" in r.stderr, r.output
    assert f"timings of {N_CELLS - 1} reproduced cells" in r.stderr
    after = read_cells(copy)
    assert list(after["key"]) == list(stale["key"])
    fixed = after["key"] != key
    assert (after.loc[~fixed, ["fit_seconds", "cpu_seconds", "machine"]].to_numpy()
            == [["999.000", "998.000", "old box"]]).all()
    assert (after.loc[fixed, "machine"] == machine()).all()
    assert (pd.to_numeric(after.loc[fixed, "cpu_seconds"]) < 998).all()
    timing = ["fit_seconds", "cpu_seconds", "machine"]
    assert after.drop(columns=timing).equals(stale.drop(columns=timing).reset_index(drop=True))
    # Narrowed to one algorithm column, --all re-runs only its cells.
    r = invoke(["recheck", str(cfg), "--cells", str(out / "cells.csv"), "--all",
                "--algorithms", "samme"], tmp_path)
    assert r.exit_code == 0, r.output
    n_samme = int((cells["algorithm"] == "samme").sum())
    assert f"{n_samme} cells" in r.stderr and "(samme on" in r.stderr
    # --untimed takes only the cells recorded without a CPU time (fits from before it was
    # recorded) and, with --retime, gives them one; the other rows keep theirs.
    untimed = cells.copy()
    keys = list(untimed["key"].iloc[[0, 3]])
    untimed.loc[untimed["key"].isin(keys), ["cpu_seconds", "machine"]] = ""
    copy.write_text(untimed.to_csv(index=False))
    r = invoke(["recheck", str(cfg), "--cells", str(copy), "--all", "--untimed", "--retime"],
               tmp_path)
    assert r.exit_code == 0 and "2 cells" in r.stderr, r.output
    after = read_cells(copy)
    again = after["key"].isin(keys)
    assert (pd.to_numeric(after.loc[again, "cpu_seconds"]) >= 0).all()
    assert after.loc[~again].equals(untimed.loc[~again].astype(str).reset_index(drop=True)
                                    .set_axis(after.loc[~again].index))
    r = invoke(["recheck", str(cfg), "--cells", str(copy), "--all", "--untimed"], tmp_path)
    assert r.exit_code == 2 and "no recorded cell without a CPU time" in r.output, r.output

    # A dry run with --import-results counts what it would take and writes nothing.
    out2, store2 = tmp_path / "out2", tmp_path / "fresh.sqlite"
    r = invoke(["run", str(cfg), "--dry-run", "--results-dir", str(out2), "--store", str(store2),
                "--import-results", str(out / "cells.csv")], tmp_path)
    assert r.exit_code == 0, r.output
    assert f"0 done, 0 failed/timed out, {N_CELLS} pending" in r.stdout
    assert f"would import {N_CELLS} done cells, leaving 0 not done" in r.stdout
    with ResultStore(store2) as st:
        assert not any(s == "done" for s in st.statuses(list(cells["key"])).values())

    # A fresh store takes the committed cells and runs nothing; its tables are the same.
    r = invoke(["run", str(cfg), "--jobs", "1", "-q", "--results-dir", str(out2),
                "--store", str(store2), "--import-results", str(out / "cells.csv")], tmp_path)
    assert r.exit_code == 0, r.output
    assert f"imported {N_CELLS} done cells" in r.stderr
    assert f"0 done, 0 failed, 0 timed out, {N_CELLS} skipped" in r.stderr
    for name in ("table2.csv", "extra.csv", "cells.csv", "table2.md"):
        assert (out2 / name).read_text() == (out / name).read_text(), name

    # A narrowed run on a store without the other cells keeps their rows in cells.csv and
    # shows them in the tables (it says so); its own cells reproduce the committed numbers,
    # so every file is rewritten as it was (the reproduced rows keep their timings).
    before = {name: (out / name).read_text() for name in ("cells.csv", "table2.md", "extra.csv")}
    r = invoke(["run", str(cfg), "--jobs", "1", "-q", "--results-dir", str(out),
                "--store", str(tmp_path / "narrow.sqlite"), "--datasets", "segmentation"],
               tmp_path)
    assert r.exit_code == 0, r.output
    assert ("note: 6 done cells of this plan are taken from" in r.stderr
            and "--import-results" in r.stderr)
    assert {name: (out / name).read_text() for name in before} == before
    # As the note says, --import-results puts them in the store, though they lie outside the
    # run's selection (the dry run counts them apart); the note is then gone.
    args = ["run", str(cfg), "--jobs", "1", "-q", "--results-dir", str(out),
            "--store", str(tmp_path / "narrow.sqlite"), "--datasets", "segmentation",
            "--import-results", str(out / "cells.csv")]
    r = invoke(args + ["--dry-run"], tmp_path)
    assert r.exit_code == 0, r.output
    assert "would import 6 done cells (6 of them outside this run's selection)" in r.stdout
    r = invoke(args, tmp_path)
    assert r.exit_code == 0, r.output
    assert "imported 6 done cells" in r.stderr and "note:" not in r.stderr, r.stderr
    with ResultStore(tmp_path / "narrow.sqlite") as st:
        assert set(st.statuses(list(cells["key"])).values()) == {"done"}
    assert {name: (out / name).read_text() for name in before} == before


def test_noise_unknown_dataset_is_one_line_exit_2():
    r = invoke(["noise", "--rate", "0.2", "--datasets", "nope"], REPO)
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --datasets: nope is not valid")
    assert "car, nursery" in lines[0] and "Traceback" not in r.output
    r = invoke(["noise", "--rate", "0.2", "--algorithms", "SAMME,Nope"], REPO)
    assert r.exit_code == 2 and r.stderr.strip().startswith("error: --algorithms: Nope")


def test_run_unknown_table_is_one_line_exit_2_and_figures_follow_their_table():
    r = invoke(["run", "configs/uci.yaml", "--tables", "table2,tableX", "--dry-run"], REPO)
    assert r.exit_code == 2
    lines = r.stderr.strip().splitlines()
    assert lines == ["error: --tables: tableX is not valid; expected table ids among "
                     "table2, table3"]
    from mcboost_cli.runner.config import load_config
    cfg = load_config(REPO / "configs" / "uci.yaml")
    assert [f.id for f in narrow(cfg, tables=["table2"]).figures] == ["figure3"]
    assert narrow(cfg, tables=["table3"]).figures == ()


def test_phase1_train_error_of_an_older_store_comes_from_its_curves(tmp_path, ref):
    # Stores written before the fact was recorded: the training curve at round n_phase1.
    from mcboost_cli.runner.reference import with_phase1_train_error
    car0, car1 = ref.by["car", 0, "S"], ref.by["car", 1, "MH"]
    curve = [0.5, 0.375, 0.25, 0.3125]
    with ResultStore(tmp_path / "old.sqlite") as store:
        for cell, res in ref.rows:
            if cell.key == car0.key:
                res = replace(res, curves={"train": curve, "test": curve},
                              extra=dict(res.extra, n_phase1_rounds=3))
            elif cell.key == car1.key:      # imported from a cells.csv: no curves to read
                res = replace(res, extra=dict(res.extra, n_phase1_rounds=2, imported=True))
            store.put(cell, res)
        frame = store.frame()
        back = with_phase1_train_error(store, frame)
    extra = dict(zip(back["key"], back["extra"]))
    assert extra[car0.key]["phase1_train_error"] == 0.25
    assert "phase1_train_error" not in extra[car1.key]
    assert frame["extra"].map(lambda e: "phase1_train_error" in (e or {})).sum() == 0
    text = cells_frame(back).set_index("key")["phase1_train_error"]
    assert text[car0.key] == "0.25" and text[car1.key] == ""
    # A cells.csv of an older mcboost (no such column) reads with the column empty.
    old = tmp_path / "old.csv"
    ref.frame.drop(columns=["phase1_train_error"]).to_csv(old, index=False)
    back_file = read_cells(old)
    assert list(back_file.columns) == list(CELL_COLUMNS)
    assert (back_file["phase1_train_error"] == "").all()


def test_sample_cells_counts_a_shared_prefix_in_the_rerun_time():
    # DMCBoost's n' grid shares one Phase I: a sibling that started from it records only its
    # own seconds, but re-running it computes the prefix again. The cheap sibling of an
    # expensive prefix group is not "cheap"; one of a cheap group is, and a baseline is
    # judged by its own seconds.
    rows = []
    for fold, secs in ((0, ("40.000", "1.000")), (1, ("1.500", "1.000"))):
        for nprime, s in zip(("1", "n/10"), secs):
            rows.append({c: "" for c in CELL_COLUMNS} | {
                "key": f"dmc-{fold}-{nprime}", "dataset": "car", "protocol": "five_fold",
                "fold": str(fold), "noise_rate": "0.0", "seed": "0", "algorithm": "dmcboost",
                "algorithm_version": "5", "fit_seconds": s,
                "params": json.dumps({"max_depth": 3, "n_prime": nprime})})
    rows.append({c: "" for c in CELL_COLUMNS} | {"key": "samme-0", "dataset": "car",
                                                  "algorithm": "samme", "fit_seconds": "1.000",
                                                  "params": "{}"})
    frame = pd.DataFrame(rows, columns=list(CELL_COLUMNS))
    picked = set(sample_cells(frame, 100, max_seconds=5.0)["key"])
    assert picked == {"dmc-1-1", "dmc-1-n/10", "samme-0"}
