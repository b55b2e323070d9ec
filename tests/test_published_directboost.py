"""The DirectBoost paper's published numbers (Zhai, Xia, Tan & Wang, NIPS 2013, Tables 1-4):
the shipped file against the shared transcript (values, confidence flags, alternatives and the
candidates of ambiguous cells, as they are), and the data model's additions this paper needs —
ambiguous cells (shown as their candidates, never compared), a std printed but unreadable
("9.71(?)"), and a table of metric none whose cells carry other measures (Table 2's
iterations and seconds), shown beside ours in both layouts and never compared."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from mcboost_cli.datasets.published import _load_paper_file, load_published, published_papers
from mcboost_cli.report.published import compare, measure_texts, side_by_side, tolerance

from .test_published import _ours, _row, _set, _write, assert_one_line_key_error, paper_transcript

# The transcript's spelling -> our catalog name, written out here so that a wrong mapping in
# the shipped file fails the comparison.
TABLE1_NAME = {"Tic-tac-toe": "tic-tac-toe", "Diabetes": "pima", "Australian": "australian",
               "Fourclass": "fourclass-scale", "Ionosphere": "ionosphere", "Splice": "splice",
               "Cancer-wdbc": "wdbc", "Cancer-wpbc": "wpbc", "Heart": "heart", "Adult": "a5a"}
TABLE4_NAME = {"wdbc": "wdbc", "Ionosphere": "ionosphere"}
# Tables 3 and 4 abbreviate the columns; the shipped file uses Table 1's names.
ABBREVIATION = {"AB": "AdaBoost", "LB": "LogitBoost", "LPB": "LPBoost", "BB": "BrownBoost",
                "DB_eps_avg": "DirectBoost_eps_avg", "DB_order": "DirectBoost_order"}
TABLE1_COLUMNS = ["AdaBoost", "LogitBoost", "LPBoost", "BrownBoost", "DirectBoost_avg",
                  "DirectBoost_eps_avg", "DirectBoost_order"]


@pytest.fixture(scope="module")
def transcript() -> dict:
    return paper_transcript("directboost_nips2013")


@pytest.fixture(scope="module")
def tables():
    return {t: load_published(f"directboost_nips13/{t}")
            for t in ("table1", "table2", "table3", "table4")}


def test_the_paper_loads_with_its_four_tables(tables):
    assert "directboost_nips13" in published_papers()
    t1, t2, t3, t4 = (tables[t] for t in ("table1", "table2", "table3", "table4"))
    assert list(t1.algorithms) == TABLE1_COLUMNS and t1.noise_rates == (0.0,)
    assert len(t1.cells) == 10 * 7 and len(t3.cells) == len(t4.cells) == 6 * 6
    assert t3.noise_rates == t4.noise_rates == (0.0, 0.05, 0.2)
    assert t1.metric == t3.metric == t4.metric == "error"
    assert t2.metric == "none" and t2.measures == ("rounds_run", "cpu_seconds")
    assert list(t2.algorithms) == ["AdaBoost", "LPBoost", "DirectBoost_eps_avg"]
    assert t1.dataset_names["pima"] == "Diabetes" and t1.dataset_names["a5a"] == "Adult"
    c = t1.cell("tic-tac-toe", 0.0, "DirectBoost_avg")
    assert (c.printed, c.mean, c.std, c.confidence) == ("0.63(0.4)", 0.63, 0.4, "high")
    assert t4.cell("ionosphere", 0.2, "DirectBoost_order").mean == 9.5


def _check_cell(cell, value, key):
    """One shipped cell against the transcript's value mapping."""
    assert cell.confidence == value.get("confidence", "high"), key
    assert cell.alternatives == tuple(value.get("alternatives", [])), key
    assert cell.note == value.get("note"), key
    if value.get("candidates"):
        assert cell.status == "ambiguous" and cell.mean is None and cell.printed is None, key
        assert cell.candidates == tuple(value["candidates"]), key
    else:
        assert cell.status == "ok" and not cell.candidates, key
        assert (cell.printed, cell.mean, cell.std) == (
            value["printed"], value["mean"], value.get("std")), key


