"""Progress reporting for long runs: counts, elapsed time and ETA on stderr.

``Progress(mode)`` has three ways to show the same numbers:

``bar``    one line redrawn in place with ``\\r`` (interactive terminals)::

               37% [#######.............] 123/330  failed 2  timeout 1  0:12:03 eta 0:20:11

``plain``  an ordinary line every ``every_percent`` % of the cells or every ``every_seconds``
           seconds, whichever comes first (CI logs, pipes: redrawing would fill them with
           carriage returns)
``quiet``  nothing

``auto`` (the default) picks ``bar`` when the stream is a TTY and ``plain`` otherwise.
The display is updated when a cell finishes. The ETA is the remaining cells at the rate of
the cells completed in this run after the first ``warmup`` ones (one per worker; skipped cells
do not count), timed from the last of those: a worker's first cell includes the one-off JIT
compile of the kernels (a minute or two, more than many whole cells), and counting it made the
first ETA of a four-minute run say an hour. Until then the ETA shows ``?``.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from typing import TextIO

from .cells import DONE, FAILED, TIMEOUT

MODES = ("auto", "bar", "plain", "quiet")


def format_seconds(seconds: float) -> str:
    """``3723.4`` -> ``'1:02:03'``."""
    seconds = round(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class Progress:
    """Done / failed / timeout counts, elapsed time and ETA of a run.

    Parameters
    ----------
    mode : {"auto", "bar", "plain", "quiet"}
        See the module docstring.
    stream : file-like, optional
        Where to write; default ``sys.stderr`` (looked up when writing).
    every_percent : float, default 10
        ``plain`` mode: print a line each time this share of the cells has completed ...
    every_seconds : float, default 10
        ... or when this much time has passed since the last line.
    clock : callable, default time.monotonic
        Injected in tests.

    Examples
    --------
    >>> p = Progress("plain")                       # doctest: +SKIP
    >>> p.start(total=100, skipped=20)
    >>> p.advance("done"); p.advance("failed")
    >>> p.close()
    """

    _min_redraw = 0.1  # seconds between two redraws of the bar

    def __init__(self, mode: str = "auto", stream: TextIO | None = None, *,
                 every_percent: float = 10.0, every_seconds: float = 10.0,
                 clock: Callable[[], float] = time.monotonic):
        if mode not in MODES:
            raise ValueError(f"progress mode must be one of {MODES}, got {mode!r}")
        self._stream = stream
        if mode == "auto":
            isatty = getattr(self.stream, "isatty", None)
            mode = "bar" if isatty is not None and isatty() else "plain"
        self.mode = mode
        self.every_percent = every_percent
        self.every_seconds = every_seconds
        self._clock = clock
        self.total = 0
        self.skipped = 0
        self.counts = {DONE: 0, FAILED: 0, TIMEOUT: 0}
        self._started = None
        self.warmup = 1
        self._warm_at = None    # clock when the ``warmup``-th cell completed
        self._last_draw = None
        self._last_width = 0
        self._last_percent_step = 0
        self._printed = 0  # ``completed`` as of the last plain line

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    @property
    def completed(self) -> int:
        return sum(self.counts.values())

    def start(self, total: int, skipped: int = 0, warmup: int = 1) -> None:
        """Begin a run of ``total`` cells to compute (``skipped`` were already in the store);
        the ETA leaves out the first ``warmup`` completed cells (the number of workers: each
        one's first cell includes compiling)."""
        self.total = int(total)
        self.skipped = int(skipped)
        self.warmup = max(1, int(warmup))
        self._warm_at = None
        self._started = self._clock()
        self._last_draw = self._started
        if self.mode == "bar" and self.total:
            self._draw_bar()

    def advance(self, status: str) -> None:
        """Count one finished cell of ``status`` ("done", "failed" or "timeout")."""
        self.counts[status] = self.counts.get(status, 0) + 1
        now = self._clock()
        if self.completed == self.warmup:
            self._warm_at = now
        if self.mode == "bar":
            if now - self._last_draw >= self._min_redraw or self.completed == self.total:
                self._draw_bar()
        elif self.mode == "plain":
            step = int(100 * self.completed / max(self.total, 1) // self.every_percent)
            if step > self._last_percent_step or now - self._last_draw >= self.every_seconds:
                self._last_percent_step = step
                self._write_line(self.status_line())

    def note(self, message: str) -> None:
        """Print ``message`` on its own line (e.g. a failed cell) without breaking the bar."""
        if self.mode == "quiet":
            return
        if self.mode == "bar" and self._last_width:
            self.stream.write("\r" + " " * self._last_width + "\r")
            self._last_width = 0
        self.stream.write(message + "\n")
        if self.mode == "bar" and self._started is not None:
            self._draw_bar()
        self.stream.flush()

    def close(self) -> None:
        """Draw the final state and end the line."""
        if self._started is None or self.mode == "quiet" or not self.total:
            return
        if self.mode == "bar":
            self._draw_bar()
            self.stream.write("\n")
            self.stream.flush()
        elif self._printed != self.completed:
            # The last periodic line is stale (or missing, for a run interrupted early).
            self._write_line(self.status_line())
        self._started = None

    # -- rendering -----------------------------------------------------------------------------

    def _timing(self) -> tuple[float, float | None]:
        now = self._clock()
        elapsed = now - self._started
        done = self.completed
        eta = None
        if self._warm_at is not None and done > self.warmup:
            eta = (now - self._warm_at) / (done - self.warmup) * (self.total - done)
        return elapsed, eta

    def status_line(self) -> str:
        """``123/330 (37%)  failed 2  timeout 1  elapsed 0:12:03  eta 0:20:11``."""
        elapsed, eta = self._timing()
        done = self.completed
        percent = 100 * done // max(self.total, 1)
        parts = [f"{done}/{self.total} ({percent}%)"]
        if self.counts[FAILED]:
            parts.append(f"failed {self.counts[FAILED]}")
        if self.counts[TIMEOUT]:
            parts.append(f"timeout {self.counts[TIMEOUT]}")
        parts.append(f"elapsed {format_seconds(elapsed)}")
        if done < self.total:
            parts.append("eta " + ("?" if eta is None else format_seconds(eta)))
        return "  ".join(parts)

    def _write_line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()
        self._last_draw = self._clock()
        self._printed = self.completed

    def _draw_bar(self) -> None:
        elapsed, eta = self._timing()
        done = self.completed
        fraction = done / max(self.total, 1)
        counts = f"{done}/{self.total}"
        if self.counts[FAILED]:
            counts += f"  failed {self.counts[FAILED]}"
        if self.counts[TIMEOUT]:
            counts += f"  timeout {self.counts[TIMEOUT]}"
        timing = format_seconds(elapsed)
        if done < self.total:
            timing += " eta " + ("?" if eta is None else format_seconds(eta))
        # A line longer than the terminal wraps, and ``\r`` then only returns to the start of
        # the last physical line: size the bar to fit, drop it if there is no room.
        width = shutil.get_terminal_size((80, 24)).columns - 1
        text_len = len(f"{100 * fraction:3.0f}% [] {counts}  {timing}")
        bar_width = min(30, width - text_len)
        bar = ""
        if bar_width >= 5:
            filled = int(bar_width * fraction)
            bar = "[" + "#" * filled + "." * (bar_width - filled) + "] "
        line = f"{100 * fraction:3.0f}% {bar}{counts}  {timing}"[:width]
        self.stream.write("\r" + line.ljust(self._last_width))
        self.stream.flush()
        self._last_width = len(line)
        self._last_draw = self._clock()
