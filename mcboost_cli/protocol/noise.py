"""Label noise on the training and validation parts (test labels stay clean).

For a noise rate r, ``round(r * m)`` of the m training+validation rows are chosen without
replacement and each gets a label drawn uniformly among the K - 1 *other* classes (DMCBoost
paper, sec. 5.2: "randomly flip the labels of r% of the training and validation examples").
The choice is a pure function of (dataset, seed, fold, rate), never of loop order.
"""

from __future__ import annotations

import numpy as np

from .seeding import rng_for


def noisy_labels(y: np.ndarray, rows: np.ndarray, rate: float, n_classes: int, *,
                 dataset: str, seed: int, fold: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (y_noisy, flipped_rows): a copy of y with the labels of some ``rows`` changed.

    Parameters
    ----------
    y : ndarray of int (n,), codes 0..K-1
    rows : ndarray of int, the training and validation rows (the only ones that may change)
    rate : float in [0, 1)
    """
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"noise rate must be in [0, 1), got {rate}")
    y_noisy = y.copy()
    n_flip = int(round(rate * rows.shape[0]))
    if n_flip == 0:
        return y_noisy, np.empty(0, dtype=rows.dtype)
    rng = rng_for("label_noise", dataset, "seed", seed, "fold", fold, "rate", float(rate))
    # Sort first so that the draw depends on the set of rows, not on the order given.
    flipped = np.sort(rng.choice(np.sort(rows), size=n_flip, replace=False))
    # A uniform draw among the K-1 other classes: add 1..K-1 modulo K.
    shift = rng.integers(1, n_classes, size=n_flip)
    y_noisy[flipped] = (y[flipped] + shift) % n_classes
    return y_noisy, flipped
