"""Old and new DMCBoost columns side by side, for results/dmcboost_kdd14/README.md.

    python tools/version_comparison.py [results/dmcboost_kdd14]

Reads the frozen version-3 renders (``version3/table{2,3,4}.csv``, ``version3/cells_dmcboost.csv``)
and the current ones (``table{2,3,4}.csv``, ``cells.csv``) and prints one markdown table per
paper table: test error % mean (std) of each version, the published value, whether each agrees
(the tables' own rule: within 2 published std, 1.5 points without a std), the mean Phase I length
over all the cell's fits (every fold and grid point), and the number and CPU hours of the current
version's fits. A cell that is not complete in the current tables is marked †.
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


def main(root="results/dmcboost_kdd14"):
    root = Path(root)
    old_cells = pd.read_csv(root / "version3" / "cells_dmcboost.csv")
    new_cells = pd.read_csv(root / "cells.csv")
    for table in ("table2", "table3", "table4"):
        old = pd.read_csv(root / "version3" / f"{table}.csv")
        new = pd.read_csv(root / f"{table}.csv")
        old, new = (t[t["algorithm"] == LABEL].set_index(["dataset", "noise_rate"])
                    for t in (old, new))
        p_old, p_new = _phase1(old_cells, table), _phase1(new_cells, table)
        print(f"\n### {table}\n")
        print("| dataset | noise | version 3 | version 4 | paper | agrees v3 / v4 "
              "| Phase I rounds v3 / v4 | v4 fits, CPU h |")
        print("|---|---|---|---|---|---|---|---|")
        for idx, o in old.iterrows():
            n = new.loc[idx] if idx in new.index else None
            po = p_old.loc[idx] if idx in p_old.index else None
            pn = p_new.loc[idx] if idx in p_new.index else None
            paper = o.get("published_printed")
            paper = "n/a" if pd.isna(paper) else paper
            new_txt = "–" if n is None else _fmt(n["mean"], n["std"], bool(n["complete"]))
            agree = f"{_agree(o['agrees'])} / {'' if n is None else _agree(n['agrees'])}"
            p1 = (f"{po['p1']:.1f}" if po is not None else "–") + " / " + (
                f"{pn['p1']:.1f}" if pn is not None else "–")
            cpu = "–" if pn is None else f"{int(pn['n'])}, {pn['cpu'] / 3600:.2f}"
            print(f"| {idx[0]} | {idx[1]:g} | {_fmt(o['mean'], o['std'])} | {new_txt} | {paper} "
                  f"| {agree} | {p1} | {cpu} |")


if __name__ == "__main__":
    main(*sys.argv[1:])
