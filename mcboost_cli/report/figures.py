"""Figures of the papers' per-round curves, drawn from the result store with matplotlib.

Map of the module
-----------------
``write_figures``       every figure a config declares (``figures:``), as PNG, SVG and the
                        plotted numbers as CSV (a curve figure: a row per point, and its
                        lines' grid points in <id>_lines.csv)
``phase_curves``        the DMCBoost paper's Figure 3: training and test error per round of a
                        two-phase booster on one fold, Phase I and Phase II marked, with the
                        baselines of the same table on the same fold for comparison
``decision_regions``    after the MCBoost paper's Figure 2: the classes a booster predicts over
                        the plane of a two-feature dataset at a few rounds, with the test points
                        and, for a generator with a known Bayes rule, its decision boundary;
                        a last panel of the training and test error per round beside the
                        Bayes rule's test error. Drawn from the mesh the cell stored when it
                        ran (``runner.work.decision_mesh``); a cell without it is not drawn
``error_curves``        the coherence paper's Figure 3 (and REBEL's Figure 6): training and/or
                        test error per boosting round of a few columns of one table on one
                        dataset and fold, a panel per part, a line per column
``bars``                the REBEL paper's Figure 8: a grouped bar chart of one table's test
                        error % (mean over folds and seeds), a group per dataset, a bar per
                        column, the published bar (lighter, hatched) beside ours where the
                        table names published numbers; what was not run is drawn absent
                        with a mark. Drawn from the table's selected cells (the numbers of
                        its table, ``report.tables.summarize``), not from curves
``noise_curves``        a noise sweep's figure per dataset: the mean test error % (over
                        folds and seeds, of the validation-selected fits at each rate: the
                        table's numbers) against the label-noise rate, a line per column with
                        a band of one standard deviation, each labelled with its slope
                        (``report.noise_slopes``). Drawn from the table's selected cells, as
                        ``bars``
``loss_functions``      the coherence paper's Figures 1-2: the binary coherence function at a
                        few temperatures beside the 0-1, hinge, logit and exponential losses,
                        as functions of the margin y f(x). Drawn from the functions of
                        ``algorithms.coherence``, not from cells, so always drawn

Presentation never refits a model (``loss_functions`` draws no model at all): a figure of
cells shows the per-round curves its cells stored when they ran (``bars`` and
``noise_curves``: the errors they stored, selected as the table selects them). The curves are those of the grid point that validation selected on that fold (the
one the table reports). A figure is drawn only when the store has every cell it shows, each of
a complete grid on that fold (the selection is made over the store and the committed
``cells.csv`` together), and each with its stored curves (``bars``: every cell of its table
on every fold and seed, at noise rate 0, except datasets that could not be had;
``noise_curves``: every cell of its dataset at every rate); otherwise its files are left as they
are, so a narrowed or partial run never replaces a figure by one with fewer or other curves.

Why a figure is not drawn is logged on this module's logger: a warning when a selected cell is
done but has no stored curves (imported with ``--import-results``, or known from ``cells.csv``
only; the curves exist only where the cell was computed), at info level when its cells are not
all done yet (a partial or narrowed run). Without a logging configuration Python prints
warnings on stderr, one line each.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import UserError
from ..protocol.selection import select
from ..runner.cells import DONE

log = logging.getLogger(__name__)


def write_figures(config, planned, store, out_dir: Path, results=None,
                  summary: pd.DataFrame | None = None) -> list[Path]:
    """Every figure of ``config``; ``results`` (default: the store's rows of the plan) is the
    frame the selection is made from, e.g. ``reference.known_results``, and ``summary``, when
    given, its ``report.tables.summarize`` over ``planned`` (the tables' own: a report draws
    from the numbers it prints, and a noise sweep's 21 figures do not summarize the whole
    sweep once each). Returns the written paths; a figure that cannot be drawn from what is
    stored writes nothing and logs why."""
    paths = []
    for fig in config.figures:
        if fig.kind == "phase_curves":
            paths += phase_curves(config, fig, planned, store, out_dir, results)
        elif fig.kind == "decision_regions":
            paths += decision_regions(config, fig, planned, store, out_dir, results)
        elif fig.kind == "error_curves":
            paths += error_curves(config, fig, planned, store, out_dir, results)
        elif fig.kind == "bars":
            paths += bars(config, fig, planned, store, out_dir, results, summary)
        elif fig.kind == "noise_curves":
            paths += noise_curves(config, fig, planned, store, out_dir, results, summary)
        elif fig.kind == "loss_functions":
            paths += loss_functions(fig, out_dir)
    return paths


def _selected_cells(config, fig, planned, store, results=None
                    ) -> tuple[dict, str | None, int]:
    """The stored curves of the figure's validation-selected grid points.

    Returns
    -------
    cells : dict
        label -> (cell, curves, stored extra); empty unless every label of the figure that
        its table has is done on the figure's fold, with its whole grid (a partial grid may
        select another point than the full one), and has its curves in the store.
    reason : str or None
        Why ``cells`` is empty, for the log; None when it is not.
    level : int
        Log level of ``reason``: ``logging.WARNING`` when done cells lack stored curves (the
        user must compute them to get the figure), ``logging.INFO`` when cells are not done
        yet (a partial or narrowed run, which finishing the run cures).
    """
    where = f"{fig.dataset} fold {fig.fold}"
    ti = next((i for i, t in enumerate(config.tables) if t.id == fig.table), None)
    if ti is None or fig.dataset not in config.tables[ti].datasets:
        return {}, f"table {fig.table} has no dataset {fig.dataset} in this plan", logging.INFO
    table = config.tables[ti]
    keys = [pc.cell.key for pc in planned if pc.table_index == ti]
    frame = store.frame(keys=keys) if results is None else \
        results[results["key"].isin(set(keys))]
    sel = select([pc for pc in planned if pc.table_index == ti], frame)
    if sel.empty:
        return {}, f"no cell of table {fig.table} is done yet", logging.INFO
    sel = sel[(sel["dataset"] == fig.dataset) & (sel["fold"] == fig.fold)
              & (sel["noise_rate"] == 0.0)]
    out, not_in_store, without_curves = {}, [], []
    for label in [fig.algorithm, *fig.compare]:
        e = next((i for i, a in enumerate(table.algorithms) if a.label == label), None)
        if e is None:
            continue                             # not a column of this table
        row = sel[sel["entry_index"] == e]
        if row.empty or not bool(row.iloc[0]["complete_grid"]):
            return {}, f"{label} is not done on {where} with its whole grid", logging.INFO
        key = row.iloc[0]["key"]
        stored = store.get(key) if store is not None else None
        if stored is None or stored[1].status != DONE:
            not_in_store.append(label)           # known from cells.csv only
            continue
        cell, result = stored
        curves = result.curves
        if not curves or not curves.get("train"):
            without_curves.append(label)         # imported with --import-results
            continue
        out[label] = (cell, curves, result.extra or {})
    if not_in_store or without_curves:
        parts = []
        if without_curves:
            parts.append(f"{', '.join(without_curves)} stored without curves (imported)")
        if not_in_store:
            parts.append(f"{', '.join(not_in_store)} known from cells.csv only (not in the "
                         "store)")
        return {}, (f"the selected cells of {where} have no stored curves: "
                    f"{'; '.join(parts)}; curves are recorded only when a cell is computed "
                    "into the store, so the figure needs all its cells computed into one "
                    "store (not imported)"), \
            logging.WARNING
    return out, None, logging.INFO


def _pyplot():
    """matplotlib's pyplot on the file-only backend, with stable SVG element ids (the same
    numbers give the same files)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    matplotlib.rcParams["svg.hashsalt"] = "mcboost"
    return plt


