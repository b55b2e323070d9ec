"""Tic-Tac-Toe Endgame (UCI ``tic-tac-toe``): every board at the end of a game.

EXACT: :func:`tic_tac_toe` reproduces ``tic-tac-toe/tic-tac-toe.data`` row for row (958 rows,
626 ``positive`` / 332 ``negative``, labels and the file's row order), verified against the
byte-exact UCI copy.

Definition (``/work/shared/datasets.md`` §4.6; Aha, D. W. (1991), *Incremental constructive
induction: an instance-based approach*, Proc. 8th Intl Workshop on Machine Learning,
pp. 117-121; UCI ``tic-tac-toe.names``): play every game from the empty board, ``x`` first,
alternating, stopping at the first three-in-a-row or when the board is full; collect the distinct
final boards; the class is ``positive`` iff ``x`` has a three-in-a-row ("win for x").

Row order of the UCI file (found by inspecting it, reproduced exactly): the boards ``x`` won,
then those ``o`` won, then the full-board draws, each group sorted lexicographically with
``x < o < b``.

Features (as the catalog entry ``tic-tac-toe``): the nine squares in row-major order with the
``.names`` names ``top-left-square, top-middle-square, .., bottom-right-square`` (cells a1..c3
row-major: a1 = top-left, a3 = top-right, c3 = bottom-right), categorical with values
``x, o, b`` (``b`` = blank) coded 0, 1, 2 (the order of ``.names``). Classes
``positive, negative`` (codes 0, 1).
"""

from __future__ import annotations

import functools

import numpy as np

from ..._dtypes import X_DTYPE, Y_DTYPE
from ._base import GeneratedData

__all__ = ["CLASSES", "FEATURE_NAMES", "VALUES", "tic_tac_toe"]

VALUES = ("x", "o", "b")
CLASSES = ("positive", "negative")
FEATURE_NAMES = tuple(f"{row}-{col}-square" for row in ("top", "middle", "bottom")
                      for col in ("left", "middle", "right"))
_X, _O, _B = 0, 1, 2
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _wins(board: tuple[int, ...], player: int) -> bool:
    return any(board[a] == board[b] == board[c] == player for a, b, c in _LINES)


@functools.lru_cache(maxsize=1)
def _terminal_boards() -> tuple[tuple[tuple[int, ...], int], ...]:
    """Distinct final boards with their outcome: 0 = x won, 1 = o won, 2 = draw."""
    finals: dict[tuple[int, ...], int] = {}
    seen: set[tuple[int, ...]] = set()
    stack = [((_B,) * 9, _X)]
    while stack:                                   # depth-first over distinct positions
        board, mover = stack.pop()
        if board in seen:
            continue
        seen.add(board)
        if _wins(board, _X):
            finals[board] = 0
        elif _wins(board, _O):
            finals[board] = 1
        elif _B not in board:
            finals[board] = 2
        else:
            for i in range(9):
                if board[i] == _B:
                    stack.append((board[:i] + (mover,) + board[i + 1:], _O if mover == _X else _X))
    return tuple(sorted(finals.items(), key=lambda kv: (kv[1], kv[0])))


def tic_tac_toe() -> GeneratedData:
    """The 958 final boards of tic-tac-toe, exactly as (and in the order of) the UCI file.

    Returns
    -------
    GeneratedData
        X: (958, 9) float64 categorical codes (x=0, o=1, b=2); y: 0 = positive (x won),
        1 = negative; no test split.
    """
    rows = _terminal_boards()
    X = np.array([board for board, _ in rows], dtype=X_DTYPE)
    y = np.array([0 if outcome == 0 else 1 for _, outcome in rows], dtype=Y_DTYPE)
    return GeneratedData(
        X=X, y=y, classes=CLASSES, feature_names=FEATURE_NAMES,
        categorical=np.ones(9, dtype=bool), test_mask=None, categories=(VALUES,) * 9,
        source="generator tic_tac_toe: all final boards of complete games "
               "(exact: equals UCI tic-tac-toe/tic-tac-toe.data row for row)")
