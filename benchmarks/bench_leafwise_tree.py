"""Best-first 8-leaf least-squares tree against LightGBM's (part of ``make bench``).

Run from the repository root::

    python -m benchmarks.bench_leafwise_tree [--trees 200] [--repeats 5] [--leaves 8]

Data: UCI Letter's training part (the first 16000 rows, 16 features; ``bench_samme``'s
loader), binned once with our ``BinMapper``. The regression problem is one LogitBoost step
for the class "A" against the rest (Friedman, Hastie & Tibshirani 2000, Algorithm 3) at
seeded random scores F: p = 1 / (1 + exp(-2F)), weights w = p (1 - p), working response
z = (y* - p) / w clipped to [-4, 4].

Measured in one process, both sides single-threaded, CPU time (``time.process_time``):

1. Ours: ``grow_leafwise_tree`` with ``max_leaves = --leaves`` on the binned data, into one
   workspace (JIT excluded: a first tree is grown before timing). Seconds per tree.
2. LightGBM (optional ``bench`` extra): a Booster on the same binned codes (as floats; with
   ``max_bin=255`` and ``min_data_in_bin=1`` every code is its own bin, so the candidate
   splits are ours), ``num_leaves = --leaves``, ``num_threads=1``, ``learning_rate=1``,
   ``min_data_in_leaf=1``, ``min_sum_hessian_in_leaf=0``, ``lambda_l2=0``, no depth limit.
   Each ``Booster.update`` grows one tree from the custom gradient g = -w z and hessian
   h = w, so its leaf values -sum g / sum h are the weighted least-squares fit and its
   split gains ours; every update grows the same tree. Seconds per tree = time of the
   updates / trees (this includes LightGBM's update of its training scores after each tree,
   one pass over the rows, which our grower does not do; Dataset construction excluded).

A ``sanity:`` line compares LightGBM's first tree with ours on the training rows (largest
difference of the predictions; ~1e-8 when both grew the same tree, LightGBM summing float32
gradients and hessians; a tie broken
differently may give another tree of the same loss). The summary prints
``ratio_vs_lightgbm = ours / LightGBM`` per tree, both measured in this run. A benchmark
reports, it never fails on a target: exit status 0 unless the data is missing (2).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from benchmarks.bench_samme import _ms, _pick, _spread, _timed, load_letter

import numpy as np  # noqa: E402  (bench_samme pinned the thread pools before numpy loaded)

SEED = 0
CLOCK = time.process_time


def logitboost_problem(y):
    """(z, w) of one LogitBoost step for class 0 against the rest at seeded random scores."""
    rng = np.random.default_rng(SEED)
    F = rng.normal(scale=0.5, size=y.shape[0])
    p = 1.0 / (1.0 + np.exp(-2.0 * F))
    w = p * (1.0 - p)
    z = np.clip(((y == 0).astype(float) - p) / w, -4.0, 4.0)
    return np.ascontiguousarray(z), np.ascontiguousarray(w)


def bench_ours(X_binned, n_bins, z, w, leaves, trees, repeats, stat):
    from mcboost_cli.learners.leafwise_tree import LeafwiseWorkspace, grow_leafwise_tree

    ws = LeafwiseWorkspace(X_binned.shape[0], X_binned.shape[1], int(X_binned.max()) + 1,
                           leaves)
    t0 = time.perf_counter()
    n_nodes = grow_leafwise_tree(ws, X_binned, n_bins, z, w)    # JIT (or numba cache load)
    print(f"[1] ours: first tree (JIT or cache load) {time.perf_counter() - t0:.2f} s; "
          f"{(n_nodes + 1) // 2} leaves")

    def run():
        for _ in range(trees):
            grow_leafwise_tree(ws, X_binned, n_bins, z, w)

    times, _ = _timed(run, repeats)
    per_tree = [t / trees for t in times]
    print(f"    grow_leafwise_tree, max_leaves={leaves}: {_spread(per_tree, stat, 'tree')}")
    return _pick(per_tree, stat), ws, n_nodes


def bench_lightgbm(X_binned, z, w, leaves, trees, repeats, stat):
    try:
        import lightgbm as lgb
    except Exception as exc:  # noqa: BLE001 - ImportError, or OSError for a missing libgomp
        print(f"[2] LightGBM not importable ({type(exc).__name__}: {exc}); skipped "
              f"(optional: pip install -e '.[bench]')")
        return None, None
    params = {"objective": "none", "num_leaves": leaves, "max_depth": -1, "num_threads": 1,
              "learning_rate": 1.0, "min_data_in_leaf": 1, "min_sum_hessian_in_leaf": 0.0,
              "lambda_l2": 0.0, "lambda_l1": 0.0, "min_gain_to_split": 0.0, "max_bin": 255,
              "min_data_in_bin": 1, "bin_construct_sample_cnt": X_binned.shape[0],
              "force_col_wise": True, "deterministic": True, "verbose": -1, "seed": SEED}
    Xf = X_binned.astype(np.float64)
    grad = np.ascontiguousarray(-w * z)
    hess = np.ascontiguousarray(w)

    def fobj(_preds, _data):
        return grad, hess

    def make():
        ds = lgb.Dataset(Xf, label=z, params=params, free_raw_data=False).construct()
        return lgb.Booster(params=params, train_set=ds)

    booster = make()
    booster.update(fobj=fobj)                       # a first tree, outside the timing
    first_tree = booster.predict(Xf, num_iteration=1)
    boosters = [make() for _ in range(max(1, repeats))]
    it = iter(boosters)

    def run():
        b = next(it)
        for _ in range(trees):
            b.update(fobj=fobj)
        return b

    times, last = _timed(run, repeats)
    per_tree = [t / trees for t in times]
    info = last.dump_model()["tree_info"]
    n_leaves = sum(t["num_leaves"] for t in info) / max(len(info), 1)
    print(f"[2] LightGBM {lgb.__version__} (num_leaves={leaves}, num_threads=1, custom "
          f"gradient -w z, hessian w): {_spread(per_tree, stat, 'tree')}  "
          f"[{n_leaves:.2f} leaves/tree]")
    return _pick(per_tree, stat), first_tree


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_leafwise_tree",
        description="Time per tree of our best-first weighted least-squares tree vs "
                    "LightGBM's leaf-wise tree on Letter (first 16000 rows), single-threaded.")
    p.add_argument("--trees", type=int, default=200, help="trees per timing (default 200)")
    p.add_argument("--repeats", type=int, default=5, help="repeats of every timing (default 5)")
    p.add_argument("--leaves", type=int, default=8, help="leaves per tree (default 8)")
    p.add_argument("--stat", choices=("best", "median"), default="median",
                   help="statistic over repeats used for the ratio (default median)")
    p.add_argument("--mirror", default=None,
                   help="UCI mirror URL or folder (default: $MCBOOST_MIRROR)")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    for name in ("trees", "repeats"):
        if getattr(args, name) < 1:
            _parser().error(f"--{name} must be >= 1")
    if args.leaves < 2:
        _parser().error("--leaves must be >= 2")
    from mcboost_cli.learners.binning import BinMapper
    from mcboost_cli.learners.leafwise_tree import predict_tree

    X, y = load_letter(args.mirror)
    mapper = BinMapper().fit(X)
    X_binned = np.ascontiguousarray(mapper.transform(X))
    n_bins = np.asarray(mapper.n_bins_, dtype=np.int32)
    z, w = logitboost_problem(y)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"mcboost best-first least-squares tree benchmark: letter rows 0..{X.shape[0] - 1} "
          f"({X.shape[0]} x {X.shape[1]}, {int(n_bins.max())} bins at most), "
          f"{args.leaves} leaves, single-threaded; load average {load:.2f}")

    ours, ws, n_nodes = bench_ours(X_binned, n_bins, z, w, args.leaves, args.trees,
                                   args.repeats, args.stat)
    lgb_tree, lgb_first = bench_lightgbm(X_binned, z, w, args.leaves, args.trees, args.repeats,
                                         args.stat)
    print("== summary ==")
    print(f"leafwise_tree_seconds={ours:.6g} ({_ms(ours)} per {args.leaves}-leaf tree)")
    if lgb_tree is None:
        print("lightgbm_tree_seconds=skipped")
        return 0
    ours_pred = np.empty(X.shape[0])
    predict_tree(X_binned, ws.feature, ws.threshold, ws.left, ws.leaf_value, 0, ours_pred)
    diff = float(np.abs(ours_pred - lgb_first).max())
    # LightGBM sums float32 gradients and hessians: its leaf values agree to ~1e-7 relative.
    same = diff <= 1e-5 * (1.0 + float(np.abs(ours_pred).max()))
    print(f"sanity: largest |ours - LightGBM| of the first tree's predictions on the training "
          f"rows = {diff:.3g} "
          f"({'the same tree, up to float32 sums' if same else 'different trees'})")
    print(f"lightgbm_tree_seconds={lgb_tree:.6g} ({_ms(lgb_tree)} per tree)")
    print(f"ratio_vs_lightgbm={ours / lgb_tree:.3f} (ours / LightGBM per tree, {args.stat} of "
          f"{args.repeats} repeats, this run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
