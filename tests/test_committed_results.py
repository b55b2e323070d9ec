"""Committed results survive what users do (issue 30): narrowed runs and reports on a store
that lacks the committed cells rewrite the tables and cells.csv byte for byte."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.runner.reference import TIMINGS, known_results, merged_cells, read_cells

from .test_cli import invoke, mirror_env  # noqa: F401  (a fixture)

REPO = Path(__file__).resolve().parents[1]

# Like configs/noise.yaml (published Table 4 beside ours, two noise rates), with a second
# table for --tables, and tiny budgets.
NOISE = """\
experiment: committed
title: "Committed-like noise experiment"
datasets: [car]
protocol: five_fold
folds: [0, 1]
noise_rates: [0.05, 0.2]
tables:
  - id: table4
    title: "Table 4 tiny"
    published: dmcboost_kdd14/table4
    algorithms:
      - algorithm: samme
        label: SAMME
        params: {n_rounds: 12}
        grid: {max_depth: [1, 2]}
      - algorithm: adaboost_mh
        label: AdaBoost.MH
        params: {n_rounds: 8, max_depth: 2}
  - id: other
    title: "Another table"
    algorithms:
      - algorithm: adaboost_m1
        label: AdaBoost.M1
        params: {n_rounds: 6, max_depth: 1}
"""
FILES = ("table4.md", "table4.csv", "table4.tex", "table4_selected.csv", "other.md",
         "other.csv", "other.tex", "other_selected.csv", "cells.csv")


def _snapshot(out: Path) -> dict[str, bytes]:
    return {name: (out / name).read_bytes() for name in FILES}


@pytest.mark.slow
def test_narrowed_runs_and_reports_keep_every_committed_cell(tmp_path, mirror_env):
    cfg = tmp_path / "noise.yaml"
    cfg.write_text(NOISE)
    out = tmp_path / "results"
    # The "committed" results: a full run, whose store is then gone (a clean clone).
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--results-dir", str(out),
                "--store", str(tmp_path / "full.sqlite")], tmp_path)
    assert r.exit_code == 0, r.output
    committed = _snapshot(out)
    n_cells = len(read_cells(out / "cells.csv"))
    assert n_cells == 2 * 2 * (2 + 1 + 1)        # folds × rates × (grid 2 + MH + M1)
    assert "–" not in committed["table4.md"].decode()

    # Each narrowed run on a fresh store computes its own cells (the same numbers) and
    # rewrites every file exactly as committed: no lost rate section, no "–" cell, the same
    # agreement line, cells.csv rows unchanged (timings included, as the numbers reproduce).
    narrowed = [
        ["noise", "--config", str(cfg), "--rate", "0.2", "--datasets", "car",
         "--algorithms", "SAMME"],
        ["run", str(cfg), "--algorithms", "AdaBoost.MH"],
        ["run", str(cfg), "--tables", "other"],
        ["noise", "--config", str(cfg), "--rate", "0.05"],
    ]
    for i, args in enumerate(narrowed):
        r = invoke([*args, "-j", "1", "-q", "--results-dir", str(out),
                    "--store", str(tmp_path / f"fresh{i}.sqlite")], tmp_path)
        assert r.exit_code == 0, (args, r.output)
        for name, data in committed.items():
            assert (out / name).read_bytes() == data, (args, name)
        assert "done cells of this plan are taken from" in r.stderr, args

    # A report on a store without the committed cells, and on no store at all, too.
    empty = tmp_path / "empty.sqlite"
    r = invoke(["run", str(cfg), "--dry-run", "--store", str(empty)], tmp_path)
    assert r.exit_code == 0, r.output
    for store in (empty, tmp_path / "absent.sqlite"):
        r = invoke(["report", str(cfg), "--results-dir", str(out), "--store", str(store)],
                   tmp_path)
        assert r.exit_code == 0, r.output
        assert _snapshot(out) == committed, store
    assert not (tmp_path / "absent.sqlite").exists()      # a report creates no store

    # A noise rate outside the config adds its section; the config's rates stay.
    r = invoke(["noise", "--config", str(cfg), "--rate", "0.1", "--algorithms", "AdaBoost.M1",
                "-j", "1", "-q", "--results-dir", str(out),
                "--store", str(tmp_path / "rate.sqlite")], tmp_path)
    assert r.exit_code == 0, r.output
    md = (out / "table4.md").read_text()
    assert all(f"label noise {rate}" in md for rate in ("0.05", "0.2", "0.1"))
    assert len(read_cells(out / "cells.csv")) == n_cells + 2      # 2 folds of M1 at 0.1


def test_merged_cells_keeps_the_files_row_of_a_reproduced_cell(tmp_path):
    # The store re-computed two of the file's cells: one with the same numbers (other
    # timings), one with another test error. Only the second row changes.
    rows = pd.DataFrame({
        "key": ["a" * 32, "b" * 32, "c" * 32], "dataset": "car", "protocol": "five_fold",
        "fold": ["0", "1", "2"], "noise_rate": "0.0", "seed": "0", "algorithm": "samme",
        "algorithm_version": "1", "params": '{"max_depth":1}', "data_source": "",
        "selected_round": "3", "n_rounds": "10", "train_error": "0.25", "valid_error": "0.5",
        "test_error": "0.125", "n_phase1_rounds": "", "round_rule": "validation early stopping",
        "stop_reason": "n_rounds", "fit_seconds": "1.000", "cpu_seconds": "",
    })
    path = tmp_path / "cells.csv"
    path.write_text(rows.to_csv(index=False))
    store = rows.iloc[[0, 1]].copy()
    store["fit_seconds"], store["cpu_seconds"] = "9.999", "8.888"
    store.loc[store.index[1], "test_error"] = "0.375"
    merged, kept = merged_cells(store, path)
    assert kept == ["c" * 32]
    by_key = merged.set_index("key")
    assert by_key.loc["a" * 32].to_dict() == rows.set_index("key").loc["a" * 32].to_dict()
    assert by_key.loc["b" * 32, "test_error"] == "0.375"
    assert by_key.loc["b" * 32, "fit_seconds"] == "9.999"
    assert "fit_seconds" in TIMINGS


def test_known_results_shows_the_files_timings_of_a_reproduced_cell(tmp_path):
    # Tables are rendered from known_results: a cell the store computed again with the file's
    # numbers must show the file's timings (as merged_cells keeps the file's row), or a
    # narrowed re-run would rewrite a table's mean CPU seconds and not cells.csv.
    rows = pd.DataFrame({
        "key": ["a" * 32, "b" * 32], "dataset": "car", "protocol": "five_fold",
        "fold": ["0", "1"], "noise_rate": "0.0", "seed": "0", "algorithm": "samme",
        "algorithm_version": "1", "params": '{"max_depth":1}', "data_source": "",
        "selected_round": "3", "n_rounds": "10", "train_error": "0.25", "valid_error": "",
        "test_error": "0.125", "n_phase1_rounds": "", "round_rule": "last round",
        "stop_reason": "n_rounds", "fit_seconds": "1.0", "cpu_seconds": "2.0", "machine": "m0",
    })
    path = tmp_path / "cells.csv"
    path.write_text(rows.to_csv(index=False))
    store = pd.DataFrame({
        "key": ["a" * 32, "b" * 32], "status": "done", "dataset": "car", "algorithm": "samme",
        "selected_round": [3, 3], "n_rounds": [10, 10], "train_error": [0.25, 0.25],
        "valid_error": [np.nan, np.nan], "test_error": [0.125, 0.375],
        "fit_seconds": [9.0, 9.0], "cpu_seconds": [8.0, 8.0], "machine": "m1",
    })
    shown, n_added = known_results(store, path, list(store["key"]))
    assert n_added == 0
    by_key = shown.set_index("key")
    assert by_key.loc["a" * 32, ["fit_seconds", "cpu_seconds", "machine"]].tolist() == [1.0, 2.0, "m0"]
    assert by_key.loc["b" * 32, ["fit_seconds", "cpu_seconds", "machine"]].tolist() == [9.0, 8.0, "m1"]
    assert store["cpu_seconds"].tolist() == [8.0, 8.0]       # the caller's frame is not changed


FIGURE = """\
experiment: fig
title: "Figure-like experiment"
datasets: [car]
protocol: five_fold
folds: [0]
tables:
  - id: table2
    title: "Table 2 tiny"
    algorithms:
      - algorithm: dmcboost
        label: DMCBoost
        params: {n_rounds: 30, max_depth: 2, n_prime: "n/4"}
      - algorithm: samme
        label: SAMME
        params: {n_rounds: 20}
        grid: {max_depth: [1, 2]}