def test_table1_equals_the_transcript_with_flags_and_candidates(tables, transcript):
    source = transcript["tables"]["table1"]
    assert tables["table1"].caption == source["caption"]
    assert list(tables["table1"].algorithms) == source["methods"]
    expected = {(TABLE1_NAME[row["dataset"]], 0.0, m): v
                for row in source["rows"] for m, v in row["values"].items()}
    assert set(tables["table1"].cells) == set(expected)
    for key, value in expected.items():
        _check_cell(tables["table1"].cells[key], value, key)
    # The ambiguous cells of paper_tables.md: Tic-tac-toe and Fourclass LogitBoost/LPBoost,
    # Splice and Adult all three.
    ambiguous = {(d, m) for (d, _, m), c in tables["table1"].cells.items()
                 if c.status == "ambiguous"}
    assert ambiguous == {(d, m) for d in ("tic-tac-toe", "fourclass-scale")
                         for m in ("LogitBoost", "LPBoost")} | {
        (d, m) for d in ("splice", "a5a") for m in ("AdaBoost", "LogitBoost", "LPBoost")}


@pytest.mark.parametrize("table_id, names, key", [("table3", None, "l"),
                                                   ("table4", TABLE4_NAME, "data")])
def test_tables_3_and_4_equal_the_transcript(tables, transcript, table_id, names, key):
    source = transcript["tables"][table_id]
    table = tables[table_id]
    assert table.caption == source["caption"]
    assert list(table.algorithms) == [ABBREVIATION[m] for m in source["methods"]]
    expected = {}
    for row in source["rows"]:
        dataset = f"long-servedio-{row['l']}" if names is None else names[row[key]]
        for m, v in row["values"].items():
            expected[(dataset, float(row["eta"]), ABBREVIATION[m])] = v
    assert set(table.cells) == set(expected)
    for k, value in expected.items():
        _check_cell(table.cells[k], value, k)
        assert table.cells[k].std is None        # no std printed in Tables 3-4


def test_table2_measures_equal_the_transcript(tables, transcript):
    source = transcript["tables"]["table2"]
    table = tables["table2"]
    assert table.caption == source["caption"]
    for row in source["rows"]:
        cell = table.cell("adult-10000", 0.0, row["method"])
        assert cell.status == "not_printed" and cell.mean is None and cell.printed is None
        for ours, theirs in (("rounds_run", "iterations"), ("cpu_seconds", "time_s")):
            m, v = cell.measures[ours], row[theirs]
            assert (m.printed, m.value, m.confidence, m.alternatives) == (
                v["printed"], v["mean"], v.get("confidence", "high"),
                tuple(v.get("alternatives", []))), (row["method"], ours)


def test_ambiguous_cells_show_their_candidates_and_are_never_compared(tables):
    t1 = tables["table1"]
    ours = _ours([("splice", "LPBoost", 4.8, 1.0, 5), ("splice", "BrownBoost", 6.0, 1.0, 5),
                  ("tic-tac-toe", "LogitBoost", 2.62, 0.5, 5)])
    labels = {"LPBoost": "LPBoost", "BrownBoost": "BrownBoost", "LogitBoost": "LogitBoost"}
    result = compare(ours, t1, ["splice", "tic-tac-toe"], labels, [0.0])
    # Our 4.8 equals a candidate, but an ambiguous cell has no mean: no delta, no agreement.
    row = _row(result, "splice", "LPBoost")
    assert row["status"] == "ambiguous" and pd.isna(row["agrees"]) and math.isnan(row["delta"])
    assert row["published_printed"] == "{4.8(1.4), 5.3(2.6), 5.3(1.4)}"
    assert result.n_compared == 1 and result.n_agree == 1           # BrownBoost 6.1(1.1) only
    # LogitBoost and LPBoost on both datasets, whether we have a number or not.
    assert result.n_ambiguous == 4
    assert result.n_published_only == 1                             # tic-tac-toe BrownBoost
    assert "4 published cells are ambiguous (their candidates shown, not compared)" in \
        result.summary_line()
    view = side_by_side(result, ["splice", "tic-tac-toe"], list(labels), 0.0)
    assert view.loc["splice", "LPBoost paper"] == "{4.8(1.4), 5.3(2.6), 5.3(1.4)}?"
    assert view.loc["tic-tac-toe", "LogitBoost paper"] == "{1.47(0.7), 1.47(1.0), 2.62(0.8)}?"
    assert view.loc["splice", "BrownBoost paper"] == "6.1(1.1)~"


