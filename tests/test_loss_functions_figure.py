"""The loss_functions figure (the coherence paper's Figures 1-2): drawn from the loss
functions themselves, no cells; its config keys depend on its kind."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mcboost_cli.algorithms.coherence import BINARY_LOSSES, binary_coherence_loss
from mcboost_cli.errors import UserError
from mcboost_cli.report.figures import LOSS_FIGURE_POINTS, write_figures
from mcboost_cli.runner.config import narrow, validate_config

from .test_cli import invoke, mirror_env  # noqa: F401  (a fixture)

BASE = {
    "experiment": "losses", "datasets": ["mcboost-gaussians"], "protocol": "predefined",
    "algorithms": [{"algorithm": "cd_mcboost", "label": "CD", "params": {"n_rounds": 5}}],
}


def _config(*figures):
    return validate_config(dict(BASE, figures=list(figures)), "c.yaml")


def test_a_figure_of_only_id_and_kind_takes_the_papers_defaults():
    [fig] = _config({"id": "figure2", "kind": "loss_functions"}).figures
    assert (fig.temperatures, fig.losses, fig.margin_range) == (
        (1.0, 0.1, 0.01), ("zero_one", "hinge", "logit", "exponential"), (-2.0, 2.0))
    assert (fig.table, fig.dataset, fig.algorithm, fig.title) == ("", "", "", "figure2")


def test_it_writes_three_files_whose_numbers_are_the_loss_functions(tmp_path):
    config = _config({"id": "figure1", "kind": "loss_functions", "title": "Figure 1",
                      "temperatures": [1, 0.01], "margin_range": [-2, 3]})
    paths = write_figures(config, [], None, tmp_path)
    assert [p.name for p in paths] == ["figure1.png", "figure1.svg", "figure1.csv"]
    assert all(p.stat().st_size > 0 for p in paths)
    frame = pd.read_csv(paths[2])
    assert list(frame.columns) == ["loss", "temperature", "z", "value"]
    assert len(frame) == LOSS_FIGURE_POINTS * (2 + len(BINARY_LOSSES))
    for (name, t), part in frame.groupby(["loss", "temperature"], dropna=False):
        z = part["z"].to_numpy()
        assert z[0] == -2.0 and z[-1] == 3.0 and np.all(np.diff(z) > 0)
        expected = (binary_coherence_loss(z, t) if name == "coherence"
                    else BINARY_LOSSES[name][0](z))
        assert np.allclose(part["value"], expected, rtol=1e-8, atol=1e-12), (name, t)
        assert (name == "coherence") == (not np.isnan(t))
    coherence_1 = frame[(frame["loss"] == "coherence") & (frame["temperature"] == 1.0)]
    at_one = coherence_1.loc[np.isclose(coherence_1["z"], 1.0), "value"]
    assert at_one.iloc[0] == pytest.approx(np.log(2), rel=1e-8)   # C(1) = T log 2 at T = 1


def test_figure_2_draws_the_hinge_only_and_the_same_numbers_give_the_same_files(tmp_path):
    fig = {"id": "figure2", "kind": "loss_functions", "losses": ["hinge"]}
    first = write_figures(_config(fig), [], None, tmp_path / "a")
    again = write_figures(_config(fig), [], None, tmp_path / "b")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in again]
    frame = pd.read_csv(first[2])
    assert set(frame["loss"]) == {"coherence", "hinge"}
    assert sorted(frame["temperature"].dropna().unique()) == [0.01, 0.1, 1.0]


def test_narrowing_to_a_table_keeps_the_figure_that_draws_no_table():
    config = _config({"id": "figure2", "kind": "loss_functions"})
    assert [f.id for f in narrow(config, tables=["results"]).figures] == ["figure2"]


@pytest.mark.parametrize("extra, message", [
    ({"table": "results"}, "figures[0].table: is not valid for kind loss_functions"),
    ({"algorithm": "CD"}, "figures[0].algorithm: is not valid for kind loss_functions"),
    ({"rounds": [1]}, "figures[0].rounds: is not valid for kind loss_functions"),
    ({"temperatures": [1, 0]}, "figures[0].temperatures[1]: 0 is not valid; expected positive "
                               "numbers"),
    ({"temperatures": []}, "figures[0].temperatures: [] is not valid; expected a non-empty"),
    ({"temperatures": [1, 1]}, "figures[0].temperatures: [1, 1] has duplicates"),
    ({"losses": ["squared"]}, "figures[0].losses[0]: 'squared' is not valid; expected loss "
                              "names among zero_one, hinge, logit, exponential"),
    ({"margin_range": [2, -2]}, "figures[0].margin_range: [2, -2] is not valid; expected "
                                "[low, high]"),
    ({"margin_range": [-2]}, "figures[0].margin_range: [-2] is not valid"),
    ({"colour": "red"}, "figures[0].colour: unknown key; valid keys: id, kind"),
])
def test_bad_loss_functions_keys_are_one_line_errors(extra, message):
    with pytest.raises(UserError) as info:
        _config(dict({"id": "f", "kind": "loss_functions"}, **extra))
    text = str(info.value)
    assert message in text and "\n" not in text, text


@pytest.mark.parametrize("figure, message", [
    ({"id": "f", "kind": "phase_curves", "temperatures": [1], "table": "results",
      "dataset": "mcboost-gaussians", "algorithm": "CD"},
     "figures[0].temperatures: is only valid for kind loss_functions; remove it"),
    ({"id": "f", "kind": "phase_curves", "dataset": "mcboost-gaussians", "algorithm": "CD"},
     "figures[0].table: missing required key"),
    ({"id": "f", "kind": "loss_function"}, "figures[0].kind: 'loss_function' is not valid; "
                                           "expected one of phase_curves, decision_regions, error_curves, "
                                           "loss_functions"),
    ({"kind": "loss_functions"}, "figures[0].id: missing required key"),
])
def test_the_keys_a_figure_needs_depend_on_its_kind(figure, message):
    with pytest.raises(UserError) as info:
        _config(figure)
    text = str(info.value)
    assert message in text and "\n" not in text, text


def test_a_run_draws_it_beside_its_table(tmp_path, mirror_env):
    cfg = tmp_path / "losses.yaml"
    cfg.write_text("experiment: losses\ndatasets: [mcboost-gaussians]\nprotocol: predefined\n"
                   "algorithms:\n  - {algorithm: samme, label: SAMME, "
                   "params: {n_rounds: 2, max_depth: 1}}\n"
                   "figures:\n  - {id: figure1, kind: loss_functions, temperatures: [1]}\n")
    out = tmp_path / "results"
    r = invoke(["run", str(cfg), "-j", "1", "-q", "--results-dir", str(out),
                "--store", str(tmp_path / "cells.sqlite")], tmp_path)
    assert r.exit_code == 0, r.output
    assert {p.name for p in out.glob("figure1.*")} == {"figure1.png", "figure1.svg",
                                                       "figure1.csv"}
    assert set(pd.read_csv(out / "figure1.csv")["loss"]) == {"coherence", *BINARY_LOSSES}