def _drawable_cells(config, fig, planned, store, results=None) -> dict | None:
    """``_selected_cells`` of a figure whose main column is among them, else None with the
    reason logged (the figure's files are left as they are)."""
    cells, reason, level = _selected_cells(config, fig, planned, store, results)
    if reason is not None or fig.algorithm not in cells:
        log.log(level, "figure %s is not drawn: %s; its files are left as they are",
                fig.id, reason or f"{fig.algorithm} is not a column of table {fig.table}")
        return None
    return cells


def phase_curves(config, fig, planned, store, out_dir: Path, results=None) -> list[Path]:
    """Figure 3 of the DMCBoost paper; returns the written paths (none, and the reason
    logged, while its cells are not all done with stored curves)."""
    plt = _pyplot()

    cells = _drawable_cells(config, fig, planned, store, results)
    if cells is None:
        return []
    main_cell, main_curves, main_extra = cells[fig.algorithm]
    n1 = main_extra.get("n_phase1_rounds")
    if n1 is None:
        raise UserError(f"{config.path}: figures[{fig.id}].algorithm: {fig.algorithm} has no "
                        "Phase I / Phase II record; expected a two-phase booster (dmcboost)")
    rows, lines = [], []
    fig_, axes = plt.subplots(1, 2, figsize=(10, 3.8), constrained_layout=True)
    for ax, part, name in zip(axes, ("train", "test"), ("training error", "test error")):
        for label, (cell, curves, _) in cells.items():
            y = 100.0 * np.asarray(curves[part], dtype=float)
            x = np.arange(1, y.size + 1)
            main = label == fig.algorithm
            ax.plot(x, y, lw=2.0 if main else 1.0, color="C3" if main else None,
                    alpha=1.0 if main else 0.8, label=f"{label}" + (
                        f" (n'={dict(cell.params)['n_prime']})" if main else ""))
            rows += _curve_rows(label, part, x, y)
            lines.append(_line_row(label, cell, part, x.size))
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
    return _save(plt, fig_, fig, out_dir, pd.DataFrame(rows, columns=CURVE_COLUMNS),
                 pd.DataFrame(lines, columns=CURVE_LINE_COLUMNS))


