"""Tests of run_cells with the serial and process executors, using a fake work function.

``fake_work`` is top level so worker processes can unpickle it. It appends its pid to a marker
file named after the cell key (in ``$MCBOOST_TEST_MARKERS``), which counts the calls of each
cell across processes, and behaves according to the cell's ``mode`` parameter.
"""

from __future__ import annotations

import io
import os
import re
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from mcboost_cli.runner.cells import DONE, FAILED, TIMEOUT, Cell, CellResult
from mcboost_cli.runner.execute import RunSummary, run_cells
from mcboost_cli.runner.executors import (
    WORKER_DIED,
    DaskExecutor,
    LocalProcessExecutor,
    SerialExecutor,
    make_executor,
    run_guarded,
)
from mcboost_cli.runner.progress import Progress, format_seconds
from mcboost_cli.runner.store import ResultStore

MARKERS = "MCBOOST_TEST_MARKERS"
TIMINGS = ["fit_seconds", "cpu_seconds", "wall_seconds", "finished_at"]


def fake_work(cell: Cell) -> CellResult:
    """Deterministic result computed from the cell; misbehaves on request (``mode``)."""
    with open(Path(os.environ[MARKERS]) / cell.key, "a") as f:
        f.write(f"{os.getpid()}\n")
    mode = cell.params_dict.get("mode", "ok")
    if mode == "fail":
        raise ValueError(f"boom in fold {cell.fold}")
    if mode == "sleep":
        time.sleep(60)  # one blocking call: the alarm must interrupt it
    if mode == "nap":
        time.sleep(0.05)
    if mode == "crash":
        os._exit(3)
    if mode == "interrupt":
        raise KeyboardInterrupt
    rng = np.random.default_rng(int(cell.key[:8], 16))
    n = 20 + cell.fold
    curves = {"train": rng.random(n).tolist(), "valid": rng.random(n).tolist(),
              "test": rng.random(n).tolist()}
    best = int(np.argmin(curves["valid"]))
    return CellResult(key=cell.key, status=DONE, selected_round=best + 1,
                      train_error=curves["train"][best], valid_error=curves["valid"][best],
                      test_error=curves["test"][best], n_rounds=n, curves=curves,
                      extra={"stop": "max_rounds"}, fit_seconds=1e-3)


def make_cells(dataset: str, n: int, modes: dict[int, str] | None = None) -> list[Cell]:
    modes = modes or {}
    return [Cell(experiment="e", dataset=dataset, protocol="cv5", fold=i, noise_rate=0.0,
                 seed=0, algorithm="fake", algorithm_version="1",
                 params=(("mode", modes.get(i, "ok")),), label="fake")
            for i in range(n)]


def calls(cell: Cell) -> list[int]:
    """PIDs of the processes that ran ``cell``, one per call."""
    path = Path(os.environ[MARKERS]) / cell.key
    return [int(line) for line in path.read_text().split()] if path.exists() else []


@pytest.fixture(scope="module", autouse=True)
def markers(tmp_path_factory):
    # Module-wide (not monkeypatch) so the shared pool's workers inherit it when spawned.
    old = os.environ.get(MARKERS)
    os.environ[MARKERS] = str(tmp_path_factory.mktemp("markers"))
    yield
    if old is None:
        del os.environ[MARKERS]
    else:
        os.environ[MARKERS] = old


@pytest.fixture(scope="module")
def pool(markers):
    """One two-worker pool for the module: spawning workers is the slow part."""
    with LocalProcessExecutor(2) as executor:
        yield executor


def stored(path) -> list[dict]:
    """The store's rows without timings, as dicts that compare exactly."""
    with ResultStore(path) as store:
        frame = store.frame(with_curves=True).drop(columns=TIMINGS)
    # NaN != NaN, so missing values become None; everything else compares exactly.
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


def test_serial_and_process_executors_store_identical_rows(tmp_path, pool):
    cells = make_cells("same", 9, {4: "fail"})
    with LocalProcessExecutor(1) as one:
        executors = {"serial": SerialExecutor(), "jobs1": one, "jobs2": pool}
        for name, executor in executors.items():
            with ResultStore(tmp_path / f"{name}.sqlite") as store:
                summary = run_cells(cells, store, fake_work, executor, progress="quiet")
            assert (summary.done, summary.failed, summary.skipped) == (8, 1, 0)
    reference = stored(tmp_path / "serial.sqlite")
    assert len(reference) == 9 and reference[0]["curves"]["train"]
    assert sum(row["status"] == FAILED for row in reference) == 1
    for name in ("jobs1", "jobs2"):
        frame = stored(tmp_path / f"{name}.sqlite")
        assert frame == reference, name


