"""Compile the kernels of a run once, spread over its workers, before its cells.

numba compiles a kernel in the first process that calls it. With a cold kernel cache (a new
machine, a new version of the kernels) the workers of a run all start with a cell of the same
algorithm and compile the same kernels side by side: ``configs/uci.yaml --quick`` with 2
workers spent 548 s in each worker compiling DMCBoost's two tree growers, the same code twice
(2026-11-28, ``ALGORITHMS.md``, Speed, "Compile time"). Before the cells, ``warm_up_kernels``
sends a few small fits through the same executor: one per algorithm of the run, and for the
algorithms whose compile splits (``_warm_up_parts``: DMCBoost's Phase II grower apart from its
first fit's Phase I), one per part, the largest parts first. ``_kernel_cache.
kernel_compile_lock`` makes a process that needs a kernel another process is compiling wait
for it and load it from the cache. With a warm cache each part costs a fraction of a second.

Map of the module
-----------------
``WarmUp``               one part of one algorithm's compile (picklable, with a ``key``)
``warm_up_tasks``        the parts for the cells of a run, in the order they should start
``warm_up``              runs one in whatever process the executor chose (never raises)
``warm_up_problem``      the small synthetic problem they are fitted on
``warm_up_kernels``      sends the parts through an executor and waits for all of them

Nothing here reaches a result: the cells' numbers do not depend on whether, where or in
which order the warm-up ran (a test checks it).
"""

from __future__ import annotations

import traceback
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..algorithms.registry import get_algorithm
from ..learners.binning import Binned, BinMapper

# Parameters that only say how long a fit runs, capped in a warm-up fit (the kernels are the
# same after 10 rounds as after 5000).
_LENGTH_PARAMS = {"n_rounds": 10, "max_iter": 10}


@dataclass(frozen=True)
class WarmUp:
    """Part ``part`` of ``algorithm``'s compile, with the parameters of its first cell.

    ``part`` is ``"fit"`` (a whole small fit, and a prediction) or one of the algorithm's
    ``_warm_up_parts`` that its ``_warm_up(part, X, y)`` runs."""

    algorithm: str
    params: tuple
    part: str

    @property
    def key(self) -> str:   # executors name failed items by key
        return f"warm-up:{self.algorithm}:{self.part}"


def warm_up_tasks(cells) -> list[WarmUp]:
    """One ``WarmUp`` per part of each algorithm of ``cells`` (the parameters of its first
    cell), in this order: the first parts of the algorithms whose compile splits, then the
    algorithms with one part, then the rest of the split ones (their whole fit runs last, when
    it can load from the cache what the first parts compiled)."""
    first: dict[str, tuple] = {}
    for cell in cells:
        first.setdefault(cell.algorithm, cell.params)
    ranked = []
    for algorithm, params in first.items():
        try:
            parts = tuple(getattr(get_algorithm(algorithm), "_warm_up_parts", ())) + ("fit",)
        except Exception:     # an unknown algorithm fails in its own cells, not here
            continue
        for i, part in enumerate(parts):
            rank = 1 if len(parts) == 1 else (0 if i < len(parts) - 1 else 2)
            ranked.append((rank, WarmUp(algorithm, params, part)))
    ranked.sort(key=lambda r: r[0])      # stable: plan order within a rank
    return [task for _, task in ranked]


@lru_cache(maxsize=4)
def warm_up_problem(n_classes: int, max_bins: int):
    """A small problem shaped like a cell's: 240 rows of 6 features, ``n_classes`` classes
    (a noisy linear rule), split 160 / 40 / 40 and binned on the training part, returned as
    ``(X_train, y_train, eval_set)`` like ``work.run_cell`` hands them to ``fit``."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 6))
    y = np.argmax(X[:, :n_classes] + 0.5 * rng.normal(size=(240, n_classes)), axis=1)
    y = y.astype(np.int64)
    parts = (slice(0, 160), slice(160, 200), slice(200, 240))
    mapper = BinMapper(max_bins=max_bins, categorical=np.zeros(6, bool)).fit(X[parts[0]])
    binned = [Binned(mapper.transform(X[p]), mapper, raw=X[p]) for p in parts]
    return binned[0], y[parts[0]], [(binned[1], y[parts[1]]), (binned[2], y[parts[2]])]


def warm_up(task: WarmUp):
    """Run ``task`` (in a worker): returns ``(task, None)``, or ``(task, last line of the
    error)`` if it failed — a failing warm-up changes nothing, the cells report their own
    errors."""
    try:
        cls = get_algorithm(task.algorithm)
        params = dict(task.params)
        names = set(cls().get_params())
        for name, cap in _LENGTH_PARAMS.items():
            if name in params and isinstance(params[name], int):
                params[name] = min(params[name], cap)
        params.update({k: v for k, v in getattr(cls, "_warm_up_params", {}).items()
                       if k in names})
        est = cls(**params)
        X, y, eval_set = warm_up_problem(2 if getattr(cls, "binary_only", False) else 3,
                                         int(params.get("max_bins", 255)))
        with warnings.catch_warnings():
            # A capped fit on a tiny problem may warn (not converged, ...): not the user's.
            warnings.simplefilter("ignore")
            if task.part == "fit":
                est.fit(X, y, eval_set=eval_set)
                est.predict(eval_set[-1][0])
            else:
                est._warm_up(task.part, X, y)
        return task, None
    except Exception:     # noqa: BLE001 - reported, never raised (module docstring)
        lines = traceback.format_exc().strip().splitlines()
        return task, lines[-1] if lines else "error"


def warm_up_kernels(cells, executor) -> list[tuple[WarmUp, str]]:
    """Run the ``warm_up_tasks`` of ``cells`` through ``executor`` (an executor with several
    local worker processes; others gain nothing) and wait for all of them. Returns the failed
    parts with their errors."""
    failed = []
    for task, result in executor.imap_unordered(warm_up, warm_up_tasks(cells)):
        if isinstance(result, tuple):
            error = result[1]
        else:                          # the executor's own failure record (a worker died)
            error = getattr(result, "traceback", None) or "failed"
        if error:
            failed.append((task, error))
    return failed
