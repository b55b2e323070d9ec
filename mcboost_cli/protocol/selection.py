"""Model selection: which round of a fit and which grid point of a fold the tables report.

Every selection rule of the papers' protocols is here, and nowhere else.

Map of the module
-----------------
``select_round``    the validation-best round of one fit (early stopping)
``reported_round``  the round whose ensemble a fit reports, and the name of the rule that chose
                    it (``runner.work.run_cell`` stores both with the cell: ``selected_round``
                    and ``extra["round_rule"]``)
``GROUP``           the columns that identify one selection: (table, dataset, noise rate,
                    seed, fold, algorithm entry)
``plan_frame``      planned cells (duck-typed) as the plain frame ``select`` reads
``select``          the grid point selected in every group, from the done fits

The rules
---------
1. **Round of a fit** (``reported_round``; checked in this order):

   a. *The algorithm's own stopping rule* (classes with ``early_stopping = False``: DMCBoost
      and the DirectBoost variants; CART, whose one round is its CV-pruned tree; BrownBoost,
      whose fit ends when its time is used up), under every protocol, with or without a
      validation part:
      the ensemble with the best Phase II objective (``best_round_``; the Phase I ensemble
      when Phase II never raised the objective; with epsilon-relaxation the fit itself runs
      up to ``patience`` rounds past it). When ``best_round_`` is 0 (the fit ended before
      Phase II began, or Phase I kept no round and Phase II never raised the objective) the
      last round kept is reported. Validation does not choose the round; it only chooses
      among the grid points (rule 2). Rule name "own stopping rule".
   b. *No validation part* (protocol ``predefined``: the catalog's train/test split, as the
      DMCBoost paper evaluates its pre-split datasets): nothing is early-stopped; the
      ensemble after the last round the fit kept (``n_rounds_``: the round budget, or fewer
      when the algorithm terminated on its own, e.g. AdaBoost.M1 at a weighted error of 1/2)
      is reported. Rule name "last round (no validation part)".
   c. *Early stopping on validation* (every other fit, protocols ``five_fold``,
      ``random_splits``, ``five_fold_train``, ``predefined_holdout`` and
      ``predefined_test_halves``): the round whose ensemble has the lowest
      validation 0-1 error, the earliest such round on ties (the smallest ensemble;
      ``select_round``). Rule name "validation early stopping". Under ``random_splits`` (the
      REBEL paper: 25% "for validation (i.e. for setting hyperparameters where needed)") the
      validation part chooses the round and the grid point as under ``five_fold``.

   A fit that kept no round at all (no weak learner accepted) has no ensemble:
   ``run_cell`` stores it as done with round 0 and no errors ("no fit"), before any of
   these rules is asked.

2. **Grid point of a fold** (``select``): in every ``GROUP`` — (table, dataset, noise rate,
   seed, fold, algorithm entry) — among the grid points whose fit is done, the one with the
   lowest validation error at its own reported round (rule 1: for DMCBoost at its own
   stopping round) is selected, the first in grid order (the config's order, ``grid_index``)
   on ties. Done fits without a validation error (no fit; no validation part) rank after every
   fit with one, in grid order. A group whose grid is only partly done selects among its done
   points and says so (``complete_grid`` False: tables mark the cell, figures wait). Under
   the ``predefined`` protocol there is nothing to select on, and a config may not give a
   grid there (``runner.config`` refuses it), so its single grid point is the selection.
   The test error at the selected round of the selected grid point is what a table reports.

3. **Test errors never choose anything.** The round is chosen from the validation curve or
   from the fit's own training objective, the grid point from the validation errors; test
   errors are only read at the choice (labels of the validation part may carry the
   configured label noise, test labels never do, ``protocol.noise``).

This is a lower layer than ``runner`` and ``report``: it reads duck-typed estimators, planned
cells and plain frames, and imports neither.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

# The store's word for a finished fit (``runner.cells.DONE``; a test holds the two equal).
DONE = "done"

# One selection among grid points: a fold of a dataset at a noise rate and seed, for one
# algorithm entry (table column) of one table.
GROUP = ["table_index", "dataset", "noise_rate", "seed", "fold", "entry_index"]

# The columns ``select`` reads from the results frame and carries into its answer.
RESULT_COLUMNS = ["key", "status", "valid_error", "test_error", "train_error", "selected_round"]

RULE_OWN = "own stopping rule"
RULE_LAST = "last round (no validation part)"
RULE_VALIDATION = "validation early stopping"


def select_round(valid_curve: np.ndarray) -> int:
    """1-based round with the lowest validation error (the first one on ties).

    Parameters
    ----------
    valid_curve : ndarray (n_rounds,), the validation 0-1 error after each round
    """
    return int(np.argmin(valid_curve)) + 1


def reported_round(est, has_validation: bool) -> tuple[int, str]:
    """(1-based round whose ensemble is reported, the name of the rule that chose it).

    Parameters
    ----------
    est : a fitted booster with at least one round: ``n_rounds_``; ``eval_errors_`` (its
        first row the validation curve when ``has_validation``) for early stopping;
        ``early_stopping`` (class attribute, default True) and ``best_round_`` for an
        algorithm with its own stopping rule
    has_validation : bool, whether the fit had a validation part (the first eval set)
    """
    if not getattr(est, "early_stopping", True):
        # DMCBoost: the bottom-n' margin maximum; validation only selects among grid points.
        return int(getattr(est, "best_round_", 0) or est.n_rounds_), RULE_OWN
    if not has_validation:
        # eval_errors_[0] is then the test curve, which must not choose: the last round.
        return int(est.n_rounds_), RULE_LAST
    return select_round(est.eval_errors_[0]), RULE_VALIDATION


def plan_frame(planned: Iterable) -> pd.DataFrame:
    """One row per planned cell with its place in the tables: key, ``GROUP``, grid_index,
    label and params.

    Parameters
    ----------
    planned : iterable of planned cells (``runner.plan.PlannedCell`` or anything with
        ``table_index``, ``entry_index``, ``grid_index`` and a ``cell`` with ``key``,
        ``dataset``, ``noise_rate``, ``seed``, ``fold``, ``label``, ``params``)
    """
    return pd.DataFrame([{
        "key": pc.cell.key, "dataset": pc.cell.dataset, "noise_rate": pc.cell.noise_rate,
        "seed": pc.cell.seed, "fold": pc.cell.fold, "table_index": pc.table_index,
        "entry_index": pc.entry_index,
        "grid_index": pc.grid_index, "label": pc.cell.label,
        "params": dict(pc.cell.params),
    } for pc in planned])


def select(plan, results: pd.DataFrame) -> pd.DataFrame:
    """The selected grid point of every ``GROUP`` among its done fits (rule 2 above).

    Parameters
    ----------
    plan : DataFrame with one row per planned fit and columns key, the ``GROUP`` columns and
        grid_index (any others are carried along), or an iterable of planned cells, read
        with ``plan_frame``
    results : DataFrame of the fits' results, columns ``RESULT_COLUMNS``: key, status,
        valid_error, test_error, train_error, selected_round (rows of keys not planned are
        ignored)

    Returns
    -------
    DataFrame, one row per group with at least one done fit: the plan's columns, the selected
    fit's ``RESULT_COLUMNS``, grid_size (grid points planned in the group) and complete_grid
    (every one of them done). Empty when no planned fit is done.
    """
    plan = plan if isinstance(plan, pd.DataFrame) else plan_frame(plan)
    res = results[RESULT_COLUMNS] if len(results) else pd.DataFrame(columns=RESULT_COLUMNS)
    df = plan.merge(res, on="key", how="left")
    n_grid = df.groupby(GROUP)["grid_index"].transform("size")
    df["grid_size"] = n_grid
    done = df[df["status"] == DONE].copy()
    if done.empty:
        return done.assign(complete_grid=pd.Series(dtype=bool))
    # Stable sort: lowest validation error first, NaN (no validation error) last, then grid
    # order, so the head of each group is the selection with its tie-break.
    done = done.sort_values(GROUP + ["valid_error", "grid_index"], kind="mergesort")
    n_done = done.groupby(GROUP)["key"].transform("size")
    sel = done.groupby(GROUP, as_index=False).head(1).copy()
    sel["complete_grid"] = (n_done.loc[sel.index] == sel["grid_size"]).to_numpy()
    return sel.reset_index(drop=True)
