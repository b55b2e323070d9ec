"""REBEL per-round benchmark: a round with two-point (localized) similarities against a SAMME
stump round (part of ``make bench``; issue 34).

Run from the repository root::

    python -m benchmarks.bench_rebel [--rounds 200] [--repeats 3] [--stat median|best]

Data: UCI pendigits, its standard training part (7494 rows, 16 features, 10 classes; the N
of the paper's Figs. 6-7), loaded with ``mcboost_cli.datasets.load_dataset`` (mirror/cache
from ``MCBOOST_MIRROR`` / ``MCBOOST_DATA``, or ``--mirror``). Single-threaded: our kernels
are not parallel and the BLAS pools are pinned to one thread below (REBEL's K x K
eigenproblem is the only BLAS call).

Measured, in one process, after a tiny fit of each (numba compilation or cache load,
excluded):

1. ``REBEL(n_rounds=N, weak_learner="localized").fit(X, y)``: sec. 5.2's search (isolating
   anchor, binarization, two-point partners nearest first) and the accumulation step;
2. ``SAMME(n_rounds=N, max_depth=1).fit(X, y)``: one decision stump per round;
3. also ``REBEL(weak_learner="stump")``, for the cost of REBEL's vector step on stumps.

Seconds per round = CPU time of the fit (``time.process_time``) / rounds kept; the fits
alternate, so a change of machine load hits all alike; the statistic is the median of the
repeats (``--stat best``: the minimum). The ratio REBEL-localized / SAMME is taken within
the run. The training error after the last round of each fit is printed beside it. A
benchmark reports, it never fails on a target: the exit status is 0 unless the data is
missing (2).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

DATASET = "pendigits"
CLOCK = time.process_time


def load_pendigits(mirror):
    """Pendigits' standard training part as (X float64, y); exits 2 if unavailable."""
    from mcboost_cli.datasets import DatasetError, load_dataset

    try:
        ds = load_dataset(DATASET, mirror=mirror)
    except (DatasetError, OSError) as exc:
        msg = " ".join(str(exc).split())
        print(f"bench_rebel: error: dataset {DATASET!r} unavailable: {msg}", file=sys.stderr)
        sys.exit(2)
    train = ~np.asarray(ds.test_mask, dtype=bool)
    return np.ascontiguousarray(ds.X[train]), np.ascontiguousarray(ds.y[train])


def _fit_seconds(make, X, y):
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = CLOCK()
        model = make().fit(X, y)
        return CLOCK() - t0, model
    finally:
        if enabled:
            gc.enable()


def _warm_up(makers, X, y):
    """A tiny fit of each (compiles or cache-loads every kernel of its path)."""
    rows = np.random.default_rng(0).permutation(X.shape[0])[:300]
    t0 = time.perf_counter()
    for make in makers.values():
        make(rounds=3).fit(X[rows], y[rows])
    return time.perf_counter() - t0


def _parser():
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_rebel",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=200, help="rounds of every fit (200)")
    p.add_argument("--repeats", type=int, default=3, help="fits of each (3)")
    p.add_argument("--stat", choices=("median", "best"), default="median")
    p.add_argument("--mirror", default=None, help="dataset mirror (default: MCBOOST_MIRROR)")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.rounds < 1 or args.repeats < 1:
        _parser().error("--rounds and --repeats must be >= 1")
    from mcboost_cli.algorithms.adaboost import SAMME
    from mcboost_cli.algorithms.rebel import REBEL

    X, y = load_pendigits(args.mirror)
    K = len(np.unique(y))
    print(f"mcboost REBEL per-round benchmark: {DATASET} training part ({X.shape[0]} x "
          f"{X.shape[1]}, {K} classes), {args.rounds} rounds, {args.repeats} repeat(s), "
          f"single-threaded")
    makers = {
        "rebel_localized": lambda rounds=args.rounds: REBEL(n_rounds=rounds,
                                                            weak_learner="localized"),
        "samme_stump": lambda rounds=args.rounds: SAMME(n_rounds=rounds, max_depth=1),
        "rebel_stump": lambda rounds=args.rounds: REBEL(n_rounds=rounds, weak_learner="stump"),
    }
    print(f"[1] JIT: tiny fits of each {_warm_up(makers, X, y):.2f} s (excluded)")
    per_round = {name: [] for name in makers}
    models = {}
    for _ in range(args.repeats):
        for name, make in makers.items():
            seconds, model = _fit_seconds(make, X, y)
            per_round[name].append(seconds / max(model.n_rounds_, 1))
            models[name] = model
    pick = min if args.stat == "best" else statistics.median
    print("[2] seconds per round (CPU time; fit(X, y) on the raw data, binning included)")
    for name, times in per_round.items():
        m = models[name]
        print(f"    {name:16s} {pick(times) * 1e3:9.3f} ms/round ({args.stat}; best "
              f"{min(times) * 1e3:.3f}, median {statistics.median(times) * 1e3:.3f}); "
              f"{m.n_rounds_} rounds, training error {m.train_errors_[-1]:.4f}")
    loc = models["rebel_localized"]
    kinds = np.bincount(loc.forest_.kind[:loc.n_rounds_], minlength=4)
    print(f"    REBEL-localized rounds: {kinds[0]} constant, {kinds[2]} one-point, "
          f"{kinds[3]} two-point; ln training loss {loc.train_log_loss_[-1]:.3f} "
          f"(ln L_0 = {np.log(K / 2):.3f})")
    ratio = pick(per_round["rebel_localized"]) / pick(per_round["samme_stump"])
    print("== summary ==")
    print(f"rebel_localized_round_seconds={pick(per_round['rebel_localized']):.6f}")
    print(f"samme_stump_round_seconds={pick(per_round['samme_stump']):.6f}")
    print(f"rebel_stump_round_seconds={pick(per_round['rebel_stump']):.6f}")
    print(f"ratio_rebel_localized_vs_samme_stump={ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
