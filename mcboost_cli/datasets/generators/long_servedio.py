"""Long & Servedio's Boolean data set ("random classification noise defeats all convex
potential boosters") -- random by definition, so in distribution.

Source: Long, P. M. and Servedio, R. A. (2010), *Random classification noise defeats all convex
potential boosters*, Machine Learning 78(3):287-304 (ICML 2008); used by DirectBoost (Zhai et
al.). The Boolean form below is **confirmed for l = 5 (21 features)** against the R package
``bst`` (Zhu Wang, function ``dataLS``); ``/work/shared/datasets.md`` §4.7.

Per example: y in {-1, +1} with probability 1/2 each; the type is drawn with probabilities
1/4, 1/4, 1/2; the 2l + 11 coordinates form a block of l + 6 and a block of l + 5:

* large margin: x = y * (1, .., 1);
* puller: block 1 = y, block 2 = -y;
* penalizer: 5 random coordinates of block 1 and l + 1 random coordinates of block 2 are set
  to y, all others to -y.

For l = 5 (blocks of 11 and 10) this is ``bst``'s ``dataLS``. Under sign(sum_i x_i) the three
types have the margins 2l + 11, 1 and 1 for every l, and the largest L1-normalised margin of a
vote of the coordinates is 1 / (2l + 11) (LP, measured at l = 5 and 20).

**General l is our reading** (the paper's Boolean construction could not be read here): of three
forms that reduce to ``bst`` at l = 5, the one that keeps every type's margin as at l = 5.
The first form written here (blocks of 11 and 2l) leaves the clean data of l = 20 inseparable
by any vote of the coordinates (LP margin 0), while the DirectBoost paper prints 0% error for
every method at noise 0. ALGORITHMS.md, "The DirectBoost paper's experiments", has the three
readings and the measurements.

Noise (as ``bst``): the labels of exactly floor(noise_rate * n) training examples, chosen
uniformly without replacement, are flipped; the optional ``n_test`` extra rows keep clean labels
(``test_mask`` marks them). DirectBoost's sample sizes and noise rates must come from its paper.

Classes ``'-1', '+1'`` (codes 0, 1); features ``x1`` .. ``x{2l+11}`` numeric, values -1/+1.
Random draws: ``Generator(PCG64(seed))``; the examples are drawn first and the noise after, so
for one (n, n_test, seed) the features and clean labels do not depend on ``noise_rate``.
"""

from __future__ import annotations

import math

import numpy as np

from ..._dtypes import X_DTYPE, Y_DTYPE
from ._base import GeneratedData, rng_for

__all__ = ["CLASSES", "long_servedio", "n_flipped"]

CLASSES = ("-1", "+1")
_PENALIZER_BLOCK1 = 5      # penalizers' coordinates equal to y in block 1 (bst: 5 of 11)


def n_flipped(n: int, noise_rate: float) -> int:
    """Number of labels flipped among ``n`` training rows: floor(noise_rate * n)."""
    return math.floor(noise_rate * n + 1e-9)


def long_servedio(n: int = 1000, seed: int = 0, l: int = 5, noise_rate: float = 0.0,
                  n_test: int = 0) -> GeneratedData:
    """``n`` (+ ``n_test``) examples of Long & Servedio's Boolean distribution.

    Parameters
    ----------
    n : int
        Training rows (labels subject to noise).
    seed : int
        Seed of ``Generator(PCG64(seed))``.
    l : int
        Size parameter; 2l + 11 features (blocks of l + 6 and l + 5). Only l = 5 is a
        confirmed definition; other l are our reading (module docstring).
    noise_rate : float in [0, 1]
        Fraction of the ``n`` training labels flipped (exactly floor(noise_rate * n) of them).
    n_test : int
        Extra rows with clean labels appended after the training rows; ``test_mask`` marks
        them (None when ``n_test == 0``).

    Returns
    -------
    GeneratedData
        X: (n + n_test, 2l + 11) float64 of -1/+1; y: 0 for -1, 1 for +1.
    """
    if n < 0 or n_test < 0:
        raise ValueError(f"n and n_test must be non-negative, got {n}, {n_test}")
    if l < 1:
        raise ValueError(f"l must be a positive integer, got {l}")
    if not 0.0 <= noise_rate <= 1.0:
        raise ValueError(f"noise_rate must lie in [0, 1], got {noise_rate}")
    rng = rng_for(seed)
    total = n + n_test
    n1, n2 = l + 6, l + 5
    sign = np.where(rng.integers(0, 2, size=total) == 1, 1.0, -1.0)
    kind = rng.choice(3, size=total, p=[0.25, 0.25, 0.5])      # 0 large margin, 1 puller, 2 pen.
    # Penalizer patterns: +1 on 5 random coordinates of block 1 and l+1 of block 2.
    r1 = rng.random((total, n1))
    r2 = rng.random((total, n2))
    k1 = _PENALIZER_BLOCK1 - 1
    pen1 = r1 <= np.partition(r1, k1, axis=1)[:, k1:k1 + 1]
    pen2 = r2 <= np.partition(r2, l, axis=1)[:, l:l + 1]
    pattern = np.ones((total, n1 + n2))                         # large margin
    pattern[kind == 1, n1:] = -1.0                              # puller
    pen = kind == 2
    pattern[pen] = np.where(np.concatenate([pen1, pen2], axis=1)[pen], 1.0, -1.0)
    X = pattern * sign[:, None]
    y = sign.copy()
    k = n_flipped(n, noise_rate)
    if k:
        flip = rng.permutation(n)[:k]
        y[flip] = -y[flip]
    test_mask = None
    if n_test:
        test_mask = np.zeros(total, dtype=bool)
        test_mask[n:] = True
    n_feat = n1 + n2
    return GeneratedData(
        X=X.astype(X_DTYPE), y=(y > 0).astype(Y_DTYPE), classes=CLASSES,
        feature_names=tuple(f"x{j + 1}" for j in range(n_feat)),
        categorical=np.zeros(n_feat, dtype=bool), test_mask=test_mask,
        categories=(None,) * n_feat,
        source=f"generator long_servedio(n={n}, seed={seed}, l={l}, noise_rate={noise_rate}, "
               f"n_test={n_test}): Long & Servedio Boolean data (in distribution"
               f"{'' if l == 5 else '; the general-l form is our reading'})")