def test_an_unreadable_std_is_a_mean_without_std(tables):
    cell = tables["table1"].cell("ionosphere", 0.0, "AdaBoost")
    assert (cell.printed, cell.mean, cell.std) == ("9.71(?)", 9.71, None)
    assert cell.alternatives == ("9.71(3.1)", "9.71(3.7)")
    assert tolerance(cell) == 1.5          # as for a cell printed without a std
    ours = _ours([("ionosphere", "AdaBoost", 11.0, 2.0, 5)])
    result = compare(ours, tables["table1"], ["ionosphere"], {"AdaBoost": "AdaBoost"}, [0.0])
    assert _row(result, "ionosphere", "AdaBoost")["delta"] == pytest.approx(1.29)
    view = side_by_side(result, ["ionosphere"], ["AdaBoost"], 0.0)
    assert view.loc["ionosphere", "AdaBoost paper"] == "9.71(?)~"


def test_table2_measures_are_shown_not_compared(tables):
    t2 = tables["table2"]
    labels = ["AdaBoost", "LPBoost", "DirectBoost_eps_avg", "Ours only"]
    texts = measure_texts(t2, ["adult-10000"], labels, 0.0,
                          ["rounds", "rounds_run", "cpu_seconds"])
    assert texts[("adult-10000", "AdaBoost", "rounds_run")] == "117852~"
    assert texts[("adult-10000", "LPBoost", "rounds_run")] == "286"
    assert texts[("adult-10000", "DirectBoost_eps_avg", "cpu_seconds")] == "606?"
    assert texts[("adult-10000", "Ours only", "cpu_seconds")] == "n/a"
    assert not any(x == "rounds" for (_, _, x) in texts)   # a measure the paper lacks
    ours = _ours([("adult-10000", "AdaBoost", 15.0, 1.0, 1)])
    result = compare(ours, t2, ["adult-10000"], {"AdaBoost": "AdaBoost"}, [0.0])
    assert result.n_compared == 0 and result.n_published_only == 0
    assert result.summary_line() == (
        "Table 2: the paper prints rounds_run and cpu_seconds only; shown beside ours, not "
        "compared (another machine and implementation).")
    view = side_by_side(result, ["adult-10000"], ["AdaBoost"], 0.0)
    assert view.loc["adult-10000", "AdaBoost paper"] == "n/a"


# -- malformed files with the new keys ---------------------------------------------------------

