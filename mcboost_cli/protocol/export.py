"""Write the folds and noise masks of a plan as files, so others can reuse our exact splits.

Layout under the chosen folder::

    <dataset>/seed<s>/parts.csv                      row,part          (five_fold: part 0..4)
    <dataset>/seed<s>/random_splits.csv              row,fold0..fold4  (random_splits: the
                                                                        row's part, train /
                                                                        valid / test, in
                                                                        each of the 5 splits)
    <dataset>/seed<s>/five_fold_train.csv            row,part          (five_fold_train: part
                                                                        0..4 of a training
                                                                        row, -1 for the
                                                                        unused test rows)
    <dataset>/seed<s>/<protocol>.csv                 row,part          (predefined protocols:
                                                                        train / valid / test)
    <dataset>/seed<s>/fold<i>_noise<rate>.csv        row,label,noisy_label  (flipped rows only;
                                                     random_splits_fold<i>_noise<rate>.csv,
                                                     five_fold_train_fold<i>_noise<rate>.csv,
                                                     <protocol>_noise<rate>.csv for the
                                                     predefined protocols; with noise on other
                                                     parts than training and validation, the
                                                     name ends in _<parts>, e.g.
                                                     fold0_noise0.2_train.csv)

Rows are numbered as in the dataset's files concatenated in catalog order; labels are names.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .noise import DEFAULT_NOISE_PARTS, parts_key, split_noisy_labels
from .splits import N_PARTS, five_fold_parts, five_fold_train_parts, make_split


def export_splits(config, datasets: dict, out_dir) -> list[Path]:
    out = Path(out_dir)
    written = []
    for name in config.datasets:
        ds = datasets[name]
        protocols = sorted({t.protocols[name] for t in config.tables if name in t.protocols})
        for seed in config.seeds:
            d = out / name / f"seed{seed}"
            d.mkdir(parents=True, exist_ok=True)
            for protocol in protocols:
                # The noisy parts of the tables that run this dataset under this protocol.
                parts = sorted({tuple(getattr(t, "noise_parts", DEFAULT_NOISE_PARTS))
                                for t in config.tables if t.protocols.get(name) == protocol})
                written += _export_protocol(config, ds, name, seed, protocol, d, parts)
    return written


def _export_protocol(config, ds, name, seed, protocol, d: Path,
                     noise_parts=(DEFAULT_NOISE_PARTS,)) -> list[Path]:
    written = []
    if protocol == "five_fold":
        parts = five_fold_parts(ds.n_samples, name, seed)
        p = d / "parts.csv"
        pd.DataFrame({"row": np.arange(ds.n_samples), "part": parts}).to_csv(p, index=False)
        written.append(p)
        folds = config.folds
    elif protocol == "five_fold_train":
        parts = five_fold_train_parts(ds.test_mask, name, seed)
        p = d / f"{protocol}.csv"
        pd.DataFrame({"row": np.arange(ds.n_samples), "part": parts}).to_csv(p, index=False)
        written.append(p)
        folds = config.folds
    elif protocol == "random_splits":
        table = {"row": np.arange(ds.n_samples)}
        for fold in range(N_PARTS):
            table[f"fold{fold}"] = _part_names(
                make_split(protocol, ds.n_samples, name, seed, fold, ds.test_mask), ds.n_samples)
        p = d / f"{protocol}.csv"
        pd.DataFrame(table).to_csv(p, index=False)
        written.append(p)
        folds = config.folds
    else:
        split = make_split(protocol, ds.n_samples, name, seed, 0, ds.test_mask)
        p = d / f"{protocol}.csv"
        pd.DataFrame({"row": np.arange(ds.n_samples),
                      "part": _part_names(split, ds.n_samples)}).to_csv(p, index=False)
        written.append(p)
        folds = (0,)
    classes = np.asarray(ds.classes, dtype=object)
    for fold in folds:
        split = make_split(protocol, ds.n_samples, name, seed, fold, ds.test_mask)
        for parts in noise_parts:
            suffix = f"_{parts_key(parts)}" if parts_key(parts) else ""
            for rate in config.noise_rates:
                if rate == 0:
                    continue
                y_noisy, flipped = split_noisy_labels(ds.y, split, rate, ds.n_classes, parts,
                                                      dataset=name, seed=seed, fold=fold)
                stem = {"five_fold": f"fold{fold}",
                        "random_splits": f"random_splits_fold{fold}",
                        "five_fold_train": f"five_fold_train_fold{fold}"}.get(protocol,
                                                                              protocol)
                p = d / f"{stem}_noise{rate:g}{suffix}.csv"
                pd.DataFrame({"row": flipped, "label": classes[ds.y[flipped]],
                              "noisy_label": classes[y_noisy[flipped]]}).to_csv(
                    p, index=False)
                written.append(p)
    return written


def _part_names(split, n_samples: int) -> np.ndarray:
    """train / valid / test of every row under ``split``."""
    part = np.empty(n_samples, dtype=object)
    for which in ("train", "valid", "test"):
        part[getattr(split, which)] = which
    return part
