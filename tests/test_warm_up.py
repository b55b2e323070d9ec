"""The runner's kernel warm-up (``runner.warm_up``) and the compile lock it relies on
(``_kernel_cache.kernel_compile_lock``): every registered algorithm warms up without error,
the parts come in the order that spreads the compile, DMCBoost's "margin tree" part compiles
Phase II's grower and not Phase I's, and the lock keeps a second process out while held. That
a run's numbers are the same with and without the warm-up is
``test_cli.test_jobs_do_not_change_numbers`` (``--jobs 2`` warms up, ``--jobs 1`` does not)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from mcboost_cli import _kernel_cache
from mcboost_cli._kernel_cache import kernel_compile_lock
from mcboost_cli.algorithms.registry import all_algorithms
from mcboost_cli.runner.cells import Cell
from mcboost_cli.runner.warm_up import WarmUp, warm_up, warm_up_tasks

ALGORITHMS = sorted(all_algorithms().items())


def _cell(algorithm, params, fold=0):
    return Cell(experiment="e", dataset="d", protocol="cv5", fold=fold, noise_rate=0.0, seed=0,
                algorithm=algorithm, algorithm_version="1", params=tuple(sorted(params.items())),
                label=algorithm)


@pytest.mark.parametrize("name,cls", ALGORITHMS, ids=[n for n, _ in ALGORITHMS])
def test_every_algorithm_warms_up_without_error(name, cls):
    for task in warm_up_tasks([_cell(name, cls.test_params)]):
        assert warm_up(task) == (task, None)


def test_a_failing_warm_up_is_reported_not_raised():
    task = WarmUp("dmcboost", (("n_prime", "no such n'"),), "fit")
    done, error = warm_up(task)
    assert done is task and "n_prime" in error


def test_parts_start_largest_first_and_split_fits_last():
    cells = [_cell("samme", {"n_rounds": 5}), _cell("dmcboost", {"n_rounds": 5}),
             _cell("samme", {"n_rounds": 7}, fold=1), _cell("no_such_algorithm", {}),
             _cell("adaboost_mh", {"n_rounds": 5})]
    tasks = warm_up_tasks(cells)
    assert [(t.algorithm, t.part) for t in tasks] == [
        ("dmcboost", "margin tree"), ("samme", "fit"), ("adaboost_mh", "fit"),
        ("dmcboost", "fit")]
    assert dict(tasks[1].params) == {"n_rounds": 5}        # the algorithm's first cell


def test_margin_tree_part_runs_phase2s_grower_and_not_phase1s():
    # In a fresh process: which growers have code after the part (compiled or loaded from the
    # cache) shows what it ran.
    script = textwrap.dedent("""
        from mcboost_cli.runner.warm_up import WarmUp, warm_up
        from mcboost_cli.learners import margin_tree, zero_one_phase1
        assert warm_up(WarmUp("dmcboost", (("max_depth", 2),), "margin tree"))[1] is None
        print(len(margin_tree._grow_views.signatures),
              len(zero_one_phase1._grow_phase1_views.signatures))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["1", "0"]


class _Kernel:
    """Stands for a numba dispatcher: ``signatures`` and ``py_func``."""

    def __init__(self, signatures=()):
        self.signatures = list(signatures)

        def kernel():
            pass
        self.py_func = kernel


_TRY_LOCK = textwrap.dedent("""
    import fcntl, sys
    with open(sys.argv[1], "a+b") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("held")
        else:
            print("free")
""")


def _other_process_sees(lock_file) -> str:
    return subprocess.run([sys.executable, "-c", _TRY_LOCK, str(lock_file)],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_compile_lock_holds_other_processes_off_a_first_call_only(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    kernel = _Kernel()
    lock_file = (tmp_path / "compile-locks"
                 / f"{kernel.py_func.__module__}.{kernel.py_func.__qualname__}.lock")
    with kernel_compile_lock(kernel):
        assert _other_process_sees(lock_file) == "held"
        # A first call of another kernel inside it takes no second lock (no process ever
        # waits for one while holding one).
        other = _Kernel()
        other.py_func.__qualname__ = "other_kernel"
        with kernel_compile_lock(other):
            assert len(_kernel_cache._held_compile_lock) == 1
        assert not (tmp_path / "compile-locks" / f"{other.py_func.__module__}.other_kernel"
                    ".lock").exists()
    assert _other_process_sees(lock_file) == "free"
    assert _kernel_cache._held_compile_lock == []
    # A kernel with code in this process already: no lock at all.
    lock_file.unlink()
    with kernel_compile_lock(_Kernel(signatures=["(int64,)"])):
        pass
    assert not lock_file.exists()


def test_compile_lock_is_released_when_the_call_fails(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    kernel = _Kernel()
    with pytest.raises(RuntimeError):
        with kernel_compile_lock(kernel):
            raise RuntimeError("in the kernel")
    lock = next((tmp_path / "compile-locks").iterdir())
    assert _other_process_sees(lock) == "free"
    with open(lock, "a+b") as f:           # and this process can take it again
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)


def test_without_a_cache_folder_the_lock_is_a_no_op(monkeypatch, tmp_path):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    with kernel_compile_lock(_Kernel()):
        assert _kernel_cache._held_compile_lock == []
    assert os.listdir(tmp_path) == []


def test_warm_up_problem_is_shaped_like_a_cell():
    from mcboost_cli.runner.warm_up import warm_up_problem
    X, y, eval_set = warm_up_problem(3, 255)
    assert X.codes.shape == (160, 6) and set(np.unique(y)) == {0, 1, 2}
    assert [Xe.codes.shape[0] for Xe, _ in eval_set] == [40, 40]
    assert X.codes.dtype == eval_set[0][0].codes.dtype
