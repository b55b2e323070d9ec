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
from ..protocol.noise import parts_of_key, split_noisy_labels
from ..protocol.seeding import derive_seed
from ..protocol.selection import reported_round
from ..protocol.splits import make_split
from .cells import DONE, Cell, CellResult
from .fit_clock import fit_cpu_time


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
    # Each part keeps its raw feature values too, for the learners that need them.
    binned = {part: Binned(mapper.transform(ds.X[getattr(split, part)]), mapper,
                           raw=ds.X[getattr(split, part)])
              for part in ("train", "valid", "test")}
    return split, binned


def versions() -> dict:
    """Software versions and the machine a cell ran on (kept with the cell in the store), so
    that timings can be told with the machine they were measured on (the DirectBoost paper's
    Table 2 names its own: "Core2 Duo 2.6GHz CPU")."""
    import numba
    return {"mcboost": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "machine": machine()}


@lru_cache(maxsize=1)
def machine() -> str:
    """The processor's model name (Linux: /proc/cpuinfo; elsewhere ``platform.processor()``)
    and the number of logical cores, e.g. "Intel(R) Xeon(R) ... (2 cores)"."""
    import os
    name = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    name = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    name = name or platform.processor() or platform.machine() or "unknown processor"
    return f"{name} ({os.cpu_count() or '?'} cores)"


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


def cell_random_state(cell: Cell) -> int:
    """The seed of whatever an algorithm draws inside one cell's fit (``random_state``):
    derived from the cell's data (dataset, seed, fold, noise rate) and algorithm by hashing
    (``protocol.seeding.derive_seed``), so it is the same in every process and run order."""
    return derive_seed("fit", cell.dataset, "seed", int(cell.seed), "fold", int(cell.fold),
                       "noise", float(cell.noise_rate), "algorithm", cell.algorithm)


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
    # The noise changes labels of the cell's noise parts only (by default the training and
    # validation parts; the test part never).
    y_noisy, flipped = split_noisy_labels(y, split, cell.noise_rate, ds.n_classes,
                                          parts_of_key(cell.noise_parts), dataset=cell.dataset,
                                          seed=cell.seed, fold=cell.fold)
    est = get_algorithm(cell.algorithm)(**params)
    if "random_state" in est.get_params():
        # An algorithm that draws inside its fit (CART's cross-validation folds) gets a seed
        # that is a function of the cell (not a config parameter: the key already fixes it).
        est.set_params(random_state=cell_random_state(cell))
    t_fit, cpu_fit = time.perf_counter(), fit_cpu_time()
    # Training and validation labels carry the noise where the cell puts it (y_noisy equals y
    # elsewhere); the test labels are the clean ones.
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
    # fits in threads of the same process (Dask workers with --nthreads > 1) do not count;
    # nor does numba compiling the kernels this fit happened to call first (fit_clock).
    cpu_seconds = ckpt.elapsed_cpu() if ckpt is not None else fit_cpu_time() - cpu_fit
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
    if ds.n_features == 2 and not ds.categorical.any():
        # Two numeric features: the decision regions at a few rounds, for figures.
        mesh_curves, extra["mesh"] = decision_mesh(est, ds.X, ds.X[split.test], y[split.test],
                                                   r, ds.classes)
        curves.update(mesh_curves)
    return CellResult(
        key=cell.key, status=DONE, selected_round=r,
        train_error=curves["train"][r - 1],
        valid_error=curves["valid"][r - 1] if has_valid else None,
        test_error=curves["test"][r - 1], n_rounds=est.n_rounds_, curves=curves,
        extra=extra,
        fit_seconds=fit_seconds, cpu_seconds=cpu_seconds, wall_seconds=time.perf_counter() - t0,
        versions=versions(),
    )


def decision_mesh(est, X_all: np.ndarray, X_test: np.ndarray, y_test: np.ndarray,
                  reported: int, classes=(), rounds=(1, 10, 100), size: int = 120,
                  pad: float = 0.05) -> tuple[dict, dict]:
    """The fitted ensemble's predicted class on a fixed mesh at a few rounds, for figures of
    decision regions (``report.figures.decision_regions``), which never refit.

    The default rounds follow the MCBoost paper's Figure 2 (t = 0, 10, 100; at t = 0 every
    score is zero, one class everywhere, so round 1 instead); the reported and the last round
    are always added.

    Parameters
    ----------
    est : fitted booster
        Its ``staged_predict`` gives the predictions after each round.
    X_all : ndarray (n_samples, 2)
        Every row of the dataset: the mesh covers their bounding box (the same mesh on every
        fold), widened by ``pad`` times its extent on each side.
    X_test, y_test : ndarray
        The fold's test rows and their labels, stored so that a figure can scatter them.
    reported : int
        The reported round (recorded besides ``rounds`` and the last round).
    classes : sequence of str
        The dataset's class names (code c is ``classes[c]``), kept for the figure's legend.
    rounds : tuple of int
        Rounds to record (those beyond the fit's last round are left out).
    size : int
        Points of the mesh along each axis.
    pad : float
        Margin around the bounding box, as a fraction of its extent.

    Returns
    -------
    curves : dict of str to list of float
        ``mesh_x1`` (size,), ``mesh_x2`` (size,): the mesh's coordinates;
        ``mesh_round_<r>`` (size * size,): the class code predicted at point
        (x1[i], x2[j]) by the ensemble of the first r rounds, at index j * size + i;
        ``test_x1``, ``test_x2``, ``test_y``: the test rows. Kept in the store's compressed
        ``curves`` column (read only when asked for), not in ``extra`` or ``cells.csv``.
    mesh : dict
        ``{"rounds": [...], "size": size, "classes": [...]}``: what was recorded (the
        result's ``extra``).
    """
    lo, hi = np.nanmin(X_all, axis=0), np.nanmax(X_all, axis=0)
    margin = pad * np.where(hi > lo, hi - lo, 1.0)
    x1 = np.linspace(lo[0] - margin[0], hi[0] + margin[0], size)
    x2 = np.linspace(lo[1] - margin[1], hi[1] + margin[1], size)
    g1, g2 = np.meshgrid(x1, x2)                # row j = x2[j], column i = x1[i]
    points = np.column_stack([g1.ravel(), g2.ravel()])
    n = int(est.n_rounds_)
    rounds = sorted({r for r in (*rounds, int(reported), n) if 1 <= r <= n})
    curves = {"mesh_x1": x1.tolist(), "mesh_x2": x2.tolist()}
    for t, pred in enumerate(est.staged_predict(points), start=1):
        if t in rounds:
            curves[f"mesh_round_{t}"] = pred.astype(np.float64).tolist()
        if t >= rounds[-1]:
            break
    curves.update(test_x1=X_test[:, 0].tolist(), test_x2=X_test[:, 1].tolist(),
                  test_y=np.asarray(y_test, dtype=np.float64).tolist())
    return curves, {"rounds": rounds, "size": int(size), "classes": [str(c) for c in classes]}