def test_failure_is_stored_and_rerun_skips_done_cells(tmp_path):
    cells = make_cells("rerun", 5, {2: "fail"})
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_cells(cells, store, fake_work, SerialExecutor(), progress="quiet",
                            config_hash="h1")
        assert (summary.done, summary.failed, summary.pending) == (4, 1, 0)
        assert "--retry-failed" in summary.describe()
        _, failed = store.get(cells[2].key)
        assert failed.status == FAILED and "ValueError: boom in fold 2" in failed.traceback
        assert failed.versions["mcboost"] and failed.wall_seconds is not None

        again = run_cells(cells, store, fake_work, SerialExecutor(), progress="quiet")
        assert (again.skipped, again.skipped_failed, again.ran) == (5, 1, 0)
        assert all(len(calls(c)) == 1 for c in cells)  # the work function was not called

        retry = run_cells(cells, store, fake_work, SerialExecutor(), retry_failed=True,
                          progress="quiet")
        assert (retry.skipped, retry.failed, retry.done) == (4, 1, 0)
        assert [len(calls(c)) for c in cells] == [1, 1, 2, 1, 1]
        assert store.frame().config_hash.tolist().count("h1") == 4


def test_duplicate_cells_run_once(tmp_path):
    cells = make_cells("dup", 2)
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_cells(cells + cells, store, fake_work, SerialExecutor(), progress="quiet")
    assert (summary.total, summary.done) == (2, 2)
    assert [len(calls(c)) for c in cells] == [1, 1]


@pytest.mark.parametrize("kind", ["serial", "process"])
def test_timeout(tmp_path, pool, kind):
    cells = make_cells(f"timeout-{kind}", 3, {1: "sleep"})
    executor = SerialExecutor() if kind == "serial" else pool
    start = time.monotonic()
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_cells(cells, store, fake_work, executor, timeout=0.5, progress="quiet")
        _, result = store.get(cells[1].key)
    assert time.monotonic() - start < 10
    assert (summary.done, summary.timeout) == (2, 1)
    assert result.status == TIMEOUT and result.traceback.startswith("timed out after 0.5 s")
    assert "time.sleep(60)" in result.traceback  # shows where the work was interrupted


def test_run_guarded_rejects_wrong_result_and_clears_alarm():
    cell = make_cells("guard", 1)[0]
    result = run_guarded(lambda c: CellResult(key="other", status=DONE), cell, timeout=5)
    assert result.status == FAILED and "expected a CellResult" in result.traceback
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is signal.SIG_DFL


def test_worker_crash_marks_in_flight_failed_and_recovers(tmp_path, pool):
    # The other cells nap a little so the crash (at once, in the first cell) is detected long
    # before the other worker could work through the plan on the doomed pool.
    cells = make_cells("crash", 12, {i: "crash" if i == 0 else "nap" for i in range(12)})
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_cells(cells, store, fake_work, pool, progress="quiet")
        assert summary.ran == 12 and 1 <= summary.failed <= 4  # at most the in-flight window
        assert store.get(cells[0].key)[1].traceback == WORKER_DIED
        for cell in cells:
            _, result = store.get(cell.key)
            assert result.status == DONE or result.traceback == WORKER_DIED
        # Cells ran in more processes than the two of the first pool: a new pool took over.
        assert len({pid for c in cells for pid in calls(c)}) > 2

        innocent = cells[1:]
        retry = run_cells(innocent, store, fake_work, pool, retry_failed=True, progress="quiet")
        assert (retry.done, retry.skipped) == (summary.failed - 1, 11 - (summary.failed - 1))
        assert set(store.statuses([c.key for c in innocent]).values()) == {DONE}


