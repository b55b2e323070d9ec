"""The fit clock leaves numba's compiling out of a fit's CPU seconds (runner.fit_clock).

Each test compiles a function defined inside it (``cache=False``: nothing on disk, so the
compilation really happens here) and compares the fit clock with the plain thread clock."""

import threading
import time

import numba
import numpy as np

from mcboost_cli.runner.checkpoint import FitCheckpoint
from mcboost_cli.runner.fit_clock import fit_cpu_time, jit_cpu_time


def _fresh_kernels():
    """Two kernels never compiled before in this process, the outer calling the inner (so
    compiling the outer compiles the inner under the same, re-entered compiler lock)."""
    @numba.njit(cache=False)
    def inner(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += np.sqrt(abs(x[i])) * (i % 7)
        return s

    @numba.njit(cache=False)
    def outer(x):
        t = 0.0
        for j in range(3):
            t += inner(x + j)
        return t

    return outer


def _clocks():
    return time.thread_time(), fit_cpu_time(), jit_cpu_time()


def test_compiling_is_left_out_of_the_fit_clock():
    outer = _fresh_kernels()
    x = np.arange(10.0)
    thread0, fit0, jit0 = _clocks()
    outer(x)                      # compiles outer and inner, then runs in microseconds
    thread1, fit1, jit1 = _clocks()
    spent = thread1 - thread0
    assert spent > 0.02           # compiling two functions takes tens of milliseconds at least
    assert jit1 - jit0 > 0.8 * spent
    # Nested lock acquisitions are counted once: never more than the thread spent.
    assert jit1 - jit0 <= spent + 1e-3
    assert fit1 - fit0 < 0.2 * spent
    # Once compiled, a call takes the dispatcher's fast path: no compiler lock, no JIT time.
    jit2 = jit_cpu_time()
    for _ in range(100):
        outer(x)
    assert jit_cpu_time() == jit2


def test_fit_checkpoint_cpu_seconds_leave_out_compiling(tmp_path):
    ck = FitCheckpoint(tmp_path / "x.ckpt", every_seconds=0)
    ck.load("fp")                 # no file: a fresh fit; the clocks start here
    thread0 = time.thread_time()
    _fresh_kernels()(np.arange(5.0))
    spent = time.thread_time() - thread0
    assert ck.elapsed_cpu() < 0.2 * spent
    ck.save("fp", {"kept": 1})
    again = FitCheckpoint(tmp_path / "x.ckpt")
    assert again.load("fp") == {"kept": 1}
    assert again.cpu_before < 0.2 * spent


def test_another_threads_compiling_is_not_this_threads():
    before = jit_cpu_time()
    seen = {}

    def compile_there():
        j0 = jit_cpu_time()
        _fresh_kernels()(np.arange(5.0))
        seen["there"] = jit_cpu_time() - j0

    worker = threading.Thread(target=compile_there)
    worker.start()
    worker.join()
    assert seen["there"] > 0.0
    assert jit_cpu_time() == before
