"""Executors: run a function over cells, serially, in a local process pool or on a Dask cluster.

Map of the module
-----------------
``run_guarded(fn, item, timeout)``
    Runs ``fn(item)`` so that nothing it does can stop the run: an exception becomes a
    ``failed`` result with the traceback, exceeding ``timeout`` seconds a ``timeout`` result.
``SerialExecutor()``
    Runs items one after the other in the calling process (debugging, ``--jobs 1``).
``LocalProcessExecutor(n_jobs)``
    A ``concurrent.futures.ProcessPoolExecutor`` with bounded submission, crash recovery and
    prompt teardown on Ctrl-C.
``DaskExecutor(scheduler, n_workers)``
    The cells as tasks of a Dask ``distributed`` cluster (an existing scheduler's address, or
    a local cluster of worker processes): the path for grids that outgrow one machine.

All executors have the same interface: ``imap_unordered(fn, items)`` yields ``(item, result)``
pairs as they complete, ``shutdown(cancel_pending=True)`` stops, and all are context managers.
Items are cells (they have a ``key``) and ``fn`` returns a ``CellResult``; ``fn`` is normally
``functools.partial(run_guarded, work_fn, timeout=...)`` with a picklable top-level ``work_fn``.

Determinism
-----------
Executors pass nothing but the item to the work function: no RNG state, no worker index. The
work function derives every seed from the cell itself (``protocol.seeding.derive_seed``), so a
cell's result does not depend on which worker ran it, in which order, or with how many jobs.

Start method
------------
Worker processes are started with ``spawn``. The work function runs numba-compiled code, and
numba (like OpenMP/TBB and the executor's own manager thread) starts threads; ``fork`` copies a
process that has threads, which can deadlock the child on a lock held by a thread that does not
exist in the copy. ``spawn`` starts a fresh interpreter and costs an import of numpy/numba per
worker, once per pool: negligible against a grid of fits.

Timeouts
--------
The per-cell timeout is a ``setitimer(ITIMER_REAL)`` alarm in the process that runs the cell
(a worker, or the main thread for the serial executor); its SIGALRM handler raises a private
exception. Python runs signal handlers between bytecodes, and the boosting loop returns to
Python between rounds, so a long fit is interrupted at the next round boundary.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import pickle
import platform
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    CancelledError,
    ProcessPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Self

from .cells import FAILED, TIMEOUT, CellResult

WORKER_DIED = ("a worker process died while this cell was in flight (killed by the operating "
               "system, e.g. out of memory, or crashed in native code); every cell in flight at "
               "that moment is marked failed, not only the culprit; re-run with --retry-failed")


# --------------------------------------------------------------------------------------------
# Running one item safely
# --------------------------------------------------------------------------------------------

class _CellTimeout(BaseException):
    """Raised by the SIGALRM handler. A BaseException so that a work function's own
    ``except Exception`` cannot swallow it."""


def _raise_timeout(signum, frame):
    raise _CellTimeout()


@contextmanager
def _alarm(timeout: float | None):
    """Raise ``_CellTimeout`` in this (main) thread after ``timeout`` seconds."""
    if timeout is None:
        yield
        return
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("a cell timeout needs the main thread (signals are delivered there); "
                           "run the serial executor from the main thread")
    previous = signal.signal(signal.SIGALRM, _raise_timeout)
    signal.setitimer(signal.ITIMER_REAL, float(timeout))
    try:
        yield
    finally:
        # If the alarm fires between the end of the work and this line, _CellTimeout comes out
        # of here and the cell counts as timed out, which it (just) did.
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@lru_cache(maxsize=1)
def runtime_versions() -> dict[str, str]:
    """Versions of the software that computes results in this process (stored with each row)."""
    import numpy

    from .. import __version__

    try:
        import numba
        numba_version = numba.__version__
    except ImportError:  # pragma: no cover - numba is a dependency
        numba_version = "missing"
    return {"python": platform.python_version(), "numpy": numpy.__version__,
            "numba": numba_version, "mcboost": __version__}


def run_guarded(fn: Callable[[Any], CellResult], item: Any,
                timeout: float | None = None) -> CellResult:
    """Run ``fn(item)`` and always return a ``CellResult``.

    Parameters
    ----------
    fn : callable
        ``fn(item) -> CellResult``; a picklable top-level function when used with a process
        pool.
    item : Cell
        Anything with a ``key`` attribute.
    timeout : float or None
        Seconds after which the cell is stopped and reported as ``timeout``; None for no limit.

    Returns
    -------
    CellResult
        ``fn``'s result; or status ``failed`` with the traceback if ``fn`` raised (or returned
        something that is not a result for this key); or status ``timeout``. ``wall_seconds``
        and ``versions`` are filled in when ``fn`` left them None.

    Notes
    -----
    ``KeyboardInterrupt`` and ``SystemExit`` are not caught: they stop the run.
    """
    start = time.perf_counter()
    try:
        with _alarm(timeout):
            result = fn(item)
        if not isinstance(result, CellResult) or result.key != item.key:
            raise TypeError(f"work function returned {type(result).__name__} "
                            f"(key {getattr(result, 'key', None)!r}), expected a CellResult "
                            f"with key {item.key!r}")
    except _CellTimeout:
        # The traceback shows where the fit was interrupted (e.g. which round).
        result = CellResult(key=item.key, status=TIMEOUT,
                            traceback=f"timed out after {timeout:g} s\n{traceback.format_exc()}")
    except Exception:  # noqa: BLE001 - any error of one cell is that cell's result
        result = CellResult(key=item.key, status=FAILED, traceback=traceback.format_exc())
    if result.wall_seconds is None:
        result.wall_seconds = time.perf_counter() - start
    if result.versions is None:
        result.versions = runtime_versions()
    return result


# --------------------------------------------------------------------------------------------
# Executors
# --------------------------------------------------------------------------------------------

class SerialExecutor:
    """Run items one after the other in the calling process.

    Timeouts work here too (the alarm is raised in the main thread), and Ctrl-C interrupts the
    running cell immediately.
    """

    n_jobs = 1

    def imap_unordered(self, fn: Callable, items: Iterable) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, fn(item))`` for each item, in order."""
        for item in items:
            yield item, fn(item)

    def shutdown(self, cancel_pending: bool = True) -> None:
        """Nothing to release."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()


def _watch_parent() -> None:
    # Runs in a daemon thread of each worker: if the coordinating process dies without tearing
    # the pool down (SIGKILL, OOM killer), exit instead of finishing a possibly hours-long cell
    # nobody will store. Signals stay with the main thread, where the timeout handler lives.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM, signal.SIGINT})
    parent = multiprocessing.parent_process()
    if parent is not None:
        parent.join()
        os._exit(1)


def _init_worker() -> None:
    # Ctrl-C goes to the whole foreground process group. Workers ignore it and let the
    # coordinator decide: it cancels pending work and terminates them. Otherwise a worker
    # could die while idle and break the pool, or report a KeyboardInterrupt as a result.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, name="mcboost-parent-watch", daemon=True).start()


class LocalProcessExecutor:
    """Run items in a pool of local worker processes.

    Parameters
    ----------
    n_jobs : int, optional
        Number of worker processes; default ``os.cpu_count()``.

    Notes
    -----
    - At most ``2 * n_jobs`` items are submitted at a time (enough to keep every worker busy
      while results are being stored), so a plan of a million cells costs no memory up front.
    - Workers are started with ``spawn`` (see the module docstring) and ignore SIGINT.
    - If a worker process dies, the pool is broken: every item in flight at that moment gets a
      ``failed`` result with :data:`WORKER_DIED` as its traceback (the pool cannot tell which
      one was the culprit), and a fresh pool runs the remaining items.
    - ``fn`` and the items must be picklable (``fn`` a top-level function or a
      ``functools.partial`` of one).
    """

    def __init__(self, n_jobs: int | None = None):
        self.n_jobs = int(n_jobs) if n_jobs is not None else (os.cpu_count() or 1)
        if self.n_jobs < 1:
            raise ValueError(f"n_jobs must be at least 1, got {n_jobs}")
        self._pool: ProcessPoolExecutor | None = None

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.n_jobs, mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker)
        return self._pool

    def imap_unordered(self, fn: Callable, items: Iterable) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, fn(item))`` pairs in completion order.

        An exception that escapes ``fn`` in a worker (or a result that cannot be sent back) is
        turned into a ``failed`` result for that item, so the run goes on.

        Raises
        ------
        pickle.PicklingError, AttributeError, TypeError
            If ``fn`` cannot be pickled (it must be a top-level function or a partial of one).
        """
        # An unpicklable ``fn`` (a lambda, a local function) is a programming error: say so
        # now instead of reporting every cell as failed.
        pickle.dumps(fn)
        items = iter(items)
        in_flight: dict = {}   # future -> item
        max_in_flight = 2 * self.n_jobs
        exhausted = False
        try:
            while True:
                while not exhausted and len(in_flight) < max_in_flight:
                    item = next(items, _END)
                    if item is _END:
                        exhausted = True
                        break
                    in_flight[self._submit(fn, item)] = item
                if not in_flight:
                    return
                finished = ()
                while not finished:
                    # Wake up now and then: a Ctrl-C whose signal landed on another thread
                    # is only raised here when the main thread runs Python code.
                    finished, _ = wait(in_flight, timeout=0.5, return_when=FIRST_COMPLETED)
                broken = False
                for future in finished:
                    item = in_flight.pop(future)
                    try:
                        result = future.result()
                    except (BrokenProcessPool, CancelledError):
                        # (Cancelled: queued on a pool that we discarded after a crash.)
                        broken = True
                        result = CellResult(key=item.key, status=FAILED, traceback=WORKER_DIED)
                    except Exception:  # noqa: BLE001 - e.g. an unpicklable result
                        result = CellResult(key=item.key, status=FAILED,
                                            traceback=traceback.format_exc())
                    yield item, result
                if broken:
                    # The other in-flight futures fail with BrokenProcessPool too and are
                    # reported on the next turns; new items go to a fresh pool.
                    self._discard_pool(terminate=True)
        finally:
            # Reached on normal exit, on an exception (e.g. KeyboardInterrupt while waiting),
            # or when the consumer stops early: do not leave queued work behind.
            for future in in_flight:
                future.cancel()

    def _submit(self, fn, item):
        try:
            return self._get_pool().submit(fn, item)
        except BrokenProcessPool:
            # A worker died while nothing was in flight (e.g. killed while idle): nothing to
            # mark failed, just start over with a fresh pool.
            self._discard_pool(terminate=True)
            return self._get_pool().submit(fn, item)

    def _discard_pool(self, terminate: bool) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        # ``_processes`` is private, but before Python 3.14 (``terminate_workers``) it is the
        # only way to stop a running cell; it is None once the pool has been shut down.
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=not terminate, cancel_futures=True)
        if terminate:
            for process in processes:
                if process.is_alive():
                    process.terminate()
            for process in processes:
                process.join(timeout=5)

    def shutdown(self, cancel_pending: bool = True) -> None:
        """Stop the pool.

        Parameters
        ----------
        cancel_pending : bool, default True
            True: cancel queued items and terminate workers at once (running cells are lost;
            this is what Ctrl-C does). False: let running items finish, then stop.
        """
        self._discard_pool(terminate=cancel_pending)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        # Leaving because of an exception (Ctrl-C included) means nobody wants the rest.
        self.shutdown(cancel_pending=exc_type is not None)


