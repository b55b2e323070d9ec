"""Where numba caches the compiled kernels: a folder per version of their sources.

numba's own cache (``cache=True``, beside each source file) is checked against the source
file of each compiled function only: a kernel that calls or inlines a function of another
module keeps its old machine code when only that other module changes (numba's
documentation, "Cache invalidation"). After an update of mcboost (a ``git pull``, a new
release), a stale kernel would run the old code silently, and the same config would give
other numbers than the sources say. So ``NUMBA_CACHE_DIR`` is set, before numba is imported,
to a folder named after a digest of every source that compiled code is built from
(``KERNEL_SOURCES``): any change there compiles every kernel afresh, in a new folder.

Map of the module
-----------------
``kernel_sources_digest``  the digest of the kernel sources under a package root
``user_cache_home``        ``~/.cache/mcboost`` (or under ``$XDG_CACHE_HOME``)
``kernel_cache_dir``       ``~/.cache/mcboost/kernels/<digest>``
``prune_stale_kernel_dirs`` removes the folders of other kernel versions unused for 30 days
``use_kernel_cache_dir``   sets ``NUMBA_CACHE_DIR`` unless the user set it, marks its folder
                           used and prunes the stale ones
``kernel_compile_lock``    around a first call of a large kernel: processes sharing the cache
                           compile it once (the others wait, then load numba's cached code)
``tolerate_cache_write_failures``  a kernel numba compiled but could not write to its cache
                           runs from memory instead of failing its call

Compiling once across processes
-------------------------------
numba compiles a kernel in the process that first calls it and only then writes it to the
cache; processes started together with a cold cache each compile the same kernels at the same
time. Measured (2026-11-28, ``uci.yaml --quick``, 2 workers): both workers spent 548 s
compiling DMCBoost's two tree growers, the same code, side by side. ``kernel_compile_lock``
takes an advisory file lock per kernel (``<NUMBA_CACHE_DIR>/compile-locks``) around the first
call of that kernel in a process: a second process arriving meanwhile waits and then loads
the compiled code from the cache instead of compiling it again. Combined with the runner's
warm-up (``runner.warm_up``), which hands the growers to different workers, the compile is
spread instead of repeated. A process holds one such lock at a time (a nested first call
compiles without one), so two processes can never wait on each other.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import time
import warnings
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# The sources compiled code is built from: the kernels' modules and what they read constants
# from (dtypes). The runner, report and CLI hold no compiled code.
KERNEL_SOURCES = ("_dtypes.py", "_inline.py", "learners", "algorithms", "datasets/generators")
# Each update of the kernel sources leaves its predecessor's folder (~30-80 MB) behind. One
# not used for this long belongs to a version no longer run here (an installed copy that runs
# again only recompiles, a few minutes).
STALE_DAYS = 30
_DIGEST_NAME = re.compile(r"[0-9a-f]{16}")


def kernel_sources_digest(root: Path = PACKAGE) -> str:
    """A digest (16 hex digits) of the names and bytes of every ``.py`` file of
    ``KERNEL_SOURCES`` under ``root``."""
    h = hashlib.sha256()
    for entry in KERNEL_SOURCES:
        path = root / entry
        files = [path] if path.is_file() else sorted(path.rglob("*.py"))
        for f in files:
            h.update(f.relative_to(root).as_posix().encode() + b"\0")
            h.update(f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def user_cache_home() -> Path:
    """``$XDG_CACHE_HOME/mcboost`` (an absolute ``XDG_CACHE_HOME``; XDG says a relative one
    is invalid and must be ignored), else ``~/.cache/mcboost``: the root of mcboost's caches
    (also the datasets' default, ``datasets.download.data_home``)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "mcboost"


def kernel_cache_dir(root: Path = PACKAGE) -> Path:
    """``<user_cache_home()>/kernels/<digest of the kernel sources>``; not under
    ``$MCBOOST_DATA``, which names where datasets live."""
    return user_cache_home() / "kernels" / kernel_sources_digest(root)


def prune_stale_kernel_dirs(current: Path, stale_days: float = STALE_DAYS) -> list[Path]:
    """Remove the sibling folders of ``current`` named like a digest whose modification time
    (``use_kernel_cache_dir`` renews the one in use at every start) is older than
    ``stale_days``; return the removed ones. Other names and files are never touched."""
    cutoff = time.time() - stale_days * 86400.0
    removed = []
    try:
        siblings = list(current.parent.iterdir())
    except OSError:
        return removed
    for d in siblings:
        if d.name == current.name or not _DIGEST_NAME.fullmatch(d.name) or not d.is_dir():
            continue
        try:
            if d.stat().st_mtime < cutoff:
                shutil.rmtree(d)
                removed.append(d)
        except OSError:            # in use or removed by another process: left alone
            pass
    return removed


def use_kernel_cache_dir() -> None:
    """Point numba's cache at ``kernel_cache_dir()`` unless ``NUMBA_CACHE_DIR`` is set
    (then the user's folder is used as it is), mark that folder used (its modification time)
    and remove other versions' folders unused for ``STALE_DAYS``. Must run before numba is
    imported."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        try:
            folder = kernel_cache_dir()
            os.environ["NUMBA_CACHE_DIR"] = str(folder)
            folder.mkdir(parents=True, exist_ok=True)
            os.utime(folder)
            prune_stale_kernel_dirs(folder)
        except (OSError, RuntimeError):   # unreadable sources or no home: numba's default
            pass


def tolerate_cache_write_failures() -> None:
    """Let a failure to *write* a compiled kernel to numba's cache leave the kernel in use.

    numba adds a compiled overload to its dispatcher and only then saves it to the cache
    (``Dispatcher.compile``); an exception while saving propagates out of the call that
    triggered the compile, although the machine code is in memory and correct. One such
    error is numba's "no compiled object yet for <Library ...>" when a kernel compiled as
    another kernel's callee is serialized (seen once, 2026-11-29, on a cold cache: the noise
    sweep's first Phase II tree on shuttle failed its cell; similar reports upstream,
    emscripten-forge/recipes#6309, QuantEcon/QuantEcon.py#944). The cache only saves time,
    so such a failure now costs a compile in the next process and a warning (once per
    process), not a fit. Errors of the compile itself are untouched. Idempotent."""
    from numba.core import caching

    save = caching.Cache.save_overload
    if getattr(save, "_mcboost_tolerant", False):
        return

    def save_overload(self, sig, data):
        try:
            save(self, sig, data)
        except (RuntimeError, OSError) as exc:
            name = getattr(self, "_name", "?")
            warnings.warn(f"numba could not write the compiled kernel {name} to its cache "
                          f"({exc}); it runs from memory and the next process compiles it "
                          "again", RuntimeWarning, stacklevel=2)

    save_overload._mcboost_tolerant = True
    caching.Cache.save_overload = save_overload


# Held by this process (at most one: see "Compiling once across processes").
_held_compile_lock: list = []


@contextlib.contextmanager
def kernel_compile_lock(kernel):
    """Hold a file lock named after the numba dispatcher ``kernel`` while the block runs its
    first call in this process (one that may compile it), so that processes sharing
    ``NUMBA_CACHE_DIR`` compile it one at a time: whoever comes second finds it in the cache.

    A no-op when ``kernel`` already has compiled code in this process, when this process
    already holds such a lock, without ``NUMBA_CACHE_DIR`` (numba's cache is then beside the
    sources), or where file locks are unavailable (``fcntl``, POSIX)."""
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if getattr(kernel, "signatures", None) or _held_compile_lock or not folder:
        yield
        return
    try:
        import fcntl
        locks = Path(folder) / "compile-locks"
        locks.mkdir(parents=True, exist_ok=True)
        func = kernel.py_func
        handle = open(locks / f"{func.__module__}.{func.__qualname__}.lock", "a+b")
    except (ImportError, OSError, AttributeError):
        yield
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        _held_compile_lock.append(handle)
        try:
            yield
        finally:
            _held_compile_lock.pop()
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        handle.close()
