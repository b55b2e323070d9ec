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
``use_kernel_cache_dir``   sets ``NUMBA_CACHE_DIR`` unless the user set it
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
# The sources compiled code is built from: the kernels' modules and what they read constants
# from (dtypes). The runner, report and CLI hold no compiled code.
KERNEL_SOURCES = ("_dtypes.py", "learners", "algorithms", "datasets/generators")


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


def use_kernel_cache_dir() -> None:
    """Point numba's cache at ``kernel_cache_dir()`` unless ``NUMBA_CACHE_DIR`` is set
    (then the user's folder is used as it is). Must run before numba is imported."""
    if not os.environ.get("NUMBA_CACHE_DIR"):
        try:
            os.environ["NUMBA_CACHE_DIR"] = str(kernel_cache_dir())
        except (OSError, RuntimeError):   # unreadable sources or no home: numba's default
            pass
