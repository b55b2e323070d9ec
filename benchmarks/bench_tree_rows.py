"""Rows in node order: the histogram tree grower with and without them (``make bench``).

Run from the repository root::

    python -m benchmarks.bench_tree_rows [--repeats 7] [--n-rows 393758]

``histogram_tree._grow_tree`` can keep every sample's row (bins, label, weights) in node
order, moving the rows with the samples at each split, so that a node's histogram reads them
in sequence instead of through the sample index (``order_rows``; the default for trees of
depth ``ROWS_MIN_DEPTH`` or more over ``ROWS_MIN_BYTES`` or more of rows). Both growers give
the same tree (tests/test_learners.py); this measures what ordering costs or saves, per
criterion and depth, whatever the default would choose: ``--n-rows`` moves the data size.

Data: the Poker525k stand-in from its exact generator (``source="generator"``; 10 features
of at most 13 bins, 10 classes; ``../shared/datasets.md``), its first ``--n-rows`` rows
(default 393,758: the training part of Table 3's fits). No download.

Weights: boosting-like, drawn once per criterion — SAMME's per-sample weights (Gini),
AdaBoost.MH's per-(sample, label) weights (Hamming), GD-MCBoost's signed channel values
(max-channel) — from a fixed seed.

Every time is CPU time of the process (``time.process_time``); the two growers alternate
within each repeat, so a change of load hits both, and the ratio (ordered / indexed, median
of the repeats) is the number to read: below 1, ordering saves. A benchmark reports, it never
fails on a target: the exit status is 0 unless the data cannot be made (2).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

CLOCK = time.process_time
CASES = (("gini", 3), ("gini", 5), ("gini", 8), ("gini", 12), ("hamming", 3),
         ("hamming", 8), ("max_channel", 5), ("max_channel", 12))


def _data(n_rows):
    from mcboost_cli.datasets import load_dataset
    from mcboost_cli.learners.binning import BinMapper

    ds = load_dataset("poker525k", source="generator", offline=True)
    X = ds.X[:n_rows]
    y = ds.y[:n_rows].astype(np.int32)
    X_binned = BinMapper(max_bins=255).fit(X).transform(X)
    return np.ascontiguousarray(X_binned), y


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--n-rows", type=int, default=393_758)
    args = ap.parse_args(argv)

    from mcboost_cli.learners import histogram_tree as ht

    try:
        X, y = _data(args.n_rows)
    except Exception as exc:   # noqa: BLE001 - one line, no traceback
        print(f"bench_tree_rows: cannot make the Poker525k rows: {exc}", file=sys.stderr)
        return 2
    n, F = X.shape
    K = int(y.max()) + 1
    n_bins = (X.max(axis=0) + 1).astype(np.int32)
    rng = np.random.default_rng(0)
    criteria = {"gini": ht.CRITERION_GINI, "hamming": ht.CRITERION_HAMMING,
                "max_channel": ht.CRITERION_MAX_CHANNEL}
    print(f"Poker525k (generator), {n} rows x {F} features, K = {K}; CPU ms per tree, "
          f"median of {args.repeats}; ROWS_MIN_DEPTH = {ht.ROWS_MIN_DEPTH}, ROWS_MIN_BYTES = "
          f"{ht.ROWS_MIN_BYTES >> 20} MiB")
    print(f"{'criterion':<12} {'depth':>5} {'indexed':>10} {'ordered':>10} {'ratio':>7}")
    for name, depth in CASES:
        crit = criteria[name]
        if crit == ht.CRITERION_GINI:
            kw = {"weight": rng.random(n) ** 4}
        elif crit == ht.CRITERION_HAMMING:
            kw = {"weight_matrix": rng.random((n, K)) ** 4}
        else:
            kw = {"channel_values": rng.normal(size=(n, K))}
        spaces = {order: ht.TreeWorkspace(n, F, int(n_bins.max()) + 1,
                                          ht.n_channels(crit, K), depth)
                  for order in (False, True)}
        times = {False: [], True: []}
        trees = {}
        for order, ws in spaces.items():   # compile / allocate outside the timing
            ht.grow_tree(ws, X, y, n_bins, crit, order_rows=order, **kw)
        for _ in range(max(1, args.repeats)):
            for order, ws in spaces.items():
                t0 = CLOCK()
                m = ht.grow_tree(ws, X, y, n_bins, crit, order_rows=order, **kw)
                times[order].append(CLOCK() - t0)
                trees[order] = (ws.feature[:m].tobytes(), ws.node_sum[:m].tobytes())
        same = "" if trees[False] == trees[True] else "  (trees differ!)"
        a, b = statistics.median(times[False]), statistics.median(times[True])
        print(f"{name:<12} {depth:>5} {a * 1e3:>10.1f} {b * 1e3:>10.1f} {b / a:>7.2f}{same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
