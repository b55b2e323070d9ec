"""DirectBoost^eps_avg's fit and LPBoost's LP per round against binary AdaBoost's round on
Adult-10k, depth-3 trees, one core (part of ``make bench``; issue 32).

Run from the repository root::

    python -m benchmarks.bench_directboost [--ada-rounds 2000] [--ada-repeats 3]
                                           [--ada-stop-rounds 200000] [--lp-rounds 60]
                                           [--window 10] [--n-prime-fraction 0.1]
                                           [--no-lpboost] [--no-directboost]

Data
----
The catalog's ``adult-10000`` (the DirectBoost paper's Table 2: "Adult dataset with 10000
training samples"): its 10000 training rows, which are the training part of the
``predefined_test_halves`` protocol the configs use (that protocol only cuts the test file
into validation and test halves); 14 UCI attributes, 2 classes. Loaded with
``mcboost_cli.datasets.load_dataset`` (mirror / cache from ``MCBOOST_MIRROR`` /
``MCBOOST_DATA``, or ``--mirror``), binned once (``BinMapper``, not timed); every fit gets the
same ``Binned`` data.

What is timed
-------------
CPU time of the process (``time.process_time``: numba kernels run in the calling thread; a
thread HiGHS might start is counted too), JIT excluded (a small fit of each estimator on 500 of
the rows first compiles or cache-loads every kernel, Phase II's included; the timed fits are
checked to compile nothing).

1. Reference, binary ``AdaBoost(max_depth=3)`` (the DirectBoost paper's baseline, weighted-
   error trees): seconds per round of a fit of ``--ada-rounds`` rounds, median of
   ``--ada-repeats``; and one fit with ``loss_tolerance=1e-6`` on the summed loss (the
   paper's stopping rule as the configs read it, ``loss_tolerance_of="sum"``)
   run to its stop (``--ada-stop-rounds`` at most): rounds and total.
2. ``LPBoost(max_depth=3, n_prime_fraction=0.1)``, at most ``--lp-rounds`` rounds (its own
   optimality test would take hundreds: the paper's fit took 286): the HiGHS master-LP solve of
   each round timed apart from the rest of the round (weak learner, column bookkeeping,
   training curve), by wrapping ``lpboost.RestrictedMasterLP.add_column_and_solve`` (the
   warm-started HiGHS model of LPBoost version 2). The LP grows by one row per
   round, so the first and the last ``--window`` rounds are reported apart. The estimator's own
   ``lp_seconds_`` (wall time of the same solves) is printed beside.
3. ``DirectBoostEpsAvg(max_depth=3, n_prime_fraction=0.1, epsilon=0.01, n_rounds=5000)``
   (the configs' parameters; 0.1 is a value of the paper's n'/n grid) run to its own stop
   (Phase II ends when the bottom-n' average has not increased for ``patience`` = 10
   rounds): the total, and Phase I and Phase II rounds apart (``_boost_phase1`` /
   ``_boost_phase2`` wrapped; the Phase I attempt that hands over and the Phase II call that
   stops are timed as calls too).

The summary gives every time as a ratio to AdaBoost's round measured in the same run, and
DirectBoost's total over AdaBoost's total to its stop. One fit each of LPBoost and DirectBoost
(tens of seconds): their ratios move with the machine's load by more than AdaBoost's
repeated one; compare ratios of one run only. A benchmark reports, it never fails on a
target: the exit status is 0 unless the data are missing (2).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

DATASET = "adult-10000"
DEPTH = 3
CLOCK = time.process_time
LOSS_TOLERANCE = 1e-6          # the DirectBoost paper's AdaBoost stopping rule (sec. 3.1)
EPSILON = 0.01                 # the paper's epsilon-relaxation
DIRECTBOOST_ROUNDS = 5000      # configs/directboost.yaml's cap; its own rule stops it first


def _die(msg):
    print(f"bench_directboost: error: {msg}", file=sys.stderr)
    sys.exit(2)


def load_adult_10000(mirror):
    """(X, y, categorical) of adult-10000's 10000 training rows; exits 2 if unavailable."""
    from mcboost_cli.datasets import DatasetError, load_dataset
    try:
        ds = load_dataset(DATASET, mirror=mirror)
    except (DatasetError, OSError) as exc:
        _die(f"dataset {DATASET!r} unavailable: {' '.join(str(exc).split())}")
    train = ~np.asarray(ds.test_mask, dtype=bool)
    return (np.ascontiguousarray(ds.X[train]), np.ascontiguousarray(ds.y[train]),
            ds.categorical)


