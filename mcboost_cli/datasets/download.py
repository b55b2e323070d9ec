"""Checksummed, atomic download of dataset files into a local cache, with mirrors.

A file is identified by its path relative to the UCI archive base (``nursery/nursery.data``)
and its sha256. :func:`fetch_file` makes sure ``<data_home>/uci/<path>`` exists with exactly
those bytes:

* a file already in the cache is used as is (``verify=True`` re-hashes it first);
* otherwise each source is tried in order: the mirrors configured (``mirror`` argument, else
  ``MCBOOST_MIRROR``), else the official UCI archive. A source is an ``http(s)://`` base URL
  or a local folder laid out like the archive (copied, not linked);
* bytes are streamed into a temporary file next to the target while being hashed, and moved
  into place with ``os.replace`` only when the digest matches. Any failure, including
  KeyboardInterrupt, removes the temporary file: the cache never holds partial or corrupt
  files;
* transient network failures (timeouts, resets, truncated bodies, HTTP 5xx) are retried
  ``RETRIES`` times with exponential backoff from ``BACKOFF`` seconds; a 404 or a refused
  connection moves on to the next source at once;
* ``offline=True`` never opens a network connection (local-folder mirrors are still used).
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import logging
import os
import re
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import BinaryIO, Iterable, Sequence

from .. import __version__
from .catalog import DatasetError

__all__ = [
    "UCI_BASE",
    "RETRIES",
    "BACKOFF",
    "data_home",
    "mirrors_from",
    "cache_path",
    "is_cached",
    "is_url",
    "fetch_file",
    "sha256_file",
    "FETCH_HINT",
    "OFFLINE_HINT",
]

log = logging.getLogger(__name__)

UCI_BASE = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
RETRIES = 2            # extra attempts per source after a transient failure
BACKOFF = 0.5          # seconds before the first retry; doubles for each further retry
CHUNK = 1 << 16
USER_AGENT = f"mcboost/{__version__} (dataset downloader; Python urllib)"
# How to get going again, appended to error messages.
FETCH_HINT = ("check the network, or set MCBOOST_MIRROR to other URLs or folders laid out like "
              "the UCI archive (separated by spaces or commas)")
OFFLINE_HINT = "or set MCBOOST_MIRROR to a local folder laid out like the UCI archive"


# ---------------------------------------------------------------------------------------------
# Locations

def data_home(path: str | os.PathLike | None = None) -> Path:
    """The cache root.

    Parameters
    ----------
    path : str or PathLike, optional
        Explicit location; wins over everything else.

    Returns
    -------
    Path
        ``path``, else ``$MCBOOST_DATA``, else ``$XDG_CACHE_HOME/mcboost``, else
        ``~/.cache/mcboost``. Not created here (only a download creates it).
    """
    if path is not None and str(path) != "":
        return Path(path).expanduser()
    env = os.environ.get("MCBOOST_DATA", "").strip()
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    # XDG says a relative XDG_CACHE_HOME is invalid and must be ignored.
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "mcboost"


def cache_path(relpath: str, home: str | os.PathLike | None = None) -> Path:
    """Where the file ``relpath`` (relative to the UCI archive base) is cached."""
    return data_home(home) / "uci" / relpath


def is_cached(relpath: str, home: str | os.PathLike | None = None) -> bool:
    """Whether ``relpath`` is present in the cache (not re-verified)."""
    return cache_path(relpath, home).is_file()


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def mirrors_from(mirror: str | os.PathLike | Sequence[str] | None = None) -> list[str]:
    """The ordered list of sources to download from.

    Parameters
    ----------
    mirror : str, PathLike or sequence of str, optional
        One or several mirrors (a string may hold several separated by whitespace or commas).
        Each is an ``http(s)://`` base URL, a ``file://`` URL or a local folder laid out like
        the UCI archive. When None, ``$MCBOOST_MIRROR`` is used the same way.

    Returns
    -------
    list of str
        URLs end with ``/``; folders are absolute paths. When no mirror is configured, the
        official :data:`UCI_BASE` alone.

    Raises
    ------
    DatasetError
        For an unsupported URL scheme or a local folder that does not exist.
    """
    if mirror is None:
        raw: Iterable[str] = [os.environ.get("MCBOOST_MIRROR", "")]
    elif isinstance(mirror, (str, os.PathLike)):
        raw = [os.fspath(mirror)]
    else:
        raw = [os.fspath(m) for m in mirror]
    items = [part for text in raw for part in re.split(r"[\s,]+", text) if part]
    if not items:
        return [UCI_BASE]

    out: list[str] = []
    for item in items:
        scheme = urllib.parse.urlsplit(item).scheme.lower()
        if scheme in ("http", "https"):
            out.append(item if item.endswith("/") else item + "/")
            continue
        if scheme == "file":
            folder = Path(urllib.request.url2pathname(urllib.parse.urlsplit(item).path))
        elif len(scheme) > 1:   # one letter is a Windows drive, not a scheme
            raise DatasetError(f"mirror {item!r} has unsupported scheme {scheme!r}; use an "
                               f"http(s):// URL or a local folder")
        else:
            folder = Path(item).expanduser()
        if not folder.is_dir():
            raise DatasetError(f"mirror folder {str(folder)!r} does not exist; give an existing "
                               f"folder laid out like the UCI archive or an http(s):// URL")
        out.append(str(folder.resolve()))
    return out


# ---------------------------------------------------------------------------------------------
# Fetching

class _SourceFailed(Exception):
    """One attempt on one source failed; ``transient`` failures are worth retrying."""

    def __init__(self, reason: str, transient: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.transient = transient


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _network_failure(exc: BaseException, timeout: float) -> _SourceFailed:
    """Classify an exception raised while talking to an HTTP server."""
    if isinstance(exc, urllib.error.HTTPError):
        # 408/429/5xx are the server being busy or flaky; 404, 403, 410 will not change.
        transient = exc.code in (408, 429) or exc.code >= 500
        exc.close()     # it holds the error page's open response
        return _SourceFailed(f"HTTP {exc.code} {exc.reason}", transient)
    if isinstance(exc, urllib.error.URLError):
        exc = exc.reason if isinstance(exc.reason, BaseException) else exc
    if isinstance(exc, TimeoutError):
        return _SourceFailed(f"timed out after {timeout:g} s", True)
    if isinstance(exc, ConnectionRefusedError):
        return _SourceFailed("connection refused")      # nothing listens: retrying won't help
    if isinstance(exc, (ConnectionError, http.client.HTTPException)):
        # Resets, aborts, a server closing without a reply, malformed replies.
        return _SourceFailed(f"connection failed ({type(exc).__name__}: {exc})", True)
    if isinstance(exc, urllib.error.URLError):
        return _SourceFailed(f"cannot connect ({exc.reason})")    # DNS failure, bad host...
    if isinstance(exc, OSError):
        return _SourceFailed(f"network error ({exc.strerror or exc})", True)
    raise exc


def _stream(src: BinaryIO, out: BinaryIO, timeout: float, network: bool) -> tuple[str, int]:
    """Copy ``src`` to ``out`` in chunks; return (sha256 hex, byte count)."""
    digest = hashlib.sha256()
    size = 0
    while True:
        try:
            chunk = src.read(CHUNK)
        except Exception as exc:
            if not network:
                raise _SourceFailed(f"read error ({exc})") from None
            raise _network_failure(exc, timeout) from None
        if not chunk:
            return digest.hexdigest(), size
        digest.update(chunk)
        out.write(chunk)    # disk errors (ENOSPC...) propagate: no other mirror fixes them
        size += len(chunk)


def _open_source(location: str, timeout: float) -> tuple[BinaryIO, int | None]:
    """Open a URL or local file for reading; return (stream, expected size or None)."""
    if not is_url(location):
        try:
            return open(location, "rb"), None
        except FileNotFoundError:
            raise _SourceFailed("not found") from None
        except OSError as exc:
            raise _SourceFailed(f"cannot read ({exc.strerror or exc})") from None
    request = urllib.request.Request(location, headers={"User-Agent": USER_AGENT})
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except Exception as exc:
        raise _network_failure(exc, timeout) from None
    length = response.headers.get("Content-Length")
    return response, int(length) if length and length.isdigit() else None


def _fetch_once(location: str, target: Path, sha256: str, timeout: float) -> None:
    """One attempt: stream ``location`` into a temp file, verify, move to ``target``."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as out:
            src, expected_size = _open_source(location, timeout)
            with src:
                digest, size = _stream(src, out, timeout, network=is_url(location))
            out.flush()
            os.fsync(out.fileno())
        # http.client returns a short body without complaint when the server closes early,
        # so compare with Content-Length ourselves: that is a transient failure, not a
        # checksum problem of the mirror.
        if expected_size is not None and size != expected_size:
            raise _SourceFailed(f"connection closed after {size} of {expected_size} bytes", True)
        if digest != sha256:
            raise _SourceFailed(f"sha256 mismatch: expected {sha256}, got {digest}; "
                                f"the file was discarded")
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _location(source: str, relpath: str) -> str:
    if is_url(source):
        return source + urllib.parse.quote(relpath)
    return os.path.join(source, *relpath.split("/"))


