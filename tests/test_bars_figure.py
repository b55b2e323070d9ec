"""The figure kind ``bars`` (the REBEL paper's Figure 8): one table's test error % as grouped
bars, ours beside the published, drawn from the table's selected cells."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.errors import UserError
from mcboost_cli.runner.config import validate_config

from .test_cli import invoke, mirror_env  # noqa: F401 (a fixture)

# Two columns on two small UCI datasets of the paper under its protocol: Ada.MH is a column
# of the published Figure 8, SAMME is not; the paper's other eight columns are not in the
# table (drawn with their published bars and our bar marked not run).
CONFIG = """\
experiment: bars
title: "bars, tiny"
datasets: [glass, vowel]
protocol: random_splits
folds: [0, 1]
tables:
  - id: fig8
    published: rebel_icml17/figure8
    algorithms:
      - {algorithm: adaboost_mh, label: Ada.MH, params: {n_rounds: 15, max_depth: 1}}
      - {algorithm: samme, label: SAMME, params: {n_rounds: 15, max_depth: 1}}
figures:
  - {id: figure8, kind: bars, title: "Figure 8 tiny", table: fig8}
"""
NAMES = ("figure8.png", "figure8.svg", "figure8.csv")
PAPER_ONLY = ["Ada 1vsAll", "Ada.ECC", "Struct-Boost", "CW-Boost", "AOSO-Logit", "RBL-Stump",
              "RBL-Iso.Sim", "RBL-Loc.Sim"]


def _run(tmp_path, cfg_text, *extra, name="c.yaml"):
    cfg = tmp_path / name
    cfg.write_text(cfg_text)
    return invoke(["run", str(cfg), "-j", "1", "-q", "--results-dir", str(tmp_path / "out"),
                   "--store", str(tmp_path / "cells.sqlite"), *extra], tmp_path)


def test_bars_end_to_end(tmp_path, mirror_env):
    out = tmp_path / "out"
    # Only one column done: the figure waits for the table's every cell.
    r = _run(tmp_path, CONFIG, "--algorithms", "Ada.MH")
    assert r.exit_code == 0, r.output
    assert not any((out / name).exists() for name in NAMES)

    r = _run(tmp_path, CONFIG)
    assert r.exit_code == 0, r.output
    drawn = {name: (out / name).read_bytes() for name in NAMES}
    assert all(drawn.values())
    csv = pd.read_csv(out / "figure8.csv", keep_default_na=False, na_values=[""],
                      dtype={"published_printed": str})
    # A row per (dataset, column): the table's columns, then the paper's others.
    assert csv["dataset"].tolist() == ["glass"] * 10 + ["vowel"] * 10
    assert csv["algorithm"].tolist()[:10] == ["Ada.MH", "SAMME"] + PAPER_ONLY
    # Our bars are the table's numbers (mean over the 2 splits of the selected fits).
    table = pd.read_csv(out / "fig8.csv")
    for _, row in csv[csv["algorithm"].isin(["Ada.MH", "SAMME"])].iterrows():
        t = table[(table["dataset"] == row["dataset"])
                  & (table["algorithm"] == row["algorithm"])].iloc[0]
        assert row["ours_error_percent"] == pytest.approx(t["mean"], abs=1e-6)
        assert row["ours_std"] == pytest.approx(t["std"], abs=1e-6)
        assert (row["ours_n"], row["ours_status"]) == (2, "ok")
    assert csv["ours_error_percent"].iloc[:2].nunique() == 2        # two different bars
    # The published bars: the paper's numbers and confidence, where it has the column.
    mh = csv[(csv["algorithm"] == "Ada.MH")].set_index("dataset")
    assert mh.loc["glass", "published_error_percent"] == 32.3
    assert mh.loc["vowel", "published_printed"] == "18.8"
    samme = csv[csv["algorithm"] == "SAMME"]
    assert samme["published_error_percent"].isna().all()
    assert set(samme["published_status"]) == {"not_in_paper"}
    paper_only = csv[csv["algorithm"].isin(PAPER_ONLY)]
    assert set(paper_only["ours_status"]) == {"column not run"}
    assert paper_only["ours_error_percent"].isna().all()
    assert paper_only["published_error_percent"].notna().all()
    vowel_struct = csv[(csv["dataset"] == "vowel") & (csv["algorithm"] == "Struct-Boost")]
    assert vowel_struct["published_confidence"].iloc[0] == "medium"

    # Re-rendered from the store: the same bytes.
    r = invoke(["report", str(tmp_path / "c.yaml"), "--results-dir", str(out),
                "--store", str(tmp_path / "cells.sqlite")], tmp_path)
    assert r.exit_code == 0, r.output
    assert {name: (out / name).read_bytes() for name in NAMES} == drawn

    # A dataset whose data cannot be had (MNIST, offline, not cached) is drawn as not run;
    # the others' cells come from the store.
    r = _run(tmp_path, CONFIG.replace("[glass, vowel]", "[glass, vowel, mnist]"),
             "--offline", name="c2.yaml")
    assert r.exit_code == 0, r.output
    csv2 = pd.read_csv(out / "figure8.csv", keep_default_na=False, na_values=[""],
                       dtype={"published_printed": str})
    mnist = csv2[csv2["dataset"] == "mnist"]
    assert len(mnist) == 10
    assert set(mnist["ours_status"]) == {"dataset not run", "column not run"}
    assert set(mnist.loc[mnist["algorithm"] == "Ada.MH", "ours_status"]) == {"dataset not run"}
    assert mnist.loc[mnist["algorithm"] == "Ada.MH", "published_error_percent"].iloc[0] == 13.4
    kept = csv2[csv2["dataset"] != "mnist"].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, csv)


def test_bars_without_published_numbers_draw_ours_only(tmp_path):
    text = """\
