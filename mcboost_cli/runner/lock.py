"""One run per result store: a lock file beside the store, held by the coordinating process.

Map of the module
-----------------
``store_lock``      context manager: take the lock of a store for a run, or raise
                    ``StoreBusy`` (a ``UserError``: one line naming the holder, exit 2)
``lock_path``       where the lock of a store lives: ``<store>-lock`` (``cells.sqlite-lock``)
``read_holder``     what the lock file says about its holder (pid, host, start, command)

Why a lock, and why stop rather than wait
-----------------------------------------
Two runs on one store would compute every pending cell twice (each sees the same cells as
not done), each taking the cores the other needs. A second run therefore stops at once with
one line naming the holder (pid, host, since when, its command) and exit status 2; waiting
silently behind a run of hours would look like a hang. ``--dry-run`` and ``report`` only read
the store (SQLite's WAL lets them read while a run writes) and take no lock.

How
---
The lock is an exclusive ``flock`` on the file ``<store>-lock``, which also holds a line
describing the holder. The kernel releases a ``flock`` when its holder dies (SIGKILL, a
crash, a power cut of the holder's host for a local file system), so a lock left by a killed
process never blocks: the next run takes it over. The file descriptor is not inherited by
worker processes (they are started with ``spawn``, and Python opens files non-inheritable),
so a worker that outlives its coordinator does not keep the lock. Cluster workers (Dask)
never touch the store or its lock; only the coordinating process does. On a network file
system ``flock`` is as good as the file system's locking (NFSv4 supports it).

The lock file is removed when the run ends. A run that finds the file but can take the lock
(its holder is gone) rewrites it; a race with a remover is settled by checking that the file
locked is still the one at the path.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from ..errors import UserError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no advisory locks, no lock
    fcntl = None


class StoreBusy(UserError):
    """Another live process holds the lock of the store."""


# Stores locked by this process (flock conflicts between two descriptors of one process too,
# but this gives the clearer message and keeps a nested take from blocking).
_HELD: set[str] = set()
_HELD_GUARD = threading.Lock()


def lock_path(store_path) -> Path:
    """The lock file of a store: beside it, named like SQLite's own ``-wal`` / ``-shm``."""
    p = Path(store_path)
    return p.with_name(p.name + "-lock")


def read_holder(store_path) -> dict:
    """The holder's description written into the lock file ({} when none is readable)."""
    try:
        text = lock_path(store_path).read_text(encoding="utf-8")
        holder = json.loads(text)
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}


def _describe(holder: dict) -> str:
    if not holder:
        return "another process (no holder recorded yet)"
    text = f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}"
    if holder.get("since"):
        text += f" since {holder['since']}"
    if holder.get("command"):
        text += f" ({holder['command']})"
    return text


def _busy(store_path, holder: dict) -> StoreBusy:
    return StoreBusy(
        f"result store {store_path} is in use by another run: {_describe(holder)}; a second "
        "run would compute the same cells again. Wait for it to finish (watch it with "
        "`mcboost report`), or give this run another --store")


def _holder_record(command: str | None) -> dict:
    return {"pid": os.getpid(), "host": socket.gethostname(),
            "since": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": command if command is not None else " ".join(
                ["mcboost", *sys.argv[1:]])}


@contextmanager
def store_lock(store_path, command: str | None = None):
    """Hold the lock of the store at ``store_path`` for the ``with`` block.

    Raises ``StoreBusy`` at once (no waiting) when a live process holds it. ``command`` is
    what the holder line shows (default: this process's arguments).
    """
    path = lock_path(store_path)
    ident = str(path.resolve())
    with _HELD_GUARD:
        if ident in _HELD:
            raise _busy(store_path, _holder_record(command) | read_holder(store_path))
        _HELD.add(ident)
    fd = None
    try:
        fd = _acquire(path, store_path)
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(_holder_record(command)) + "\n").encode(), 0)
        yield path
    finally:
        if fd is not None:
            try:
                path.unlink()            # while still locked: no other run has it open
            except OSError:
                pass
            os.close(fd)                 # releases the flock
        with _HELD_GUARD:
            _HELD.discard(ident)


def _acquire(path: Path, store_path) -> int:
    """An open descriptor of ``path`` with the exclusive lock taken."""
    if fcntl is None:  # pragma: no cover
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise UserError(f"cannot create the lock file {path} of result store "
                            f"{store_path}: {exc.strerror}; expected a writable directory"
                            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise _busy(store_path, read_holder(store_path)) from None
        except OSError as exc:
            os.close(fd)
            raise UserError(f"cannot lock {path} (result store {store_path}): "
                            f"{exc.strerror}; the file system does not support file locks"
                            ) from None
        # The holder we waited on may have removed the file between our open and our lock:
        # then we locked an orphan; start over on the file now at the path.
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)
