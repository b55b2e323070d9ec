"""Write the folds and noise masks of a plan as files, so others can reuse our exact splits.

Layout under the chosen folder::

    <dataset>/seed<s>/parts.csv                      row,part          (0-based row, part 0..4)
    <dataset>/seed<s>/fold<i>_noise<rate>.csv        row,label,noisy_label  (flipped rows only)

Rows are numbered as in the dataset's files concatenated in catalog order; labels are names.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .noise import noisy_labels
from .splits import five_fold_parts, make_split


def export_splits(config, datasets: dict, out_dir) -> list[Path]:
    out = Path(out_dir)
    written = []
    for name in config.datasets:
        ds = datasets[name]
        for seed in config.seeds:
            d = out / name / f"seed{seed}"
            d.mkdir(parents=True, exist_ok=True)
            if config.protocol == "five_fold":
                parts = five_fold_parts(ds.n_samples, name, seed)
                p = d / "parts.csv"
                pd.DataFrame({"row": np.arange(ds.n_samples), "part": parts}).to_csv(
                    p, index=False)
                written.append(p)
            classes = np.asarray(ds.classes, dtype=object)
            for fold in config.folds:
                split = make_split(config.protocol, ds.n_samples, name, seed, fold)
                trval = np.concatenate([split.train, split.valid])
                for rate in config.noise_rates:
                    if rate == 0:
                        continue
                    y_noisy, flipped = noisy_labels(ds.y, trval, rate, ds.n_classes,
                                                    dataset=name, seed=seed, fold=fold)
                    p = d / f"fold{fold}_noise{rate:g}.csv"
                    pd.DataFrame({"row": flipped, "label": classes[ds.y[flipped]],
                                  "noisy_label": classes[y_noisy[flipped]]}).to_csv(
                        p, index=False)
                    written.append(p)
    return written
