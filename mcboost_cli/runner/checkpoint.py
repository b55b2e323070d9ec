"""Mid-fit checkpoints: a long fit survives the end of its process.

The runner resumes a plan at the granularity of cells (the store has a cell or not). A single
fit can be longer than a process lives — a DMCBoost fit of thousands of Phase II rounds on
Abalone or Letter takes hours, and a session, a batch job or a preemptible cluster node may be
stopped before it ends. With checkpoints, the fit's state between two rounds is written to a
file every ``every_seconds``; the next run of the same cell continues from it and gives the
numbers an uninterrupted fit gives (``algorithms.base``, "Checkpoints"; tested bit for bit).

Map of the module
-----------------
``FitCheckpoint(path, every_seconds)``
    One fit's checkpoint file: ``load(fingerprint)``, ``due()``, ``save(fingerprint, state)``
    (the interface ``BaseBoosting.fit`` expects), and ``seconds_before`` / ``cpu_before``, the
    fit's wall-clock and CPU time before the state was saved (so a resumed cell reports its
    whole fit time; ``elapsed()``, ``elapsed_cpu()``).
``CheckpointDir(root, every_seconds)``
    The checkpoints of a result store, one file per cell key: ``for_cell(key)``,
    ``discard(keys)``, ``progress(key)`` (how far a stopped fit got, for ``--dry-run``),
    ``prefixes()`` / ``discard_prefixes()``.
``PrefixStore(root)``
    Shared prefixes (``algorithms.base``, "Shared prefixes"): the state at the end of the rounds
    that the fits of a grid share (DMCBoost's Phase I, the same for every n'), one file per
    prefix fingerprint under ``<checkpoints>/prefix/``. The first sibling to get there saves
    it, the others start from it. Two siblings running at once both compute it and write the
    same state (the rename is atomic); the runner orders the plan so that one sibling of each
    group runs first (``execute.prefix_first_order``).

Files are pickles written by this program for itself (write to a temporary file, then an
atomic rename: a kill while saving leaves the previous checkpoint). Beside each, a small
``<key>.json`` tells the rounds and the fit time it holds, so a listing of the fits in
flight does not unpickle states of hundreds of megabytes. A file that cannot be read,
was written by another format version, or belongs to other data or parameters is ignored and
the fit starts from round 1.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import re
import socket
import time
from pathlib import Path

from .fit_clock import fit_cpu_time

FORMAT = 1
# Default interval between saves: a kill loses at most this much of a fit's work.
EVERY_SECONDS = 300.0
# A large state takes long to write (AdaBoost.MH's depth-12 trees on Poker525k: 1.7 GB
# after 1,200 rounds, growing with every round), so the next save waits at least this many
# times as long as the last one took: writing costs at most ~1/SAVE_BUDGET of the fit.
SAVE_BUDGET = 20.0


class FitCheckpoint:
    """The checkpoint file of one fit.

    Parameters
    ----------
    path : path-like
        The file (its folder is created on the first save).
    every_seconds : float
        ``due()`` is true once this many seconds have passed since the fit started or since
        the last save, and ``SAVE_BUDGET`` times the last save's duration; 0 saves after
        every round (tests).
    """

    def __init__(self, path, every_seconds: float = EVERY_SECONDS):
        if not every_seconds >= 0:
            raise ValueError(f"every_seconds must be >= 0, got {every_seconds!r}")
        self.path = Path(path)
        self.every_seconds = float(every_seconds)
        self.seconds_before = 0.0      # fit time of the loaded state (0 for a fresh fit)
        # CPU time of the loaded state; None when its file did not record it (older mcboost)
        self.cpu_before: float | None = 0.0
        self.resumed_round = 0         # rounds of the loaded state (0 for a fresh fit)
        self._started = time.perf_counter()
        self._cpu_started = fit_cpu_time()
        self._last = self._started
        self._interval = self.every_seconds

    def load(self, fingerprint: str):
        """The saved state of this fit, or None (no file, unreadable, or another fit's)."""
        self._started = self._last = time.perf_counter()
        self._cpu_started = fit_cpu_time()
        try:
            with open(self.path, "rb") as fh:
                payload = pickle.load(fh)
        except Exception:    # none yet, or a torn or foreign file: start afresh
            return None
        if (not isinstance(payload, dict) or payload.get("format") != FORMAT
                or payload.get("fingerprint") != fingerprint):
            return None
        self.seconds_before = float(payload["seconds"])
        cpu = payload.get("cpu_seconds")
        self.cpu_before = None if cpu is None else float(cpu)
        self.resumed_round = int(payload["state"]["kept"])
        return payload["state"]

    def due(self) -> bool:
        return time.perf_counter() - self._last >= self._interval

    def elapsed(self) -> float:
        """Fit seconds so far, including those before the loaded state."""
        return self.seconds_before + (time.perf_counter() - self._started)

    def elapsed_cpu(self) -> float | None:
        """CPU seconds of the fit's thread so far, including those before the loaded state
        (call it from the thread that runs the fit), less numba's compiling
        (``fit_clock.fit_cpu_time``); None when the loaded state did not record them."""
        if self.cpu_before is None:
            return None
        return self.cpu_before + (fit_cpu_time() - self._cpu_started)

    def save(self, fingerprint: str, state: dict) -> None:
        t0 = time.perf_counter()
        payload = {"format": FORMAT, "fingerprint": fingerprint, "seconds": self.elapsed(),
                   "cpu_seconds": self.elapsed_cpu(), "state": state}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(self.path, lambda fh: pickle.dump(
            payload, fh, protocol=pickle.HIGHEST_PROTOCOL))
        summary = {"rounds": int(state.get("kept", 0)), "seconds": payload["seconds"],
                   "cpu_seconds": payload["cpu_seconds"], "stamp": _stamp(self.path)}
        _write_atomically(_progress_path(self.path),
                          lambda fh: fh.write(json.dumps(summary).encode()))
        self._last = time.perf_counter()
        if self.every_seconds > 0:
            self._interval = max(self.every_seconds, SAVE_BUDGET * (self._last - t0))


def _progress_path(ckpt: Path) -> Path:
    return ckpt.with_suffix(".json")


def _stamp(path: Path) -> list[int]:
    """Size and modification time of a checkpoint: its summary belongs to it only if they
    match (a kill between writing the two leaves the summary of the previous save)."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _temp_path(path: Path) -> Path:
    """The temporary file a save of ``path`` writes first: ``<name>.<host>.<pid>.tmp`` (the
    host, as workers on several machines may share the folder)."""
    return path.with_name(f"{path.name}.{_HOST}.{os.getpid()}.tmp")


_HOST = re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname()) or "host"
# <name>.<host>.<pid>.tmp, or <name>.<pid>.tmp as written by mcboost before the host was added
_TEMP_RE = re.compile(r"^(?P<name>.+\.(?:ckpt|json|prefix))\.(?:(?P<host>[A-Za-z0-9_-]+)\.)?"
                      r"(?P<pid>\d+)\.tmp$")


def _pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (signal 0 probes without sending)."""
    if pid <= 0:
        return True             # not a pid a save wrote: leave its file alone
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OverflowError:
        return False            # no process can have it
    except OSError:
        return True             # e.g. PermissionError: another user's live process
    return True


def remove_stale_temps(folder: Path, name: str = "*") -> int:
    """Remove the temporary files of saves that a kill interrupted (``<name>.*.tmp`` in
    ``folder``): those written on this host by a process that is gone. Another host's
    files, and those of live processes, are left alone. Returns how many were removed."""
    n = 0
    try:
        candidates = list(Path(folder).glob(f"{name}.*.tmp"))
    except OSError:
        return 0
    for tmp in candidates:
        m = _TEMP_RE.match(tmp.name)
        if m is None or (m["host"] is not None and m["host"] != _HOST):
            continue
        if m["pid"] == str(os.getpid()) or _pid_alive(int(m["pid"])):
            continue
        with contextlib.suppress(OSError):
            tmp.unlink()
            n += 1
    return n


def _write_atomically(path: Path, write) -> None:
    """``write(fh)`` into a temporary file, synced, then renamed to ``path``: a kill while
    writing leaves the previous file (and the temporary one, which the next save of ``path``
    or ``CheckpointDir.remove_stale_temps`` removes)."""
    tmp = _temp_path(path)
    try:
        with open(tmp, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    remove_stale_temps(path.parent, path.name)


class PrefixStore:
    """Shared-prefix states of one checkpoint folder: ``<root>/<fingerprint>.prefix``.

    ``load(fingerprint)`` returns the saved state or None (none yet, unreadable, another
    format); ``save(fingerprint, state)`` writes it atomically. The fingerprint (class,
    version, the shared parameters, data, library versions) is the file name, so a stale
    file is never read by the wrong fit.
    """

    def __init__(self, root):
        self.root = Path(root)

    def path(self, fingerprint: str) -> Path:
        return self.root / f"{fingerprint}.prefix"

    def load(self, fingerprint: str):
        try:
            with open(self.path(fingerprint), "rb") as fh:
                payload = pickle.load(fh)
        except Exception:    # none yet, or torn or foreign: compute the prefix
            return None
        if (not isinstance(payload, dict) or payload.get("format") != FORMAT
                or payload.get("fingerprint") != fingerprint):
            return None
        return payload["state"]

    def save(self, fingerprint: str, state: dict) -> None:
        payload = {"format": FORMAT, "fingerprint": fingerprint, "state": state}
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            _write_atomically(self.path(fingerprint), lambda fh: pickle.dump(
                payload, fh, protocol=pickle.HIGHEST_PROTOCOL))
        except OSError:
            # Sharing is an optimisation: a full disk or a read-only folder costs the
            # siblings their prefix, never the fit.
            pass

    def discard(self) -> int:
        """Remove every saved prefix; returns how many there were."""
        n = 0
        for p in self.root.glob("*.prefix"):
            p.unlink(missing_ok=True)
            n += 1
        return n


class CheckpointDir:
    """The checkpoints of one result store: ``<root>/<cell key>.ckpt``.

    A checkpoint depends only on its cell (its key fixes data, fold, noise, algorithm version
    and parameters), so stores may share a folder.
    """

    def __init__(self, root, every_seconds: float = EVERY_SECONDS):
        self.root = Path(root)
        self.every_seconds = float(every_seconds)

    def path(self, key: str) -> Path:
        return self.root / f"{key}.ckpt"

    def for_cell(self, key: str) -> FitCheckpoint:
        return FitCheckpoint(self.path(key), self.every_seconds)

    def prefixes(self) -> PrefixStore:
        """The shared prefixes of this folder's fits (``<root>/prefix/``)."""
        return PrefixStore(self.root / "prefix")

    def discard_prefixes(self) -> int:
        """Remove every shared prefix (once no pending fit can use them)."""
        return self.prefixes().discard()

    def discard(self, keys) -> int:
        """Remove the checkpoints of ``keys`` (finished or forgotten cells); returns how many
        there were."""
        n = 0
        for key in keys:
            p = self.path(key)
            _progress_path(p).unlink(missing_ok=True)
            if p.exists():
                p.unlink(missing_ok=True)
                n += 1
        return n

    def progress(self, key: str) -> dict | None:
        """How far the checkpoint of ``key`` got: ``{"rounds", "seconds", "cpu_seconds"}``
        (the latter None where not recorded); ``{}`` for a file that cannot be read; None
        when there is no checkpoint. Read from the summary beside the checkpoint, or, where
        that summary is missing or of another save (an older mcboost; a kill between the two
        writes), from the checkpoint itself."""
        p = self.path(key)
        if not p.exists():
            return None
        try:
            got = json.loads(_progress_path(p).read_text())
            if got.get("stamp") != _stamp(p):
                raise ValueError("the summary of another save")
        except (OSError, ValueError, AttributeError):
            try:
                with open(p, "rb") as fh:
                    payload = pickle.load(fh)
                got = {"rounds": payload["state"]["kept"], "seconds": payload["seconds"],
                       "cpu_seconds": payload.get("cpu_seconds")}
            except Exception:    # torn or foreign: the run will start that fit afresh
                return {}
        try:
            cpu = got.get("cpu_seconds")
            return {"rounds": int(got["rounds"]), "seconds": float(got["seconds"]),
                    "cpu_seconds": None if cpu is None else float(cpu)}
        except (KeyError, TypeError, ValueError, AttributeError):
            return {}

    def remove_stale_temps(self) -> int:
        """Remove the temporary files of saves that a kill interrupted, here and among the
        shared prefixes (see the module function); returns how many."""
        return remove_stale_temps(self.root) + remove_stale_temps(self.root / "prefix")

    def keys(self) -> list[str]:
        """Cell keys with a checkpoint."""
        if not self.root.is_dir():
            return []
        return sorted(p.name[:-len(".ckpt")] for p in self.root.glob("*.ckpt"))
