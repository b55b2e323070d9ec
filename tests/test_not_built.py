"""A table's ``not_built`` columns: methods of the paper that cannot be built faithfully are
shown as "not run" in their own column, with the reason under the table (issue 34)."""

from __future__ import annotations

import pytest

from mcboost_cli.errors import UserError
from mcboost_cli.runner.config import validate_config

from .test_cli import invoke

CONFIG = """\
experiment: nb
title: "not built, tiny"
datasets: [mcboost-gaussians]
protocol: predefined
tables:
  - id: t
    title: "T"
    layout: {kind: LAYOUT, spread: none}
    algorithms:
      - algorithm: samme
        label: SAMME
        params: {n_rounds: 3, max_depth: 1}
    not_built:
      Struct-Boost: "its formulation is not in the stored texts"
"""


@pytest.mark.parametrize("kind", ["datasets_by_algorithms", "algorithms_by_datasets"])
def test_a_not_built_column_is_shown_not_run_with_its_reason(tmp_path, kind):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(CONFIG.replace("LAYOUT", kind))
    out = tmp_path / "results"
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--results-dir", str(out),
                "--store", str(tmp_path / "s.sqlite")], tmp_path)
    assert r.exit_code == 0, r.output
    md = (out / "t.md").read_text()
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    header, body = lines[0], lines[2:]
    if kind == "datasets_by_algorithms":
        assert header.split("|")[-2].strip() == "Struct-Boost"
        assert body[0].split("|")[-2].strip() == "not run"
        assert body[0].split("|")[-3].strip() != "not run"      # SAMME's number
    else:
        rows = {ln.split("|")[1].strip(): ln.split("|")[2].strip() for ln in body}
        assert rows["Struct-Boost"] == "not run" and rows["SAMME"] != "not run"
    assert "Not run: Struct-Boost: its formulation is not in the stored texts" in md
    # Nothing was planned for it: only SAMME's cell ran.
    assert "1 done" in r.output


BASE = {"experiment": "g", "datasets": ["mcboost-gaussians"], "protocol": "predefined"}


def _table(not_built):
    return validate_config(dict(BASE, tables=[{
        "id": "t", "algorithms": [{"algorithm": "samme", "label": "SAMME"}],
        "not_built": not_built}]), "c.yaml")


def test_not_built_keys():
    assert _table({"X": " why "}).tables[0].not_built == (("X", "why"),)
    assert _table({"X": "why"}).tables[0].column_labels == ("SAMME", "X")
    cases = [
        (["X"], "tables[0].not_built: ['X'] is not valid; expected a mapping"),
        ({"SAMME": "why"}, "tables[0].not_built.SAMME: is also the label of a run column"),
        ({"X": ""}, "tables[0].not_built.X: '' is not valid; expected a one-line reason"),
        ({"X": "a\nb"}, "tables[0].not_built.X"),
    ]
    for raw, message in cases:
        with pytest.raises(UserError) as info:
            _table(raw)
        text = str(info.value)
        assert message in text and "\n" not in text, (raw, text)