def error_curves(config, fig, planned, store, out_dir: Path, results=None) -> list[Path]:
    """Error (%) per boosting round of the figure's columns on its dataset and fold: a panel
    per part of ``fig.parts`` (train, test), a line per column, the main column first and
    drawn heavier; the x axis is linear from round 1 (as the coherence paper's Figure 3
    draws its 100 steps) or, with ``x_scale: log``, logarithmic (the REBEL paper's Figure 6). Each line is the stored curve of the grid point validation selected
    (under the predefined protocol: the cell's only one), up to its last round.

    The CSVs hold the plotted numbers (<id>.csv: algorithm, part, round, error_percent) and
    the lines (<id>_lines.csv: algorithm, part, params, n_rounds).
    Returns the written paths (none, and the reason logged, while the cells are not all
    done with stored curves).
    """
    plt = _pyplot()
    cells = _drawable_cells(config, fig, planned, store, results)
    if cells is None:
        return []
    labels = [fig.algorithm] + [c for c in fig.compare if c in cells]
    rows, lines = [], []
    fig_, axes = plt.subplots(1, len(fig.parts), figsize=(max(6.4, 5.0 * len(fig.parts)), 4.0),
                              constrained_layout=True, squeeze=False)
    for ax, part in zip(axes[0], fig.parts):
        for i, label in enumerate(labels):
            cell, curves, _ = cells[label]
            y = 100.0 * np.asarray(curves[part], dtype=float)
            x = np.arange(1, y.size + 1)
            main = label == fig.algorithm
            ax.plot(x, y, lw=1.8 if main else 1.1, color=f"C{i}", label=label)
            rows += _curve_rows(label, part, x, y)
            lines.append(_line_row(label, cell, part, x.size))
        ax.set_xlabel("boosting round")
        ax.set_ylabel(f"{'training' if part == 'train' else 'test'} error (%)")
        ax.set_title(f"{fig.dataset}: {'training' if part == 'train' else 'test'} error",
                     fontsize=10)
        ax.grid(True, color="0.9", lw=0.6)
        if fig.x_scale == "log":
            ax.set_xscale("log")
        else:
            ax.xaxis.get_major_locator().set_params(integer=True)
    axes[0][0].legend(fontsize=8, loc="upper right")
    title = fig.title + ("\nQUICK (reduced budget)" if config.is_quick else "")
    fig_.suptitle(title, fontsize=9)
    return _save(plt, fig_, fig, out_dir, pd.DataFrame(rows, columns=CURVE_COLUMNS),
                 pd.DataFrame(lines, columns=CURVE_LINE_COLUMNS))


# A curve figure's plotted numbers, a row per point (<id>.csv), and its lines, a row per
# line with the grid point it shows (<id>_lines.csv): the params string is written once per
# line rather than on every round (REBEL's 10,000-round curves made 2.6 MB files of it).
CURVE_COLUMNS = ["algorithm", "part", "round", "error_percent"]
CURVE_LINE_COLUMNS = ["algorithm", "part", "params", "n_rounds"]


def _curve_rows(label: str, part: str, x: np.ndarray, y: np.ndarray) -> list[dict]:
    """The rows of one plotted line in <id>.csv (``CURVE_COLUMNS``)."""
    return [{"algorithm": label, "part": part, "round": int(r), "error_percent": float(v)}
            for r, v in zip(x, y)]


def _line_row(label: str, cell, part: str, n_rounds: int) -> dict:
    """The row of one plotted line in <id>_lines.csv (``CURVE_LINE_COLUMNS``)."""
    return {"algorithm": label, "part": part,
            "params": ",".join(f"{k}={v}" for k, v in cell.params), "n_rounds": n_rounds}


