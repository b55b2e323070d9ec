"""The REBEL paper's published numbers (Appel & Perona, ICML 2017, Figure 8): the shipped file
against the shared transcript, its confidence flags and how it compares (test_published.py
tests the loader and the comparison in general)."""

from __future__ import annotations


import pandas as pd
import pytest

from mcboost_cli.datasets.published import load_published, published_papers
from mcboost_cli.report.published import compare, side_by_side

from .test_published import paper_transcript

# The transcript's spelling -> our catalog name, written out here so that a wrong mapping in
# the shipped file fails the comparison.
REBEL_CATALOG_NAME = {"GLASS": "glass", "VOWEL": "vowel", "LANDSAT": "satimage",
                      "MNIST": "mnist", "PENDIGITS": "pendigits", "SEGMENT": "segmentation"}
LEGEND = ["Ada 1vsAll", "Ada.MH", "Ada.ECC", "Struct-Boost", "CW-Boost", "AOSO-Logit",
          "RBL-Stump", "RBL-Iso.Sim", "RBL-Loc.Sim"]
# paper_tables.md, Figure 8: the cells marked ~ (medium) and ? (low); every other is high.
MEDIUM = {("vowel", "Struct-Boost"), ("vowel", "RBL-Stump"),
          *(("pendigits", m) for m in LEGEND if m not in ("AOSO-Logit", "RBL-Stump")),
          ("segmentation", "Ada.ECC"), ("segmentation", "Struct-Boost"),
          ("segmentation", "CW-Boost"), ("segmentation", "RBL-Iso.Sim")}
LOW = {("pendigits", "AOSO-Logit"), ("pendigits", "RBL-Stump"),
       ("segmentation", "Ada 1vsAll"), ("segmentation", "Ada.MH"),
       ("segmentation", "AOSO-Logit"), ("segmentation", "RBL-Stump"),
       ("segmentation", "RBL-Loc.Sim")}


@pytest.fixture(scope="module")
def figure8():
    return load_published("rebel_icml17/figure8")


def test_rebel_paper_loads_with_figure8(figure8):
    assert "rebel_icml17" in published_papers()
    assert figure8.metric == "error" and figure8.status == "complete"
    assert list(figure8.algorithms) == LEGEND
    assert len(figure8.cells) == 6 * 9 and figure8.noise_rates == (0.0,)
    assert figure8.dataset_names["satimage"] == "LANDSAT"
    c = figure8.cell("vowel", 0.0, "RBL-Loc.Sim")
    assert (c.printed, c.mean, c.std, c.confidence) == ("9.5", 9.5, None, "high")
    assert figure8.cell("mnist", 0.0, "Ada 1vsAll").printed == "11.0"
    assert figure8.cell("satimage", 0.0, "RBL-Iso.Sim").mean == 52.3
    assert figure8.cell("pendigits", 0.0, "RBL-Stump").alternatives == ("12.8",)


def test_rebel_cells_equal_the_transcript_with_its_confidence_flags(figure8):
    source = paper_transcript("rebel_icml2017")
    source = source["figures"]["fig8"]
    expected = {(REBEL_CATALOG_NAME[row["dataset"]], 0.0, m): v
                for row in source["rows"] for m, v in row["values"].items()}
    assert set(figure8.cells) == set(expected)
    for key, value in expected.items():
        cell = figure8.cells[key]
        want = ("medium" if key[::2] in MEDIUM else "low" if key[::2] in LOW else "high")
        assert (cell.mean, cell.std, cell.status, cell.confidence) == (
            value, None, "ok", want), key
        assert float(cell.printed) == value
    assert figure8.caption == source["caption"]
    assert list(figure8.algorithms) == source["methods"]


def test_flags_show_beside_the_published_numbers(figure8):
    ours = pd.DataFrame([{"dataset": d, "noise_rate": 0.0, "algorithm": "Ada.MH",
                          "mean": m, "std": 1.0, "n": 5}
                         for d, m in (("glass", 32.0), ("segmentation", 4.0))])
    result = compare(ours, figure8, ["glass", "segmentation"], {"Ada.MH": "Ada.MH"}, [0.0])
    view = side_by_side(result, ["glass", "segmentation"], ["Ada.MH"], 0.0)
    assert view.loc["glass", "Ada.MH paper"] == "32.3"
    assert view.loc["segmentation", "Ada.MH paper"] == "5.6?"
    assert result.n_flagged == 1