class CallTimer:
    """Times every call of named functions of ``owner`` (a class or a module) while active.

    ``calls[name]`` lists the CPU seconds of each call, in call order. Inherited methods are
    wrapped on ``owner`` itself and removed again on exit, so the base class (and any other
    subclass) is never touched; an attribute ``owner`` defines itself is restored.
    """

    def __init__(self, owner, names, clock=CLOCK):
        self.owner = owner
        self.names = tuple(names)
        self.clock = clock
        self.calls = {name: [] for name in self.names}
        self._own = {}

    def __enter__(self):
        try:
            for name in self.names:
                fn = getattr(self.owner, name)      # AttributeError names a renamed target
                self._own[name] = vars(self.owner).get(name)
                setattr(self.owner, name, self._wrap(name, fn))
        except BaseException:
            self.__exit__()
            raise
        return self

    def _wrap(self, name, fn):
        record = self.calls[name]
        clock = self.clock

        def timed(*args, **kwargs):
            t0 = clock()
            try:
                return fn(*args, **kwargs)
            finally:
                record.append(clock() - t0)
        timed.__wrapped__ = fn
        return timed

    def __exit__(self, *exc):
        for name, own in self._own.items():
            if own is None:
                delattr(self.owner, name)
            else:
                setattr(self.owner, name, own)
        self._own.clear()


def _kernel_signatures():
    """Compiled signatures summed over every numba dispatcher of the package's loaded modules
    (a rise across a timed fit means it compiled)."""
    from numba.core.dispatcher import Dispatcher
    total = 0
    for name, mod in list(sys.modules.items()):
        if not name.startswith("mcboost_cli") or mod is None:
            continue
        for obj in vars(mod).values():
            if isinstance(obj, Dispatcher):
                total += len(obj.signatures)
    return total


def _fit(make, data, y):
    """(CPU seconds, fitted model) of make().fit(data, y), the garbage collector off."""
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        t0 = CLOCK()
        model = make().fit(data, y)
        return CLOCK() - t0, model
    finally:
        if enabled:
            gc.enable()


def _warm_up(binned, y, n_prime_fraction):
    """Small fits on 500 of the rows (same dtypes as the real fits): compile or cache-load
    every kernel; DirectBoost's must reach Phase II. Returns (seconds, Phase II reached)."""
    from mcboost_cli.algorithms.adaboost import AdaBoost
    from mcboost_cli.algorithms.directboost import DirectBoostEpsAvg
    from mcboost_cli.algorithms.lpboost import LPBoost
    from mcboost_cli.learners.binning import Binned
    rows = np.sort(np.random.default_rng(0).permutation(y.shape[0])[:500])
    small = Binned(binned.codes[rows], binned.mapper)
    ys = y[rows]
    t0 = time.perf_counter()
    AdaBoost(n_rounds=5, max_depth=DEPTH, loss_tolerance=LOSS_TOLERANCE).fit(small, ys)
    LPBoost(n_rounds=5, max_depth=DEPTH, n_prime_fraction=n_prime_fraction).fit(small, ys)
    db = DirectBoostEpsAvg(n_rounds=400, max_depth=DEPTH, n_prime_fraction=n_prime_fraction,
                           epsilon=EPSILON).fit(small, ys)
    return time.perf_counter() - t0, db.n_rounds_ > db.n_phase1_rounds_