def _save(plt, fig_, fig, out_dir: Path, frame: pd.DataFrame,
          lines: pd.DataFrame | None = None, float_format: str = "%.9g") -> list[Path]:
    """Write ``fig_`` as <id>.png and <id>.svg and ``frame`` as <id>.csv (a curve figure also
    ``lines`` as <id>_lines.csv), with fixed metadata so that the same numbers give the same
    files; returns the written paths."""
    from .tables import _replacing
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{fig.id}.png", out_dir / f"{fig.id}.svg", out_dir / f"{fig.id}.csv"]
    # Each file is written whole or not at all (a temporary file, then a rename): a second
    # Ctrl-C while a report is being written leaves the previous figure, not half of one.
    with _replacing(paths[0]) as tmp:
        fig_.savefig(tmp, format="png", dpi=120, metadata={"Software": None})
    with _replacing(paths[1]) as tmp:
        fig_.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig_)
    with _replacing(paths[2]) as tmp:
        frame.to_csv(tmp, index=False, float_format=float_format)
    if lines is not None:
        paths.append(out_dir / f"{fig.id}_lines.csv")
        with _replacing(paths[3]) as tmp:
            lines.to_csv(tmp, index=False)
    return paths


# What a bars figure's CSV says of our number where it has none (``ours_status``).
BARS_OURS_STATUS = {
    "ok": "our mean over the table's folds and seeds",
    "no fit": "every fold's fit kept no round (no classifier)",
    "dataset not run": "the dataset's data could not be had (the note under the tables says "
                       "why)",
    "column not run": "a column of the published table that our table does not have",
}
BARS_COLUMNS = ["dataset", "algorithm", "ours_error_percent", "ours_std", "ours_n",
                "ours_status", "published_error_percent", "published_printed",
                "published_confidence", "published_status"]


