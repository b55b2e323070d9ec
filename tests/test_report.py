"""Model selection on validation and the paper-style tables, on a hand-made store frame."""

import numpy as np
import pandas as pd

from mcboost_cli.protocol.selection import select
from mcboost_cli.report.tables import render_terminal, summarize
from mcboost_cli.runner.config import validate_config
from mcboost_cli.runner.plan import expand

CONFIG = {
    "experiment": "t",
    "datasets": ["car"],
    "folds": [0, 1, 2],
    "noise_rates": [0.0],
    "algorithms": [
        {"algorithm": "samme", "label": "S", "grid": {"max_depth": [1, 2, 3]}},
        {"algorithm": "adaboost_m1", "label": "M1"},
    ],
}


def _setup(valid, test):
    """valid/test: dict (fold, entry, grid) -> error."""
    cfg = validate_config(CONFIG, "t.yaml", known_datasets=["car"])
    planned = expand(cfg)
    rows = []
    for pc in planned:
        k = (pc.cell.fold, pc.entry_index, pc.grid_index)
        if k in valid:
            rows.append({"key": pc.cell.key, "status": "done", "valid_error": valid[k],
                         "test_error": test[k], "train_error": 0.0, "selected_round": 5})
    return cfg, planned, pd.DataFrame(rows)


def test_selection_uses_validation_only_and_first_grid_point_on_ties():
    valid, test = {}, {}
    for fold in range(3):
        # Grid point 1 has the lowest validation error but the worst test error.
        for g, (v, t) in enumerate([(0.30, 0.01), (0.10, 0.50), (0.10, 0.02)]):
            valid[(fold, 0, g)], test[(fold, 0, g)] = v, t
        valid[(fold, 1, 0)], test[(fold, 1, 0)] = 0.2, 0.1 + fold / 100
    cfg, planned, results = _setup(valid, test)
    sel = select(planned, results)
    s = sel[sel["entry_index"] == 0]
    assert (s["grid_index"] == 1).all()              # min validation; tie 1 vs 2 -> first
    assert np.allclose(s["test_error"], 0.50)
    summary = summarize(cfg, planned, results)
    m1 = summary[summary["algorithm"] == "M1"].iloc[0]
    assert m1["mean"] == np.mean([10, 11, 12]) and np.isclose(m1["std"], 1.0)   # ddof = 1
    assert m1["complete"] and m1["n"] == 3


def test_partial_store_is_marked_and_missing_cells_dashed():
    valid = {(0, 0, 0): 0.1, (0, 0, 1): 0.2, (0, 0, 2): 0.3, (1, 0, 0): 0.1}
    test = dict.fromkeys(valid, 0.05)
    cfg, planned, results = _setup(valid, test)
    summary = summarize(cfg, planned, results)
    s = summary[summary["algorithm"] == "S"].iloc[0]
    assert s["n"] == 2 and not s["complete"]
    text = render_terminal(cfg, summary)
    # Fold 1 has only grid point 0: the footnote says so, not just the fold count.
    assert "5.00 (0.00)†" in text and "–" in text
    assert "car/S at noise 0: 2 of 3 folds, 1 of them on part of the grid" in text


def test_a_cell_with_every_fold_but_part_of_a_grid_says_which():
    # Every fold done, but folds 1 and 2 lack grid point 2 (not run, or failed): the cell is
    # partial though its fold count is full, and the footnote names the reason.
    valid = {(f, 0, g): 0.1 for f in range(3) for g in range(3) if f == 0 or g < 2}
    test = dict.fromkeys(valid, 0.05)
    cfg, planned, results = _setup(valid, test)
    summary = summarize(cfg, planned, results)
    s = summary[summary["algorithm"] == "S"].iloc[0]
    assert s["n"] == 3 and not s["complete"] and s["n_partial_grid"] == 2
    text = render_terminal(cfg, summary)
    assert "car/S at noise 0: 3 of 3 folds, 2 of them on part of the grid" in text


def test_no_fit_cells_are_reported_not_averaged():
    valid = {(f, 1, 0): np.nan for f in range(3)}
    test = dict.fromkeys(valid, np.nan)
    cfg, planned, results = _setup(valid, test)
    summary = summarize(cfg, planned, results)
    m1 = summary[summary["algorithm"] == "M1"].iloc[0]
    assert m1["n_no_fit"] == 3 and np.isnan(m1["mean"])
    assert "no fit" in render_terminal(cfg, summary)


def test_per_dataset_overrides_reach_the_cells():
    cfg = validate_config({
        "experiment": "t", "datasets": ["car", "letter"], "folds": [0],
        "algorithms": [{"algorithm": "samme", "params": {"n_rounds": 10},
                        "per_dataset": {"letter": {"n_rounds": 520}},
                        "grid": {"max_depth": [1, 2]}}],
    }, "t.yaml", known_datasets=["car", "letter"])
    rounds = {(pc.cell.dataset, pc.cell.params_dict["max_depth"]): pc.cell.params_dict["n_rounds"]
              for pc in expand(cfg)}
    assert rounds == {("car", 1): 10, ("car", 2): 10, ("letter", 1): 520, ("letter", 2): 520}


def test_report_and_compare_render_a_dataset_from_its_only_committed_source(tmp_path):
    """A clean clone (no store) of uci.yaml, whose Poker525k cells all come from the offline
    stand-in: report and compare render them (as the index lists them) instead of showing
    Poker525k as not run; an explicit --source for it wins."""
    import shutil
    from pathlib import Path

    from mcboost_cli.runner.experiment import compare_experiment, report_experiment
    repo = Path(__file__).resolve().parents[1]
    shutil.copy(repo / "results" / "dmcboost_kdd14" / "cells.csv", tmp_path / "cells.csv")
    where = dict(results_dir=tmp_path, store_path=tmp_path / "absent.sqlite")
    lines = []
    res = report_experiment(repo / "configs" / "uci.yaml", log=lines.append, **where)
    assert "poker525k" not in res.config.not_run
    assert res.config.source_of("poker525k") == "generator"
    assert any("poker525k is rendered from its committed cells of source 'generator'" in x
               for x in lines)
    poker = res.tables[res.tables["dataset"] == "poker525k"]
    assert poker["mean"].notna().sum() >= 4
    assert not (tmp_path / "absent.sqlite").exists()
    own = report_experiment(repo / "configs" / "uci.yaml", sources={"poker525k": "auto"},
                            log=lambda _: None, **where)
    assert "poker525k" in own.config.not_run
    cmp = compare_experiment(repo / "configs" / "uci.yaml", tables="table2",
                             output_dir=tmp_path / "sig", log=lambda _: None, **where)
    assert cmp.config.source_of("poker525k") == "generator"
    assert "poker525k" in (tmp_path / "sig" / "table2.md").read_text().lower()
