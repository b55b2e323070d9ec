"""Where each reading of the DirectBoost paper's stopping rule for its convex baselines ("the
change of loss is less than 1e-6") stops binary AdaBoost or LogitBoost, from one long fit.

    python tools/loss_tolerance_readings.py [adult-10000] [--algorithm adaboost]
        [--rounds 300000] [--depth 3] [--mirror DIR]

Fits the booster on the catalog entry's training rows (no validation or test row is read)
for ``--rounds`` rounds without the rule, then prints the first round at which the change of
the training loss falls below the tolerance for each reading — the mean loss
(``loss_tolerance_of: mean``), the loss summed over the rows (``sum``) and the relative change
— and the mean loss at a few rounds (ALGORITHMS.md, "Binary AdaBoost and LogitBoost").
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from mcboost_cli.algorithms.registry import get_algorithm
from mcboost_cli.datasets import load_dataset

MARKS = (1000, 10000, 50000, 100000, 200000, 300000)


def first_below(change: np.ndarray, tolerance: float) -> int | None:
    """1-based round of the first change below ``tolerance`` (None if none is)."""
    hit = np.flatnonzero(change < tolerance)
    return int(hit[0]) + 1 if len(hit) else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset", nargs="?", default="adult-10000")
    ap.add_argument("--algorithm", default="adaboost", choices=("adaboost", "logitboost"))
    ap.add_argument("--rounds", type=int, default=300_000)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--tolerance", type=float, default=1e-6)
    ap.add_argument("--mirror", default=None)
    a = ap.parse_args()
    ds = load_dataset(a.dataset, mirror=a.mirror)
    train = ~ds.test_mask if ds.test_mask is not None else np.ones(len(ds.y), bool)
    X, y = ds.X[train], ds.y[train]
    est = get_algorithm(a.algorithm)(n_rounds=a.rounds, max_depth=a.depth)
    start = time.process_time()
    est.fit(X, y)
    print(f"{a.algorithm} on {a.dataset} ({len(y)} training rows, depth {a.depth}): "
          f"{est.n_rounds_} rounds in {time.process_time() - start:.1f} CPU s")
    loss = est.train_losses_
    start_loss = 1.0 if a.algorithm == "adaboost" else math.log(2.0)
    previous = np.concatenate([[start_loss], loss[:-1]])
    change = np.abs(loss - previous)
    print(f"first round with a change below {a.tolerance:g}: mean loss "
          f"{first_below(change, a.tolerance)}, summed loss "
          f"{first_below(len(y) * change, a.tolerance)}, relative "
          f"{first_below(change / previous, a.tolerance)}")
    for r in MARKS:
        if r <= len(loss):
            print(f"round {r}: mean loss {loss[r - 1]:.6g}, change {change[r - 1]:.3g}")


if __name__ == "__main__":
    main()
