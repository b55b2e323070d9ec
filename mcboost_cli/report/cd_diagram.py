"""Critical-difference diagrams (Demšar 2006, sec. 3.2.2 and Figures 1-2), drawn with
matplotlib from the numbers of ``report.significance``.

Map of the module
-----------------
``diagram_layout``   where everything goes, in inches (a pure function the tests check)
``draw_cd_diagram``  the figure, written as PNG or SVG (chosen by the file's suffix)

The diagram: an axis of average ranks (1, the lowest test error, on the left); each algorithm
hangs from its average rank by a line to its name, the better half on the left and the worse
half on the right (the outermost algorithms on the shortest lines, so lines never cross);
under the axis, a thick bar joins each maximal group of algorithms whose average ranks
differ by less than the critical difference (not significantly different under Nemenyi's
test); above it, a bar as long as the critical difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# Sizes in inches.
AXIS_WIDTH = 4.2
ROW_HEIGHT = 0.24
GROUP_STEP = 0.11
CHAR_WIDTH = 0.075           # of the 9-point labels, generous
TITLE_LINE = 0.17


@dataclass(frozen=True)
class DiagramLayout:
    """Positions in inches (x from the axis's rank 1, y downward from the axis)."""

    lo: float                                   # first rank of the axis (1)
    hi: float                                   # last rank of the axis (k, or 1 + CD)
    scale: float                                # inches per rank
    label_width: float
    rows: tuple[tuple[int, str, float], ...]    # (column, side "left"/"right", y)
    group_bars: tuple[tuple[float, float, float], ...]   # (rank from, rank to, y)
    top: float                                  # space above the axis (title, CD bar)
    bottom: float                               # depth of the lowest row

    @property
    def size(self) -> tuple[float, float]:
        return 2 * self.label_width + AXIS_WIDTH, self.top + self.bottom


def diagram_layout(names, mean_ranks, cd: float, groups, title: str = "") -> DiagramLayout:
    """Where the diagram's parts go: the better ceil(k/2) algorithms (by average rank) on
    the left, the best one on the first row; the others on the right, the worst one on the
    first row; a group bar per entry of ``groups`` (names), from its lowest to its highest
    average rank."""
    r = np.asarray(mean_ranks, dtype=float)
    k = len(r)
    order = [int(i) for i in np.argsort(r, kind="stable")]
    lo = 1.0
    hi = float(max(k, math.ceil(lo + cd)))
    scale = AXIS_WIDTH / (hi - lo)
    label_width = 0.35 + CHAR_WIDTH * max(len(f"{n} (0.00)") for n in names)
    n_left = (k + 1) // 2
    first_row = 0.15 + GROUP_STEP * len(groups) + 0.15
    rows = [(j, "left", first_row + ROW_HEIGHT * pos) for pos, j in enumerate(order[:n_left])]
    rows += [(j, "right", first_row + ROW_HEIGHT * pos)
             for pos, j in enumerate(reversed(order[n_left:]))]
    index = {str(n): j for j, n in enumerate(names)}
    bars = []
    for g, members in enumerate(groups):
        rs = [r[index[str(m)]] for m in members]
        bars.append((min(rs), max(rs), 0.15 + GROUP_STEP * g))
    n_lines = title.count("\n") + 1 if title else 0
    return DiagramLayout(lo=lo, hi=hi, scale=scale, label_width=label_width, rows=tuple(rows),
                         group_bars=tuple(bars), top=0.75 + TITLE_LINE * n_lines,
                         bottom=first_row + ROW_HEIGHT * max(n_left - 1, 0) + 0.2)


def draw_cd_diagram(names, mean_ranks, cd: float, groups, path, title: str = "") -> Path:
    """Draw the critical-difference diagram of ``names`` at their ``mean_ranks`` into
    ``path`` (``.png`` or ``.svg``; the same numbers give the same file).

    Parameters
    ----------
    names : sequence of str
    mean_ranks : sequence of float
        Average ranks (1 = best).
    cd : float
        Nemenyi's critical difference.
    groups : sequence of sequences of names
        The groups joined by a bar (``report.significance.nemenyi_groups``).
    path : path
    title : str
        Drawn above the diagram (may have several lines).

    References
    ----------
    Demšar (2006), sec. 3.2.2, Figures 1 and 2.
    """
    from .figures import _pyplot
    plt = _pyplot()
    path = Path(path)
    lay = diagram_layout(names, mean_ranks, cd, groups, title)
    r = np.asarray(mean_ranks, dtype=float)
    width, height = lay.size
    fig = plt.figure(figsize=(width, height))
    try:
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(lay.lo - lay.label_width / lay.scale, lay.hi + lay.label_width / lay.scale)
        ax.set_ylim(lay.bottom, -lay.top)
        ax.axis("off")
        pad = 0.06 / lay.scale          # 0.06 inch in rank units
        line = {"color": "black", "linewidth": 1.0}
        # The rank axis, with a tick per rank (labelled) and per half rank.
        ax.plot([lay.lo, lay.hi], [0, 0], **line)
        for t in range(1, int(lay.hi) + 1):
            ax.plot([t, t], [-0.08, 0], **line)
            ax.text(t, -0.1, str(t), ha="center", va="bottom", fontsize=8)
        for t in np.arange(1.5, lay.hi, 1.0):
            ax.plot([t, t], [-0.04, 0], **line)
        # The critical difference, above the axis at its left end.
        y_cd = -0.42
        ax.plot([lay.lo, lay.lo + cd], [y_cd, y_cd], **line)
        for x in (lay.lo, lay.lo + cd):
            ax.plot([x, x], [y_cd - 0.04, y_cd + 0.04], **line)
        ax.text(lay.lo + cd / 2, y_cd - 0.06, f"CD = {cd:.2f}", ha="center", va="bottom",
                fontsize=8)
        if title:
            ax.text((lay.lo + lay.hi) / 2, -0.7, title, ha="center", va="bottom", fontsize=9)
        # Each algorithm on a line from its rank down to its row, then out to its name.
        for j, side, y in lay.rows:
            if side == "left":
                end = lay.lo - pad
                ax.plot([r[j], r[j], end], [0, y, y], **line)
                ax.text(end - pad, y, f"{names[j]} ({r[j]:.2f})", ha="right", va="center",
                        fontsize=9)
            else:
                end = lay.hi + pad
                ax.plot([r[j], r[j], end], [0, y, y], **line)
                ax.text(end + pad, y, f"({r[j]:.2f}) {names[j]}", ha="left", va="center",
                        fontsize=9)
        # Groups not significantly different: thick bars under the axis.
        for a, b, y in lay.group_bars:
            ax.plot([a - pad, b + pad], [y, y], color="black", linewidth=3.0,
                    solid_capstyle="butt")
        path.parent.mkdir(parents=True, exist_ok=True)
        # Fixed metadata so that the same numbers give the same files, written whole or not
        # at all (``report.tables._replacing``, as the tables and figures).
        from .tables import _replacing
        with _replacing(path) as tmp:
            if path.suffix.lower() == ".svg":
                fig.savefig(tmp, format="svg", metadata={"Date": None, "Creator": None})
            else:
                fig.savefig(tmp, format="png", dpi=150, metadata={"Software": None})
    finally:
        plt.close(fig)
    return path
