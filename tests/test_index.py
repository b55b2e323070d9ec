"""`mcboost index` (results/README.md's generated part): its agreement counts are those the
committed tables print, shared per-cell files count a fit once, and the hand-written text
around the generated section survives a rewrite."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from mcboost_cli.report.index import END, START
from mcboost_cli.runner.plan import expand
from mcboost_cli.runner.config import load_config, with_sources
from mcboost_cli.runner.experiment import committed_sources
from mcboost_cli.runner.reference import current_cells, read_cells

from .test_cli import invoke

REPO = Path(__file__).resolve().parents[1]
# The reproduction configs, as the Makefile lists them for `make reproduce`.
CONFIGS = tuple(re.search(r"^REPRO_CONFIGS := ((?:.*\\\n)*.*)$",
                          (REPO / "Makefile").read_text(), re.M).group(1)
                .replace("\\\n", " ").split())
_AGREE = re.compile(r"(\d+) of (\d+) cells? with a published number agrees?")
_ROW = re.compile(r"^\| .*\(`(configs/[\w.]+)`\) \| \[(.+?)\]\((.+?)\) \| (\d+) / (\d+) \| "
                  r"(\d+) / (\d+) \(\d+%\) \| (.*) \|$")
_INDEX_P = re.compile(r"N = (\d+), k = (\d+): p = (\S+) \(F_F\), (\S+) \(chi²_F\)")
_TESTS_P = re.compile(r"\*\*Friedman\.\*\* chi²_F = \S+ \(k - 1 = \d+ df\), p = (\S+); "
                      r"Iman-Davenport F_F = .*?, p = ([^:]+):")


def _index(tmp_path, text="# results/\n\nHand-written intro.\n") -> str:
    out = tmp_path / "README.md"
    out.write_text(text)
    r = invoke(["index", *CONFIGS, "--output", str(out)], REPO)
    assert r.exit_code == 0, r.output
    return out.read_text()


def test_agreement_counts_are_those_the_committed_tables_print(tmp_path):
    text = _index(tmp_path)
    rows = [m for line in text.splitlines() if (m := _ROW.match(line))]
    assert len(rows) >= 8          # every compared table of the five papers
    for m in rows:
        md = (tmp_path / m.group(3)).resolve()
        printed = _AGREE.search(md.read_text())
        assert printed, md
        assert (m.group(6), m.group(7)) == printed.groups(), (m.group(2), printed.group(0))


def test_friedman_p_values_are_those_the_committed_tests_print(tmp_path):
    # The index computes Friedman's test from cells.csv; `mcboost compare` wrote the committed
    # significance/<table>.md from the same results. Both must show the same p values, noise
    # rate by noise rate (a stale file, or an index reading other cells, fails).
    text = _index(tmp_path)
    linked = 0
    for line in text.splitlines():
        m = _ROW.match(line)
        if not m or "[tests](" not in m.group(8):
            continue
        link = re.search(r"\[tests\]\((.+?)\)", m.group(8)).group(1)
        printed = _TESTS_P.findall((tmp_path / link).resolve().read_text())
        shown = [(f, c) for _, _, f, c in _INDEX_P.findall(m.group(8))]
        assert shown and shown == [(f, c) for c, f in printed], (m.group(2), shown, printed)
        linked += 1
    assert linked >= 8


def _committed_plans():
    """Per config: (path, the datasets computed from another source only, its plan as key ->
    (dataset, algorithm), its committed current cells of that plan)."""
    for c in CONFIGS:
        config = load_config(REPO / c)
        frame = current_cells(read_cells(REPO / "results" / config.experiment / "cells.csv"))
        # A dataset computed from another source only (Poker525k's stand-in) is planned
        # with that source, as `report --source` shows it.
        other = committed_sources(config, frame)
        plan = {pc.cell.key: (pc.cell.dataset, pc.cell.algorithm)
                for pc in expand(with_sources(config, other))}
        yield c, other, plan, frame[frame["key"].isin(set(plan))]


def test_a_fit_shared_by_two_configs_counts_once(tmp_path):
    text = _index(tmp_path)
    compute = text.split("## Compute", 1)[1]
    per_config = {m.group(1): (int(m.group(2)), float(m.group(3))) for m in re.finditer(
        r"\(`(configs/[\w.]+)`\) \| (\d+) / \d+ \| ([\d.]+) \|", compute)}
    total = re.search(r"\*\*all papers\*\* \(distinct fits\) \| (\d+) / (\d+) \| "
                      r"\*\*([\d.]+)\*\*", compute)
    # The distinct done fits of every config's plan, straight from the committed files.
    keys, seconds, untimed = set(), {}, {}
    stand_ins = []
    for c, other, plan, frame in _committed_plans():
        stand_ins += [(c, d, s) for d, s in other.items()]
        keys |= set(frame["key"])
        seconds.update(zip(frame["key"], pd.to_numeric(frame["cpu_seconds"],
                                                        errors="coerce").fillna(0.0)))
        no_cpu = frame[pd.to_numeric(frame["cpu_seconds"], errors="coerce").isna()]
        untimed.update(zip(no_cpu["key"], pd.to_numeric(no_cpu["fit_seconds"],
                                                        errors="coerce").fillna(0.0)))
        assert per_config[c][0] == frame["key"].nunique()
    assert int(total.group(1)) == len(keys)
    assert float(total.group(3)) == round(sum(seconds.values()) / 3600, 2)
    # The fits without a CPU time are counted apart with their wall-clock hours, not hidden
    # as 0 CPU hours.
    shown = re.search(r"\*\*all papers\*\* .*\| (\d+)(?: \(([\d.]+)\))? \|$", compute, re.M)
    assert int(shown.group(1)) == len(untimed)
    if untimed:
        assert float(shown.group(2)) == round(sum(untimed.values()) / 3600, 2)
    for c, d, s in stand_ins:
        assert f"`{c}`: {d}'s fits are counted from source `{s}`" in compute
    assert compute.count("are counted from source") == len(stand_ins)
    # uci.yaml and noise.yaml write one cells.csv, and their plans do not overlap, so the
    # total is their sum; it would double a shared fit if the files were summed instead.
    assert int(total.group(1)) <= sum(n for n, _ in per_config.values())


def test_rewrite_keeps_the_hand_written_text_and_is_stable(tmp_path):
    first = _index(tmp_path, "# results/\n\nIntro kept.\n\n" + START + "\nold\n" + END
                   + "\n\nTail kept.\n")
    assert first.startswith("# results/\n\nIntro kept.\n\n" + START)
    assert first.rstrip().endswith("Tail kept.")
    assert "\nold\n" not in first
    second = _index(tmp_path, first)
    assert second == first


def test_committed_sources_names_datasets_computed_from_another_source_only():
    config = load_config(REPO / "configs" / "uci.yaml")
    rows = [("poker525k", "generator"), ("poker525k", "generator"), ("abalone", ""),
            ("letter", ""), ("letter", "generator")]
    frame = pd.DataFrame(rows, columns=["dataset", "data_source"])
    # Mixed sources (letter) or the config's own (abalone): planned as the config says.
    assert committed_sources(config, frame) == {"poker525k": "generator"}
    assert committed_sources(config, frame[frame["dataset"] != "poker525k"]) == {}
    assert committed_sources(config, None) == {}
    # A config that names the source itself plans those keys already.
    assert committed_sources(with_sources(config, {"poker525k": "generator"}), frame) == {}


def test_where_the_hours_go_sums_the_distinct_fits_per_dataset_and_algorithm(tmp_path):
    text = _index(tmp_path)
    table = text.split("### Where the hours go", 1)[1].split("Machines the fits", 1)[0]
    total = re.search(r"\*\*all papers\*\* \(distinct fits\) \| (\d+) / (\d+) \| "
                      r"\*\*([\d.]+)\*\*", text)
    # The distinct planned and done fits with their group, straight from the committed files.
    planned, done = {}, {}
    for _, _, plan, frame in _committed_plans():
        planned.update(plan)
        done.update(zip(frame["key"], pd.to_numeric(frame["cpu_seconds"],
                                                     errors="coerce").fillna(0.0)))
    expected: dict = {}
    for key, group in planned.items():
        e = expected.setdefault(group, [0, 0, 0.0])
        e[1] += 1
        if key in done:
            e[0] += 1
            e[2] += done[key]
    rows = re.findall(r"^\| ([^|]+) \| ([^|]*) \| (\d+) / (\d+) \| ([\d.]+) \| ([\d.]+)% \|",
                      table, re.M)
    named = [r for r in rows if r[1] != "–" and not r[1].endswith(" groups")]
    assert len(named) >= 5
    for d, a, n_done, n_planned, hours, _ in named:
        n, p, s = expected[(d, a)]
        assert (int(n_done), int(n_planned)) == (n, p), (d, a)
        assert float(hours) == round(s / 3600, 2), (d, a)
    # The costliest first, and every group counted once: the rows add up to the totals.
    shown = [expected[(d, a)][2] for d, a, *_ in named]
    top = sorted((e[2] for e in expected.values()), reverse=True)
    assert shown[:3] == top[:3]
    assert sum(int(r[2]) for r in rows) == int(total.group(1)) == len(done)
    assert sum(int(r[3]) for r in rows) == int(total.group(2)) == len(planned)
    assert abs(sum(float(r[4]) for r in rows) - float(total.group(3))) <= 0.01 * len(rows)
    # A group with no fit done is named in the "not started" row, not hidden in the rest.
    idle = sorted({d for (d, _), e in expected.items() if e[0] == 0})
    if idle:
        assert f"| not started: {', '.join(idle)} |" in table
