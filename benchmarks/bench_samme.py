"""SAMME per-round benchmark (the target behind ``make bench``).

Run from the repository root::

    python -m benchmarks.bench_samme [--rounds 200] [--repeats 5] [--cold-jit] [--profile]

Data: UCI Letter, its standard training part (the first 16000 rows; 16 features, 26 classes),
loaded with ``mcboost_cli.datasets.load_dataset`` (mirror/cache from ``MCBOOST_MIRROR`` /
``MCBOOST_DATA``, or ``--mirror``). Everything is single-threaded: our numba kernels are not
parallel, scikit-learn's trees are serial, LightGBM gets ``num_threads=1``, and the
BLAS/OpenMP pools are pinned to one thread below.

Measured, in one process:

1. JIT: a first tiny SAMME fit (synthetic 500 x 16, 26 classes, 3 rounds) compiles our numba
   kernels or loads them from numba's on-disk cache (reported: hit or miss). It is excluded
   from every per-round timing, and the timed fits are checked not to compile anything.
   ``--cold-jit`` also measures compilation from scratch in a subprocess with an empty
   ``NUMBA_CACHE_DIR``.
2. Ours: ``SAMME(n_rounds=N, max_depth=3).fit(X, y)`` on the raw data, as a user calls it
   (binning, label encoding and the training-curve bookkeeping included): the headline;
   and the same fit on pre-binned data (``Binned``). Seconds per round = fit time /
   ``n_rounds_``; the two fits alternate, so a change of load hits both.
3. scikit-learn: ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=N',
   learning_rate=1.0)``; seconds per round = fit time / ``len(estimators_)``.
4. LightGBM (optional ``bench`` extra), Dataset constructed beforehand (excluded):
   a) objective ``multiclass``: 26 depth-3 trees per round; seconds per tree
      = train time / (rounds x 26). This is the headline comparison.
   b) objective ``binary`` (first 13 letters vs the rest): one depth-3 tree per round, so
      the per-round overhead (gradients over all samples, score update) is paid per tree, as
      in our rounds; seconds per tree = train time / rounds.

Every time is CPU time of the process (``time.process_time``; everything is single-threaded),
so that time other processes hold the CPU is not counted. Each timing is repeated R times; the
headline statistic is the median (``--stat best`` for the minimum), and both are printed.
Ratios are taken within one run. A benchmark reports, it never fails on a target: the exit
status is 0 unless the data is missing (2).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

# Single-threaded comparison: pin thread pools before numpy / scikit-learn / LightGBM load.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

DATASET = "letter"
N_TRAIN = 16000          # Letter's conventional training part: the first 16000 rows
DEPTH = 3
SPEEDUP_TARGET = 25.0    # sklearn per round / ours per round, both fit(X, y) on raw data
LGB_RATIO_TARGET = 1.3   # ours per round (fit(X, y) on raw data) / LightGBM per tree
# CPU time of this process (every thread): the machine may be shared, and wall-clock time
# would count the time other processes hold the CPU. Everything measured is single-threaded.
CLOCK = time.process_time
REPO_ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _timed(fn, repeats):
    """Call ``fn()`` ``repeats`` times with the GC off; returns (seconds per call, last result)."""
    times, out = [], None
    for _ in range(max(1, repeats)):
        gc.collect()
        enabled = gc.isenabled()
        gc.disable()
        try:
            t0 = CLOCK()
            out = fn()
            times.append(CLOCK() - t0)
        finally:
            if enabled:
                gc.enable()
    return times, out


def _pick(values, stat):
    return min(values) if stat == "best" else statistics.median(values)


def _ms(seconds):
    return f"{seconds * 1e3:.3f} ms"


def _spread(per_unit, stat, unit):
    return (f"{_ms(_pick(per_unit, stat))}/{unit} ({stat}; best {_ms(min(per_unit))}, "
            f"median {_ms(statistics.median(per_unit))}, n={len(per_unit)})")


def _kernels():
    """Our numba dispatchers (the compiled kernels of the SAMME fit path)."""
    from numba.core.dispatcher import Dispatcher

    from mcboost_cli.algorithms import adaboost
    from mcboost_cli.learners import forest, histogram_tree, tree_layout

    found = []
    for mod in (histogram_tree, tree_layout, forest, adaboost):
        for obj in vars(mod).values():
            owner = getattr(obj.py_func, "__module__", "") if isinstance(obj, Dispatcher) else ""
            if owner == mod.__name__:
                found.append(obj)
    return found


def _kernel_state(kernels):
    """(compiled signatures, on-disk cache hits, cache misses) summed over the kernels."""
    sigs = hits = misses = 0
    for d in kernels:
        sigs += len(d.signatures)
        stats = getattr(d, "stats", None)
        if stats is not None:
            hits += sum(stats.cache_hits.values())
            misses += sum(stats.cache_misses.values())
    return sigs, hits, misses


def _tiny_fit_seconds():
    """Time a first tiny SAMME fit (compiles or cache-loads every kernel of the fit path).

    Synthetic integer features in 0..15 with 26 random classes: the arrays have the dtypes
    and layouts of the real fit (uint8 codes, int32 labels), so nothing compiles later, and
    a depth-3 tree cannot be perfect, so every kernel (reweighting included) runs.
    """
    from mcboost_cli.algorithms.adaboost import SAMME

    rng = np.random.default_rng(0)
    X = rng.integers(0, 16, size=(500, 16)).astype(np.float64)
    y = (np.arange(500) % 26).astype(np.int32)
    rng.shuffle(y)
    t0 = time.perf_counter()
    SAMME(n_rounds=3, max_depth=DEPTH).fit(X, y)
    return time.perf_counter() - t0


def _cold_jit_seconds():
    """Tiny-fit time in a fresh interpreter with an empty numba cache (compile from scratch)."""
    with tempfile.TemporaryDirectory(prefix="mcboost-numba-") as cache_dir:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
        proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_samme", "--jit-probe"],
                              cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                              timeout=600, check=False)
    for line in proc.stdout.splitlines():
        if line.startswith("jit_probe_seconds="):
            return float(line.split("=", 1)[1])
    raise RuntimeError(f"probe failed (exit {proc.returncode}): "
                       f"{(proc.stderr.strip().splitlines() or ['no output'])[-1]}")


# ---------------------------------------------------------------------------------------------
# the measurements
# ---------------------------------------------------------------------------------------------


def load_letter(mirror):
    """Letter's training part as (X float64, y int32); exits 2 with one line if unavailable."""
    from mcboost_cli.datasets import DatasetError, load_dataset

    try:
        ds = load_dataset(DATASET, mirror=mirror)
    except (DatasetError, OSError) as exc:
        msg = " ".join(str(exc).split())
        print(f"bench_samme: error: dataset {DATASET!r} unavailable: {msg}", file=sys.stderr)
        sys.exit(2)
    X = np.ascontiguousarray(ds.X[:N_TRAIN])
    y = np.ascontiguousarray(ds.y[:N_TRAIN])
    return X, y


