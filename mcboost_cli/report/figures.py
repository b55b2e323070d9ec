"""Figures of the papers' per-round curves, drawn from the result store with matplotlib.

Map of the module
-----------------
``write_figures``       every figure a config declares (``figures:``), as PNG, SVG and the
                        plotted numbers as CSV
``phase_curves``        the DMCBoost paper's Figure 3: training and test error per round of a
                        two-phase booster on one fold, Phase I and Phase II marked, with the
                        baselines of the same table on the same fold for comparison

The curves are those of the grid point that validation selected on that fold (the one the
table reports); a cell imported without curves (``--import-results``) is fitted again in this
process, which gives the same numbers (cells are deterministic). A figure is drawn only when
the store has every cell it shows, each of a complete grid on that fold (the selection is made
over the store and the committed ``cells.csv`` together); otherwise its files are left as they
are, so a narrowed or partial run never replaces a figure by one with fewer or other curves.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import UserError
from ..protocol.selection import select
from ..runner.cells import DONE


def write_figures(config, planned, store, out_dir: Path, results=None) -> list[Path]:
    """Every figure of ``config``; ``results`` (default: the store's rows of the plan) is the
    frame the selection is made from, e.g. ``reference.known_results``."""
    paths = []
    for fig in config.figures:
        if fig.kind == "phase_curves":
            paths += phase_curves(config, fig, planned, store, out_dir, results)
    return paths


def _selected_cells(config, fig, planned, store, results=None) -> dict:
    """label -> (cell, curves, stored extra) of the validation-selected grid point; empty
    unless every label of the figure that its table has is done on the figure's fold, with
    its whole grid (a partial grid may select another point than the full one)."""
    ti = next((i for i, t in enumerate(config.tables) if t.id == fig.table), None)
    if ti is None or fig.dataset not in config.tables[ti].datasets:
        return {}
    table = config.tables[ti]
    keys = [pc.cell.key for pc in planned if pc.table_index == ti]
    frame = store.frame(keys=keys) if results is None else \
        results[results["key"].isin(set(keys))]
    sel = select([pc for pc in planned if pc.table_index == ti], frame)
    if sel.empty:
        return {}
    sel = sel[(sel["dataset"] == fig.dataset) & (sel["fold"] == fig.fold)
              & (sel["noise_rate"] == 0.0)]
    cells = {pc.cell.key: pc.cell for pc in planned}
    out = {}
    for label in [fig.algorithm, *fig.compare]:
        e = next((i for i, a in enumerate(table.algorithms) if a.label == label), None)
        if e is None:
            continue                             # not a column of this table
        row = sel[sel["entry_index"] == e]
        if row.empty or not bool(row.iloc[0]["complete_grid"]):
            return {}
        key = row.iloc[0]["key"]
        stored = store.get(key) if store is not None else None
        if stored is None or stored[1].status != DONE:
            # Known from cells.csv only: no curves here, and fitting it again may take
            # minutes, so the figure's files stay as they are (drawn from a full store).
            return {}
        cell, result = stored
        curves = result.curves
        if not curves or not curves.get("train"):
            from ..runner.work import run_cell
            result = run_cell(cells[key])        # imported without curves: fit it again
            curves = result.curves
            if not curves or not curves.get("train"):
                return {}
        out[label] = (cell, curves, result.extra or {})
    return out


def phase_curves(config, fig, planned, store, out_dir: Path, results=None) -> list[Path]:
    """Figure 3 of the DMCBoost paper; returns the written paths (none while the cells are
    not done yet)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.hashsalt"] = "mcboost"   # stable element ids in the SVG

    cells = _selected_cells(config, fig, planned, store, results)
    if fig.algorithm not in cells:
        return []
    main_cell, main_curves, main_extra = cells[fig.algorithm]
    n1 = main_extra.get("n_phase1_rounds")
    if n1 is None:
        raise UserError(f"{config.path}: figures[{fig.id}].algorithm: {fig.algorithm} has no "
                        "Phase I / Phase II record; expected a two-phase booster (dmcboost)")
    rows = []
    fig_, axes = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True)
    for ax, part, name in zip(axes, ("train", "test"), ("training error", "test error")):
        for label, (cell, curves, _) in cells.items():
            y = 100.0 * np.asarray(curves[part], dtype=float)
            x = np.arange(1, y.size + 1)
            main = label == fig.algorithm
            ax.plot(x, y, lw=2.0 if main else 1.0, color="C3" if main else None,
                    alpha=1.0 if main else 0.8, label=f"{label}" + (
                        f" (n'={dict(cell.params)['n_prime']})" if main else ""))
            rows += [{"algorithm": label, "params": ",".join(f"{k}={v}" for k, v in cell.params),
                      "part": part, "round": int(r), "error_percent": float(v)}
                     for r, v in zip(x, y)]
        total = len(main_curves[part])
        ax.axvspan(0.8, n1 + 0.5, color="0.85", lw=0)
        ax.axvline(n1 + 0.5, color="C3", ls="--", lw=1)
        ax.text(0.02, 0.03, f"Phase I: rounds 1-{n1}\nPhase II: rounds {n1 + 1}-{total}",
                transform=ax.transAxes, fontsize=8, va="bottom")
        ax.set_xscale("log")
        ax.set_xlabel("boosting round")
        ax.set_ylabel(f"{name} (%)")
        ax.set_title(f"{fig.dataset}, fold {fig.fold}: {name}")
    axes[0].legend(fontsize=8, loc="upper right")
    title = fig.title + (" — QUICK (reduced budget)" if config.is_quick else "")
    fig_.suptitle(title, fontsize=10)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{fig.id}.png", out_dir / f"{fig.id}.svg", out_dir / f"{fig.id}.csv"]
    # Fixed metadata so that the same numbers give the same files.
    fig_.savefig(paths[0], dpi=120, metadata={"Software": None})
    fig_.savefig(paths[1], metadata={"Date": None, "Creator": None})
    plt.close(fig_)
    pd.DataFrame(rows).to_csv(paths[2], index=False, float_format="%.6f")
    return paths
