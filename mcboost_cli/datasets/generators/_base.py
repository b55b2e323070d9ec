"""The container every generator returns, and the seeded random-number source they share."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..._dtypes import X_DTYPE, Y_DTYPE

__all__ = ["GeneratedData", "rng_for"]


@dataclass(frozen=True, eq=False)   # eq=False: element-wise array comparison makes no sense
class GeneratedData:
    """Rows produced by a generator, in the layout of :class:`mcboost_cli.datasets.Dataset`.

    Attributes
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Features. Categorical columns hold integer codes ``0..m-1`` (as floats) whose values are
        ``categories[j]``; numeric columns hold the values as written in the UCI file.
    y : ndarray of int32, shape (n_samples,)
        Class codes ``0..n_classes-1``.
    classes : tuple of str
        Class names spelled as in the UCI file; ``classes[c]`` is the name of code ``c``.
    feature_names : tuple of str
    categorical : ndarray of bool, shape (n_features,)
    test_mask : ndarray of bool, shape (n_samples,), or None
        True for rows of a predefined test part; None when the generator makes no split.
    categories : tuple, optional
        Per feature: the tuple of value spellings of a categorical column (code ``i`` is
        ``categories[j][i]``), None for a numeric column. An addition to the agreed interface
        (defaulted, so positional construction with the six fields above still works).
    source : str, optional
        One line of provenance, e.g. ``"generator krkopt: retrograde analysis (exact)"``.
    """

    X: np.ndarray
    y: np.ndarray
    classes: tuple[str, ...]
    feature_names: tuple[str, ...]
    categorical: np.ndarray
    test_mask: np.ndarray | None
    categories: tuple[tuple[str, ...] | None, ...] | None = None
    source: str = ""

    def __post_init__(self) -> None:
        n, f = self.X.shape if self.X.ndim == 2 else (-1, -1)
        problems = []
        if self.X.ndim != 2 or self.X.dtype != X_DTYPE:
            problems.append(f"X must be 2-D {np.dtype(X_DTYPE)}, "
                            f"got {self.X.ndim}-D {self.X.dtype}")
        if self.y.shape != (n,) or self.y.dtype != Y_DTYPE:
            problems.append(f"y must be ({n},) {np.dtype(Y_DTYPE)}, "
                            f"got {self.y.shape} {self.y.dtype}")
        if self.categorical.shape != (f,) or self.categorical.dtype != np.bool_:
            problems.append(f"categorical must be ({f},) bool")
        if len(self.feature_names) != f:
            problems.append(f"{len(self.feature_names)} feature names for {f} features")
        if self.categories is not None and len(self.categories) != f:
            problems.append(f"{len(self.categories)} category lists for {f} features")
        if self.test_mask is not None and (self.test_mask.shape != (n,)
                                           or self.test_mask.dtype != np.bool_):
            problems.append(f"test_mask must be ({n},) bool or None")
        if n > 0 and self.y.size and (self.y.min() < 0 or self.y.max() >= len(self.classes)):
            problems.append(f"class codes outside 0..{len(self.classes) - 1}")
        if problems:
            raise ValueError("invalid GeneratedData: " + "; ".join(problems))

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    def __repr__(self) -> str:
        split = "none" if self.test_mask is None else f"{int(self.test_mask.sum())} test rows"
        return (f"GeneratedData(n_samples={self.n_samples}, n_features={self.n_features}, "
                f"n_classes={self.n_classes}, split={split})")


def rng_for(seed: int, stream: int = 0) -> np.random.Generator:
    """``Generator(PCG64(seed))`` for stream 0; stream ``k > 0`` is ``PCG64(seed).jumped(k)``.

    Jumped streams are non-overlapping, so a generator that needs several independent sources
    (e.g. poker525k: the stand-in test hands and the choice of the half) keeps each one fixed
    for a seed however the others are used.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    bits = np.random.PCG64(int(seed))
    if stream:
        bits = bits.jumped(stream)
    return np.random.Generator(bits)
