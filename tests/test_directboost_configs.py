"""The DirectBoost paper's configs (configs/directboost.yaml: Tables 1-2;
configs/directboost_noise.yaml: Tables 3-4): what they plan, that they name the published
columns, that Table 4's noise-free fits are Table 1's, their quick budgets, and that the
baselines' entries are the paper's (its stopping rules and grids)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from mcboost_cli.algorithms.registry import all_algorithms
from mcboost_cli.datasets.published import load_published
from mcboost_cli.runner.config import load_config, quick_variant, validate_config
from mcboost_cli.runner.plan import expand

REPO = Path(__file__).resolve().parents[1]
TABLES_12 = REPO / "configs" / "directboost.yaml"
TABLES_34 = REPO / "configs" / "directboost_noise.yaml"
GRID = [0.01, 0.05, 0.1, 0.2, 0.5, 0.8]
DEPTH_ONE = {"wdbc", "wpbc", "heart"}
CUTOFFS = [0.0001, 0.001, 0.01, 0.03, 0.05, 0.08, 0.1, 0.14, 0.17, 0.2]
GRID_OF = {"adaboost": [None], "logitboost": [None], "lpboost": GRID, "brownboost": CUTOFFS,
           "directboost_avg": GRID, "directboost_eps_avg": GRID, "directboost_order": GRID}
N_TABLE1 = sum(len(g) for g in GRID_OF.values())        # fits per (dataset, fold): 36
N_TABLE2 = 1 + 6 + 6                                     # AdaBoost, LPBoost, DirectBoost^eps_avg
N_NOISE = N_TABLE1 - 6                                   # Tables 3-4: no DirectBoost_avg


@pytest.fixture(scope="module")
def configs():
    return load_config(TABLES_12), load_config(TABLES_34)


def test_both_configs_are_one_experiment_with_the_papers_tables(configs):
    t12, t34 = configs
    assert t12.experiment == t34.experiment == "directboost_nips13"
    assert [t.id for t in t12.tables] == ["table1", "table2"]
    assert [t.id for t in t34.tables] == ["table3", "table4"]
    assert t12.noise_rates == (0.0,) and t34.noise_rates == (0.0, 0.05, 0.2)
    for config in configs:
        for table in config.tables:
            published = load_published(table.published)
            # Every column of ours is one of the paper's, so it is compared.
            assert set(table.column_labels) <= set(published.algorithms), table.id
            assert set(table.datasets) == {d for d, _, _ in published.cells}, table.id
            assert table.noise_parts == (("train",) if config is t34 else ("train", "valid"))


def test_table1_protocol_depths_and_grids(configs):
    t12, _ = configs
    table1 = t12.tables[0]
    assert table1.protocols["splice"] == table1.protocols["a5a"] == "five_fold_train"
    assert {d for d, p in table1.protocols.items() if p == "five_fold"} == set(
        table1.datasets) - {"splice", "a5a"}
    for entry in table1.algorithms:
        if entry.algorithm.startswith("directboost"):
            assert entry.grid == {"n_prime_fraction": GRID}
        for d in table1.datasets:
            points = entry.grid_points(d)
            assert len(points) == len(GRID_OF[entry.algorithm])
            assert {p["max_depth"] for p in points} == {1 if d in DEPTH_ONE else 3}, d
            if entry.algorithm.startswith("directboost"):
                assert {p["n_rounds"] for p in points} == {5000}
            if entry.algorithm in ("directboost_eps_avg", "directboost_order"):
                assert {p["epsilon"] for p in points} == {0.01}     # the paper's epsilon
    table2 = t12.tables[1]
    assert table2.protocols == {"adult-10000": "predefined_test_halves"}
    assert table2.layout.extra == ("rounds_run", "cpu_seconds", "grid_cpu_seconds")


def test_table4_noise_free_fits_are_table1s_and_noisy_ones_train_only(configs):
    t12, t34 = configs
    keys_1 = {(pc.cell.dataset, pc.cell.label, pc.cell.fold, pc.cell.params): pc.cell.key
              for pc in expand(t12) if pc.table_index == 0}
    cells_4 = [pc.cell for pc in expand(t34) if pc.table_index == 1]
    assert len(cells_4) == 2 * 3 * 5 * N_NOISE      # datasets x rates x folds x fits
    shared = 0
    for cell in cells_4:
        if cell.noise_rate == 0:
            assert cell.noise_parts == ""
            assert keys_1[(cell.dataset, cell.label, cell.fold, cell.params)] == cell.key
            shared += 1
        else:
            assert cell.noise_parts == "train"
    assert shared == 2 * 5 * N_NOISE
    table3 = [pc.cell for pc in expand(t34) if pc.table_index == 0]
    assert {c.protocol for c in table3} == {"predefined_test_halves"} and {
        c.fold for c in table3} == {0}
    assert {dict(c.params)["max_depth"] for c in table3} == {1}


def test_quick_budgets(configs):
    t12, t34 = (quick_variant(c) for c in configs)
    assert t12.datasets == ("tic-tac-toe", "adult-10000") and t12.folds == (0,)
    assert len(expand(t12)) == N_TABLE1 + N_TABLE2
    assert [t.id for t in t34.tables] == ["table3"] and len(expand(t34)) == 2 * 3 * N_NOISE
    for config in (t12, t34):
        assert {dict(pc.cell.params)["n_rounds"] for pc in expand(config)} == {
            config.max_rounds}


@pytest.mark.parametrize("path", [TABLES_12, TABLES_34], ids=lambda p: p.name)
def test_the_baselines_are_the_papers_entries(path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for table in data["tables"]:
        labels = [e["label"] for e in table["algorithms"]]
        published = load_published(table["published"])
        # Every column of the paper's table, in its order.
        assert labels == list(published.algorithms), table["id"]
        for entry in table["algorithms"]:
            name, params = entry["algorithm"], entry.get("params", {})
            if name in ("adaboost", "logitboost"):
                # "until ... the change of loss is less than 1e-6", then validation's round.
                assert params["loss_tolerance"] == 1e-6 and params["n_rounds"] >= 100000
                assert params["loss_tolerance_of"] == "sum"      # ALGORITHMS.md says why
                assert "grid" not in entry
            elif name == "lpboost":
                assert entry["grid"] == {"n_prime_fraction": GRID}
            elif name == "brownboost":
                assert entry["grid"] == {"cutoff": CUTOFFS}
                assert params["cutoff_is"] == "target_error"   # ALGORITHMS.md, BrownBoost
            # Table 1's depths for every column (Table 3's stumps, Table 2's depth 3).
            depth_one = set((entry.get("per_dataset") or {}))
            expected = {"table1": DEPTH_ONE, "table4": {"wdbc"}}.get(table["id"], set())
            assert depth_one == expected, (table["id"], entry["label"])
            depth = params["max_depth"]
            assert depth == (1 if table["id"] == "table3" else 3), (table["id"], entry["label"])


@pytest.mark.slow
def test_download_only_datasets_show_as_not_run_with_the_reason(tmp_path, uci_dir):
    """splice and a5a are not in the offline mirror: the run goes on without them, and Table 1
    shows them as not run in every column, the reason under the table."""
    from mcboost_cli.runner.experiment import run_experiment
    notes: list[str] = []
    out = tmp_path / "results"
    result = run_experiment(TABLES_12, jobs=1, mirror=str(uci_dir), offline=True,
                            datasets=["tic-tac-toe", "splice", "a5a"],
                            algorithms=["DirectBoost_order"], results_dir=out,
                            store_path=tmp_path / "s.sqlite", progress="quiet",
                            log=notes.append)
    assert result.summary.done == 5 * 6 and result.summary.failed == 0
    assert sum(n.startswith("warning: splice is not run") for n in notes) == 1
    table1 = (out / "table1.md").read_text()
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:-1]]
            for line in table1.splitlines() if line.startswith("|")}
    header = rows["dataset"]
    for name in ("splice", "a5a"):
        for label in ("DirectBoost_avg", "DirectBoost_eps_avg", "DirectBoost_order"):
            assert rows[name][header.index(label)] == "not run", (name, label)
        assert f"Not run: {name} (data unavailable here:" in table1
    assert rows["tic-tac-toe"][header.index("DirectBoost_order")].endswith(")")  # mean (std)