def bench_jit(cold):
    print("[1] JIT compilation of our kernels (excluded from per-round timings)")
    kernels = _kernels()
    seconds = _tiny_fit_seconds()
    sigs, hits, misses = _kernel_state(kernels)
    if misses == 0 and hits > 0:
        how = f"numba on-disk cache HIT ({hits} cached kernel(s) loaded, nothing compiled)"
    elif misses > 0:
        how = (f"numba on-disk cache MISS ({misses} kernel signature(s) compiled"
               f"{f', {hits} loaded from cache' if hits else ''}; cached for later runs)")
    else:
        how = "numba cache status unknown"
    print(f"    first tiny fit: {seconds:.3f} s; {how}")
    result = {"jit_seconds": seconds, "cache": "hit" if misses == 0 and hits > 0 else "miss"}
    if cold:
        try:
            result["cold_jit_seconds"] = _cold_jit_seconds()
            print(f"    compile from scratch (fresh process, empty NUMBA_CACHE_DIR): "
                  f"{result['cold_jit_seconds']:.3f} s")
        except Exception as exc:  # noqa: BLE001 - a report line, not a failure
            print(f"    cold compile measurement failed: {exc}")
    return result, kernels, sigs


def bench_ours(X, y, rounds, repeats, stat):
    from mcboost_cli.algorithms.adaboost import SAMME
    from mcboost_cli.learners.binning import BinMapper, Binned

    print(f"[2] ours: SAMME(n_rounds={rounds}, max_depth={DEPTH}), {repeats} repeat(s)")

    def bin_once():
        mapper = BinMapper().fit(X)
        return mapper, mapper.transform(X)

    t_bin, (mapper, codes) = _timed(bin_once, repeats)
    binned = Binned(codes, mapper)

    def fit_binned():
        return SAMME(n_rounds=rounds, max_depth=DEPTH).fit(binned, y)

    def fit_raw():
        return SAMME(n_rounds=rounds, max_depth=DEPTH).fit(X, y)

    # Interleaved, so that a change of machine load hits both alike.
    t_raw, t_fit = [], []
    for _ in range(max(1, repeats)):
        t, model_raw = _timed(fit_raw, 1)
        t_raw += t
        t, model = _timed(fit_binned, 1)
        t_fit += t
    kept = model_raw.n_rounds_
    if kept < rounds:
        print(f"    note: stopped after {kept} rounds ({model_raw.stop_reason_})")
    per_round_raw = [t / kept for t in t_raw]
    per_round = [t / model.n_rounds_ for t in t_fit]
    f = model_raw.forest_
    leaves = int(np.count_nonzero(f.left[:f.n_nodes_total] < 0)) / max(f.n_trees, 1)
    print(f"    fit(X, y), raw data (the user's call; binning inside): "
          f"{_spread(per_round_raw, stat, 'round')}  [fit {_pick(t_raw, stat):.3f} s / "
          f"{kept} rounds]")
    print(f"    fit(Binned, y), pre-binned:  {_spread(per_round, stat, 'round')}")
    print(f"    binning once (BinMapper fit+transform): {_ms(_pick(t_bin, stat))}")
    print(f"    trees: {leaves:.2f} leaves on average (depth 3 allows 8); "
          f"training error after {kept} rounds {model_raw.train_errors_[-1]:.4f}")
    return {"round": _pick(per_round_raw, stat), "round_binned": _pick(per_round, stat),
            "model": model_raw, "codes": codes, "mapper": mapper}


