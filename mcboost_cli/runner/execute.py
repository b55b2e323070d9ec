"""Run the cells of a plan that the store does not have yet, storing each result as it arrives.

``run_cells`` is the loop between the executor and the store:

1. look up the status of every cell key in the store; skip ``done`` cells, and ``failed`` /
   ``timeout`` cells unless ``retry_failed``;
2. with several local worker processes, compile the kernels the cells need once, spread over
   the workers (``warm_up``);
3. send the rest through the executor — in plan order, except that of the fits sharing a
   prefix (``prefix_first_order``) one runs before the others — each call wrapped by ``run_guarded`` so
   an exception or a timeout becomes a stored result instead of stopping the run;
4. write every result to the store the moment it arrives, in its own transaction, so a kill or
   Ctrl-C loses only the cells in flight and re-running the same command resumes.

What is stored for a cell depends only on the cell (the work function derives its seeds from
it), never on the executor, the number of jobs or the completion order; only timings and
``finished_at`` differ between runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial

from .cells import DONE, FAILED, TIMEOUT, Cell, CellResult
from .executors import LocalProcessExecutor, run_guarded
from .progress import Progress, format_seconds
from .store import ResultStore
from .warm_up import warm_up_kernels


@dataclass
class RunSummary:
    """What a call of ``run_cells`` did.

    Attributes
    ----------
    total : int
        Distinct cells in the plan (cells with the same key count once).
    skipped : int
        Cells not run because the store already had them (done, or failed / timeout without
        ``retry_failed``).
    skipped_failed : int
        Of ``skipped``, those stored as failed or timeout (``--retry-failed`` would rerun them).
    done, failed, timeout : int
        Results of the cells run (and stored) by this call.
    interrupted : bool
        True if Ctrl-C stopped the run.
    pending : int
        Cells neither skipped nor stored by this call (nonzero only when interrupted).
    wall_seconds : float
        Duration of the call.
    """

    total: int = 0
    skipped: int = 0
    skipped_failed: int = 0
    done: int = 0
    failed: int = 0
    timeout: int = 0
    interrupted: bool = False
    pending: int = 0
    wall_seconds: float = 0.0

    @property
    def ran(self) -> int:
        """Cells run and stored by this call."""
        return self.done + self.failed + self.timeout

    def describe(self) -> str:
        """One line for the user, e.g. the CLI's last line of ``mcboost run``."""
        if self.interrupted:
            return (f"interrupted: {self.total - self.pending} cells done, {self.pending} "
                    "pending; re-run the same command to resume")
        text = (f"{self.done} done, {self.failed} failed, {self.timeout} timed out, "
                f"{self.skipped} skipped (already stored) in {format_seconds(self.wall_seconds)}")
        unsuccessful = self.failed + self.timeout + self.skipped_failed
        if unsuccessful:
            text += f"; {unsuccessful} failed or timed out: --retry-failed reruns them"
        return text


def prefix_group(cell: Cell) -> str:
    """The cells whose fits share their first rounds (``algorithms.base``, "Shared
    prefixes") have the same group: the cell's key computed without the algorithm's
    ``_prefix_free_params``. Cells of algorithms without any are groups of their own."""
    from ..algorithms.registry import get_algorithm

    try:
        free = get_algorithm(cell.algorithm)._prefix_free_params
    except Exception:    # an unknown algorithm fails in its own cell, not here
        free = ()
    if not free or not any(k in free for k, _ in cell.params):
        return cell.key
    return Cell(**{**vars(cell), "params": tuple((k, v) for k, v in cell.params
                                                 if k not in free)}).key


def prefix_first_order(cells: list[Cell]) -> list[Cell]:
    """The cells in plan order, but every cell that shares a prefix with an earlier one moved
    after all the groups' first cells: a group's first fit has saved the shared state before
    its siblings start (with fewer groups than workers, siblings still start together and
    each computes the prefix; the numbers are the same either way)."""
    seen: set[str] = set()
    first, rest = [], []
    for cell in cells:
        g = prefix_group(cell)
        (rest if g in seen else first).append(cell)
        seen.add(g)
    return first + rest


def _first_line_of_error(result: CellResult) -> str:
    lines = [line for line in (result.traceback or "").strip().splitlines() if line.strip()]
    if result.status == TIMEOUT:
        return lines[0] if lines else "timed out"
    return lines[-1].strip() if lines else "no traceback"