figures:
  - id: figure3
    kind: phase_curves
    title: "Figure 3 tiny"
    table: table2
    dataset: car
    fold: 0
    algorithm: DMCBoost
    compare: [SAMME]
"""


@pytest.mark.slow
def test_narrowed_run_leaves_a_figure_it_cannot_draw_whole(tmp_path, mirror_env):
    cfg = tmp_path / "fig.yaml"
    cfg.write_text(FIGURE)
    out = tmp_path / "results"
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--results-dir", str(out),
                "--store", str(tmp_path / "full.sqlite")], tmp_path)
    assert r.exit_code == 0, r.output
    names = ("figure3.png", "figure3.svg", "figure3.csv")
    drawn = {name: (out / name).read_bytes() for name in names}
    assert set(pd.read_csv(out / "figure3.csv")["algorithm"]) == {"DMCBoost", "SAMME"}
    # A fresh store with DMCBoost only (SAMME's curves are not in it, only its cells.csv
    # rows): the figure is not redrawn without SAMME; with SAMME only, it is not drawn either.
    for i, args in enumerate([["--algorithms", "DMCBoost"], ["--algorithms", "SAMME"]]):
        r = invoke(["run", str(cfg), *args, "-j", "1", "-q", "--results-dir", str(out),
                    "--store", str(tmp_path / f"fresh{i}.sqlite")], tmp_path)
        assert r.exit_code == 0, r.output
        assert {name: (out / name).read_bytes() for name in names} == drawn, args