def bench_sklearn(X, y, n_estimators, repeats, stat, ours_model):
    print(f"[3] scikit-learn: AdaBoostClassifier(DecisionTreeClassifier(max_depth={DEPTH}), "
          f"n_estimators={n_estimators}, learning_rate=1.0), {repeats} repeat(s)")
    try:
        import sklearn
        from sklearn.ensemble import AdaBoostClassifier
        from sklearn.tree import DecisionTreeClassifier
    except ImportError as exc:
        print(f"    scikit-learn not importable ({exc}); skipped")
        return None
    kwargs = {"estimator": DecisionTreeClassifier(max_depth=DEPTH),
              "n_estimators": n_estimators, "learning_rate": 1.0, "random_state": 0}
    if "algorithm" in AdaBoostClassifier().get_params():   # scikit-learn < 1.6: SAMME.R exists
        kwargs["algorithm"] = "SAMME"

    def fit():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            return AdaBoostClassifier(**kwargs).fit(X, y)

    times, model = _timed(fit, repeats)
    n_est = len(model.estimators_)
    per_round = [t / n_est for t in times]
    print(f"    scikit-learn {sklearn.__version__}: {_spread(per_round, stat, 'round')}  "
          f"[fit {_pick(times, stat):.3f} s / {n_est} rounds]")
    k = min(n_est, ours_model.n_rounds_)
    sk_err = 1.0 - model.score(X, y) if k == n_est else float("nan")
    ours_err = ours_model.train_errors_[k - 1]
    print(f"    sanity: training error after {k} rounds: ours {ours_err:.4f}, "
          f"scikit-learn {sk_err:.4f}")
    return {"round": _pick(per_round, stat)}


