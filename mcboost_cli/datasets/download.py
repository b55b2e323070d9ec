"""Checksummed, atomic download of dataset files into a local cache, with mirrors.

A file is identified by its path below a mirror root (``nursery/nursery.data``,
``libsvm/binary/splice``, ``mnist/t10k-labels-idx1-ubyte.gz``) and its digest.
:func:`fetch_file` makes sure ``<data_home>/uci/<path>`` exists with exactly those bytes (the
cache is laid out like a mirror, so a cache folder can serve as a mirror for another machine):

* a file already in the cache is re-hashed and used when its digest is right (a Letter-size
  file takes milliseconds, against seconds of parsing); one changed in place after its
  download raises :class:`CachedFileChanged`, naming the command that fetches it again
  (``verify=True``: fetch it again at once);
* otherwise each source is tried in order: the mirrors configured (``mirror`` argument, else
  ``MCBOOST_MIRROR``), else the official base URLs of the file's repository (the UCI archive,
  the LIBSVM data page, the MNIST page and its alternate), then official alternatives outside
  the archive layout (e.g. the zip of the current UCI site). A mirror is an ``http(s)://``
  base URL or a local folder laid out like the UCI archive (copied, not linked);
* on each source, the file's alternatives are tried in order: the file itself, or a
  compressed form (``.Z`` unix compress, ``.gz``, or a member of a ``.zip``) that is
  decompressed into the cache. Zip archives with an absolute or ``..`` member name are
  rejected whole;
* bytes are streamed into a temporary file next to the target (decompressed into a second
  one), hashed, and moved into place with ``os.replace`` only when the digest matches. Any
  failure, including KeyboardInterrupt, removes the temporary files: the cache never holds
  partial or corrupt files;
* the digest is the published sha256 (or md5, which MNIST publishes). A file with no
  published digest is accepted, and the sha256 of what was received is recorded beside it in
  ``<file>.sha256`` (and logged once), so later verification checks against that;
* transient network failures (timeouts, resets, truncated bodies, HTTP 5xx) are retried
  ``RETRIES`` times with exponential backoff from ``BACKOFF`` seconds; a 404 or a refused
  connection moves on to the next alternative or source at once;
* ``offline=True`` never opens a network connection (local-folder mirrors are still used).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import http.client
import logging
import os
import re
import shutil
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import BinaryIO

from .. import __version__
from .._kernel_cache import user_cache_home
from .catalog import DatasetError, Repository, SourceSpec

__all__ = [
    "BACKOFF",
    "FETCH_HINT",
    "OFFLINE_HINT",
    "RETRIES",
    "UCI_BASE",
    "CachedFileChanged",
    "CheckResult",
    "cache_path",
    "check_cached",
    "configured_mirrors",
    "data_home",
    "fetch_file",
    "file_digests",
    "is_cached",
    "is_url",
    "locate_locally",
    "mirrors_from",
    "recorded_sha256",
    "sha256_file",
]

log = logging.getLogger(__name__)

UCI_BASE = "https://archive.ics.uci.edu/ml/machine-learning-databases/"
UCI = Repository(name="uci", label="UCI", prefix="", urls=(UCI_BASE,))
RETRIES = 2            # extra attempts per source after a transient failure
BACKOFF = 0.5          # seconds before the first retry; doubles for each further retry
CHUNK = 1 << 16
MAX_MEMBER_SIZE = 8 << 30   # refuse to extract a zip member claiming more than 8 GiB
RECORD_SUFFIX = ".sha256"   # <cached file>.sha256: the digest recorded on first download
USER_AGENT = f"mcboost/{__version__} (dataset downloader; Python urllib)"
# How to get going again, appended to error messages.
FETCH_HINT = ("check the network, or set MCBOOST_MIRROR to other URLs or folders laid out like "
              "the UCI archive (separated by spaces or commas)")
OFFLINE_HINT = "or set MCBOOST_MIRROR to a local folder laid out like the UCI archive"


class CachedFileChanged(DatasetError):
    """A cached file no longer has the digest it was downloaded with (edited, truncated or
    damaged in place). Not a reason to fall back to another source: the user fixes the cache."""


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
    return user_cache_home()


def cache_path(relpath: str, home: str | os.PathLike | None = None) -> Path:
    """Where the file ``relpath`` (its path below a mirror root) is cached."""
    return data_home(home) / "uci" / relpath


def is_cached(relpath: str, home: str | os.PathLike | None = None) -> bool:
    """Whether ``relpath`` is present in the cache (not re-verified)."""
    return cache_path(relpath, home).is_file()


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def configured_mirrors(mirror: str | os.PathLike | Sequence[str] | None = None
                       ) -> list[str] | None:
    """The mirrors the user configured, or None when there are none.

    Same rules as :func:`mirrors_from`, but without the official fallback, so callers can tell
    "no mirror: use each repository's official URLs" from an explicit list.
    """
    if mirror is None:
        raw: Iterable[str] = [os.environ.get("MCBOOST_MIRROR", "")]
    elif isinstance(mirror, (str, os.PathLike)):
        raw = [os.fspath(mirror)]
    else:
        raw = [os.fspath(m) for m in mirror]
    items = [part for text in raw for part in re.split(r"[\s,]+", text) if part]
    if not items:
        return None

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


def mirrors_from(mirror: str | os.PathLike | Sequence[str] | None = None) -> list[str]:
    """The ordered list of sources to download UCI files from.

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
        official :data:`UCI_BASE` alone (other repositories have their own official URLs, see
        ``catalog.yaml``).

    Raises
    ------
    DatasetError
        For an unsupported URL scheme or a local folder that does not exist.
    """
    return configured_mirrors(mirror) or [UCI_BASE]


def locate_locally(relpath: str, sources: Sequence[SourceSpec] = (),
                   mirror: str | os.PathLike | Sequence[str] | None = None) -> Path | None:
    """The first local-folder mirror file that can provide ``relpath``, or None.

    Looks for each alternative (``sources``, default the file itself) in each configured
    folder mirror, without opening anything on the network.
    """
    folders = [m for m in configured_mirrors(mirror) or [] if not is_url(m)]
    alternatives = [s for s in sources or (SourceSpec(relpath),) if not s.is_url]
    for folder in folders:
        for alt in alternatives:
            candidate = Path(_location(folder, alt.path))
            if candidate.is_file():
                return candidate
    return None


# ---------------------------------------------------------------------------------------------
# Digests and the record of unknown ones

def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in chunks."""
    return file_digests(path)["sha256"]


