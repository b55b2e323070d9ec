"""Where a cold start's compile time goes: numba's compile of each kernel, for DMCBoost's fits.

    python tools/kernel_compile_times.py [DATASET]      # default: waveform (needs its cache)

Sets ``NUMBA_CACHE_DIR`` to a new temporary folder (so every kernel compiles, as on a new
machine or in CI), fits DMCBoost on 300 rows of DATASET twice (depth 8 with n' = 1, then depth 3
with n' = n/10, 40 rounds, ``phase1_patience=1`` so both reach Phase II) and prints the compile
time of each kernel from numba's compile events: per top-level compile (the kernel a Python
call reached, with every kernel it compiled for it) and exclusive (its own part: type
inference, lowering, and the LLVM optimisation of its module, which links and optimises again
every kernel it calls). ALGORITHMS.md, "Speed", "Compile time" has the numbers it gave.
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import time

# Before numba is imported anywhere (mcboost_cli would set its own cache folder otherwise).
os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="mcboost-cold-kernels-")

from numba.core import event  # noqa: E402

_stack: list = []
top_level: collections.Counter = collections.Counter()
exclusive: collections.Counter = collections.Counter()


class _CompileTimes(event.Listener):
    """Wall time of each ``numba:compile`` event, nested compiles subtracted for ``exclusive``."""

    def on_start(self, ev):
        _stack.append([ev.data["dispatcher"].py_func.__qualname__, time.perf_counter(), 0.0])

    def on_end(self, ev):
        name, t0, nested = _stack.pop()
        dt = time.perf_counter() - t0
        exclusive[name] += dt - nested
        if _stack:
            _stack[-1][2] += dt
        else:
            top_level[name] += dt


def main(dataset: str = "waveform") -> None:
    event.register("numba:compile", _CompileTimes())
    import numpy as np

    from mcboost_cli.algorithms.dmcboost import DMCBoost
    from mcboost_cli.datasets import load_dataset

    ds = load_dataset(dataset)
    idx = np.random.default_rng(0).permutation(len(ds.y))[:300]
    X, y = np.ascontiguousarray(ds.X[idx]), np.ascontiguousarray(ds.y[idx])
    t0 = time.perf_counter()
    for depth, n_prime in ((8, "1"), (3, "n/10")):
        est = DMCBoost(n_rounds=40, max_depth=depth, n_prime=n_prime, phase1_patience=1)
        est.fit(X, y)
        print(f"depth {depth}, n' = {n_prime}: {est.n_phase1_rounds_} Phase I rounds of "
              f"{est.n_rounds_}")
    print(f"compile {sum(top_level.values()):.1f} s of {time.perf_counter() - t0:.1f} s wall "
          f"(cache {os.environ['NUMBA_CACHE_DIR']})")
    print("top-level: " + ", ".join(f"{k} {v:.1f} s" for k, v in top_level.most_common(5)))
    for name, seconds in exclusive.most_common(20):
        print(f"  {seconds:7.1f} s  {name}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