def bench_lightgbm(X, y, n_classes, rounds_mc, rounds_bin, repeats, stat):
    print(f"[4] LightGBM (num_threads=1, max_depth={DEPTH}, num_leaves=8, max_bin=255; "
          f"Dataset construction excluded), {repeats} repeat(s)")
    try:
        import lightgbm as lgb
    except Exception as exc:  # noqa: BLE001 - ImportError, or OSError for a missing libgomp
        print(f"    LightGBM not importable ({type(exc).__name__}: {exc}); skipped "
              f"(optional: pip install -e '.[bench]')")
        return None
    base = {"max_depth": DEPTH, "num_leaves": 2 ** DEPTH, "num_threads": 1, "max_bin": 255,
            "min_data_in_leaf": 1, "min_sum_hessian_in_leaf": 0, "verbose": -1,
            "force_row_wise": True, "seed": 0}

    def run(params, label, rounds):
        ds = lgb.Dataset(X, label=label, params=params, free_raw_data=False).construct()
        times, booster = _timed(lambda: lgb.train(params, ds, num_boost_round=rounds), repeats)
        n_trees = booster.num_trees()
        per_tree = [t / n_trees for t in times]
        info = booster.dump_model()["tree_info"]
        leaves = sum(t["num_leaves"] for t in info) / max(len(info), 1)
        return per_tree, n_trees, leaves, times

    mc = dict(base, objective="multiclass", num_class=n_classes)
    per_tree, n_trees, leaves, times = run(mc, y, rounds_mc)
    print(f"    {lgb.__version__} multiclass ({rounds_mc} rounds x {n_classes} trees): "
          f"{_spread(per_tree, stat, 'tree')}  [train {_pick(times, stat):.3f} s / {n_trees} "
          f"trees, {leaves:.2f} leaves/tree]")
    out = {"tree": _pick(per_tree, stat)}

    yb = (y < n_classes // 2).astype(np.float64)
    per_tree_b, n_trees_b, leaves_b, times_b = run(dict(base, objective="binary"), yb, rounds_bin)
    print(f"    binary, one tree per round ({rounds_bin} rounds): "
          f"{_spread(per_tree_b, stat, 'tree')}  [train {_pick(times_b, stat):.3f} s / "
          f"{n_trees_b} trees, {leaves_b:.2f} leaves/tree]")
    out["tree_single"] = _pick(per_tree_b, stat)
    return out


def profile_ours(X, y, rounds):
    """Split one SAMME ``fit(X, y)`` (raw data, the user's call) among its parts.

    Wraps the module-level functions ``_LabelTreeBoosting._boost`` calls (``grow_tree``,
    ``_leaf_labels_and_error``, ``_reweight``), ``Forest.append``,
    ``DeferredLabelVotes.flush`` (the training-curve bookkeeping of the fit loop) and the
    binning (``BinMapper.fit`` / ``transform``, once per fit) with timers for one fit, then
    restores them. The remainder (vote weight, label encoding, allocation of the fit's
    buffers, the Python loop and the kernels' call overhead) is reported as "rest".
    Only names are patched, not signatures, so it survives kernel changes; a missing name is
    reported and left out.
    """
    from mcboost_cli.algorithms import adaboost
    from mcboost_cli.learners import binning, forest

    print(f"[profile] where a SAMME round goes ({rounds} rounds, fit(X, y) on raw data, "
          f"no eval sets)")
    clock = CLOCK
    acc = {}
    patched = []

    def wrap(owner, name, label):
        orig = getattr(owner, name, None)
        if orig is None:
            print(f"    ({label}: not found, not timed)")
            return
        acc[label] = 0.0

        def timed(*args, **kwargs):
            t0 = clock()
            try:
                return orig(*args, **kwargs)
            finally:
                acc[label] += clock() - t0

        setattr(owner, name, timed)
        patched.append((owner, name, orig))

    try:
        wrap(adaboost, "grow_tree", "grow_tree (histograms, splits, partition)")
        wrap(adaboost, "_leaf_labels_and_error", "_leaf_labels_and_error")
        wrap(adaboost, "_reweight", "_reweight")
        wrap(forest.DeferredLabelVotes, "flush", "DeferredLabelVotes.flush (training curve)")
        wrap(forest.Forest, "append", "Forest.append")
        wrap(binning.BinMapper, "fit", "BinMapper.fit (once per fit)")
        wrap(binning.BinMapper, "transform", "BinMapper.transform (once per fit)")
        gc.collect()
        gc.disable()
        try:
            t0 = clock()
            model = adaboost.SAMME(n_rounds=rounds, max_depth=DEPTH).fit(X, y)
            total = clock() - t0
        finally:
            gc.enable()
    except Exception as exc:  # noqa: BLE001 - a report line, not a failure
        print(f"    profile unavailable ({type(exc).__name__}: {exc})")
        return
    finally:
        for owner, name, orig in reversed(patched):
            setattr(owner, name, orig)
    n = max(model.n_rounds_, 1)
    acc["rest (set-up, Python loop, call overhead)"] = total - sum(acc.values())
    for label, dt in acc.items():
        print(f"    {label:<44s} {dt / n * 1e6:8.1f} us/round  {100 * dt / total:5.1f}%")
    print(f"    {'total (timers included)':<44s} {total / n * 1e6:8.1f} us/round  ({n} rounds)")


# ---------------------------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------------------------


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_samme",
        description="Per-round time of our SAMME vs scikit-learn's AdaBoostClassifier and "
                    "LightGBM trees on Letter (first 16000 rows), single-threaded.")
    p.add_argument("--rounds", type=int, default=200, help="our SAMME rounds (default 200)")
    p.add_argument("--repeats", type=int, default=5,
                   help="repeats of every timing (default 5)")
    p.add_argument("--sklearn-rounds", type=int, default=50,
                   help="scikit-learn n_estimators (default 50)")
    p.add_argument("--lgb-rounds", type=int, default=20,
                   help="LightGBM multiclass rounds, 26 trees each (default 20)")
    p.add_argument("--lgb-binary-rounds", type=int, default=100,
                   help="LightGBM binary rounds, one tree each (default 100)")
    p.add_argument("--stat", choices=("best", "median"), default="median",
                   help="statistic over repeats used for the ratios (default median)")
    p.add_argument("--mirror", default=None,
                   help="UCI mirror URL or folder (default: $MCBOOST_MIRROR)")
    p.add_argument("--cold-jit", action="store_true",
                   help="also time compilation from scratch (subprocess, empty numba cache)")
    p.add_argument("--profile", action="store_true",
                   help="also break our round down into its kernels")
    p.add_argument("--jit-probe", action="store_true", help=argparse.SUPPRESS)
    return p