def file_digests(path: str | os.PathLike) -> dict[str, str]:
    """Hex ``sha256`` and ``md5`` of a file, in one pass."""
    sha, md5 = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as fh:
        while chunk := fh.read(CHUNK):
            sha.update(chunk)
            md5.update(chunk)
    return {"sha256": sha.hexdigest(), "md5": md5.hexdigest()}


@functools.lru_cache(maxsize=1)
def _file_mode() -> int:
    """Mode of new cache files: 0666 less the umask (mkstemp alone would give 0600)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _new_temp(target: Path, suffix: str = "") -> tuple[BinaryIO, str]:
    """A temporary file next to ``target`` (same file system, so os.replace is atomic)."""
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}{suffix}.",
                               suffix=".part")
    with contextlib.suppress(OSError):
        os.fchmod(fd, _file_mode())
    return os.fdopen(fd, "wb"), tmp


def _record_path(target: Path) -> Path:
    return target.with_name(target.name + RECORD_SUFFIX)


def recorded_sha256(relpath: str, home: str | os.PathLike | None = None) -> str | None:
    """The sha256 recorded when a file without a published digest was first downloaded."""
    record = _record_path(cache_path(relpath, home))
    try:
        text = record.read_text(encoding="ascii").split()
    except (OSError, UnicodeDecodeError):
        return None
    return text[0] if text and re.fullmatch(r"[0-9a-f]{64}", text[0]) else None


def _write_record(target: Path, sha256: str) -> None:
    """Write ``<target>.sha256`` (sha256sum format) atomically."""
    record = _record_path(target)
    out, tmp = _new_temp(target, RECORD_SUFFIX)
    try:
        with out:
            out.write(f"{sha256}  {target.name}\n".encode("ascii"))
        os.replace(tmp, record)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _expected(sha256: str | None, md5: str | None, target: Path,
              use_record: bool) -> tuple[str, str, str] | None:
    """(algorithm, expected hex, origin) a file is checked against, or None."""
    if sha256:
        return "sha256", sha256, "published"
    if md5:
        return "md5", md5, "published"
    if use_record:
        record = _record_path(target)
        if record.is_file():
            text = record.read_text(encoding="ascii", errors="replace").split()
            if text:
                return "sha256", text[0], "recorded"
    return None


@dataclass(frozen=True)
class CheckResult:
    """Outcome of re-checking one cached file (:func:`check_cached`).

    ``status`` is ``"ok"``, ``"bad"`` (digest differs), ``"unchecked"`` (no published or
    recorded digest) or ``"missing"`` (not in the cache). ``origin`` says where the expected
    digest comes from: ``"published"`` (the catalog) or ``"recorded"`` (first download).
    """

    path: Path
    status: str
    algorithm: str | None = None
    expected: str | None = None
    actual: str | None = None
    origin: str | None = None


def check_cached(relpath: str, sha256: str | None = None, md5: str | None = None,
                 home: str | os.PathLike | None = None) -> CheckResult:
    """Re-hash one cached file and compare it with its published or recorded digest."""
    target = cache_path(relpath, home)
    if not target.is_file():
        return CheckResult(target, "missing")
    want = _expected(sha256, md5, target, use_record=True)
    if want is None:
        return CheckResult(target, "unchecked")
    algorithm, expected, origin = want
    actual = file_digests(target)[algorithm]
    return CheckResult(target, "ok" if actual == expected else "bad", algorithm, expected,
                       actual, origin)


# ---------------------------------------------------------------------------------------------
# Fetching

class _SourceFailed(Exception):
    """One attempt on one source failed; ``transient`` failures are worth retrying."""

    def __init__(self, reason: str, transient: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.transient = transient


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


def _unsafe_member(name: str) -> bool:
    """A zip member name that would land outside the extraction folder."""
    for flavour in (PurePosixPath, PureWindowsPath):
        p = flavour(name)
        if p.is_absolute() or p.drive or p.root or ".." in p.parts:
            return True
    return False


def _unzip_member(archive: str, member: str, out: BinaryIO) -> None:
    """Copy ``member`` of the zip ``archive`` to ``out``; reject unsafe archives."""
    try:
        with zipfile.ZipFile(archive) as zf:
            infos = zf.infolist()
            unsafe = [i.filename for i in infos if _unsafe_member(i.filename)]
            if unsafe:
                raise _SourceFailed(f"zip archive has an unsafe member {unsafe[0]!r} (absolute "
                                    f"path or '..'); the archive was rejected")
            found = [i for i in infos if i.filename == member]
            if not found:   # archives sometimes put everything in a top folder
                found = [i for i in infos if not i.is_dir()
                         and PurePosixPath(i.filename).name == PurePosixPath(member).name]
            if len(found) != 1:
                raise _SourceFailed(f"zip archive has no member {member!r}")
            info = found[0]
            if info.file_size > MAX_MEMBER_SIZE:
                raise _SourceFailed(f"zip member {member!r} claims {info.file_size} bytes; "
                                    f"refusing to extract more than {MAX_MEMBER_SIZE}")
            with zf.open(info) as src:
                shutil.copyfileobj(src, out, CHUNK)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise _SourceFailed(f"not a valid zip archive ({exc})") from None


def _decompress(raw: str, out: BinaryIO, alt: SourceSpec) -> None:
    """Write the decompressed content of the downloaded file ``raw`` to ``out``."""
    if alt.compression == "gz":
        try:
            with gzip.open(raw, "rb") as src:
                shutil.copyfileobj(src, out, CHUNK)
        except (OSError, EOFError, zlib.error) as exc:
            raise _SourceFailed(f"not a valid gzip file ({exc})") from None
    elif alt.compression == "Z":
        try:
            from unlzw3 import unlzw
        except ImportError:    # pragma: no cover - a declared dependency
            raise _SourceFailed("reading .Z files needs the unlzw3 package "
                                "(pip install unlzw3)") from None
        try:
            out.write(unlzw(Path(raw).read_bytes()))
        except (ValueError, IndexError, TypeError) as exc:
            raise _SourceFailed(f"not a valid .Z (unix compress) file ({exc})") from None
    elif alt.compression == "zip":
        _unzip_member(raw, alt.member or "", out)
    else:   # pragma: no cover - the catalog validates compressions
        raise ValueError(f"unknown compression {alt.compression!r}")


def _fetch_once(location: str, target: Path, alt: SourceSpec,
                want: tuple[str, str, str] | None, timeout: float) -> str:
    """One attempt: stream ``location`` into a temp file, decompress, verify, move to
    ``target``; return the sha256 of the installed file."""
    temps: list[str] = []

    def new_temp():
        out, tmp = _new_temp(target)
        temps.append(tmp)
        return out, tmp

    try:
        out, tmp = new_temp()
        with out:
            src, expected_size = _open_source(location, timeout)
            with src:
                sha256, size = _stream(src, out, timeout, network=is_url(location))
            out.flush()
            os.fsync(out.fileno())
        # http.client returns a short body without complaint when the server closes early,
        # so compare with Content-Length ourselves: that is a transient failure, not a
        # checksum problem of the mirror.
        if expected_size is not None and size != expected_size:
            raise _SourceFailed(f"connection closed after {size} of {expected_size} bytes", True)
        if alt.compression:
            out, final = new_temp()
            with out:
                _decompress(tmp, out, alt)
                out.flush()
                os.fsync(out.fileno())
            os.unlink(tmp)
            tmp = final
        digests = ({"sha256": sha256} if not alt.compression and (want is None
                                                                  or want[0] == "sha256")
                   else file_digests(tmp))
        if want is not None:
            algorithm, expected, _ = want
            if digests[algorithm] != expected:
                raise _SourceFailed(f"{algorithm} mismatch: expected {expected}, got "
                                    f"{digests[algorithm]}; the file was discarded")
        os.replace(tmp, target)
        return digests["sha256"]
    finally:
        for tmp in temps:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def _location(source: str, relpath: str) -> str:
    if is_url(source):
        return source + urllib.parse.quote(relpath)
    return os.path.join(source, *relpath.split("/"))


def _attempts(relpath: str, alternatives: Sequence[SourceSpec], repository: Repository,
              mirrors: list[str] | None, offline: bool) -> list[tuple[str, SourceSpec]]:
    """(location, alternative) pairs to try, in order."""
    out: list[tuple[str, SourceSpec]] = []
    if mirrors is None:
        if offline:
            return out
        for base in repository.urls:
            for alt in alternatives:
                if not alt.is_url:
                    out.append((base + urllib.parse.quote(alt.path[len(repository.prefix):]),
                                alt))
        out.extend((alt.path, alt) for alt in alternatives if alt.is_url)
        return out
    for base in mirrors:
        if offline and is_url(base):
            continue
        out.extend((_location(base, alt.path), alt) for alt in alternatives if not alt.is_url)
    return out


def fetch_file(relpath: str, sha256: str | None = None, *,
               mirror: str | os.PathLike | Sequence[str] | None = None,
               home: str | os.PathLike | None = None,
               offline: bool = False,
               timeout: float = 30.0,
               verify: bool = False,
               retries: int | None = None,
               backoff: float | None = None,
               md5: str | None = None,
               sources: Sequence[SourceSpec] | None = None,
               repository: Repository | None = None,
               dataset: str | None = None) -> Path:
    """Make sure one file is in the cache with the right digest; return its path.

    Parameters
    ----------
    relpath : str
        Path below a mirror root (and the cache), e.g. ``"car/car.data"``.
    sha256 : str, optional
        Expected lower-case hex digest; None when no published one is known.
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
    md5 : str, optional
        Published md5, checked when ``sha256`` is None.
    sources : sequence of SourceSpec, optional
        Alternatives to try on each source, in order (default: ``relpath`` itself).
    repository : Repository, optional
        Official URLs and mirror prefix of the file (default: the UCI archive).
    dataset : str, optional
        The catalog entry the file belongs to, named in the fix of a changed cached file.

    Returns
    -------
    Path
        The cached file. When neither ``sha256`` nor ``md5`` is given, the sha256 of the
        received bytes is recorded in ``<file>.sha256`` and logged.

    Raises
    ------
    CachedFileChanged
        The cached file's digest differs from the published or recorded one (without
        ``verify``).
    DatasetError
        Offline with the file missing, every source failed (the message lists each
        location tried with its reason), or the cache cannot be written.
    """
    retries = RETRIES if retries is None else retries
    backoff = BACKOFF if backoff is None else backoff
    repository = repository or UCI
    alternatives = tuple(sources) if sources else (SourceSpec(relpath),)
    target = cache_path(relpath, home)
    if target.is_file():
        want = _expected(sha256, md5, target, use_record=True)
        if want is None:
            # Installed but never recorded (e.g. interrupted right after the move): record now.
            _write_record(target, sha256_file(target))
            return target
        algorithm, expected, origin = want
        actual = (sha256_file(target) if algorithm == "sha256"
                  else file_digests(target)[algorithm])
        if actual == expected:
            return target
        if not verify:
            fix = f"mcboost datasets fetch {dataset or '<dataset>'} --verify"
            raise CachedFileChanged(
                f"cached file {target} has changed since it was downloaded ({algorithm} "
                f"{actual[:12]}..., expected {expected[:12]}... {origin}); run `{fix}` to "
                "download it again")
        log.warning("cached %s has %s %s, expected %s (%s); fetching it again",
                    target, algorithm, actual, expected, origin)
        target.unlink()
        _record_path(target).unlink(missing_ok=True)

    mirrors = configured_mirrors(mirror)
    attempts = _attempts(relpath, alternatives, repository, mirrors, offline)
    if offline and not attempts:
        raise DatasetError(f"{relpath} is not in the cache ({target.parent}) and offline "
                           f"mode is on; fetch it while online, {OFFLINE_HINT}")
    want = _expected(sha256, md5, target, use_record=False)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        return _fetch_from(relpath, target, attempts, want, retries, backoff, timeout, offline)
    except OSError as exc:
        # Writing the cache failed (permissions, a file where a folder should be, a full
        # disk): no other source fixes that.
        raise DatasetError(f"cannot write {relpath} into the dataset cache "
                           f"{data_home(home)} ({exc.strerror or exc}); set MCBOOST_DATA "
                           "to a writable folder (or free space)") from None


def _fetch_from(relpath: str, target: Path, attempts, want, retries: int, backoff: float,
                timeout: float, offline: bool) -> Path:
    """Try ``attempts`` in order (retrying transient failures) until one installs
    ``target``; raise DatasetError listing every failure otherwise."""
    failures: list[tuple[str, str]] = []
    for location, alt in attempts:
        for attempt in range(retries + 1):
            try:
                log.info("fetching %s from %s", relpath, location)
                actual = _fetch_once(location, target, alt, want, timeout)
            except _SourceFailed as failure:
                if failure.transient and attempt < retries:
                    log.info("%s: %s; retrying", location, failure.reason)
                    time.sleep(backoff * 2 ** attempt)
                    continue
                tries = f" ({attempt + 1} attempts)" if attempt else ""
                failures.append((location, failure.reason + tries))
                break
            if want is None:
                _write_record(target, actual)
                log.warning("%s has no published checksum; recorded the sha256 of the copy "
                            "from %s: %s (`mcboost datasets verify` checks against it)",
                            relpath, location, actual)
            return target

    if len(failures) == 1:
        (location, reason), = failures
        detail = f"from {location}: {reason}"
    else:
        detail = (f"from any of {len(failures)} sources: "
                  + "; ".join(f"{loc} [{reason}]" for loc, reason in failures))
    hint = f"fetch it while online, {OFFLINE_HINT}" if offline else FETCH_HINT
    raise DatasetError(f"cannot fetch {relpath} {detail}; {hint}")