@pytest.fixture
def sigint_raises():
    """Ctrl-C raises KeyboardInterrupt here even when this process inherited SIGINT ignored
    (a background job of a non-interactive shell does)."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


@pytest.mark.parametrize("kind", ["serial", "process"])
def test_ctrl_c_keeps_stored_rows_and_resumes(tmp_path, kind, sigint_raises):
    if kind == "serial":
        # The interrupt arrives inside the work function, as Ctrl-C does in the serial case.
        cells = make_cells("sigint-serial", 6, {3: "interrupt"})
        executor = SerialExecutor()
        progress = "quiet"
    else:
        cells = make_cells("sigint-process", 8, {i: "sleep" for i in range(2, 8)})
        executor = LocalProcessExecutor(2)

        class InterruptAfterTwo(Progress):
            """Send a real SIGINT to this process once the two quick cells are stored."""

            def advance(self, status):
                super().advance(status)
                if self.completed == 2:
                    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()

        progress = InterruptAfterTwo("quiet")
    start = time.monotonic()
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_cells(cells, store, fake_work, executor, progress=progress)
        elapsed = time.monotonic() - start
        assert summary.interrupted
        stored_keys = set(store.statuses())
    n_stored = 3 if kind == "serial" else 2
    assert stored_keys == {c.key for c in cells[:n_stored]}
    assert (summary.done, summary.pending) == (n_stored, len(cells) - n_stored)
    assert summary.describe() == (f"interrupted: {n_stored} cells done, {len(cells) - n_stored} "
                                  "pending; re-run the same command to resume")
    if kind == "process":
        assert elapsed < 15  # the sleeping cells (60 s) were not waited for
        pids = {pid for c in cells for pid in calls(c)}
        for pid in pids:  # workers are terminated and reaped
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        return
    # Resume: only the pending cells run (the interrupting one is fixed by now).
    fixed = make_cells("sigint-serial", 6)
    with ResultStore(tmp_path / "r.sqlite") as store:
        resumed = run_cells(fixed, store, fake_work, SerialExecutor(), progress="quiet")
    assert (resumed.skipped, resumed.done) == (3, 3)
    assert [len(calls(c)) for c in cells[:3]] == [1, 1, 1]


def test_make_executor():
    assert isinstance(make_executor(1), SerialExecutor)
    executor = make_executor(3)
    assert isinstance(executor, LocalProcessExecutor) and executor.n_jobs == 3
    assert make_executor(None).n_jobs == (os.cpu_count() or 1)


# -- progress ----------------------------------------------------------------------------------

class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_plain_prints_every_ten_percent_with_eta():
    out, clock = io.StringIO(), FakeClock()
    p = Progress("plain", out, clock=clock)
    p.start(20, skipped=5)
    for i in range(20):
        clock.now += 1.0
        p.advance(FAILED if i == 0 else TIMEOUT if i == 1 else DONE)
    p.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 10 and "\r" not in out.getvalue()
    assert lines[0] == "2/20 (10%)  failed 1  timeout 1  elapsed 0:00:02  eta 0:00:18"
    assert lines[-1] == "20/20 (100%)  failed 1  timeout 1  elapsed 0:00:20"


def test_progress_plain_prints_every_ten_seconds_for_slow_cells():
    out, clock = io.StringIO(), FakeClock()
    p = Progress("plain", out, clock=clock)
    p.start(1000)
    for _ in range(3):
        clock.now += 11.0
        p.advance(DONE)
    p.close()  # interrupted run: the last line is already current, not repeated
    assert out.getvalue().splitlines() == [
        "1/1000 (0%)  elapsed 0:00:11  eta ?",         # the first cell may include compiling
        "2/1000 (0%)  elapsed 0:00:22  eta 3:02:58",
        "3/1000 (0%)  elapsed 0:00:33  eta 3:02:47"]


def test_progress_eta_leaves_out_each_workers_first_cell():
    # Two workers each compile the kernels (100 s) in their first cell; then a cell takes
    # 10 s of a worker, so the pair completes one every 5 s. Counting the compile made the ETA
    # at the third cell 105.5 / 3 * 7 = 246 s for 35 s of work left.
    out, clock = io.StringIO(), FakeClock()
    p = Progress("plain", out, every_percent=1, clock=clock)
    p.start(10, warmup=2)
    for t in (100, 100.5, 105.5, 110.5, 115.5):
        clock.now = t
        p.advance(DONE)
    lines = out.getvalue().splitlines()
    assert [ln.split("eta ")[1] for ln in lines] == [
        "?", "?", "0:00:35", "0:00:30", "0:00:25"]


def test_progress_bar_redraws_in_place_and_notes():
    out, clock = io.StringIO(), FakeClock()
    p = Progress("bar", out, clock=clock)
    p.start(4)
    for _ in range(4):
        clock.now += 1.0
        p.advance(DONE)
    p.note("failed: something")
    p.close()
    text = out.getvalue()
    assert text.count("\n") == 2
    assert re.search("\r {40,}\rfailed: something\n\r100% \\[", text)  # erased, redrawn
    assert text.rstrip("\n").split("\r")[-1].strip() == (
        "100% [##############################] 4/4  0:00:04")


def test_progress_quiet_and_auto(capsys):
    p = Progress("quiet")
    p.start(3)
    p.advance(DONE)
    p.note("x")
    p.close()
    assert Progress("auto", io.StringIO()).mode == "plain"  # not a TTY
    assert capsys.readouterr().err == ""
    with pytest.raises(ValueError):
        Progress("loud")


def test_summary_describe_and_format_seconds():
    assert format_seconds(3723.4) == "1:02:03"
    s = RunSummary(total=5, skipped=2, done=3, wall_seconds=61)
    assert s.describe() == "3 done, 0 failed, 0 timed out, 2 skipped (already stored) in 0:01:01"


@pytest.fixture(scope="module")
def dask_local(markers):
    """A two-worker local Dask cluster for the module (workers inherit the markers folder).
    A worker that dies fails its task at once instead of being retried on another."""
    pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with DaskExecutor("local", 2) as executor:
            yield executor


def test_dask_executor_stores_the_rows_of_the_serial_executor(tmp_path, dask_local):
    cells = make_cells("dask-same", 9, {4: "fail"})
    for name, executor in {"serial": SerialExecutor(), "dask": dask_local}.items():
        with ResultStore(tmp_path / f"{name}.sqlite") as store:
            summary = run_cells(cells, store, fake_work, executor, progress="quiet")
        assert (summary.done, summary.failed, summary.skipped) == (8, 1, 0)
    assert stored(tmp_path / "dask.sqlite") == stored(tmp_path / "serial.sqlite")
    # The dask run's calls (each cell's second) were made in the cluster's worker processes.
    dask_pids = {calls(c)[1] for c in cells}
    assert os.getpid() not in dask_pids and len(dask_pids) <= 2
    assert dask_local.n_jobs == 2


def test_dask_worker_death_fails_its_cell_and_the_run_goes_on(tmp_path, dask_local):
    # As with local processes, the cells in flight on the dying worker fail with it (at most
    # the submission window); the others are done, and a retry finishes the innocent ones.
    cells = make_cells("dask-crash", 8, {0: "crash"})
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_cells(cells, store, fake_work, dask_local, progress="quiet")
        _, crashed = store.get(cells[0].key)
        assert summary.ran == 8 and 1 <= summary.failed <= 4
        assert crashed.status == FAILED
        for cell in cells:
            _, result = store.get(cell.key)
            assert (result.status == DONE
                    or "the cluster could not run this cell" in result.traceback)
        # The nanny restarts the dead worker; on a loaded machine the retry could otherwise
        # reach the cluster before that worker is back and lose its cell with it again.
        dask_local._client.wait_for_workers(2, timeout=120)
        retry = run_cells(cells[1:], store, fake_work, dask_local, retry_failed=True,
                          progress="quiet")
        assert retry.done == summary.failed - 1
        assert set(store.statuses([c.key for c in cells[1:]]).values()) == {DONE}


def test_make_executor_dask_refuses_timeouts():
    with pytest.raises(ValueError, match="timeout cannot be enforced"):
        make_executor(2, scheduler="local", timeout=5.0)


def test_dask_ctrl_c_stops_at_once_and_keeps_stored_rows(tmp_path, markers, sigint_raises):
    pytest.importorskip("distributed")
    cells = make_cells("dask-sigint", 6, {i: "sleep" for i in range(2, 6)})

    class InterruptAfterTwo(Progress):
        def advance(self, status):
            super().advance(status)
            if self.completed == 2:
                threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()

    executor = DaskExecutor("local", 2)
    start = time.monotonic()
    with ResultStore(tmp_path / "r.sqlite") as store:
        summary = run_cells(cells, store, fake_work, executor,
                            progress=InterruptAfterTwo("quiet"))
        stored_keys = set(store.statuses())
    executor.shutdown()
    assert summary.interrupted and summary.done == 2
    assert stored_keys == {c.key for c in cells[:2]}
    assert time.monotonic() - start < 30      # the sleeping cells (60 s) were not waited for


def test_prefix_first_order_runs_one_fit_of_each_shared_prefix_group_first():
    from mcboost_cli.runner.execute import prefix_first_order, prefix_group

    def cell(fold, depth, n_prime, algorithm="dmcboost"):
        params = {"max_depth": depth, "n_prime": n_prime} if algorithm == "dmcboost" else {
            "max_depth": depth}
        return Cell(experiment="e", dataset="car", protocol="five_fold", fold=fold,
                    noise_rate=0.0, seed=0, algorithm=algorithm, algorithm_version="4",
                    params=tuple(sorted(params.items())))

    plan = [cell(f, d, p) for f in (0, 1) for d in (3, 5) for p in ("1", "n/10", "n/2")]
    plan.insert(2, cell(0, 3, None, algorithm="samme"))
    # n' (a prefix-free parameter) does not change the group; the depth and the fold do.
    assert prefix_group(plan[0]) == prefix_group(plan[3]) != prefix_group(plan[4])
    assert prefix_group(cell(0, 3, "1")) != prefix_group(cell(1, 3, "1"))
    order = prefix_first_order(plan)
    assert sorted(c.key for c in order) == sorted(c.key for c in plan)
    leaders = order[:5]     # 4 (fold, depth) groups of DMCBoost, and SAMME on its own
    assert [c.params_dict.get("n_prime") for c in leaders] == ["1", None, "1", "1", "1"]
    assert len({prefix_group(c) for c in leaders}) == 5
    # Within the rest, the plan order is kept.
    rest = order[5:]
    assert rest == [c for c in plan if c not in leaders]