def bench_adaboost(binned, y, rounds, repeats, stop_rounds):
    from mcboost_cli.algorithms.adaboost import AdaBoost
    per_round = []
    for _ in range(repeats):
        seconds, model = _fit(lambda: AdaBoost(n_rounds=rounds, max_depth=DEPTH), binned, y)
        per_round.append(seconds / max(model.n_rounds_, 1))
    res = {"round": statistics.median(per_round), "round_best": min(per_round),
           "rounds": model.n_rounds_}
    print(f"[1] AdaBoost (reference): {res['round'] * 1e3:.3f} ms/round (median of {repeats} "
          f"fits of {model.n_rounds_} rounds; best {res['round_best'] * 1e3:.3f})")
    if stop_rounds > 0:
        seconds, model = _fit(lambda: AdaBoost(n_rounds=stop_rounds, max_depth=DEPTH,
                                               loss_tolerance=LOSS_TOLERANCE,
                                               loss_tolerance_of="sum"), binned, y)
        res.update(stop_total=seconds, stop_rounds=model.n_rounds_,
                   stop_reached=model.n_rounds_ < stop_rounds or "loss" in model.stop_reason_)
        print(f"    to its stop (loss_tolerance={LOSS_TOLERANCE:g}, summed loss): "
              f"{model.n_rounds_} rounds, "
              f"{seconds:.2f} s ({seconds / max(model.n_rounds_, 1) * 1e3:.3f} ms/round); "
              f"stop: {model.stop_reason_ or 'round budget'}; training error "
              f"{model.train_errors_[-1]:.4f}")
    return res


def bench_lpboost(binned, y, rounds, window, n_prime_fraction):
    from mcboost_cli.algorithms import lpboost
    with CallTimer(lpboost.RestrictedMasterLP, ["add_column_and_solve"]) as timer:
        seconds, model = _fit(lambda: lpboost.LPBoost(n_rounds=rounds, max_depth=DEPTH,
                                                      n_prime_fraction=n_prime_fraction),
                              binned, y)
    lp = np.asarray(timer.calls["add_column_and_solve"])
    T = model.n_rounds_
    res = {"rounds": T, "total": seconds, "lp_round": float(lp.mean()) if lp.size else 0.0,
           "rest_round": (seconds - lp.sum()) / max(T, 1), "round": seconds / max(T, 1),
           "converged": model.converged_}
    print(f"[2] LPBoost (n'/n = {n_prime_fraction:g}, n' = {model.n_prime_}): {T} rounds, "
          f"fit {seconds:.2f} s; stop: {model.stop_reason_ or 'round budget'}")
    print(f"    LP solves: {lp.size}, {lp.sum():.2f} s CPU (the estimator's lp_seconds_, wall "
          f"time: {model.lp_seconds_.sum():.2f} s); mean {res['lp_round'] * 1e3:.1f} ms/round")
    k = min(window, lp.size)
    if k:
        res["lp_early"] = float(lp[:k].mean())
        res["lp_late"] = float(lp[-k:].mean())
        res["early_range"] = f"1-{k}"
        res["late_range"] = f"{lp.size - k + 1}-{lp.size}"
        for key in ("early", "late"):
            part = lp[:k] if key == "early" else lp[-k:]
            print(f"    LP, rounds {res[key + '_range']}: mean {part.mean() * 1e3:.1f} ms, "
                  f"max {part.max() * 1e3:.1f} ms")
    if lp.size >= 2:
        res["lp_slope"] = float(np.polyfit(np.arange(1, lp.size + 1), lp, 1)[0])
        print(f"    LP time grows by {res['lp_slope'] * 1e3:.2f} ms per column (least squares "
              f"over the {lp.size} solves)")
    print(f"    rest of the round (tree, column, training curve): "
          f"{res['rest_round'] * 1e3:.2f} ms/round")
    return res


