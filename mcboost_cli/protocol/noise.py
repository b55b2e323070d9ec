"""Label noise on the training and validation parts (test labels stay clean).

For a noise rate r, ``round(r * m)`` of the m rows of the noisy parts are chosen without
replacement and each gets a label drawn uniformly among the K - 1 *other* classes. Which parts
are noisy is a config setting (``noise_parts``): by default the training and validation parts
(DMCBoost paper, sec. 5.2: "randomly flip the labels of r% of the training and validation
examples"); or the training part only (DirectBoost paper, sec. 3.2: "label noise on training
data ... we keep the validation and the test data are clean"), when m is the training part's
size. The choice is a pure function of (dataset, seed, fold, rate) and the set of rows, never
of loop order.

Map of the module
-----------------
``NOISE_PARTS``         the parts a config may make noisy, in canonical order
``DEFAULT_NOISE_PARTS`` training and validation (the DMCBoost paper's setting)
``parts_key``           the cell's text for a choice of parts ("" for the default, so the cells
                        of configs without ``noise_parts`` keep their keys)
``parts_of_key``        its inverse
``noisy_labels``        the labels with some rows' changed
``split_noisy_labels``  the same for one fold's split and a choice of parts
"""

from __future__ import annotations

import numpy as np

from .seeding import rng_for

NOISE_PARTS = ("train", "valid")
DEFAULT_NOISE_PARTS = ("train", "valid")


def parts_key(parts) -> str:
    """The parts as a cell stores them: "" for the default (training and validation), else
    the names in ``NOISE_PARTS`` order joined by "+" (e.g. "train")."""
    parts = tuple(p for p in NOISE_PARTS if p in set(parts))
    return "" if parts == DEFAULT_NOISE_PARTS else "+".join(parts)


def parts_of_key(key: str) -> tuple[str, ...]:
    """The parts a cell's ``noise_parts`` text names ("" -> the default)."""
    if not key:
        return DEFAULT_NOISE_PARTS
    parts = tuple(key.split("+"))
    if not parts or any(p not in NOISE_PARTS for p in parts):
        raise ValueError(f"noise parts {key!r} is not valid; expected names among "
                         f"{', '.join(NOISE_PARTS)} joined by '+'")
    return parts


def noisy_labels(y: np.ndarray, rows: np.ndarray, rate: float, n_classes: int, *,
                 dataset: str, seed: int, fold: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (y_noisy, flipped_rows): a copy of y with the labels of some ``rows`` changed.

    Parameters
    ----------
    y : ndarray of int (n,), codes 0..K-1
    rows : ndarray of int, the rows of the noisy parts (the only ones that may change)
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


def split_noisy_labels(y: np.ndarray, split, rate: float, n_classes: int,
                       parts=DEFAULT_NOISE_PARTS, *, dataset: str, seed: int, fold: int
                       ) -> tuple[np.ndarray, np.ndarray]:
    """``noisy_labels`` on the rows of ``split``'s ``parts`` (names in ``NOISE_PARTS``): with
    the default, round(rate * (n_train + n_valid)) labels change among the training and
    validation rows; with ``("train",)``, round(rate * n_train) among the training rows and the
    validation labels stay clean. Test labels never change.

    Parameters
    ----------
    y : ndarray of int (n,), the clean class codes
    split : ``protocol.splits.Split``
    rate : float in [0, 1)
    parts : sequence of str, the noisy parts
    """
    unknown = [p for p in parts if p not in NOISE_PARTS]
    if unknown or not len(parts):
        raise ValueError(f"noise parts {list(parts)!r} is not valid; expected names among "
                         f"{', '.join(NOISE_PARTS)}")
    rows = np.concatenate([getattr(split, part) for part in parts])
    return noisy_labels(y, rows, rate, n_classes, dataset=dataset, seed=seed, fold=fold)