PAPER = {
    "paper": "demo_paper", "citation": "Someone. A paper. 2020.", "source": "tests",
    "source_status": "complete",
    "tables": {
        "table1": {
            "caption": "Errors", "metric": "error", "algorithms": ["A", "B"],
            "noise_rates": [0.0],
            "cells": [
                {"dataset": "car", "noise_rate": 0.0, "algorithm": "A", "printed": "5.0(?)",
                 "mean": 5.0},
                {"dataset": "car", "noise_rate": 0.0, "algorithm": "B", "status": "ambiguous",
                 "candidates": ["5.0(1.0)", "6.0"], "confidence": "low"},
            ],
        },
        "table2": {
            "caption": "Times", "metric": "none", "measures": ["rounds_run", "cpu_seconds"],
            "algorithms": ["A"], "noise_rates": [0.0],
            "cells": [{"dataset": "car", "noise_rate": 0.0, "algorithm": "A",
                       "rounds_run": {"printed": "120", "value": 120},
                       "cpu_seconds": {"printed": "3.5", "value": 3.5, "confidence": "low",
                                       "alternatives": ["120"]}}],
        },
    },
}
T1C1 = "tables.table1.cells.1"
T2C0 = "tables.table2.cells.0"
MALFORMED = [
    (_set(f"{T1C1}.candidates", ["5.0"]), "tables.table1.cells[1].candidates",
     "expected the two or more printed values"),
    (_set("tables.table1.cells.0.candidates", ["5.0", "6.0"]),
     "tables.table1.cells[0].candidates", "only status ambiguous lists candidates"),
    (_set(f"{T1C1}.candidates", ["5.0", "six"]), "tables.table1.cells[1].candidates[1]",
     "'six' is not valid"),
    (_set(f"{T1C1}.confidence", "high"), "tables.table1.cells[1].confidence",
     "ambiguous cell"),
    (_set(f"{T1C1}.printed", "5.0"), "tables.table1.cells[1].printed", "its candidates"),
    (_set(f"{T1C1}.mean", 5.0), "tables.table1.cells[1].mean", "ambiguous cell"),
    (_set("tables.table1.cells.0.std", 1.0), "tables.table1.cells[0].std", "shows no std"),
    (_set("tables.table1.cells.0.rounds_run", {"printed": "1", "value": 1}),
     "tables.table1.cells[0].rounds_run", "not one of the table's measures"),
    (_set("tables.table1.cells.0.status", "not_printed"), "tables.table1.cells[0].status",
     "not_printed is for tables of metric none"),
    (_set("tables.table2.measures", []), "tables.table2.metric", "without measures"),
    (_set("tables.table2.measures", ["memory"]), "tables.table2.measures[0]",
     "expected one of rounds_run, cpu_seconds"),
    (_set(f"{T2C0}.rounds_run.value", 12), "tables.table2.cells[0].rounds_run.value",
     "says 120"),
    (_set(f"{T2C0}.rounds_run.printed", "120(3)"), "tables.table2.cells[0].rounds_run.printed",
     "without a std"),
    (_set(f"{T2C0}.cpu_seconds.confidence", "high"),
     "tables.table2.cells[0].cpu_seconds.confidence", "alternatives"),
    (_set(f"{T2C0}.rounds_run.unit", "s"), "tables.table2.cells[0].rounds_run.unit",
     "unknown key"),
    (_set(f"{T2C0}.printed", "3.5"), "tables.table2.cells[0].printed",
     "the table prints no error"),
    (_set(f"{T2C0}.status", "ok"), "tables.table2.cells[0].status",
     "expected not_printed"),
]


def test_the_hand_written_file_with_the_new_keys_loads(tmp_path):
    tables = _load_paper_file(_write(tmp_path, PAPER))
    t1, t2 = tables["table1"], tables["table2"]
    assert t1.cell("car", 0.0, "A").std is None
    assert t1.cell("car", 0.0, "B").candidates_text == "{5.0(1.0), 6.0}"
    m = t2.cell("car", 0.0, "A").measures["cpu_seconds"]
    assert (m.value, m.flag, m.alternatives) == (3.5, "?", ("120",))


@pytest.mark.parametrize("mutate, keypath, fragment", MALFORMED,
                         ids=[m[1] + ":" + m[2][:20] for m in MALFORMED])
def test_malformed_new_keys_give_one_line_errors(tmp_path, mutate, keypath, fragment):
    assert_one_line_key_error(tmp_path, PAPER, mutate, keypath, fragment)
