"""Paper-style result tables: rows = datasets, columns = algorithms, cells = mean (std) test
error in % over folds (and seeds), one table per noise rate.

Selection (``select``): for every (dataset, noise rate, seed, fold, algorithm entry) the grid
point with the lowest validation error at its own early-stopping round is kept (the first in
grid order on ties), and its test error at that round is what the table reports. Test errors
are never looked at to choose anything.

A report can be rendered from a partial store: a cell with fewer folds than planned is marked
``†`` with the count in a footnote, and a cell with none shows ``–``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from tabulate import tabulate

from ..runner.cells import DONE

GROUP = ["dataset", "noise_rate", "seed", "fold", "entry_index"]


def plan_frame(planned) -> pd.DataFrame:
    """One row per planned cell with its place in the tables."""
    return pd.DataFrame([{
        "key": pc.cell.key, "dataset": pc.cell.dataset, "noise_rate": pc.cell.noise_rate,
        "seed": pc.cell.seed, "fold": pc.cell.fold, "entry_index": pc.entry_index,
        "grid_index": pc.grid_index, "label": pc.cell.label,
        "params": dict(pc.cell.params),
    } for pc in planned])


def select(planned, results: pd.DataFrame) -> pd.DataFrame:
    """Selected cell per (dataset, noise, seed, fold, entry) among the done grid points.

    ``results`` needs columns key, status, valid_error, test_error, selected_round.
    """
    plan = plan_frame(planned)
    cols = ["key", "status", "valid_error", "test_error", "train_error", "selected_round"]
    res = results[cols] if len(results) else pd.DataFrame(columns=cols)
    df = plan.merge(res, on="key", how="left")
    n_grid = df.groupby(GROUP)["grid_index"].transform("size")
    df["grid_size"] = n_grid
    done = df[df["status"] == DONE].copy()
    if done.empty:
        return done.assign(complete_grid=pd.Series(dtype=bool))
    done = done.sort_values(GROUP + ["valid_error", "grid_index"], kind="mergesort")
    n_done = done.groupby(GROUP)["key"].transform("size")
    sel = done.groupby(GROUP, as_index=False).head(1).copy()
    sel["complete_grid"] = (n_done.loc[sel.index] == sel["grid_size"]).to_numpy()
    return sel.reset_index(drop=True)


def summarize(config, planned, results: pd.DataFrame) -> pd.DataFrame:
    """Long table: dataset, noise_rate, label, mean, std (in %), n (done), n_planned."""
    sel = select(planned, results)
    labels = [e.label for e in config.algorithms]
    n_planned = len(config.seeds) * len(config.folds)
    rows = []
    for rate in config.noise_rates:
        for ds in config.datasets:
            for e, label in enumerate(labels):
                part = sel[(sel["dataset"] == ds) & (sel["noise_rate"] == rate)
                           & (sel["entry_index"] == e)] if len(sel) else sel
                errs = 100.0 * part["test_error"].to_numpy(dtype=float) if len(part) else []
                n = len(errs)
                # Done cells without a classifier (no weak learner accepted) have no error.
                n_no_fit = int(np.isnan(errs).sum()) if n else 0
                errs = np.asarray(errs, dtype=float)[~np.isnan(errs)] if n else errs
                rows.append({
                    "dataset": ds, "noise_rate": rate, "algorithm": label,
                    "mean": float(np.mean(errs)) if len(errs) else np.nan,
                    # Sample standard deviation over folds (and seeds), ddof = 1.
                    "std": float(np.std(errs, ddof=1)) if len(errs) > 1 else np.nan,
                    "n": n, "n_no_fit": n_no_fit, "n_planned": n_planned,
                    "complete": bool(n == n_planned and part["complete_grid"].all()) if n else False,
                    "mean_selected_round": float(part["selected_round"].mean()) if n else np.nan,
                })
    return pd.DataFrame(rows)


def _cell_text(r) -> str:
    if r["n"] == 0:
        return "–"
    mark = ("" if r["complete"] else "†") + ("‡" if r["n_no_fit"] else "")
    if r["n_no_fit"] == r["n"]:
        return "no fit" + mark.replace("‡", "")
    std = "–" if np.isnan(r["std"]) else f"{r['std']:.2f}"
    return f"{r['mean']:.2f} ({std}){mark}"


def wide_tables(config, summary: pd.DataFrame) -> dict[float, pd.DataFrame]:
    """noise rate -> DataFrame (rows datasets, columns algorithm labels) of cell texts."""
    labels = [e.label for e in config.algorithms]
    out = {}
    for rate in config.noise_rates:
        part = summary[summary["noise_rate"] == rate]
        table = pd.DataFrame(index=list(config.datasets), columns=labels, dtype=object)
        for _, r in part.iterrows():
            table.loc[r["dataset"], r["algorithm"]] = _cell_text(r)
        table.index.name = "dataset"
        out[rate] = table
    return out


def _heading(config, rate) -> str:
    return (f"{config.title} — test error % mean (std) over {len(config.folds)} folds"
            + (f" × {len(config.seeds)} seeds" if len(config.seeds) > 1 else "")
            + f", label noise {rate:g}")


def _footnote(summary) -> str:
    notes = []
    partial = summary[(summary["n"] > 0) & (~summary["complete"])]
    if not partial.empty:
        notes.append("† partial (folds done of planned, or a grid not fully run): " + "; ".join(
            f"{r.dataset}/{r.algorithm} at noise {r.noise_rate:g}: {r.n} of {r.n_planned}"
            for r in partial.itertuples()))
    nofit = summary[summary["n_no_fit"] > 0]
    if not nofit.empty:
        notes.append("no fit: no weak learner was accepted (e.g. AdaBoost.M1 stops when its "
                     "first tree's weighted error is already >= 1/2), so there is no classifier "
                     "to score; ‡: the mean is over the folds that fitted. Folds without a fit: "
                     + "; ".join(f"{r.dataset}/{r.algorithm} at noise {r.noise_rate:g}: "
                                 f"{r.n_no_fit} of {r.n}" for r in nofit.itertuples()))
    return "\n".join(notes)


def render_terminal(config, summary) -> str:
    parts = []
    for rate, table in wide_tables(config, summary).items():
        parts.append(_heading(config, rate))
        parts.append(tabulate(table, headers="keys", tablefmt="simple", stralign="right"))
        parts.append("")
    foot = _footnote(summary)
    if foot:
        parts.append(foot)
    return "\n".join(parts).rstrip() + "\n"


def write_outputs(config, summary, out_dir: Path) -> list[Path]:
    """Write Markdown, CSV and LaTeX tables under ``out_dir``; returns the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tables = wide_tables(config, summary)
    md, tex = [f"# {config.title}\n"], []
    for rate, table in tables.items():
        md.append(f"## {_heading(config, rate)}\n")
        md.append(tabulate(table, headers="keys", tablefmt="pipe", stralign="right"))
        md.append("")
        tex.append(f"% {_heading(config, rate)}")
        tex.append(tabulate(table, headers="keys", tablefmt="latex_booktabs",
                            stralign="right"))
        tex.append("")
    foot = _footnote(summary)
    if foot:
        md.append(foot + "\n")
        tex.append("% " + foot)
    paths = [out_dir / "results.md", out_dir / "results.csv", out_dir / "results.tex"]
    _atomic_write(paths[0], "\n".join(md))
    _atomic_write(paths[1], summary.to_csv(index=False, float_format="%.6f"))
    _atomic_write(paths[2], "\n".join(tex))
    return paths


def _atomic_write(path: Path, text: str):
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