def bench_directboost(binned, y, n_prime_fraction):
    from mcboost_cli.algorithms.directboost import DirectBoostEpsAvg
    with CallTimer(DirectBoostEpsAvg, ["_boost_phase1", "_boost_phase2"]) as timer:
        seconds, model = _fit(lambda: DirectBoostEpsAvg(
            n_rounds=DIRECTBOOST_ROUNDS, max_depth=DEPTH, n_prime_fraction=n_prime_fraction,
            epsilon=EPSILON), binned, y)
    p1 = np.asarray(timer.calls["_boost_phase1"])
    p2 = np.asarray(timer.calls["_boost_phase2"])
    T, T1 = model.n_rounds_, model.n_phase1_rounds_
    res = {"rounds": T, "phase1_rounds": T1, "phase2_rounds": T - T1, "total": seconds,
           "round": seconds / max(T, 1), "phase1_total": float(p1.sum()),
           "phase2_total": float(p2.sum())}
    print(f"[3] DirectBoost^eps_avg (n'/n = {n_prime_fraction:g}, n' = {model.n_prime_}, "
          f"epsilon {EPSILON:g}): {T} rounds kept ({T1} Phase I, {T - T1} Phase II), fit "
          f"{seconds:.2f} s ({res['round'] * 1e3:.1f} ms/round)")
    print(f"    Phase I ended: {model.phase1_stop_}; stop: {model.stop_reason_ or 'budget'}; "
          f"training error {model.train_errors_[-1]:.4f}")
    for phase, calls, kept in ((1, p1, T1), (2, p2, T - T1)):
        if calls.size:
            res[f"phase{phase}_round"] = float(calls.sum()) / max(kept, 1)
            print(f"    Phase {'I' * phase}: {calls.sum():.2f} s over {calls.size} call(s) "
                  f"({kept} rounds kept): {res[f'phase{phase}_round'] * 1e3:.1f} ms per kept "
                  f"round; calls min {calls.min() * 1e3:.1f} ms, max {calls.max() * 1e3:.1f} ms")
    print(f"    rest (set-up, training curve): {seconds - p1.sum() - p2.sum():.2f} s")
    return res