def _met(ok):
    return "met" if ok else "NOT met"


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.jit_probe:
        print(f"jit_probe_seconds={_tiny_fit_seconds():.6f}")
        return 0
    for name in ("rounds", "repeats", "sklearn_rounds", "lgb_rounds", "lgb_binary_rounds"):
        if getattr(args, name) < 1:
            _parser().error(f"--{name.replace('_', '-')} must be >= 1")

    t_import = time.perf_counter()
    import numba

    import mcboost_cli.algorithms.adaboost  # noqa: F401 - import cost reported separately
    t_import = time.perf_counter() - t_import

    X, y = load_letter(args.mirror)
    n_classes = len(np.unique(y))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    ncpu = os.cpu_count() or 1
    print(f"mcboost SAMME per-round benchmark: {DATASET} rows 0..{N_TRAIN - 1} "
          f"({X.shape[0]} x {X.shape[1]}, {n_classes} classes), depth-{DEPTH} trees, "
          f"single-threaded")
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, numba {numba.__version__}; "
          f"{ncpu} CPU(s), load average {load:.2f}; import of numba + mcboost {t_import:.2f} s")
    if load > 0.5 * ncpu:
        print("warning: the machine is busy; timings are CPU time, but other processes still "
              "share the caches and memory bandwidth (compare ratios of one run only)")

    jit, kernels, sigs_before = bench_jit(args.cold_jit)
    ours = bench_ours(X, y, args.rounds, args.repeats, args.stat)
    sigs_after = _kernel_state(kernels)[0]
    if sigs_after != sigs_before:
        print(f"    warning: {sigs_after - sigs_before} kernel signature(s) compiled during the "
              f"timed fits; their timings include JIT")
    sk = bench_sklearn(X, y, args.sklearn_rounds, args.repeats, args.stat, ours["model"])
    lg = bench_lightgbm(X, y, n_classes, args.lgb_rounds, args.lgb_binary_rounds, args.repeats,
                        args.stat)
    if args.profile:
        profile_ours(X, y, args.rounds)

    print("== summary ==")
    cache = jit["cache"]
    print(f"jit_seconds={jit['jit_seconds']:.3f} (first tiny fit; numba cache {cache})")
    if "cold_jit_seconds" in jit:
        print(f"cold_jit_seconds={jit['cold_jit_seconds']:.3f} (empty numba cache)")
    print(f"samme_round_seconds={ours['round']:.6f} (fit(X, y) on raw data, CPU time, "
          f"{args.stat} of {args.repeats})")
    print(f"samme_round_seconds_prebinned={ours['round_binned']:.6f}")
    if sk is None:
        print("sklearn_round_seconds=n/a (scikit-learn not installed)")
    else:
        speedup = sk["round"] / ours["round"]
        print(f"sklearn_round_seconds={sk['round']:.6f}")
        print(f"speedup_vs_sklearn={speedup:.1f}x (target >= {SPEEDUP_TARGET:g}x): "
              f"{_met(speedup >= SPEEDUP_TARGET)}")
        print(f"speedup_vs_sklearn_prebinned={sk['round'] / ours['round_binned']:.1f}x")
    if lg is None:
        print("lightgbm_tree_seconds=n/a (LightGBM not installed)")
    else:
        ratio = ours["round"] / lg["tree"]
        ratio_single = ours["round"] / lg["tree_single"]
        print(f"lightgbm_tree_seconds={lg['tree']:.6f} (multiclass, per tree)")
        print(f"ratio_vs_lightgbm={ratio:.2f} (target <= {LGB_RATIO_TARGET:g}): "
              f"{_met(ratio <= LGB_RATIO_TARGET)}")
        print(f"ratio_vs_lightgbm_prebinned={ours['round_binned'] / lg['tree']:.2f}")
        print(f"lightgbm_single_tree_round_seconds={lg['tree_single']:.6f} (binary, one tree "
              f"per round)")
        print(f"ratio_vs_lightgbm_single_tree={ratio_single:.2f} (informative; same target "
              f"<= {LGB_RATIO_TARGET:g}: {_met(ratio_single <= LGB_RATIO_TARGET)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
