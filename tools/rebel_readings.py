"""REBEL's readings of its similarities compared on training behaviour and validation error.

    python tools/rebel_readings.py pendigits 2000 [--mirror DIR]
    python tools/rebel_readings.py glass 10000 --n-train 53 [--mirror DIR]

For each value of ``similarity_outputs`` (sign: reading (III), real: reading (II);
ALGORITHMS.md, "REBEL") prints one JSON line: REBEL with localized similarities fitted on the
dataset's standard training part (or, with ``--n-train``, on that many rows of a seeded
permutation of the data), its staged log10 training loss and training error (the quantities of
the paper's Figs. 6-7), and the validation error of the same configuration fitted on 3/4 of
those rows (or the ``--n-train`` rows) and scored on the rest. Test rows are never used: the
readings are compared on training behaviour and validation error only.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

from mcboost_cli.algorithms.rebel import REBEL, SIMILARITY_OUTPUTS
from mcboost_cli.datasets import load_dataset

MARKS = (10, 50, 100, 200, 500, 1000, 2000, 5000, 10000)


def _fit(X, y, n_rounds, outputs):
    t0 = time.process_time()
    est = REBEL(n_rounds=n_rounds, weak_learner="localized", similarity_outputs=outputs)
    est.fit(X, y)
    return est, time.process_time() - t0


def _behaviour(est, seconds):
    log10 = est.train_log_loss_ / math.log(10)
    err = est.train_errors_
    marks = [m for m in MARKS if m <= est.n_rounds_]
    zero = np.flatnonzero(err == 0)
    return {"cpu_s": round(seconds, 1), "rounds": int(est.n_rounds_),
            "log10_loss": {m: round(float(log10[m - 1]), 2) for m in marks},
            "train_err_%": {m: round(100 * float(err[m - 1]), 2) for m in marks},
            "first_zero_train_err": int(zero[0] + 1) if zero.size else None}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset")
    ap.add_argument("n_rounds", type=int)
    ap.add_argument("--n-train", type=int, default=None,
                    help="fit on this many rows of a seeded permutation of all rows")
    ap.add_argument("--mirror", default=None, help="folder or URL laid out like the UCI archive")
    ap.add_argument("--outputs", nargs="+", choices=SIMILARITY_OUTPUTS.choices,
                    default=list(SIMILARITY_OUTPUTS.choices),
                    help="the readings compared (default: all)")
    args = ap.parse_args(argv)
    ds = load_dataset(args.dataset, mirror=args.mirror)
    X, y = np.asarray(ds.X, np.float64), np.asarray(ds.y)
    if args.n_train is None and ds.test_mask is not None:
        train = ~np.asarray(ds.test_mask, bool)
        X, y = X[train], y[train]
    perm = np.random.default_rng(0).permutation(len(y))
    if args.n_train is not None:
        behaviour_rows = fit_rows = perm[:args.n_train]
        valid_rows = perm[args.n_train:]
    else:
        behaviour_rows = perm
        fit_rows, valid_rows = perm[:len(perm) * 3 // 4], perm[len(perm) * 3 // 4:]
    for outputs in args.outputs:
        est, seconds = _fit(X[behaviour_rows], y[behaviour_rows], args.n_rounds, outputs)
        out = {"dataset": args.dataset, "similarity_outputs": outputs,
               "N": len(behaviour_rows), **_behaviour(est, seconds)}
        if fit_rows is not behaviour_rows:
            est, _ = _fit(X[fit_rows], y[fit_rows], args.n_rounds, outputs)
        valid = [float(np.mean(p != y[valid_rows])) for p in est.staged_predict(X[valid_rows])]
        marks = [m for m in MARKS if m <= len(valid)]
        out["valid_rows"] = len(valid_rows)
        out["valid_err_%"] = {m: round(100 * valid[m - 1], 2) for m in marks}
        out["best_valid_err_%"] = round(100 * min(valid), 2)
        out["best_valid_round"] = int(np.argmin(valid) + 1)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