def _parser():
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_directboost",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--ada-rounds", type=int, default=2000,
                   help="rounds of each timed AdaBoost fit (2000)")
    p.add_argument("--ada-repeats", type=int, default=3, help="AdaBoost fits (3)")
    p.add_argument("--ada-stop-rounds", type=int, default=200_000,
                   help="round budget of the AdaBoost fit run to its loss_tolerance=1e-6 stop "
                        "(200000, the configs'; 0 = skip)")
    p.add_argument("--lp-rounds", type=int, default=60,
                   help="LPBoost rounds (60; the LP of round t has t rows)")
    p.add_argument("--window", type=int, default=10,
                   help="LPBoost rounds in the early and late windows (10)")
    p.add_argument("--n-prime-fraction", type=float, default=0.1,
                   help="n'/n of LPBoost and DirectBoost (0.1; the paper's grid: 0.01, 0.05, "
                        "0.1, 0.2, 0.5, 0.8)")
    p.add_argument("--no-lpboost", action="store_true", help="skip LPBoost")
    p.add_argument("--no-directboost", action="store_true", help="skip DirectBoost")
    p.add_argument("--mirror", default=None, help="dataset mirror (default: $MCBOOST_MIRROR)")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    for name in ("ada_rounds", "ada_repeats", "lp_rounds", "window"):
        if getattr(args, name) < 1:
            _parser().error(f"--{name.replace('_', '-')} must be >= 1")
    if not 0.0 < args.n_prime_fraction <= 1.0:
        _parser().error("--n-prime-fraction must be in (0, 1]")
    import numba

    from mcboost_cli.learners.binning import BinMapper, Binned
    from mcboost_cli.runner.work import machine

    wall0 = time.perf_counter()
    X, y, categorical = load_adult_10000(args.mirror)
    load0 = os.getloadavg()[0]
    ncpu = os.cpu_count() or 1
    print(f"mcboost DirectBoost / LPBoost / AdaBoost benchmark: {DATASET} training part "
          f"({X.shape[0]} x {X.shape[1]}, class counts {np.bincount(y).tolist()}), depth-{DEPTH} "
          f"trees, CPU time, one thread")
    print(f"{machine()}; python {sys.version.split()[0]}, numpy {np.__version__}, numba "
          f"{numba.__version__}; load average {load0:.2f}")
    if load0 > 0.5 * ncpu:
        print("warning: the machine is busy; timings are CPU time, but other processes still "
              "share the caches and memory bandwidth (compare ratios of one run only)")
    mapper = BinMapper(categorical=categorical).fit(X)
    binned = Binned(mapper.transform(X), mapper)
    jit, phase2_warm = _warm_up(binned, y, args.n_prime_fraction)
    print(f"JIT warm-up (excluded): {jit:.2f} s"
          + ("" if phase2_warm else "; warning: the warm-up fit did not reach Phase II"))
    sigs = _kernel_signatures()
    ada = bench_adaboost(binned, y, args.ada_rounds, args.ada_repeats, args.ada_stop_rounds)
    lp = None if args.no_lpboost else bench_lpboost(binned, y, args.lp_rounds, args.window,
                                                    args.n_prime_fraction)
    db = None if args.no_directboost else bench_directboost(binned, y, args.n_prime_fraction)
    compiled = _kernel_signatures() - sigs
    if compiled:
        print(f"warning: {compiled} kernel signature(s) compiled during the timed fits; their "
              f"timings include JIT")
    load1 = os.getloadavg()[0]

    ref = ada["round"]
    print("== summary ==")
    print(f"load_average_start={load0:.2f}")
    print(f"load_average_end={load1:.2f}")
    print(f"bench_wall_seconds={time.perf_counter() - wall0:.1f}")
    print(f"adaboost_round_seconds={ref:.6f} (median of {args.ada_repeats} fits of "
          f"{ada['rounds']} rounds)")
    if "stop_total" in ada:
        print(f"adaboost_stop_rounds={ada['stop_rounds']}"
              + ("" if ada["stop_reached"] else " (round budget reached before the stop)"))
        print(f"adaboost_stop_seconds={ada['stop_total']:.3f}")
    if lp is not None:
        print(f"lpboost_rounds={lp['rounds']}" + (" (converged)" if lp["converged"] else
                                                   f" (capped at --lp-rounds {args.lp_rounds})"))
        print(f"lpboost_lp_round_seconds={lp['lp_round']:.5f}")
        print(f"lpboost_lp_round_vs_adaboost_round={lp['lp_round'] / ref:.0f}x")
        for key in ("early", "late"):
            if f"lp_{key}" in lp:
                print(f"lpboost_lp_rounds_{lp[key + '_range']}_vs_adaboost_round="
                      f"{lp['lp_' + key] / ref:.0f}x")
        print(f"lpboost_round_vs_adaboost_round={lp['round'] / ref:.0f}x (whole round)")
        print(f"lpboost_rest_of_round_vs_adaboost_round={lp['rest_round'] / ref:.1f}x")
    if db is not None:
        print(f"directboost_rounds={db['rounds']} (Phase I {db['phase1_rounds']}, Phase II "
              f"{db['phase2_rounds']})")
        print(f"directboost_fit_seconds={db['total']:.3f}")
        print(f"directboost_round_vs_adaboost_round={db['round'] / ref:.0f}x")
        for phase in (1, 2):
            if f"phase{phase}_round" in db:
                print(f"directboost_phase{phase}_round_vs_adaboost_round="
                      f"{db[f'phase{phase}_round'] / ref:.0f}x")
        if "stop_total" in ada:
            print(f"directboost_fit_vs_adaboost_to_stop={db['total'] / ada['stop_total']:.2f}"
                  + ("" if ada["stop_reached"] else " (AdaBoost capped)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