def fetch_file(relpath: str, sha256: str, *,
               mirror: str | os.PathLike | Sequence[str] | None = None,
               home: str | os.PathLike | None = None,
               offline: bool = False,
               timeout: float = 30.0,
               verify: bool = False,
               retries: int | None = None,
               backoff: float | None = None) -> Path:
    """Make sure one file is in the cache with the right checksum; return its path.

    Parameters
    ----------
    relpath : str
        Path relative to the UCI archive base, e.g. ``"car/car.data"``.
    sha256 : str
        Expected lower-case hex digest.
    mirror : str, PathLike or sequence of str, optional
        Sources, see :func:`mirrors_from`.
    home : str or PathLike, optional
        Cache root, see :func:`data_home`.
    offline : bool
        Never use the network; only the cache and local-folder mirrors.
    timeout : float
        Seconds for connecting and for each read from the network.
    verify : bool
        Re-hash a cached file; a mismatching one is deleted and fetched again.
    retries, backoff : int and float, optional
        Override :data:`RETRIES` and :data:`BACKOFF`.

    Returns
    -------
    Path
        The cached file.

    Raises
    ------
    DatasetError
        Offline with the file missing, or every source failed (the message lists each URL
        tried with its reason).
    """
    retries = RETRIES if retries is None else retries
    backoff = BACKOFF if backoff is None else backoff
    target = cache_path(relpath, home)
    if target.is_file():
        if not verify:
            return target
        actual = sha256_file(target)
        if actual == sha256:
            return target
        log.warning("cached %s has sha256 %s, expected %s; fetching it again",
                    target, actual, sha256)
        target.unlink()

    sources = mirrors_from(mirror)
    if offline:
        sources = [s for s in sources if not is_url(s)]
        if not sources:
            raise DatasetError(f"{relpath} is not in the cache ({target.parent}) and offline "
                               f"mode is on; fetch it while online, {OFFLINE_HINT}")
    target.parent.mkdir(parents=True, exist_ok=True)

    failures: list[tuple[str, str]] = []
    for source in sources:
        location = _location(source, relpath)
        for attempt in range(retries + 1):
            try:
                log.info("fetching %s from %s", relpath, location)
                _fetch_once(location, target, sha256, timeout)
                return target
            except _SourceFailed as failure:
                if failure.transient and attempt < retries:
                    log.info("%s: %s; retrying", location, failure.reason)
                    time.sleep(backoff * 2 ** attempt)
                    continue
                tries = f" ({attempt + 1} attempts)" if attempt else ""
                failures.append((location, failure.reason + tries))
                break

    if len(failures) == 1:
        (location, reason), = failures
        detail = f"from {location}: {reason}"
    else:
        detail = (f"from any of {len(failures)} sources: "
                  + "; ".join(f"{loc} [{reason}]" for loc, reason in failures))
    raise DatasetError(f"cannot fetch {relpath} {detail}; {FETCH_HINT}")

