"""Long & Servedio's Boolean data set ("random classification noise defeats all convex
potential boosters") -- random by definition, so in distribution.

Source: Long, P. M. and Servedio, R. A. (2010), *Random classification noise defeats all convex
potential boosters*, Machine Learning 78(3):287-304 (ICML 2008); used by DirectBoost (Zhai et
al.). The Boolean form below is **confirmed for l = 5 (21 features)** against the R package
``bst`` (Zhu Wang, function ``dataLS``); ``/work/shared/datasets.md`` §4.7.

Per example: y in {-1, +1} with probability 1/2 each; the type is drawn with probabilities
1/4, 1/4, 1/2:

* large margin: x = y * (1, .., 1);
* puller: x_1..x_11 = y, the remaining 2l coordinates = -y;
* penalizer: 5 random coordinates among x_1..x_11 and l + 1 random coordinates among the
  remaining 2l are set to y, all others to -y.

For l = 5 the clean data are separated by sign(sum_i x_i) (margins 21, 1 and 1).

**General l is UNCONFIRMED.** The paper describes vectors of length 2l + 11; the split into a
block of 11 and a block of 2l with the counts above is our reading (it reduces to ``bst`` at
l = 5) and could not be checked against the paper's text. Note that with it the pullers' sum is
11 - 2l, so for l >= 6 sign(sum x) no longer separates the clean data -- a hint that the
paper's general form may differ. Use l = 5 unless the paper confirms otherwise.

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
_BLOCK1 = 11


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
        Size parameter; 2l + 11 features. Only l = 5 is a confirmed definition.
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
    n2 = 2 * l
    sign = np.where(rng.integers(0, 2, size=total) == 1, 1.0, -1.0)
    kind = rng.choice(3, size=total, p=[0.25, 0.25, 0.5])      # 0 large margin, 1 puller, 2 pen.
    # Penalizer patterns: +1 on 5 random coordinates of block 1 and l+1 of block 2.
    r1 = rng.random((total, _BLOCK1))
    r2 = rng.random((total, n2))
    pen1 = r1 <= np.partition(r1, 4, axis=1)[:, 4:5]
    pen2 = r2 <= np.partition(r2, l, axis=1)[:, l:l + 1]
    pattern = np.ones((total, _BLOCK1 + n2))                    # large margin
    pattern[kind == 1, _BLOCK1:] = -1.0                         # puller
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
    n_feat = _BLOCK1 + n2
    return GeneratedData(
        X=X.astype(X_DTYPE), y=(y > 0).astype(Y_DTYPE), classes=CLASSES,
        feature_names=tuple(f"x{j + 1}" for j in range(n_feat)),
        categorical=np.zeros(n_feat, dtype=bool), test_mask=test_mask,
        categories=(None,) * n_feat,
        source=f"generator long_servedio(n={n}, seed={seed}, l={l}, noise_rate={noise_rate}, "
               f"n_test={n_test}): Long & Servedio Boolean data (in distribution"
               f"{'' if l == 5 else '; general-l form unconfirmed'})")