def run_cells(cells: Iterable[Cell], store: ResultStore, work_fn: Callable[[Cell], CellResult],
              executor, *, retry_failed: bool = False, timeout: float | None = None,
              config_hash: str = "", progress: Progress | str | None = "auto",
              checkpoints=None) -> RunSummary:
    """Compute and store the results of the cells that the store does not have yet.

    Parameters
    ----------
    cells : iterable of Cell
        The plan. Duplicate keys are run once.
    store : ResultStore
        Where results are read from (statuses) and written to, one transaction per cell.
    work_fn : callable
        ``work_fn(cell) -> CellResult``: a picklable top-level function that derives all of its
        randomness from the cell.
    executor : SerialExecutor or LocalProcessExecutor
        Anything with ``imap_unordered(fn, items)`` and ``shutdown(cancel_pending)``. The
        caller owns it; ``run_cells`` only shuts it down on Ctrl-C.
    retry_failed : bool, default False
        Also rerun cells stored as ``failed`` or ``timeout``.
    timeout : float or None
        Per-cell limit in seconds (None: no limit); a cell over it is stored as ``timeout``.
    config_hash : str
        Stored with every row (provenance).
    progress : Progress, {"auto", "bar", "plain", "quiet"} or None
        A ``Progress`` to drive, or the mode of a new one on stderr; None is ``"quiet"``.
    checkpoints : checkpoint.CheckpointDir or None
        The mid-fit checkpoints ``work_fn`` writes (it must be given the same folder): a
        cell's checkpoint is removed once its done result is stored, and kept when the cell
        fails, times out or is interrupted, so the next run continues the fit.

    Returns
    -------
    RunSummary
        Also when the run was interrupted by Ctrl-C: then ``interrupted`` is True, pending work
        has been cancelled, the workers terminated, and every result that had arrived is
        stored. The caller prints ``summary.describe()`` and exits with status 130.

    Raises
    ------
    Exception
        Errors of the store or the executor itself (not of cells) propagate, after the
        executor has been shut down.
    """
    if timeout is not None and not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds or None, got {timeout}")
    started = time.perf_counter()
    if not isinstance(progress, Progress):
        progress = Progress(progress or "quiet")

    unique: dict[str, Cell] = {}
    for cell in cells:
        unique.setdefault(cell.key, cell)
    summary = RunSummary(total=len(unique))
    stored = store.statuses(list(unique))
    todo = []
    for key, cell in unique.items():
        status = stored.get(key)
        if status == DONE or (status in (FAILED, TIMEOUT) and not retry_failed):
            summary.skipped += 1
            summary.skipped_failed += status != DONE
        else:
            todo.append(cell)
    todo = prefix_first_order(todo)

    # Each worker's first cell includes compiling the kernels: the ETA leaves them out.
    progress.start(len(todo), skipped=summary.skipped,
                   warmup=min(getattr(executor, "n_jobs", 1) or 1, max(len(todo), 1)))
    # A partial of a top-level function pickles by reference, so worker processes can run it.
    guarded = partial(run_guarded, work_fn, timeout=timeout)
    try:
        if todo and isinstance(executor, LocalProcessExecutor) and executor.n_jobs > 1:
            # Compile each kernel once, spread over the workers, instead of in every worker
            # at once (``warm_up``; a second or so when the kernel cache is warm).
            warm_up_kernels(todo, executor)
        for cell, result in executor.imap_unordered(guarded, todo):
            store.put(cell, result, config_hash)
            if result.status == DONE:
                if checkpoints is not None:
                    checkpoints.discard([cell.key])
                summary.done += 1
            elif result.status == TIMEOUT:
                summary.timeout += 1
            else:
                summary.failed += 1
            progress.advance(result.status)
            if result.status != DONE:
                progress.note(f"{result.status}: {cell.describe()}: "
                              f"{_first_line_of_error(result)}")
    except KeyboardInterrupt:
        summary.interrupted = True
        executor.shutdown(cancel_pending=True)
    except BaseException:
        executor.shutdown(cancel_pending=True)
        raise
    finally:
        progress.close()
        summary.pending = summary.total - summary.skipped - summary.ran
        summary.wall_seconds = time.perf_counter() - started
    return summary
