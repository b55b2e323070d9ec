"""The work function: run one cell (in whatever process the executor chose).

Everything random is derived from the cell (dataset, seed, fold, noise rate), so the result
is the same whichever worker runs it and in whatever order. Per process, the dataset, its
fold split and its binned features are cached, so the cells of one fold share one binning
(features are binned once per fold on the training part).
"""

from __future__ import annotations

import platform
import time
from functools import lru_cache

import numpy as np

from .. import __version__
from ..algorithms.registry import get_algorithm
from ..learners.binning import Binned, BinMapper
from ..protocol.noise import noisy_labels
from ..protocol.selection import reported_round
from ..protocol.splits import make_split
from .cells import DONE, Cell, CellResult


@lru_cache(maxsize=4)
def _dataset(name: str, fetch: bool = False, mirror: str | None = None, source: str = ""):
    from ..datasets import load_dataset
    # Local workers: the coordinating process fetched every dataset before starting, so they
    # read the cache. Cluster workers may have a cache of their own: they fetch (verified).
    return load_dataset(name, mirror=mirror, offline=not fetch, source=source or None)


@lru_cache(maxsize=8)
def _fold(dataset: str, protocol: str, seed: int, fold: int, max_bins: int,
          fetch: bool = False, mirror: str | None = None, source: str = ""):
    ds = _dataset(dataset, fetch, mirror, source)
    split = make_split(protocol, ds.n_samples, dataset, seed, fold, ds.test_mask)
    mapper = BinMapper(max_bins=max_bins, categorical=ds.categorical).fit(ds.X[split.train])
    binned = {part: Binned(mapper.transform(ds.X[getattr(split, part)]), mapper)
              for part in ("train", "valid", "test")}
    return split, binned


def versions() -> dict:
    import numba
    return {"mcboost": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__}


def phase1_train_error(train_curve, n_phase1) -> float | None:
    """The training error after the last Phase I round of a two-phase booster (where Phase II
    starts from); None when Phase I kept no round. Recorded with every such fit (``extra``,
    ``cells.csv``) because it tells whether Phase II began from a low training error, which
    the DMCBoost paper names as its premise ("phase II often performs better when it starts
    with a low training error")."""
    n1 = int(n_phase1 or 0)
    if n1 < 1 or len(train_curve) < n1:
        return None
    return float(train_curve[n1 - 1])


def run_cell(cell: Cell, checkpoints=None, fetch: bool = False,
             mirror: str | None = None) -> CellResult:
    """Fit the cell's algorithm on its fold and return its errors at the reported round.

    The round is the one ``protocol.selection.reported_round`` chooses (validation-best, the
    last, or the algorithm's own), stored with the name of its rule (``round_rule``).

    ``checkpoints`` (a ``checkpoint.CheckpointDir``, optional): save the fit's state between
    rounds and continue from a saved state, so a fit longer than its process still ends
    (``fit_seconds`` then counts the time before the interruption too). ``fetch``: download
    a dataset missing from this process's cache (from ``mirror`` if given), as cluster
    workers must; otherwise the cache must hold it."""
    t0 = time.perf_counter()
    ds = _dataset(cell.dataset, fetch, mirror, cell.data_source)
    params = cell.params_dict
    split, binned = _fold(cell.dataset, cell.protocol, cell.seed, cell.fold,
                          int(params.get("max_bins", 255)), fetch, mirror, cell.data_source)
    y = ds.y
    trval = np.concatenate([split.train, split.valid])
    y_noisy, flipped = noisy_labels(y, trval, cell.noise_rate, ds.n_classes,
                                    dataset=cell.dataset, seed=cell.seed, fold=cell.fold)
    est = get_algorithm(cell.algorithm)(**params)
    t_fit, cpu_fit = time.perf_counter(), time.thread_time()
    # Training and validation labels carry the noise; the test labels are the clean ones.
    has_valid = split.valid.size > 0
    eval_set = [(binned["test"], y[split.test])]
    if has_valid:
        eval_set.insert(0, (binned["valid"], y_noisy[split.valid]))
    ckpt = checkpoints.for_cell(cell.key) if checkpoints is not None else None
    # Fits of a grid that share their first rounds (DMCBoost's Phase I for every n') take
    # them from the sibling that computed them first (algorithms.base, "Shared prefixes").
    prefix = checkpoints.prefixes() if checkpoints is not None else None
    est.fit(binned["train"], y_noisy[split.train], eval_set=eval_set, checkpoint=ckpt,
            prefix=prefix)
    fit_seconds = ckpt.elapsed() if ckpt is not None else time.perf_counter() - t_fit
    # CPU time of this thread, which runs the whole fit (the numba kernels are single-threaded):
    # unlike fit_seconds it does not grow when other processes share the cores, and other
    # fits in threads of the same process (Dask workers with --nthreads > 1) do not count.
    cpu_seconds = ckpt.elapsed_cpu() if ckpt is not None else time.thread_time() - cpu_fit
    extra = {"stop_reason": est.stop_reason_, "n_train": int(split.train.size),
             "n_valid": int(split.valid.size), "n_test": int(split.test.size),
             "n_flipped": int(flipped.size)}
    if ckpt is not None and ckpt.resumed_round:
        # Continued from a mid-fit checkpoint (the numbers are those of an uninterrupted fit).
        extra["resumed_from_round"] = ckpt.resumed_round
    if getattr(est, "prefix_rounds_", 0):
        # Its first rounds (and their CPU time) were a sibling's: fit_seconds and cpu_seconds
        # count this fit's own work only, so their sum over a grid is what the grid cost.
        extra["prefix_rounds"] = int(est.prefix_rounds_)
    if hasattr(est, "n_phase1_rounds_"):
        # Two-phase boosters (DMCBoost): rounds 1..n_phase1 are Phase I (the figures mark it).
        extra["n_phase1_rounds"] = int(est.n_phase1_rounds_)
        e1 = phase1_train_error(est.train_errors_, est.n_phase1_rounds_)
        if e1 is not None:
            extra["phase1_train_error"] = e1
    if est.n_rounds_ == 0:
        # No weak learner was accepted (e.g. AdaBoost.M1 with err >= 1/2 in round 1): there
        # is no classifier to score. Stored as done with no errors; tables mark it "no fit".
        return CellResult(key=cell.key, status=DONE, selected_round=0, n_rounds=0,
                          curves={"train": [], "valid": [], "test": []},
                          extra=dict(extra, no_fit=True), fit_seconds=fit_seconds,
                          cpu_seconds=cpu_seconds,
                          wall_seconds=time.perf_counter() - t0, versions=versions())
    curves = {"train": est.train_errors_.tolist(), "test": est.eval_errors_[-1].tolist()}
    if has_valid:
        curves["valid"] = est.eval_errors_[0].tolist()
    r, extra["round_rule"] = reported_round(est, has_valid)
    return CellResult(
        key=cell.key, status=DONE, selected_round=r,
        train_error=curves["train"][r - 1],
        valid_error=curves["valid"][r - 1] if has_valid else None,
        test_error=curves["test"][r - 1], n_rounds=est.n_rounds_, curves=curves,
        extra=extra,
        fit_seconds=fit_seconds, cpu_seconds=cpu_seconds, wall_seconds=time.perf_counter() - t0,
        versions=versions(),
    )
