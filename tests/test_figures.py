"""Figures are drawn from stored curves only (issue 31): presentation never refits a model.

A figure whose selected cells have no curves in the store (imported with ``--import-results``,
or known from ``cells.csv`` only) is not drawn: its files stay as they are, byte for byte and
untouched on disk, and a warning says which cells lack their curves and why.
"""

from __future__ import annotations

import logging

import pandas as pd
import pytest

from mcboost_cli.runner import work

from .test_cli import invoke, mirror_env  # noqa: F401  (a fixture)

# Figure 3 of the DMCBoost paper on one fold of Car, with tiny budgets.
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
        params: {n_rounds: 20, max_depth: 2, n_prime: "n/4"}
      - algorithm: samme
        label: SAMME
        params: {n_rounds: 15}
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
NAMES = ("figure3.png", "figure3.svg", "figure3.csv")


def _files(out):
    """name -> (bytes, mtime in ns) of the figure's files."""
    return {name: ((out / name).read_bytes(), (out / name).stat().st_mtime_ns)
            for name in NAMES}


def _not_drawn(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "mcboost_cli.report.figures" and r.levelno == logging.WARNING]


@pytest.mark.slow
def test_a_figure_without_stored_curves_is_not_drawn_and_says_why(tmp_path, mirror_env,
                                                                   monkeypatch, caplog):
    cfg = tmp_path / "fig.yaml"
    cfg.write_text(FIGURE)
    out = tmp_path / "results"
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--results-dir", str(out),
                "--store", str(tmp_path / "full.sqlite")], tmp_path)
    assert r.exit_code == 0, r.output
    assert set(pd.read_csv(out / "figure3.csv")["algorithm"]) == {"DMCBoost", "SAMME"}
    assert not _not_drawn(caplog)
    drawn = _files(out)

    # From here on no model may be fitted: every cell is imported or read from cells.csv.
    def no_fit(*args, **kwargs):
        raise AssertionError("a figure fitted a model again")
    monkeypatch.setattr(work, "run_cell", no_fit)

    # A store that imported every cell from cells.csv: done, but without curves.
    caplog.clear()
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--results-dir", str(out),
                "--store", str(tmp_path / "imported.sqlite"),
                "--import-results", str(out / "cells.csv")], tmp_path)
    assert r.exit_code == 0, r.output
    assert _files(out) == drawn
    [message] = _not_drawn(caplog)
    assert message.startswith("figure figure3 is not drawn: the selected cells of car fold 0 "
                              "have no stored curves: DMCBoost, SAMME stored without curves "
                              "(imported)")
    assert message.endswith("its files are left as they are")

    # No store at all: the cells are known from cells.csv only.
    caplog.clear()
    r = invoke(["report", str(cfg), "--results-dir", str(out)], tmp_path)
    assert r.exit_code == 0, r.output
    assert _files(out) == drawn
    [message] = _not_drawn(caplog)
    assert "DMCBoost, SAMME known from cells.csv only (not in the store)" in message
