"""Small synthetic problems shared by several test modules (not a test module itself)."""

import numpy as np


def ordinal_classes(seed=0, n=240, K=5, F=4, noise=0.6):
    """X (n, F) normal; K ordered classes cut from x0 + x1/2 + noise (classes overlap)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, F))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + noise * rng.normal(size=n),
                    np.linspace(-1.2, 1.2, K - 1)).astype(int)
    return X, y
