"""King-Rook versus King (UCI ``krkopt``, "Chess (King-Rook vs. King)") by retrograde analysis.

EXACT: :func:`krkopt` reproduces ``chess/king-rook-vs-king/krkopt.data`` row for row (all
28,056 rows, labels and the file's row order), verified against the byte-exact UCI copy.

Definition (``/work/shared/datasets.md`` §4.1; Bain & Hoff's database, see Bain, M. (1994),
*Learning logical exceptions in chess*, PhD thesis, University of Strathclyde, and the UCI
``krkopt.names``):

* Pieces White king (WK), White rook (WR), Black king (BK); **Black to move**. A position is
  legal when the three squares are distinct and the kings are not adjacent; BK may be in check.
* Label: the optimal depth-to-mate for White counted in White moves (``zero`` = Black is
  mated already, ``one`` .. ``sixteen``), else ``draw`` (stalemate, Black captures an
  unprotected rook, or no forced win). Computed by the standard retrograde iteration over all
  64^3 placements with both sides to move: B0 = mated; W_n = White-to-move positions with a
  move into B_(n-1); B_n = Black-to-move positions all of whose moves lead to won positions,
  the worst being n. Black may capture the rook only when it is not adjacent to WK; rook rays
  are blocked by WK (BK is removed when testing its own destination squares).
* Symmetry reduction (one representative per class of the 8 board symmetries): WK on
  {a1, b1, c1, d1, b2, c2, d2, c3, d3, d4} (file <= d, rank <= file index + 1). When WK is on the
  a1-h8 diagonal, a position is kept only if BK is strictly below the diagonal (rank < file),
  or BK is on the diagonal and WR is on or below it.
* Row order of the UCI file: grouped by class (``draw``, ``zero`` .. ``sixteen``), and within a
  class sorted by (WK file, WK rank, WR file, WR rank, BK file, BK rank). This order was found
  by inspecting the file and is reproduced exactly.

Feature coding (as the catalog entry ``krkopt``): the three file columns are categorical with
values ``a``..``h`` coded 0..7; the three rank columns are numeric 1..8, as written in the file.
Feature names ``white_king_file, white_king_rank, white_rook_file, white_rook_rank,
black_king_file, black_king_rank``. Classes in the order ``draw, zero, one, .., sixteen``.

The solver is numba-compiled (about 0.1-0.3 s after compilation; compilation is cached on
disk); the result is memoised per process.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from ..._dtypes import X_DTYPE, Y_DTYPE
from ..._inline import inline_helper
from ._base import GeneratedData

__all__ = ["CLASSES", "FEATURE_NAMES", "FILES", "krkopt", "solve_krk"]

FILES = ("a", "b", "c", "d", "e", "f", "g", "h")
CLASSES = ("draw", "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
           "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen")
FEATURE_NAMES = ("white_king_file", "white_king_rank", "white_rook_file", "white_rook_rank",
                 "black_king_file", "black_king_rank")

# Squares are 8*file + rank (file 0..7 = a..h, rank 0..7 = 1..8); a placement is
# 4096*wk + 64*wr + bk.
_KING_DF = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)
_KING_DR = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)
_ROOK_DF = np.array([1, -1, 0, 0], dtype=np.int64)
_ROOK_DR = np.array([0, 0, 1, -1], dtype=np.int64)


@inline_helper
def _adjacent(a, b):
    """Chebyshev distance <= 1 (a square is adjacent to itself)."""
    return abs(a // 8 - b // 8) <= 1 and abs(a % 8 - b % 8) <= 1


@inline_helper
def _rook_attacks(wr, target, blocker):
    """Does a rook on ``wr`` attack ``target`` with ``blocker`` the only other piece?"""
    if wr == target:
        return False
    wf, wrk = wr // 8, wr % 8
    tf, trk = target // 8, target % 8
    bf, brk = blocker // 8, blocker % 8
    if wf == tf:
        lo, hi = min(wrk, trk), max(wrk, trk)
        return not (bf == wf and lo < brk < hi)
    if wrk == trk:
        lo, hi = min(wf, tf), max(wf, tf)
        return not (brk == wrk and lo < bf < hi)
    return False


@njit(cache=True)
def _solve(king_df, king_dr, rook_df, rook_dr):
    """Depth to mate of every Black-to-move placement; -1 = draw or illegal.

    Returns (bdepth, legal_b), both of length 64**3.
    """
    n_pos = 64 * 64 * 64
    bdepth = np.full(n_pos, -1, dtype=np.int8)
    wdepth = np.full(n_pos, -1, dtype=np.int8)
    legal_b = np.zeros(n_pos, dtype=np.bool_)
    legal_w = np.zeros(n_pos, dtype=np.bool_)
    escape = np.zeros(n_pos, dtype=np.bool_)     # Black can take an unprotected rook

    for wk in range(64):
        for wr in range(64):
            if wr == wk:
                continue
            for bk in range(64):
                if bk == wk or bk == wr or _adjacent(wk, bk):
                    continue
                p = wk * 4096 + wr * 64 + bk
                legal_b[p] = True
                in_check = _rook_attacks(wr, bk, wk)
                legal_w[p] = not in_check
                # Black's moves: mate detection and rook captures.
                n_moves = 0
                bf, br = bk // 8, bk % 8
                for m in range(8):
                    f, r = bf + king_df[m], br + king_dr[m]
                    if f < 0 or f > 7 or r < 0 or r > 7:
                        continue
                    d = f * 8 + r
                    if _adjacent(d, wk):
                        continue
                    if d == wr:
                        escape[p] = True        # rook not adjacent to WK: capture is legal
                        n_moves += 1
                        continue
                    if _rook_attacks(wr, d, wk):
                        continue
                    n_moves += 1
                if n_moves == 0 and in_check:
                    bdepth[p] = 0

    n = 1
    while True:
        changed = False
        # White to move: won in n if some move reaches a Black position of depth n-1.
        for p in range(n_pos):
            if not legal_w[p] or wdepth[p] >= 0:
                continue
            wk, wr, bk = p // 4096, (p // 64) % 64, p % 64
            found = False
            kf, kr = wk // 8, wk % 8
            for m in range(8):
                f, r = kf + king_df[m], kr + king_dr[m]
                if f < 0 or f > 7 or r < 0 or r > 7:
                    continue
                d = f * 8 + r
                if d == wr or _adjacent(d, bk):
                    continue
                if bdepth[d * 4096 + wr * 64 + bk] == n - 1:
                    found = True
                    break
            if not found:
                rf, rr = wr // 8, wr % 8
                for m in range(4):
                    f, r = rf + rook_df[m], rr + rook_dr[m]
                    while 0 <= f <= 7 and 0 <= r <= 7:
                        d = f * 8 + r
                        if d == wk or d == bk:
                            break
                        if bdepth[wk * 4096 + d * 64 + bk] == n - 1:
                            found = True
                            break
                        f += rook_df[m]
                        r += rook_dr[m]
                    if found:
                        break
            if found:
                wdepth[p] = n
                changed = True
        # Black to move: lost in n if every move leads to a won White position.
        for p in range(n_pos):
            if not legal_b[p] or bdepth[p] >= 0 or escape[p]:
                continue
            wk, wr, bk = p // 4096, (p // 64) % 64, p % 64
            bf, br = bk // 8, bk % 8
            n_moves = 0
            all_won = True
            for m in range(8):
                f, r = bf + king_df[m], br + king_dr[m]
                if f < 0 or f > 7 or r < 0 or r > 7:
                    continue
                d = f * 8 + r
                if _adjacent(d, wk) or _rook_attacks(wr, d, wk):
                    continue
                n_moves += 1
                if wdepth[wk * 4096 + wr * 64 + d] < 0:
                    all_won = False
                    break
            if n_moves > 0 and all_won:
                bdepth[p] = n
                changed = True
        if not changed:
            break
        n += 1
    return bdepth, legal_b


@functools.lru_cache(maxsize=1)
def solve_krk() -> tuple[np.ndarray, np.ndarray]:
    """Retrograde solution over all placements: ``(depth, legal)``, each of shape (64, 64, 64).

    Indexed ``[wk, wr, bk]`` with squares ``8*file + rank`` (0-based), Black to move.
    ``depth`` is the depth to mate in White moves, -1 for draws and illegal placements.
    Read-only arrays, computed once per process.
    """
    depth, legal = _solve(_KING_DF, _KING_DR, _ROOK_DF, _ROOK_DR)
    depth = depth.reshape(64, 64, 64)
    legal = legal.reshape(64, 64, 64)
    depth.flags.writeable = False
    legal.flags.writeable = False
    return depth, legal


@functools.lru_cache(maxsize=1)
def _table() -> tuple[np.ndarray, np.ndarray]:
    depth, legal = solve_krk()
    wk, wr, bk = np.meshgrid(np.arange(64), np.arange(64), np.arange(64), indexing="ij")
    wkf, wkr, wrf, wrr, bkf, bkr = wk // 8, wk % 8, wr // 8, wr % 8, bk // 8, bk % 8
    keep = legal & (wkf <= 3) & (wkr <= wkf)
    on_diag = wkf == wkr
    keep &= ~on_diag | (bkr < bkf) | ((bkr == bkf) & (wrr <= wrf))
    cls = depth[keep].astype(np.int64) + 1                  # draw (-1) -> 0, zero -> 1, ...
    cols = [a[keep] for a in (wkf, wkr, wrf, wrr, bkf, bkr)]
    order = np.lexsort(cols[::-1] + [cls])                  # class first, then the columns
    X = np.column_stack([c[order] for c in cols]).astype(X_DTYPE)
    X[:, 1::2] += 1.0                                       # ranks 1..8 as in the file
    y = cls[order].astype(Y_DTYPE)
    return X, y


def krkopt() -> GeneratedData:
    """The 28,056 rows of UCI ``krkopt.data``, exactly and in the file's order.

    Returns
    -------
    GeneratedData
        X: (28056, 6) float64 -- file columns categorical (a..h -> 0..7), rank columns numeric
        1..8; y: int32 codes of ``CLASSES`` (draw, zero, .., sixteen); no test split.
    """
    X, y = _table()
    return GeneratedData(
        X=X.copy(), y=y.copy(), classes=CLASSES, feature_names=FEATURE_NAMES,
        categorical=np.array([True, False] * 3), test_mask=None,
        categories=(FILES, None) * 3,
        source="generator krkopt: KRK retrograde analysis, Black to move, symmetry-reduced "
               "(exact: equals UCI chess/king-rook-vs-king/krkopt.data row for row)")