def bars(config, fig, planned, store, out_dir: Path, results=None,
         summary: pd.DataFrame | None = None) -> list[Path]:
    """The REBEL paper's Figure 8: test error % of one table as grouped bars.

    A group per dataset of the table (in its order), a bar per column: the table's columns in
    its order, then the columns of its published table that it lacks (drawn with the
    published bar only). Our bar is the table's number at noise rate 0 (the mean over folds
    and seeds of the selected fits, ``report.tables.summarize``), in the column's colour;
    beside it, where the table names published numbers (``published:``), the paper's bar in
    a lighter shade, hatched, its confidence flag (``~`` medium, ``?`` low) above it. Where
    we have no number (the dataset could not be had, the column is the paper's only, or no
    fold kept a round) a ``×`` stands on the axis in the bar's place.

    Drawn only when every cell of the table is done at noise rate 0 with its whole grid, on
    every planned fold and seed (datasets in ``config.not_run`` excepted: they are drawn as
    not run); otherwise nothing is written and the reason is logged. The CSV holds the
    plotted numbers, a row per (dataset, column): ``BARS_COLUMNS``, with ``ours_status`` one
    of ``BARS_OURS_STATUS`` and ``published_status`` the published cell's status
    (``not_in_paper`` without one; empty without published numbers). Returns the written
    paths.
    """
    from .tables import _published, summarize
    ti = next((i for i, t in enumerate(config.tables) if t.id == fig.table), None)
    if ti is None:
        log.info("figure %s is not drawn: table %s is not in this plan; its files are left "
                 "as they are", fig.id, fig.table)
        return []
    table = config.tables[ti]
    if 0.0 not in config.noise_rates:
        log.info("figure %s is not drawn: it shows noise rate 0, which this report lacks; its "
                 "files are left as they are", fig.id)
        return []
    not_run = set(getattr(config, "not_run", ()))
    if summary is None:
        keys = [pc.cell.key for pc in planned if pc.table_index == ti]
        frame = store.frame(keys=keys) if results is None else \
            results[results["key"].isin(set(keys))]
        summary = summarize(config, planned, frame)
    summary = summary[(summary["table"] == table.id) & (summary["noise_rate"] == 0.0)]
    ours = {(r["dataset"], r["algorithm"]): r for _, r in summary.iterrows()}
    incomplete = [f"{d}/{e.label}" for d in table.datasets if d not in not_run
                  for e in table.algorithms if not ours[(d, e.label)]["complete"]]
    if incomplete:
        log.info("figure %s is not drawn: %d cells of table %s are not all done (%s); its "
                 "files are left as they are", fig.id, len(incomplete), table.id,
                 ", ".join(incomplete[:5]) + (", ..." if len(incomplete) > 5 else ""))
        return []
    published = _published(table)
    labels = [e.label for e in table.algorithms]
    if published is not None:
        labels += [a for a in published.algorithms if a not in labels]
    rows = []
    for d in table.datasets:
        for label in labels:
            r = ours.get((d, label))
            if r is None:
                status, mean, std, n = "column not run", np.nan, np.nan, 0
            elif d in not_run:
                status, mean, std, n = "dataset not run", np.nan, np.nan, 0
            else:
                mean, std, n = float(r["mean"]), float(r["std"]), int(r["n"])
                status = "no fit" if np.isnan(mean) else "ok"
            row = {"dataset": d, "algorithm": label, "ours_error_percent": mean,
                   "ours_std": std, "ours_n": n, "ours_status": status,
                   "published_error_percent": np.nan, "published_printed": "",
                   "published_confidence": "", "published_status": ""}
            if published is not None:
                cell = published.cell(d, 0.0, label)
                row.update(published_error_percent=published.error_mean(cell),
                           published_printed=(cell.printed or "") if cell else "",
                           published_confidence=cell.confidence if cell else "",
                           published_status=(cell.status if cell
                                             else published.absent_status(d, 0.0, label)))
            rows.append(row)
    frame = pd.DataFrame(rows, columns=BARS_COLUMNS)

    plt = _pyplot()
    n_bars = len(labels) * (2 if published is not None else 1)
    width = 0.84 / n_bars
    fig_, ax = plt.subplots(figsize=(min(20.0, 2.0 + len(table.datasets) * n_bars * 0.2),
                                     4.6), constrained_layout=True)
    top = np.nanmax(frame[["ours_error_percent", "published_error_percent"]].to_numpy(float),
                    initial=1.0)
    mark_y = 0.015 * top          # where a × stands: on the axis, above the baseline
    for g, d in enumerate(table.datasets):
        part = frame[frame["dataset"] == d]
        for j, (_, r) in enumerate(part.iterrows()):
            colour = f"C{j % 10}"
            x = g + (j * (2 if published is not None else 1) + 0.5) * width - 0.42
            if r["ours_status"] == "ok":
                ax.bar(x, r["ours_error_percent"], width, color=colour,
                       label=r["algorithm"] if g == 0 else None)
            else:
                ax.bar(x, 0.0, width, color=colour, label=r["algorithm"] if g == 0 else None)
                ax.plot(x, mark_y, marker="x", color="k", ms=5, mew=1.2, ls="none")
            if published is None:
                continue
            xp = x + width
            if np.isnan(r["published_error_percent"]):
                ax.plot(xp, mark_y, marker="x", color="0.55", ms=5, mew=1.2, ls="none")
                continue
            ax.bar(xp, r["published_error_percent"], width, color=colour, alpha=0.4,
                   hatch="////", edgecolor=colour, lw=0.0)
            flag = {"medium": "~", "low": "?"}.get(r["published_confidence"], "")
            if flag:
                ax.text(xp, r["published_error_percent"], flag, ha="center", va="bottom",
                        fontsize=7)
    names = published.dataset_names if published is not None else {}
    ax.set_xticks(range(len(table.datasets)))
    ax.set_xticklabels([f"{d}\n({names[d]})" if d in names and names[d].lower() != d else d
                        for d in table.datasets], fontsize=8)
    ax.set_xlim(-0.5, len(table.datasets) - 0.5)
    ax.set_ylabel("test error (%)")
    ax.grid(True, axis="y", color="0.9", lw=0.6)
    ax.set_axisbelow(True)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles, texts = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], marker="x", color="k", ls="none", mew=1.2))
    texts.append("not run / no result")
    if published is not None:
        handles.insert(0, Patch(facecolor="0.5", alpha=0.4, hatch="////", edgecolor="0.5"))
        texts.insert(0, f"published ({published.ref}; ~ medium, ? low confidence)")
        handles.insert(0, Patch(facecolor="0.5"))
        texts.insert(0, "ours (left bar)")
    ax.legend(handles, texts, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    title = fig.title + ("\nQUICK (reduced budget)" if config.is_quick else "")
    ax.set_title(title, fontsize=9)
    return _save(plt, fig_, fig, out_dir, frame)


NOISE_CURVES_COLUMNS = ["dataset", "algorithm", "noise_rate", "mean_error_percent",
                        "std_error_percent", "n", "n_no_fit"]


def noise_curves(config, fig, planned, store, out_dir: Path, results=None,
                 summary: pd.DataFrame | None = None) -> list[Path]:
    """One dataset's test error % against the label-noise rate, a line per column of a table.

    x is the noise rate (the config's ``noise_rates``, as fractions), y the table's number at
    that rate: the mean over folds and seeds of the test error % of the fit validation
    selected at that rate (its grid point and round chosen on that rate's noisy validation
    labels; ``report.tables.summarize``), with a band of one sample standard deviation
    (ddof = 1) around it. Each line's legend gives its least-squares slope in percentage
    points per unit of noise rate (``report.noise_slopes``). A column whose every fold kept
    no round at some rate has no point there (the CSV says ``n_no_fit``).

    Drawn only when every cell of the dataset (every rate and column, every planned fold and
    seed, whole grids) is done; otherwise nothing is written and the reason is logged. The
    CSV holds the plotted numbers, a row per (column, rate): ``NOISE_CURVES_COLUMNS``.
    Returns the written paths.
    """
    from .noise_slopes import least_squares_slope
    from .tables import summarize
    ti = next((i for i, t in enumerate(config.tables) if t.id == fig.table), None)
    if ti is None or fig.dataset not in config.tables[ti].datasets:
        log.info("figure %s is not drawn: table %s has no dataset %s in this plan; its files "
                 "are left as they are", fig.id, fig.table, fig.dataset)
        return []
    if fig.dataset in set(getattr(config, "not_run", ())):
        log.info("figure %s is not drawn: the data of %s could not be had; its files are left "
                 "as they are", fig.id, fig.dataset)
        return []
    table = config.tables[ti]
    rates = [float(r) for r in config.noise_rates]
    if summary is None:
        mine = [pc for pc in planned if pc.table_index == ti and pc.cell.dataset == fig.dataset]
        keys = {pc.cell.key for pc in mine}
        frame = store.frame(keys=list(keys)) if results is None else \
            results[results["key"].isin(keys)]
        summary = summarize(config, mine, frame)
    summary = summary[(summary["table"] == table.id) & (summary["dataset"] == fig.dataset)]
    incomplete = [f"{r.algorithm} at {r.noise_rate:g}" for r in summary.itertuples()
                  if not r.complete]
    if incomplete:
        log.info("figure %s is not drawn: %d cells of %s in table %s are not all done (%s); "
                 "its files are left as they are", fig.id, len(incomplete), fig.dataset,
                 table.id, ", ".join(incomplete[:5]) + (", ..." if len(incomplete) > 5 else ""))
        return []
    ours = {(r["algorithm"], float(r["noise_rate"])): r for _, r in summary.iterrows()}
    rows = []
    for e in table.algorithms:
        for rate in rates:
            r = ours[(e.label, rate)]
            rows.append({"dataset": fig.dataset, "algorithm": e.label, "noise_rate": rate,
                         "mean_error_percent": float(r["mean"]),
                         "std_error_percent": float(r["std"]), "n": int(r["n"]),
                         "n_no_fit": int(r["n_no_fit"])})
    frame = pd.DataFrame(rows, columns=NOISE_CURVES_COLUMNS)

    plt = _pyplot()
    fig_, ax = plt.subplots(figsize=(7.6, 4.6), constrained_layout=True)
    styles = ["-", "--", "-.", ":"]
    for j, e in enumerate(table.algorithms):
        part = frame[frame["algorithm"] == e.label]
        x = part["noise_rate"].to_numpy(float)
        y = part["mean_error_percent"].to_numpy(float)
        sd = np.nan_to_num(part["std_error_percent"].to_numpy(float))
        # Ten colours, then the same ten dashed, and so on: no two lines look alike.
        colour = plt.get_cmap("tab10")(j % 10)
        slope = ("no slope" if np.isnan(y).any() else
                 f"{least_squares_slope(x, y)[0]:+.1f}")
        ax.plot(x, y, marker="o", ms=3.5, lw=1.3, ls=styles[(j // 10) % len(styles)],
                color=colour, label=f"{e.label} ({slope})")
        ax.fill_between(x, y - sd, y + sd, color=colour, alpha=0.10, lw=0)
    ax.set_xticks(rates)
    ax.set_xticklabels([f"{r:g}" for r in rates])
    from .layouts import noise_parts_text
    parts = noise_parts_text(table) or " on the training and validation labels"
    ax.set_xlabel(f"label-noise rate{parts} (test labels clean)")
    ax.set_ylabel("test error (%)")
    ax.grid(True, color="0.9", lw=0.6)
    ax.set_axisbelow(True)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0),
              title="column (slope, points per unit rate)", title_fontsize=7)
    n_folds = len(table.folds_for(fig.dataset, config.folds)) * len(config.seeds)
    over = f"{n_folds} fold" + ("" if n_folds == 1 else "s")
    title = (f"{fig.title} — {fig.dataset}: mean test error over {over}, band ±1 std"
             + ("\nQUICK (reduced budget)" if config.is_quick else ""))
    ax.set_title(title, fontsize=9)
    return _save(plt, fig_, fig, out_dir, frame)


# Points of the margin axis of a loss_functions figure (odd, so a symmetric range has z = 0).
LOSS_FIGURE_POINTS = 801


def loss_functions(fig, out_dir: Path) -> list[Path]:
    """Figures 1-2 of the coherence paper (Zhang, Jordan, Li & Yeung, AISTATS 2009).

    The binary coherence function C(z) = T log[1 + exp((1 - z)/T)] (eq. (7)) at each of
    ``fig.temperatures``, and each loss of ``fig.losses`` (``algorithms.coherence
    .BINARY_LOSSES``: 0-1, hinge, logit scaled by 1/log 2, exponential), over
    ``LOSS_FIGURE_POINTS`` margins z = y f(x) spanning ``fig.margin_range``. Figure 1 is
    temperatures [1] with every loss; Figure 2 is temperatures [1, 0.1, 0.01] with the hinge.
    The CSV holds the plotted numbers: loss, temperature (coherence rows only), z, value.
    Returns the written paths.
    """
    from ..algorithms.coherence import BINARY_LOSSES, binary_coherence_loss
    plt = _pyplot()
    z = np.linspace(fig.margin_range[0], fig.margin_range[1], LOSS_FIGURE_POINTS)
    curves = [(f"coherence T={t:g}", "coherence", t, binary_coherence_loss(z, t))
              for t in fig.temperatures]
    curves += [(BINARY_LOSSES[name][1], name, None, BINARY_LOSSES[name][0](z))
               for name in fig.losses]
    fig_, ax = plt.subplots(figsize=(6.0, 4.2), constrained_layout=True)
    styles = ["-", "--", "-.", ":"]
    for i, (label, name, t, values) in enumerate(curves):
        if name == "zero_one":
            # A step: drawn with its jump at z = 0 rather than a slope between grid points.
            ax.step(z, values, where="pre", color="k", lw=1.2, label=label)
        else:
            ax.plot(z, values, lw=1.6 if name == "coherence" else 1.1,
                    ls=styles[i % len(styles)] if name == "coherence" else "-",
                    color=f"C{i}", label=label)
    ax.axvline(0.0, color="0.8", lw=0.6, zorder=0)
    ax.set_xlim(*fig.margin_range)
    ax.set_xlabel("margin y f(x)")
    ax.set_ylabel("loss")
    ax.legend(fontsize=8, loc="upper right")
    ax.set_title(fig.title, fontsize=10)
    rows = [{"loss": name, "temperature": t, "z": float(zi), "value": float(v)}
            for _, name, t, values in curves for zi, v in zip(z, values)]
    frame = pd.DataFrame(rows, columns=["loss", "temperature", "z", "value"])
    return _save(plt, fig_, fig, out_dir, frame)


def _bayes_rule(cell):
    """The closed-form Bayes rule of the distribution the cell's rows were drawn from (a
    generator listed in ``generators.BAYES_RULES``), or None."""
    from ..datasets import get_spec
    from ..datasets.generators import BAYES_RULES
    spec = get_spec(cell.dataset)
    gen = spec.generator
    drawn = spec.source == "generator" or cell.data_source == "generator"
    if not drawn or gen is None or len(gen.calls) != 1:
        return None
    return BAYES_RULES.get(gen.calls[0].name)


def _mesh_record(curves: dict, extra: dict, wanted: tuple[int, ...]):
    """(x1, x2, {round: class grid (len(x2), len(x1))}, test X, test y) of the rounds in
    ``wanted`` (all recorded when empty) that the cell recorded; None without a record."""
    mesh = extra.get("mesh")
    if not mesh or "mesh_x1" not in curves:
        return None
    x1, x2 = np.asarray(curves["mesh_x1"]), np.asarray(curves["mesh_x2"])
    rounds = [r for r in mesh["rounds"] if not wanted or r in wanted]
    grids = {r: np.asarray(curves[f"mesh_round_{r}"]).astype(int).reshape(x2.size, x1.size)
             for r in rounds}
    X_test = np.column_stack([curves["test_x1"], curves["test_x2"]])
    return x1, x2, grids, X_test, np.asarray(curves["test_y"]).astype(int)


def decision_regions(config, fig, planned, store, out_dir: Path, results=None) -> list[Path]:
    """Decision regions of the selected cell at the recorded rounds, and its error curves;
    returns the written paths (none while the cell is not done or has no mesh record).

    Panels: one per drawn round (regions in light class colours, the test points in full
    colour, the Bayes decision boundary dashed where the dataset's distribution has one),
    then training and test error (%) per round on a log axis with the Bayes rule's error on
    the test points. The CSV holds the plotted numbers: both error curves per round, the
    Bayes rule's test error, and per drawn round the share of the mesh where the booster and
    the Bayes rule disagree."""
    plt = _pyplot()
    from matplotlib.colors import ListedColormap

    cells = _drawable_cells(config, fig, planned, store, results)
    if cells is None:
        return []
    cell, curves, extra = cells[fig.algorithm]
    record = _mesh_record(curves, extra, fig.rounds)
    if record is None or not record[2]:
        log.warning("figure %s is not drawn: the selected fit of %s stored no mesh of its "
                    "predictions at rounds %s; its files are left as they are", fig.id,
                    fig.algorithm, ", ".join(map(str, fig.rounds)) or "(any)")
        return []
    x1, x2, grids, X_test, y_test = record
    from ..datasets import get_spec
    spec = get_spec(cell.dataset)
    K = spec.n_classes
    names = extra["mesh"].get("classes") or [str(c) for c in range(K)]
    palette = [plt.get_cmap("tab10")(c % 10) for c in range(K)]
    light = ListedColormap([(*rgb[:3], 1.0) for rgb in
                            (np.array(c) * 0.35 + 0.65 for c in palette)])
    rule = _bayes_rule(cell)
    bayes_grid = bayes_test = None
    if rule is not None:
        g1, g2 = np.meshgrid(x1, x2)
        bayes_grid = rule(np.column_stack([g1.ravel(), g2.ravel()])).reshape(x2.size, x1.size)
        bayes_test = 100.0 * float(np.mean(rule(X_test) != y_test))

    rows = []
    train = 100.0 * np.asarray(curves["train"], dtype=float)
    test = 100.0 * np.asarray(curves["test"], dtype=float)
    n_panels = len(grids) + 1
    fig_, axes = plt.subplots(1, n_panels, figsize=(3.4 * n_panels, 3.6),
                              constrained_layout=True)
    for ax, (r, grid) in zip(axes, grids.items()):
        ax.pcolormesh(x1, x2, grid, cmap=light, vmin=-0.5, vmax=K - 0.5, shading="nearest",
                      rasterized=True)
        for c in range(K):
            pts = X_test[y_test == c]
            ax.scatter(pts[:, 0], pts[:, 1], s=4, color=palette[c], lw=0, label=names[c],
                       rasterized=True)         # thousands of points: pixels in the SVG
        if bayes_grid is not None:
            for c in range(K):          # each class's region outline: every boundary once
                ax.contour(x1, x2, (bayes_grid == c).astype(float), levels=[0.5],
                           colors="k", linestyles="--", linewidths=0.8)
            disagree = 100.0 * float(np.mean(grid != bayes_grid))
            rows.append({"series": "mesh_disagreement_with_bayes_percent", "round": r,
                         "value": disagree})
        ax.set_title(f"round {r}: test error {test[r - 1]:.2f}%", fontsize=9)
        ax.set_xlabel(spec.features[0] if len(spec.features) == 2 else "x1")
        ax.set_ylabel(spec.features[1] if len(spec.features) == 2 else "x2")
    if bayes_grid is not None:
        axes[0].plot([], [], color="k", ls="--", lw=0.8, label="Bayes")   # legend entry only
    axes[0].legend(fontsize=7, loc="upper right", markerscale=2, title="class",
                   title_fontsize=7)
    ax = axes[-1]
    x = np.arange(1, train.size + 1)
    ax.plot(x, train, color="C0", lw=1.2, label="training error")
    ax.plot(x, test, color="C3", lw=1.5, label="test error")
    if bayes_test is not None:
        ax.axhline(bayes_test, color="k", ls="--", lw=1,
                   label=f"Bayes rule, test set ({bayes_test:.2f}%)")
        rows.append({"series": "bayes_test_error_percent", "round": None, "value": bayes_test})
    for r in grids:
        ax.axvline(r, color="0.6", ls=":", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("boosting round")
    ax.set_ylabel("error (%)")
    ax.set_title(f"{fig.dataset}, fold {fig.fold}: error per round", fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    rows += [{"series": f"{part}_error_percent", "round": int(r), "value": float(v)}
             for part, ys in (("train", train), ("test", test)) for r, v in zip(x, ys)]
    params = ", ".join(f"{k}={v}" for k, v in cell.params)
    title = (fig.title + f" — {fig.algorithm} ({params})"
             + (" — QUICK (reduced budget)" if config.is_quick else ""))
    fig_.suptitle(title, fontsize=10)
    frame = pd.DataFrame(rows, columns=["series", "round", "value"])
    frame["round"] = pd.array(frame["round"], dtype="Int64")
    return _save(plt, fig_, fig, out_dir, frame, float_format="%.6f")
