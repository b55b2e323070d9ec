"""Optimal codewords of MCBoost: the vertices of a regular simplex centred at the origin.

Saberian & Vasconcelos (sec. 2.3, eq. (19)) look for M unit vectors y^1..y^M that are as far
apart as possible; with d = M - 1 dimensions (a larger d leaves a direction v with equal
projections on every codeword, eq. (20), and the predictor underdetermined) the solutions are
the vertices of a regular (M-1)-simplex centred at the origin (their Appendix E). Such vertices
have unit norm, sum to zero, and every pair has inner product -1/(M-1) (so every pairwise
distance is sqrt(2M/(M-1))).

The paper notes that there is no closed form for a general M but that the vertices of the
M-simplex follow from those of the (M-1)-simplex (Coxeter, *Regular Polytopes*). We use that
recursion, which is deterministic and exact up to rounding:

* M = 2: y^1 = +1, y^2 = -1 (the paper: "in the binary case this set consists of the
  traditional codewords");
* M > 2: given the M-1 codewords z^1..z^{M-1} in R^{M-2},

      y^k = ( sqrt(1 - 1/(M-1)^2) z^k , -1/(M-1) )    for k = 1..M-1
      y^M = ( 0, ..., 0, 1 ).

  Then |y^k|^2 = 1 - 1/(M-1)^2 + 1/(M-1)^2 = 1; <y^k, y^M> = -1/(M-1); and for k != l < M,
  <y^k, y^l> = (1 - 1/(M-1)^2)(-1/(M-2)) + 1/(M-1)^2 = -1/(M-1).

Each coordinate takes at most three distinct values over the codewords (it is 0 on the
vertices added after it), and equal values are computed by the same operations, so they are
bit-identical — the boosters' tables of distinct loss exponents rely on this only for speed.

References
----------
.. [1] M. J. Saberian, N. Vasconcelos. Multiclass boosting: theory and algorithms. NIPS 2011,
       sec. 2.3, eqs. (19)-(20).
.. [2] H. S. M. Coxeter. Regular Polytopes. Dover, 1973.
"""

from __future__ import annotations

import numpy as np


def simplex_codewords(n_classes: int) -> np.ndarray:
    """The M codewords of MCBoost, one row per class, in R^{M-1}.

    Parameters
    ----------
    n_classes : int
        M >= 2.

    Returns
    -------
    ndarray of float64, shape (M, M - 1)
        Row k is y^{k+1}: unit norm, rows sum to zero, <y^k, y^l> = -1/(M-1) for k != l.
    """
    M = int(n_classes)
    if M < 2:
        raise ValueError(f"codewords need at least 2 classes, got {M}")
    Y = np.array([[1.0], [-1.0]])
    for m in range(3, M + 1):
        shrink = np.sqrt(1.0 - 1.0 / (m - 1) ** 2)
        nxt = np.zeros((m, m - 1))
        nxt[: m - 1, : m - 2] = shrink * Y
        nxt[: m - 1, m - 2] = -1.0 / (m - 1)
        nxt[m - 1, m - 2] = 1.0
        Y = nxt
    return Y


def simplex_gram(n_classes: int) -> np.ndarray:
    """Exact Gram matrix <y^k, y^l> of the codewords: 1 on the diagonal, -1/(M-1) elsewhere."""
    M = int(n_classes)
    G = np.full((M, M), -1.0 / (M - 1))
    np.fill_diagonal(G, 1.0)
    return G