_END = object()

DASK_MISSING = ("the dask executor needs the 'distributed' package; install it with "
                "pip install 'mcboost-cli[cluster]'")


class DaskExecutor:
    """Run items as tasks on a Dask ``distributed`` cluster.

    Parameters
    ----------
    scheduler : str or None
        Address of a running scheduler (``tcp://host:8786``; its workers must be able to
        import mcboost and reach the datasets and, for checkpoints, the checkpoint folder).
        None or ``"local"``: start a local cluster of ``n_workers`` single-threaded worker
        processes, closed again by ``shutdown``.
    n_workers : int, optional
        Workers of the local cluster (default ``os.cpu_count()``); ignored with an address.

    Notes
    -----
    - At most ``2 x`` the cluster's worker threads of items are in flight (at least 2), so a
      plan of a million cells costs no memory up front; results come in completion order.
    - Each task is ``fn(item)`` with ``fn`` a picklable top-level function or partial, keyed
      ``mcboost-<cell key>``. Nothing about the worker enters the result (see "Determinism").
    - A worker that dies has its task re-run elsewhere by the scheduler, up to its
      ``allowed-failures`` setting; past that the item gets a ``failed`` result naming the
      cause. With mid-fit checkpoints on a shared folder, a re-run continues the fit.
    - Cell timeouts are not available: tasks run in worker threads, where the alarm of
      ``run_guarded`` cannot interrupt them (``make_executor`` refuses the combination).
    - ``shutdown(cancel_pending=True)`` (Ctrl-C) cancels the queued and running tasks; a task
      already computing in a worker thread finishes there and its result is dropped.
    """

    def __init__(self, scheduler: str | None = None, n_workers: int | None = None):
        try:
            import distributed
        except ImportError as e:   # pragma: no cover - depends on the installation
            raise RuntimeError(DASK_MISSING) from e
        self._cluster = None
        if scheduler in (None, "", "local"):
            n = int(n_workers) if n_workers is not None else (os.cpu_count() or 1)
            if n < 1:
                raise ValueError(f"n_workers must be at least 1, got {n_workers}")
            self._cluster = distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0",
                silence_logs=logging.CRITICAL)
            self._client = distributed.Client(self._cluster, set_as_default=False)
        else:
            self._client = distributed.Client(scheduler, set_as_default=False, timeout=30)
        self.n_jobs = max(1, sum(self._client.nthreads().values()))

    def imap_unordered(self, fn: Callable, items: Iterable) -> Iterator[tuple[Any, Any]]:
        """Yield ``(item, fn(item))`` pairs in completion order (see the class notes)."""
        pickle.dumps(fn)
        items = iter(items)
        in_flight: dict = {}   # future -> item
        window = 2 * max(self.n_jobs, 1)
        ready = threading.Event()    # set by any future that completes

        def wake(_future):
            ready.set()

        try:
            while True:
                while len(in_flight) < window:
                    item = next(items, _END)
                    if item is _END:
                        break
                    future = self._client.submit(fn, item, key=f"mcboost-{item.key}",
                                                 pure=False)
                    in_flight[future] = item
                    future.add_done_callback(wake)
                if not in_flight:
                    return
                ready.clear()
                finished = [f for f in in_flight if f.done()]
                if not finished:
                    # Short waits: a Ctrl-C delivered to another thread is only raised here
                    # when the main thread runs Python code.
                    ready.wait(0.5)
                    continue
                for future in finished:
                    item = in_flight.pop(future)
                    try:
                        result = future.result()
                    except Exception as e:  # noqa: BLE001 - KilledWorker, lost connection
                        result = CellResult(
                            key=item.key, status=FAILED,
                            traceback=(f"the cluster could not run this cell: "
                                       f"{type(e).__name__}: {e}; re-run with --retry-failed\n"
                                       + "".join(traceback.format_exception(e))))
                    future.release()
                    yield item, result
        finally:
            if in_flight and self._client is not None:
                self._client.cancel(list(in_flight), force=True)

    def shutdown(self, cancel_pending: bool = True) -> None:
        """Close the client (and the local cluster this executor started)."""
        client, self._client = getattr(self, "_client", None), None
        cluster, self._cluster = getattr(self, "_cluster", None), None
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.shutdown(cancel_pending=exc_type is not None)


def check_dask_timeout(scheduler: str | None, timeout: float | None) -> None:
    """ValueError if a cell timeout is asked of the dask executor, which cannot enforce it."""
    if scheduler and timeout is not None:
        raise ValueError("a cell timeout cannot be enforced on the dask executor (cells run "
                         "in worker threads); remove 'timeout:' from the config or run "
                         "without --scheduler")


def make_executor(n_jobs: int | None, scheduler: str | None = None,
                  timeout: float | None = None):
    """The executor of a run.

    ``scheduler`` given (an address, or ``"local"``): a ``DaskExecutor`` (``n_jobs`` = workers
    of a local cluster); it cannot enforce cell timeouts, so ``timeout`` with it is a
    ``ValueError``. Else ``SerialExecutor`` for ``n_jobs == 1`` and a
    ``LocalProcessExecutor(n_jobs)`` otherwise (``None`` means one job per CPU)."""
    check_dask_timeout(scheduler, timeout)
    if scheduler:
        return DaskExecutor(scheduler, n_jobs)
    if n_jobs == 1:
        return SerialExecutor()
    return LocalProcessExecutor(n_jobs)
