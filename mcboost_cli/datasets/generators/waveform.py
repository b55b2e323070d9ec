"""Waveform (UCI ``waveform``, version 1: 21 attributes, 3 classes) -- in distribution.

IN DISTRIBUTION: the UCI file was produced by D. Aha's ``waveform.c`` with the C library's
random numbers, so it cannot be regenerated bit for bit; :func:`waveform` draws fresh samples of
exactly the same process.

Definition (Breiman, L., Friedman, J. H., Olshen, R. A. and Stone, C. J. (1984),
*Classification and Regression Trees*, Wadsworth, p. 49; UCI ``waveform.names``, D. Aha's
``waveform.c``; ``/work/shared/datasets.md`` §4.4). With attributes j = 0..20 and the three
triangular base waves

    h1[j] = max(6 - |j - 6|, 0),  h2[j] = max(6 - |j - 14|, 0),  h3[j] = max(6 - |j - 10|, 0),

each instance draws its class c uniformly from {0, 1, 2}, u ~ U(0, 1) and 21 independent
N(0, 1) noise terms e_j, and sets

    x_j = u * hA[j] + (1 - u) * hB[j] + e_j   with (hA, hB) = (h1, h2), (h1, h3), (h2, h3)

for classes 0, 1, 2. Values are rounded to 2 decimals like the UCI file. The class labels and
wave peaks follow ``waveform.c`` (and the UCI file: its per-class attribute means match
0.5 * (hA + hB) within 0.07); CART and ESL write the same family with 1-based peaks at 7, 11, 15
and the classes permuted.

Features ``x1`` .. ``x21`` numeric; classes ``0, 1, 2`` (spelled as in the file). The class
counts are multinomial (only approximately balanced), as in the UCI file (1657/1647/1696).
"""

from __future__ import annotations

import numpy as np

from ..._dtypes import X_DTYPE, Y_DTYPE
from ._base import GeneratedData, rng_for

__all__ = ["CLASSES", "FEATURE_NAMES", "MIXTURES", "WAVES", "class_means", "waveform"]

N_ATTRIBUTES = 21
CLASSES = ("0", "1", "2")
FEATURE_NAMES = tuple(f"x{j + 1}" for j in range(N_ATTRIBUTES))
_J = np.arange(N_ATTRIBUTES)
WAVES = np.stack([np.maximum(6 - np.abs(_J - peak), 0) for peak in (6, 14, 10)]).astype(float)
WAVES.flags.writeable = False
MIXTURES = ((0, 1), (0, 2), (1, 2))     # class c mixes WAVES[MIXTURES[c][0]] and [..][1]


def class_means() -> np.ndarray:
    """Expected attribute vector of each class, 0.5 * (hA + hB): shape (3, 21)."""
    return np.stack([0.5 * (WAVES[a] + WAVES[b]) for a, b in MIXTURES])


def waveform(n: int = 5000, seed: int = 0) -> GeneratedData:
    """``n`` waveform instances drawn with ``Generator(PCG64(seed))``.

    Returns
    -------
    GeneratedData
        X: (n, 21) float64 rounded to 2 decimals; y: class codes 0..2; no test split (the
        Coherence paper's 300/4700 split is a protocol choice on 5000 rows).
    """
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    rng = rng_for(seed)
    c = rng.integers(0, 3, size=n)
    u = rng.random(n)[:, None]
    noise = rng.standard_normal((n, N_ATTRIBUTES))
    mix = np.asarray(MIXTURES)
    X = u * WAVES[mix[c, 0]] + (1.0 - u) * WAVES[mix[c, 1]] + noise
    return GeneratedData(
        X=np.round(X, 2).astype(X_DTYPE), y=c.astype(Y_DTYPE), classes=CLASSES,
        feature_names=FEATURE_NAMES, categorical=np.zeros(N_ATTRIBUTES, dtype=bool),
        test_mask=None, categories=(None,) * N_ATTRIBUTES,
        source=f"generator waveform(n={n}, seed={seed}): Breiman's three-wave process "
               f"(CART p. 49, waveform.c; in distribution)")