experiment: bars2
datasets: [mcboost-gaussians]
protocol: random_splits
folds: [0]
algorithms:
  - {algorithm: samme, label: SAMME, params: {n_rounds: 5, max_depth: 1}}
figures:
  - {id: b, kind: bars, table: results}
"""
    r = _run(tmp_path, text)
    assert r.exit_code == 0, r.output
    csv = pd.read_csv(tmp_path / "out" / "b.csv", keep_default_na=False, na_values=[""],
                      dtype={"published_printed": str})
    assert csv[["dataset", "algorithm", "ours_status"]].values.tolist() == [
        ["mcboost-gaussians", "SAMME", "ok"]]
    assert np.isnan(csv["published_error_percent"].iloc[0])
    assert csv["published_status"].isna().all()


BASE = {"experiment": "x", "datasets": ["glass"], "protocol": "random_splits",
        "tables": [{"id": "t", "algorithms": [{"algorithm": "samme", "label": "S"}]}]}


@pytest.mark.parametrize("figure, extra, message", [
    ({"dataset": "glass"}, {}, "figures[0].dataset: is not valid for kind bars (it draws every "
                               "dataset and column of its table; its keys: id, kind, title, "
                               "table); remove it"),
    ({"algorithm": "S"}, {}, "figures[0].algorithm: is not valid for kind bars"),
    ({"table": "nope"}, {}, "figures[0].table: 'nope' is not valid; expected one of t"),
    ({"table": None}, {}, "figures[0].table: missing required key"),
    ({}, {"noise_rates": [0.1]}, "figures[0].kind: bars draws the test errors at noise rate 0, "
                                 "and noise_rates lacks 0.0; add it to noise_rates"),
    ({"temperatures": [1]}, {}, "figures[0].temperatures: is only valid for kind "
                                "loss_functions"),
])
def test_bars_config_errors_are_one_line(figure, extra, message):
    fig = {"id": "f", "kind": "bars", "table": "t", **figure}
    fig = {k: v for k, v in fig.items() if v is not None}
    with pytest.raises(UserError) as e:
        validate_config({**BASE, **extra, "figures": [fig]}, "c.yaml")
    assert message in str(e.value) and "\n" not in str(e.value)
    assert str(e.value).startswith("c.yaml: ")


def test_bars_config_is_valid_with_its_four_keys():
    c = validate_config({**BASE, "figures": [{"id": "f", "kind": "bars", "table": "t",
                                              "title": "Figure 8"}]}, "c.yaml")
    (f,) = c.figures
    assert (f.kind, f.table, f.title, f.dataset, f.algorithm) == ("bars", "t", "Figure 8", "",
                                                                  "")
