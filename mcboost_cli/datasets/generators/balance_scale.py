"""Balance Scale (UCI ``balance-scale``): the complete enumeration of the balance experiment.

EXACT: :func:`balance_scale` reproduces ``balance-scale/balance-scale.data`` row for row (625
rows: 288 ``L``, 49 ``B``, 288 ``R``).

Definition (``/work/shared/datasets.md`` §4.5; Siegler, R. S. (1976), *Three aspects of
cognitive development*, Cognitive Psychology 8:481-520; UCI ``balance-scale.names``): all
(left-weight, left-distance, right-weight, right-distance) in {1..5}^4 in lexicographic order
(right-distance fastest); the class is ``L`` if left-weight * left-distance is larger, ``R`` if
smaller, ``B`` (balanced) if equal.

Features numeric 1..5 (as in the file; the class is the file's first column). Classes in the
order of ``.names``: ``L, B, R`` (codes 0, 1, 2).
"""

from __future__ import annotations

import numpy as np

from ..._dtypes import X_DTYPE, Y_DTYPE
from ._base import GeneratedData

__all__ = ["CLASSES", "FEATURE_NAMES", "balance_scale"]

CLASSES = ("L", "B", "R")
FEATURE_NAMES = ("left-weight", "left-distance", "right-weight", "right-distance")


def balance_scale() -> GeneratedData:
    """The 625 rows of UCI ``balance-scale.data``, exactly and in order.

    Returns
    -------
    GeneratedData
        X: (625, 4) float64 values 1..5; y: L=0, B=1, R=2; no test split.
    """
    grid = np.stack(np.meshgrid(*[np.arange(1, 6)] * 4, indexing="ij"), axis=-1).reshape(-1, 4)
    left = grid[:, 0] * grid[:, 1]
    right = grid[:, 2] * grid[:, 3]
    y = np.where(left > right, 0, np.where(left < right, 2, 1)).astype(Y_DTYPE)
    return GeneratedData(
        X=grid.astype(X_DTYPE), y=y, classes=CLASSES, feature_names=FEATURE_NAMES,
        categorical=np.zeros(4, dtype=bool), test_mask=None, categories=(None,) * 4,
        source="generator balance_scale: complete enumeration, torque comparison "
               "(exact: equals UCI balance-scale/balance-scale.data row for row)")
