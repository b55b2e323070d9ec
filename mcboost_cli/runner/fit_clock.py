"""The CPU clock a fit is timed with: this thread's CPU time, less numba's compiling.

A kernel is compiled (or loaded from the kernel cache) the first time a process calls it
with a new signature, inside whichever fit calls it first. With the plain thread clock that
fit's ``cpu_seconds`` carried the whole one-off cost: after an update of the kernel sources
(a new folder of ``_kernel_cache``, every kernel compiled afresh) the first DMCBoost fits of a
run took 200-300 CPU seconds more than their siblings (Letter, fold 1, depth 3: n' = n/10
207 s and n/4 320 s where the other folds' took 5-26 s, the kernel folder's files written in
the same minutes), and the sum over ``cells.csv`` -- the reproduction's CPU budget -- counted
each compilation once per restart. ``fit_cpu_time`` leaves out the CPU seconds this thread
spent holding numba's compiler lock (compiling or loading a compiled kernel), counted by a
listener on numba's ``"numba:compiler_lock"`` event; ``jit_cpu_time`` is that part alone.

Map of the module
-----------------
``jit_cpu_time``   CPU seconds this thread has spent under numba's compiler lock so far
``fit_cpu_time``   ``time.thread_time()`` less ``jit_cpu_time()``: a fit's CPU clock
"""

from __future__ import annotations

import threading
import time

from numba.core import event

_local = threading.local()


class _CompilerLockCPU(event.Listener):
    """Adds the thread CPU time between the outermost start and end of the compiler lock
    (an RLock: nested acquisitions fire nested events) to a per-thread total. The event
    starts before the lock is acquired, so a thread waiting for another's compilation is
    counted too, but waiting costs no CPU."""

    def on_start(self, event):
        depth = getattr(_local, "depth", 0)
        if depth == 0:
            _local.started = time.thread_time()
        _local.depth = depth + 1

    def on_end(self, event):
        _local.depth -= 1
        if _local.depth == 0:
            _local.total = jit_cpu_time() + (time.thread_time() - _local.started)


event.register("numba:compiler_lock", _CompilerLockCPU())


def jit_cpu_time() -> float:
    """CPU seconds this thread has spent compiling or loading numba kernels (holding the
    compiler lock) since it started."""
    return getattr(_local, "total", 0.0)


def fit_cpu_time() -> float:
    """This thread's CPU seconds (``time.thread_time()``) less those of ``jit_cpu_time``:
    differences of it time a fit's own work, whether or not it compiled kernels."""
    return time.thread_time() - jit_cpu_time()
