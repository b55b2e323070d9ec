"""Old and new DMCBoost columns side by side, for results/dmcboost_kdd14/README.md.

    python tools/version_comparison.py [results/dmcboost_kdd14]

Reads the frozen renders of every earlier version (``version<N>/table{2,3,4}.csv``,
``version<N>/cells_dmcboost.csv``) and the current ones (``table{2,3,4}.csv``, ``cells.csv``) and
prints one markdown table per paper table: test error % mean (std) of each version, the published
value, whether each agrees (the tables' own rule: within 2 published std, 1.5 points without a
std), the mean Phase I length over all the cell's fits (every fold and grid point), and the
number and CPU hours of the current version's fits. A cell that is not complete (every fold and
grid point) in a later version's tables is marked †.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

LABEL = "DMCBoost"


def _fmt(mean, std, complete=True):
    if pd.isna(mean):
        return "–"
    s = f"{mean:.2f}" + (f" ({std:.2f})" if not pd.isna(std) else "")
    return s if complete else s + " †"


def _agree(v):
    return "" if pd.isna(v) or v == "" else ("yes" if str(v) == "True" else "no")


def _phase1(cells: pd.DataFrame, table: str) -> pd.DataFrame:
    d = cells[cells["algorithm"] == "dmcboost"].copy()
    depth = d["params"].str.extract(r'"max_depth":(\d+)')[0].astype(int)
    if table == "table2":
        d = d[depth == 3]
    if table == "table4":
        d = d[d["noise_rate"] > 0]
    else:
        d = d[d["noise_rate"] == 0]
    d["cpu_seconds"] = pd.to_numeric(d["cpu_seconds"], errors="coerce")
    return d.groupby(["dataset", "noise_rate"]).agg(
        p1=("n_phase1_rounds", "mean"), cpu=("cpu_seconds", "sum"), n=("key", "size"))


def _versions(root: Path):
    """(label, tables dir, cells file) of every frozen version (``version<N>/``, oldest
    first), then the current renders."""
    from mcboost_cli.algorithms.registry import get_algorithm
    frozen = sorted((int(d.name[len("version"):]), d) for d in root.glob("version[0-9]*")
                    if d.is_dir())
    out = [(str(v), d, d / "cells_dmcboost.csv") for v, d in frozen]
    return out + [(get_algorithm("dmcboost").version, root, root / "cells.csv")]


def main(root="results/dmcboost_kdd14"):
    root = Path(root)
    versions = _versions(root)
    labels = [v for v, _, _ in versions]
    cur = labels[-1]
    cells = {v: pd.read_csv(c) for v, _, c in versions}
    for table in ("table2", "table3", "table4"):
        rows = {}
        for v, d, _ in versions:
            t = pd.read_csv(d / f"{table}.csv")
            rows[v] = t[t["algorithm"] == LABEL].set_index(["dataset", "noise_rate"])
        p1 = {v: _phase1(cells[v], table) for v in labels}
        order = list(dict.fromkeys(i for v in labels for i in rows[v].index))
        print(f"\n### {table}\n")
        print("| dataset | noise | " + " | ".join(f"version {v}" for v in labels)
              + f" | paper | agrees {' / '.join('v' + v for v in labels)} "
              f"| Phase I rounds {' / '.join('v' + v for v in labels)} | v{cur} fits, CPU h |")
        print("|---|---|" + "---|" * (len(labels) + 4))
        for idx in order:
            got = {v: rows[v].loc[idx] if idx in rows[v].index else None for v in labels}
            paper = next((g.get("published_printed") for g in got.values() if g is not None),
                         None)
            paper = "n/a" if paper is None or pd.isna(paper) else paper
            # The oldest version ran every cell; a later one is complete or marked †.
            errs = [("–" if g is None else
                     _fmt(g["mean"], g["std"], i == 0 or bool(g["complete"])))
                    for i, g in enumerate(got.values())]
            agree = " / ".join("" if g is None else _agree(g["agrees"]) for g in got.values())
            ph = " / ".join(f"{p1[v].loc[idx]['p1']:.1f}" if idx in p1[v].index else "–"
                            for v in labels)
            pn = p1[cur].loc[idx] if idx in p1[cur].index else None
            cpu = "–" if pn is None else f"{int(pn['n'])}, {pn['cpu'] / 3600:.2f}"
            print(f"| {idx[0]} | {idx[1]:g} | {' | '.join(errs)} | {paper} | {agree} | {ph} "
                  f"| {cpu} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
