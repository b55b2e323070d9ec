"""DMCBoost per-round benchmark (depth-3 trees, one core), with SAMME on the same data.

Run from the repository root::

    python -m benchmarks.bench_dmcboost [--letter-rounds 40] [--poker-rounds 40]
                                        [--phase2-rounds 10] [--samme-rounds 20] [--no-poker]

Data
----
* Letter: its conventional training part, the first 16000 rows (16 features, 26 classes),
  from ``mcboost_cli.datasets.load_dataset("letter")`` (mirror / cache from ``MCBOOST_MIRROR``
  / ``MCBOOST_DATA`` or ``--mirror``).
* Poker525k: the papers' 525,010-row training set — from ``load_dataset("poker525k")`` (cache
  or download) when the UCI test file can be had; otherwise the real UCI training file
  (``poker/poker-hand-training-true.data``, 25,010 rows, from a local mirror folder) plus
  500,000 rows chosen by ``mcboost_cli.datasets.generators.poker525k``. The UCI test file is
  not in the offline mirror, so there those 500,000 rows come from the generator's stand-in
  test hands:
  uniformly random hands with the test file's exact class counts, labelled by the exact poker
  rules (in distribution, not the papers' rows; the labels matter little for timing).

What is timed
-------------
Every ``_boost`` call of one DMCBoost fit on pre-binned data (binning once, excluded), split by
phase: Phase I rounds (0-1 loss tree + exact line search; the last Phase I attempt, which
finds no lower error and hands over to Phase II, is timed as a Phase I round too) and Phase II
rounds (bottom-n' margin tree + bisection line search). The fit is cut after the requested
number of Phase II rounds. SAMME(max_depth=3) is timed on the same binned data in the same
run (fit time / rounds). JIT compilation is excluded: a tiny fit of each estimator first
compiles or cache-loads every kernel.

The target is <= 1 s per DMCBoost round on Poker525k on one core (the paper's C++: ~90 s per
DMCBoost round, ~10 s per SAMME round, Core2 Duo 2.6 GHz). The summary checks the mean Phase I
round and the *slowest* Phase II round against it, and prints every Phase II round's time:
the Phase II node search handles groups of examples with equal score rows as one item, and
the number of groups grows with the rounds (on Letter from 464 after Phase I to ~8,000 of
16,000 after 30 rounds), so later rounds cost more than the first ones. A benchmark reports;
it never fails on a target: the exit status is 0 unless the data are missing (2).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

DEPTH = 3
N_LETTER = 16000
TARGET_SECONDS = 1.0
POKER_TRAIN_FILE = "poker/poker-hand-training-true.data"


def _die(msg):
    print(f"bench_dmcboost: error: {msg}", file=sys.stderr)
    sys.exit(2)


def load_letter(mirror):
    from mcboost_cli.datasets import DatasetError, load_dataset
    try:
        ds = load_dataset("letter", mirror=mirror)
    except (DatasetError, OSError) as exc:
        _die(f"dataset 'letter' unavailable: {' '.join(str(exc).split())}")
    return (np.ascontiguousarray(ds.X[:N_LETTER]), np.ascontiguousarray(ds.y[:N_LETTER]),
            ds.categorical, "UCI letter, rows 0..15999")


def _mirror_dirs(mirror):
    spec = mirror or os.environ.get("MCBOOST_MIRROR", "")
    return [Path(p) for p in spec.replace(",", " ").split() if p and "://" not in p]


def load_poker525k(mirror):
    """(X, y, categorical, description) of the 525,010-row training set, or None: the real
    one (``load_dataset("poker525k")``'s training part: the UCI training file and a seeded
    half of the test file, as the catalog defines it) when it can be had, else the stand-in
    below."""
    from mcboost_cli.datasets import DatasetError, load_dataset
    try:
        ds = load_dataset("poker525k", mirror=mirror)
        train = ~ds.test_mask
        return (np.ascontiguousarray(ds.X[train]), np.ascontiguousarray(ds.y[train]),
                ds.categorical, f"poker525k training part ({int(train.sum())} rows), real UCI "
                                f"files")
    except (DatasetError, OSError) as exc:
        print(f"    poker525k not available ({' '.join(str(exc).split())[:160]}); using the "
              f"stand-in")
    try:
        from mcboost_cli.datasets.generators import poker525k
    except Exception as exc:  # noqa: BLE001 - reported, poker skipped
        print(f"    poker skipped: generators unavailable ({type(exc).__name__}: {exc})")
        return None
    path = next((d / POKER_TRAIN_FILE for d in _mirror_dirs(mirror)
                 if (d / POKER_TRAIN_FILE).is_file()), None)
    if path is None:
        print(f"    poker skipped: {POKER_TRAIN_FILE} not found in a local mirror folder "
              f"(MCBOOST_MIRROR / --mirror)")
        return None
    raw = np.loadtxt(path, delimiter=",", dtype=np.int64)
    data = poker525k(seed=0, training=(raw[:, :10].astype(np.float64),
                                       raw[:, 10].astype(np.int32)))
    desc = (f"poker525k: {raw.shape[0]} real training rows + {data.X.shape[0] - raw.shape[0]} "
            f"rows from the generator's stand-in test hands (exact labels); "
            f"{getattr(data, 'source', '')}")
    return np.ascontiguousarray(data.X), np.ascontiguousarray(data.y), data.categorical, desc


class _PhaseTimer:
    """Times DMCBoost's Phase I and Phase II round methods (a Phase I attempt that finds no
    lower error is a full Phase I round of work, so it is timed as one) and stops the fit
    after a given number of Phase II rounds."""

    def __init__(self, cls, phase2_rounds):
        self.cls = cls
        self.saved = {}
        self.rows = []
        self.phase2_rounds = phase2_rounds

    def __enter__(self):
        from mcboost_cli.algorithms.base import RoundOutcome
        timer = self
        for name in ("_boost", "_boost_phase1", "_boost_phase2"):
            self.saved[name] = getattr(self.cls, name)
        boost, ph1, ph2 = (self.saved[k] for k in ("_boost", "_boost_phase1", "_boost_phase2"))

        def timed_boost(est, t, X, y):
            return boost(est, t, X, y)

        def timed(phase, fn):
            def wrapper(est, t, X, y):
                if phase == 2 and sum(1 for p, _ in timer.rows if p == 2) >= \
                        timer.phase2_rounds:
                    est.stop_reason_ = "benchmark: Phase II round budget reached"
                    return RoundOutcome.DISCARD_STOP
                t0 = time.perf_counter()
                out = fn(est, t, X, y)
                timer.rows.append((phase, time.perf_counter() - t0))
                return out
            return wrapper

        self.cls._boost = timed_boost
        self.cls._boost_phase1 = timed(1, ph1)
        self.cls._boost_phase2 = timed(2, ph2)
        return self

    def __exit__(self, *exc):
        for name, fn in self.saved.items():
            setattr(self.cls, name, fn)


def bench_dataset(name, X, y, categorical, desc, n_rounds, phase2_rounds, samme_rounds):
    from mcboost_cli.algorithms.adaboost import SAMME
    from mcboost_cli.algorithms.dmcboost import DMCBoost
    from mcboost_cli.learners.binning import BinMapper, Binned

    print(f"[{name}] {desc}")
    print(f"    {X.shape[0]} x {X.shape[1]}, {len(np.unique(y))} classes")
    t0 = time.perf_counter()
    mapper = BinMapper(categorical=categorical).fit(X)
    binned = Binned(mapper.transform(X), mapper)
    print(f"    binning (once, not timed below): {time.perf_counter() - t0:.2f} s; "
          f"{int(np.sum(mapper.n_bins_ - 1))} thresholds")
    gc.collect()
    with _PhaseTimer(DMCBoost, phase2_rounds) as timer:
        t0 = time.perf_counter()
        est = DMCBoost(n_rounds=n_rounds, max_depth=DEPTH).fit(binned, y)
        total = time.perf_counter() - t0
    p1_all = [dt for p, dt in timer.rows if p == 1]
    p2 = [dt for p, dt in timer.rows if p == 2]
    extra = len(p1_all) > est.n_phase1_rounds_
    print(f"    DMCBoost: {est.n_rounds_} rounds kept ({est.n_phase1_rounds_} Phase I), "
          f"fit {total:.2f} s, stop: {est.stop_reason_}")
    if est.n_rounds_:
        after1 = est.train_errors_[max(est.n_phase1_rounds_, 1) - 1]
        print(f"    training error after Phase I {after1:.4f}, at the end "
              f"{est.train_errors_[-1]:.4f}")
    res = {}
    if p1_all:
        res["phase1"] = float(np.mean(p1_all))
        print(f"    Phase I : {res['phase1']:.3f} s/round over {len(p1_all)} round(s) "
              f"(incl. the final attempt that found no lower error)" if extra else
              f"    Phase I : {res['phase1']:.3f} s/round over {len(p1_all)} round(s)")
    if p2:
        res["phase2"] = float(np.mean(p2))
        res["phase2_max"] = float(max(p2))
        print(f"    Phase II: {res['phase2']:.3f} s/round over {len(p2)} round(s) "
              f"(min {min(p2):.3f}, max {max(p2):.3f}); per round: "
              + " ".join(f"{dt:.3f}" for dt in p2))
    gc.collect()
    t0 = time.perf_counter()
    sm = SAMME(n_rounds=samme_rounds, max_depth=DEPTH).fit(binned, y)
    res["samme"] = (time.perf_counter() - t0) / max(sm.n_rounds_, 1)
    print(f"    SAMME   : {res['samme']:.3f} s/round over {sm.n_rounds_} round(s)"
          + (f" (stopped: {sm.stop_reason_})" if sm.n_rounds_ < samme_rounds else ""))
    return res


def _warm_up():
    from mcboost_cli.algorithms.adaboost import SAMME
    from mcboost_cli.algorithms.dmcboost import DMCBoost
    rng = np.random.default_rng(0)
    X = rng.integers(0, 8, size=(400, 5)).astype(np.float64)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 3, 400)).astype(int) % 4
    t0 = time.perf_counter()
    DMCBoost(n_rounds=12, max_depth=DEPTH).fit(X, y)
    SAMME(n_rounds=3, max_depth=DEPTH).fit(X, y)
    return time.perf_counter() - t0


def _parser():
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_dmcboost",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--letter-rounds", type=int, default=40,
                   help="DMCBoost round budget on Letter (default 40)")
    p.add_argument("--poker-rounds", type=int, default=40,
                   help="DMCBoost round budget on Poker525k (default 40)")
    p.add_argument("--phase2-rounds", type=int, default=10,
                   help="stop each fit after this many Phase II rounds (default 10; 0 = time "
                        "Phase I only)")
    p.add_argument("--samme-rounds", type=int, default=20,
                   help="SAMME rounds timed per dataset (default 20)")
    p.add_argument("--no-poker", action="store_true", help="Letter only")
    p.add_argument("--mirror", default=None, help="UCI mirror (default: $MCBOOST_MIRROR)")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    import numba
    print(f"mcboost DMCBoost per-round benchmark: depth-{DEPTH} trees, one core; python "
          f"{sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"JIT warm-up (excluded): {_warm_up():.2f} s")
    out = {}
    X, y, cat, desc = load_letter(args.mirror)
    out["letter"] = bench_dataset("letter", X, y, cat, desc, args.letter_rounds,
                                  args.phase2_rounds, args.samme_rounds)
    if not args.no_poker:
        data = load_poker525k(args.mirror)
        if data is not None:
            out["poker525k"] = bench_dataset("poker525k", *data, args.poker_rounds,
                                             args.phase2_rounds, args.samme_rounds)
    print("== summary ==")
    for name, r in out.items():
        for key in ("phase1", "phase2", "samme"):
            if key in r:
                label = {"phase1": "dmcboost_phase1", "phase2": "dmcboost_phase2",
                         "samme": "samme"}[key]
                print(f"{name}.{label}_round_seconds={r[key]:.4f}")
        if "phase1" in r:
            ok = r["phase1"] <= TARGET_SECONDS  # mean of the Phase I rounds
            print(f"{name}.phase1_target_{TARGET_SECONDS:g}s={'met' if ok else 'NOT met'}")
        if "phase2" in r:
            # Every timed round must meet the target, not just their mean.
            print(f"{name}.dmcboost_phase2_max_round_seconds={r['phase2_max']:.4f}")
            ok = r["phase2_max"] <= TARGET_SECONDS
            print(f"{name}.phase2_target_{TARGET_SECONDS:g}s={'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
