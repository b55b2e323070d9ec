"""Table layouts (``report.layouts``): the committed DMCBoost tables render unchanged through
the layout code, every layout key does what it says on a summary with known numbers, and bad
layouts are one-line config errors."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.errors import UserError
from mcboost_cli.report.layouts import display_tables, heading
from mcboost_cli.report.tables import _comparison, _published, wide_tables
from mcboost_cli.runner.config import TableLayout, validate_config

from .test_cli import invoke

REPO = Path(__file__).resolve().parents[1]
COMMITTED = REPO / "results" / "dmcboost_kdd14"
KNOWN = ["car", "nursery", "letter"]

CONFIG = {
    "experiment": "layouts", "datasets": ["car", "nursery"],
    "noise_rates": [0.0, 0.2],
    "tables": [{"id": "t", "title": "T", "published": "dmcboost_kdd14/table4",
                "algorithms": [{"algorithm": "samme", "label": "SAMME"},
                               {"algorithm": "dmcboost", "label": "DMCBoost"}]}],
}


def _config(layout=None, published=True):
    data = {**CONFIG, "tables": [dict(CONFIG["tables"][0])]}
    if layout is not None:
        data["tables"][0]["layout"] = layout
    if not published:
        del data["tables"][0]["published"]
    return validate_config(data, "c.yaml", known_datasets=KNOWN, split_datasets=[])


def _summary(config):
    """Known numbers: error = 10 * (dataset index + 1) + algorithm index + noise rate."""
    rows = []
    for rate in config.noise_rates:
        for i, d in enumerate(config.datasets):
            for j, label in enumerate(["SAMME", "DMCBoost"]):
                rows.append({"table": "t", "dataset": d, "noise_rate": rate, "algorithm": label,
                             "mean": 10.0 * (i + 1) + j + rate, "std": 0.5, "n": 5,
                             "n_no_fit": 0, "n_planned": 5, "complete": True,
                             "mean_selected_round": 100.0 * (j + 1),
                             "mean_cpu_seconds": 1.25})
    return pd.DataFrame(rows)


@pytest.mark.slow
def test_committed_dmcboost_tables_render_unchanged(tmp_path):
    """A clean clone's report (from the committed cells.csv alone) through the layout code
    writes the committed Tables 2-4 byte for byte."""
    out = tmp_path / "results"
    out.mkdir()
    shutil.copy(COMMITTED / "cells.csv", out / "cells.csv")
    for config, extra in (("configs/uci.yaml", ["--source", "poker525k=generator"]),
                          ("configs/noise.yaml", [])):
        r = invoke(["report", str(REPO / config), *extra, "--results-dir", str(out),
                    "--store", str(tmp_path / "absent.sqlite")], tmp_path)
        assert r.exit_code == 0, r.output
    for name in ("table2", "table3", "table4"):
        for ext in ("md", "csv", "tex"):
            assert (out / f"{name}.{ext}").read_bytes() == \
                (COMMITTED / f"{name}.{ext}").read_bytes(), f"{name}.{ext}"


def test_default_layout_is_datasets_by_algorithms_with_paper_columns():
    config = _config()
    assert config.tables[0].layout == TableLayout()
    frames = wide_tables(config, _summary(config))
    assert [rate for rate, _ in frames] == [0.0, 0.2]
    wide = frames[1][1]
    assert list(wide.index) == ["car", "nursery"]
    assert list(wide.columns) == ["SAMME", "SAMME paper", "DMCBoost", "DMCBoost paper"]
    assert wide.loc["nursery", "DMCBoost"] == "21.20 (0.50)"
    # Table 4 prints Car's DMCBoost at 20% noise (a medium-confidence transcription).
    assert wide.loc["car", "DMCBoost paper"] == "6.55~"
    assert heading(config, config.tables[0], 0.2).endswith(
        "test error % mean (std) over 5 folds, label noise 0.2")


def test_algorithms_by_datasets_accuracy_without_spread():
    config = _config({"kind": "algorithms_by_datasets", "measure": "accuracy",
                      "spread": "none"})
    frames = wide_tables(config, _summary(config))
    wide = frames[1][1]
    assert list(wide.index) == ["SAMME", "SAMME paper", "DMCBoost", "DMCBoost paper"]
    assert list(wide.columns) == ["car", "nursery"]
    # error 21.2 -> accuracy 78.80, no std
    assert wide.loc["DMCBoost", "nursery"] == "78.80"
    # an error-% paper shown in the accuracy measure: 100 - 6.55
    assert wide.loc["DMCBoost paper", "car"] == "93.45~"
    assert "accuracy % mean over" in heading(config, config.tables[0], 0.2)


def test_extra_measures_and_noise_rates_as_rows():
    config = _config({"extra": ["rounds", "cpu_seconds"], "noise_rates": "rows"},
                     published=False)
    frames = wide_tables(config, _summary(config))
    assert len(frames) == 1 and frames[0][0] is None
    wide = frames[0][1]
    assert list(wide.columns) == ["noise", "SAMME", "SAMME rounds", "SAMME CPU s",
                                  "DMCBoost", "DMCBoost rounds", "DMCBoost CPU s"]
    assert list(wide.index) == ["car", "nursery", "car", "nursery"]
    assert list(wide["noise"]) == ["0", "0", "0.2", "0.2"]
    assert list(wide["DMCBoost rounds"]) == ["200"] * 4
    assert list(wide["SAMME CPU s"]) == ["1.25"] * 4
    assert list(wide["SAMME"]) == ["10.00 (0.50)", "20.00 (0.50)", "10.20 (0.50)",
                                   "20.20 (0.50)"]
    assert heading(config, config.tables[0], None).endswith("label noise 0, 0.2 (rows)")


def test_agreement_does_not_depend_on_the_layout():
    """The comparison is made in error %, whatever the layout shows."""
    lines = set()
    for layout in (None, {"kind": "algorithms_by_datasets", "measure": "accuracy"}):
        config = _config(layout)
        table = config.tables[0]
        comp = _comparison(config, table, _summary(config), _published(table))
        lines.add(comp.summary_line())
        assert comp.n_compared == 2
    assert len(lines) == 1


def test_partial_and_no_fit_marks_survive_every_layout():
    config = _config({"kind": "algorithms_by_datasets", "spread": "none"}, published=False)
    summary = _summary(config)
    summary.loc[0, ["complete", "n"]] = [False, 3]
    summary.loc[1, ["n_no_fit", "n"]] = [5, 5]
    summary.loc[1, "mean"] = np.nan
    wide = display_tables(config, config.tables[0], summary)[0][1]
    assert wide.loc["SAMME", "car"] == "10.00†"
    assert wide.loc["DMCBoost", "car"] == "no fit"


@pytest.mark.parametrize("layout, expected", [
    ("rows", "tables[0].layout: 'rows' is not valid; expected a mapping with keys kind"),
    ({"kind": "diagonal"}, "tables[0].layout.kind: 'diagonal' is not valid; expected one of "
                           "datasets_by_algorithms, algorithms_by_datasets"),
    ({"measure": "auc"}, "tables[0].layout.measure: 'auc' is not valid; expected one of "
                         "error, accuracy"),
    ({"extra": ["rounds", "memory"]}, "tables[0].layout.extra[1]: 'memory' is not valid; "
                                      "expected names among rounds, rounds_run, cpu_seconds, "
                                      "grid_cpu_seconds"),
    ({"orientation": "rows"}, "tables[0].layout.orientation: unknown key; valid keys: kind, "
                              "measure, spread, extra, noise_rates"),
])
def test_bad_layout_is_a_one_line_error(layout, expected):
    with pytest.raises(UserError) as e:
        _config(layout)
    assert expected in str(e.value)
    assert "\n" not in str(e.value)


def test_layout_is_kept_by_quick_and_narrow():
    from mcboost_cli.runner.config import narrow
    config = _config({"kind": "algorithms_by_datasets"})
    config = replace(config, quick=None)
    assert narrow(config, ["car"]).tables[0].layout.kind == "algorithms_by_datasets"


def test_a_dataset_that_could_not_be_had_keeps_its_column_marked_not_run():
    config = replace(_config({"kind": "algorithms_by_datasets"}), not_run=("nursery",))
    summary = _summary(config)
    summary.loc[summary["dataset"] == "nursery", "n"] = 0
    wide = wide_tables(config, summary)[0][1]
    assert list(wide.columns) == ["car", "nursery"]
    assert wide.loc["SAMME", "nursery"] == "not run"
    assert wide.loc["SAMME", "car"] == "10.00 (0.50)"
    # Without the mark, a cell with no result yet is '–'.
    assert wide_tables(replace(config, not_run=()), summary)[0][1].loc["SAMME", "nursery"] \
        == "–"


@pytest.mark.slow
def test_committed_coherence_table_renders_unchanged(tmp_path):
    """The same for the coherence paper's committed Table 2 (its own layout: no std, a
    published column beside each method). (The MCBoost paper's tables name the mirror isolet
    was looked for in, so they depend on the machine that ran them.)"""
    committed = REPO / "results" / "coherence_aistats09"
    out = tmp_path / "results"
    out.mkdir()
    shutil.copy(committed / "cells.csv", out / "cells.csv")
    r = invoke(["report", str(REPO / "configs/coherence.yaml"), "--results-dir", str(out),
                "--store", str(tmp_path / "absent.sqlite")], tmp_path)
    assert r.exit_code == 0, r.output
    for ext in ("md", "csv", "tex"):
        assert (out / f"table2.{ext}").read_bytes() == \
            (committed / f"table2.{ext}").read_bytes(), f"table2.{ext}"


@pytest.mark.slow
def test_committed_rebel_bars_render_unchanged(tmp_path):
    """The REBEL paper's committed Figures 8 and 9 (bars drawn from the tables' numbers): a
    report from the committed cells.csv alone writes their data files byte for byte. (Its
    tables name the mirror MNIST was looked for in, so they depend on the machine.)"""
    committed = REPO / "results" / "rebel_icml17"
    out = tmp_path / "results"
    out.mkdir()
    shutil.copy(committed / "cells.csv", out / "cells.csv")
    r = invoke(["report", str(REPO / "configs/rebel.yaml"), "--results-dir", str(out),
                "--store", str(tmp_path / "absent.sqlite")], tmp_path)
    assert r.exit_code == 0, r.output
    for name in ("figure8.csv", "figure9.csv", "figure8_table.csv", "figure9_table.csv"):
        assert (out / name).read_bytes() == (committed / name).read_bytes(), name
