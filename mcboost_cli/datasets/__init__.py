"""Datasets: catalog, checksummed download with mirrors, cache, parsers, generators.

Modules
-------
``catalog.yaml``  the data: repositories (official URLs, mirror layout) and one entry per
                  dataset (files + digests + download alternatives, parser settings, expected
                  shape, class and category order, generator or construction rule, credits)
``catalog.py``    loads and validates the YAML into frozen :class:`DatasetSpec` objects;
                  :func:`get_spec`; defines :class:`DatasetError`
``download.py``   cache location (:func:`data_home`), mirror list (:func:`mirrors_from`),
                  atomic, verified download/copy/decompression of one file (``fetch_file``),
                  re-checking of cached files (``check_cached``)
``parsers.py``    data files -> ``(X, y)`` arrays: delimited text, LIBSVM, MNIST idx
``generators/``   exact or in-distribution generators (``GENERATORS[name](**params)``)
``__init__.py``   this public API: :class:`Dataset`, :func:`list_datasets`, :func:`fetch`,
                  :func:`load_dataset`, :func:`verify_cache`, :func:`availability`

Typical use::

    from mcboost_cli.datasets import load_dataset
    ds = load_dataset("car")          # downloads into ~/.cache/mcboost/uci on first use
    ds.X, ds.y, ds.classes, ds.categorical, ds.test_mask

Sources: a files entry is downloaded and parsed; with ``source="generator"`` its generator is
used instead; by default (``source=None``) an entry whose generator is *exact* falls back to
it, with a warning, when its files cannot be had (offline and not cached, or the download
failed). Generator entries are always generated; derived entries (poker525k, letter-16000,
waveform-300) are built from their base entry by their construction rule.

Environment: ``MCBOOST_DATA`` (cache root), ``MCBOOST_MIRROR`` (URLs or folders laid out like
the UCI archive, tried in order instead of the official sites).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._dtypes import X_DTYPE, Y_DTYPE
from . import download as _download
from .catalog import (
    DatasetError,
    DatasetSpec,
    FileSpec,
    catalog,
    dataset_names,
    get_spec,
    repositories,
)
from .download import UCI_BASE, CheckResult, data_home, mirrors_from
from .parsers import parse_dataset

__all__ = [
    "UCI_BASE",
    "Dataset",
    "DatasetError",
    "DatasetSpec",
    "FileSpec",
    "availability",
    "data_home",
    "dataset_names",
    "fetch",
    "generator_status",
    "get_spec",
    "list_datasets",
    "load_dataset",
    "mirrors_from",
    "repositories",
    "verify_cache",
]

log = logging.getLogger(__name__)

_Mirror = str | os.PathLike | Sequence[str] | None
_SOURCES = (None, "auto", "files", "generator")


@dataclass(frozen=True, eq=False)   # eq=False: comparing arrays element-wise makes no sense
class Dataset:
    """A parsed dataset.

    Attributes
    ----------
    name : str
        Catalog name.
    X : ndarray of float64, shape (n_samples, n_features)
        Features; categorical columns hold integer codes ``0..m-1`` (as floats) in the order of
        the catalog; NaN marks a missing value.
    y : ndarray of int32, shape (n_samples,)
        Class codes ``0..n_classes-1``.
    classes : tuple of str
        Class names; ``classes[c]`` is the name of code ``c``.
    feature_names : tuple of str
    categorical : ndarray of bool, shape (n_features,)
        True for categorical columns.
    test_mask : ndarray of bool, shape (n_samples,), or None
        True for the rows of the predefined test part; None when the dataset has no
        predefined split.
    source : str
        Provenance, e.g. ``"UCI: car/car.data (sha256 b703a9ac...)"`` or
        ``"generator krkopt() (exact)"``.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    classes: tuple[str, ...]
    feature_names: tuple[str, ...]
    categorical: np.ndarray
    test_mask: np.ndarray | None
    source: str

    @property
    def n_classes(self) -> int:
        return len(self.classes)

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    def __repr__(self) -> str:
        split = "none" if self.test_mask is None else f"{int(self.test_mask.sum())} test rows"
        return (f"Dataset({self.name!r}, n_samples={self.n_samples}, "
                f"n_features={self.n_features}, n_classes={self.n_classes}, split={split})")


# ---------------------------------------------------------------------------------------------
# Generators (written in generators/; imported lazily so the catalog works without them)

def _generators() -> tuple[dict | None, str]:
    try:
        from .generators import GENERATORS
    except Exception as exc:  # noqa: BLE001 - missing package or GENERATORS, or a broken import
        # A broken generators package must not break the catalog, listing or file loading.
        return None, f"the generators package cannot be imported ({type(exc).__name__}: {exc})"
    return GENERATORS, ""


def generator_status(name: str) -> tuple[bool, str]:
    """Whether the generator of entry ``name`` can run here, and why not.

    Returns
    -------
    (bool, str)
        ``(True, "")`` when ``GENERATORS`` has the entry's generator; else False and a reason
        (the entry has none, the package is not importable, or the name is not registered).
    """
    spec = get_spec(name)
    if spec.generator is None:
        return False, f"dataset {spec.name!r} has no generator"
    gens, why = _generators()
    if gens is None:
        return False, f"generator {spec.generator.name!r} not available: {why}"
    unknown = [n for n in spec.generator.names if n not in gens]
    if unknown:
        return False, (f"generator {unknown[0]!r} not available: not registered in "
                       f"GENERATORS (known: {', '.join(sorted(gens)) or 'none'})")
    return True, ""


def _call_generator(spec: DatasetSpec, gens: dict, call) -> Any:
    try:
        data = gens[call.name](**call.kwargs)
    except (TypeError, ValueError) as exc:
        raise DatasetError(f"dataset {spec.name!r}: generator {call.describe()} failed with the "
                           f"catalog's parameters: {exc}") from None
    for attr in ("X", "y", "classes", "feature_names", "categorical", "test_mask"):
        if not hasattr(data, attr):
            raise DatasetError(f"dataset {spec.name!r}: generator {call.name!r} returned no "
                               f"{attr!r}; expected a GeneratedData")
    return data


def _generate(spec: DatasetSpec) -> Dataset:
    ok, why = generator_status(spec.name)
    if not ok:
        raise DatasetError(f"dataset {spec.name!r}: {why}")
    gen = spec.generator
    gens, _ = _generators()
    parts = [(_call_generator(spec, gens, call), call) for call in gen.calls]
    first = parts[0][0]
    if any(tuple(d.classes) != tuple(first.classes) for d, _ in parts):
        raise DatasetError(f"dataset {spec.name!r}: the generator parts disagree on the classes")
    X = np.concatenate([np.asarray(d.X, dtype=X_DTYPE) for d, _ in parts])
    y = np.concatenate([np.asarray(d.y, dtype=Y_DTYPE) for d, _ in parts])
    if len(parts) == 1 and not gen.calls[0].test:
        test_mask = None if first.test_mask is None else np.asarray(first.test_mask, dtype=bool)
    else:
        test_mask = np.concatenate([
            np.full(len(d.y), True) if call.test
            else (np.zeros(len(d.y), bool) if d.test_mask is None
                  else np.asarray(d.test_mask, dtype=bool))
            for d, call in parts])
    classes = tuple(first.classes)
    feature_names = tuple(first.feature_names)
    categorical = np.asarray(first.categorical, dtype=bool)
    categories = getattr(first, "categories", None)
    if spec.source == "files" and set(classes) == set(spec.classes) \
            and X.shape[1] == len(spec.features):
        # An alternative source of a files entry: use the files' class codes, feature names
        # and category codes (where the generator spells its categories like the file), so
        # both sources give the same arrays for the same rows.
        remap = np.array([spec.classes.index(c) for c in classes], dtype=Y_DTYPE)
        y, classes = remap[y], spec.classes
        feature_names = spec.feature_names
        categorical = np.array([f.categorical for f in spec.features], dtype=bool)
        if categories is not None and len(categories) == len(spec.features):
            for j, (feat, cats) in enumerate(zip(spec.features, categories)):
                if feat.categorical and cats is not None and set(cats) <= set(feat.values):
                    codes = np.array([feat.values.index(c) for c in cats], dtype=X_DTYPE)
                    col = X[:, j]
                    ok = ~np.isnan(col)
                    col[ok] = codes[col[ok].astype(np.intp)]
    return Dataset(name=spec.name, X=X, y=y, classes=classes, feature_names=feature_names,
                   categorical=categorical, test_mask=test_mask, source=gen.describe())


# ---------------------------------------------------------------------------------------------
# Availability and listing

def _files_of(spec: DatasetSpec) -> tuple[FileSpec, ...]:
    """The files an entry needs (a derived entry needs its base's)."""
    if spec.derived is not None:
        return get_spec(spec.derived.base).files
    return spec.files


def availability(name: str, *, mirror: _Mirror = None,
                 data_home: str | os.PathLike | None = None) -> str:
    """How an entry can be had without the network.

    Returns
    -------
    str
        ``"cache"`` (every file cached), ``"mirror"`` (every file cached or in a local-folder
        mirror), ``"generator"`` (an exact generator, or the entry is generated),
        ``"generator~"`` (only an in-distribution generator, used with ``source="generator"``)
        or ``"no"`` (download only).
    """
    spec = get_spec(name)
    files = _files_of(spec)
    if files:
        if all(_download.is_cached(f.path, data_home) for f in files):
            return "cache"
        try:
            in_mirror = all(_download.is_cached(f.path, data_home)
                            or _download.locate_locally(f.path, f.sources, mirror)
                            for f in files)
        except DatasetError:
            # A mirror setting that names no folder matters only to a download (which
            # reports it); here it just provides nothing.
            in_mirror = False
        if in_mirror:
            return "mirror"
    gen_spec = spec
    if spec.generator is None and spec.derived is not None:
        gen_spec = get_spec(spec.derived.base)
    if gen_spec.generator is not None and generator_status(gen_spec.name)[0]:
        exact = gen_spec.generator.exact or gen_spec.source == "generator"
        return "generator" if exact else "generator~"
    return "no"


def list_datasets(*, data_home: str | os.PathLike | None = None,
                  mirror: _Mirror = None) -> list[dict]:
    """One summary dict per catalog entry, sorted by name.

    Parameters
    ----------
    data_home : str or PathLike, optional
        Cache root used for the ``cached`` flag (default: :func:`data_home`).
    mirror : str, PathLike or sequence of str, optional
        Mirrors used for the ``offline`` column (default ``$MCBOOST_MIRROR``).

    Returns
    -------
    list of dict
        Keys: ``name``, ``title``, ``rows``, ``features``, ``classes`` (counts), ``split``
        (``"predefined"`` or ``"none"``), ``split_sizes`` (``(train, test)`` or None),
        ``papers``, ``source`` (files, generator, derived), ``cached`` (all files present in
        the cache; False for generated entries), ``offline`` (see :func:`availability`),
        ``files`` (paths below a mirror root).
    """
    out = []
    for spec in catalog().values():
        files = _files_of(spec)
        out.append({
            "name": spec.name,
            "title": spec.title,
            "rows": spec.rows,
            "features": spec.n_features,
            "classes": spec.n_classes,
            "split": spec.split,
            "split_sizes": spec.split_sizes,
            "papers": list(spec.papers),
            "source": spec.source,
            "cached": bool(files) and all(_download.is_cached(f.path, data_home)
                                          for f in files),
            "offline": availability(spec.name, mirror=mirror, data_home=data_home),
            "files": [f.path for f in spec.files],
        })
    return out


# ---------------------------------------------------------------------------------------------
# Fetching

def fetch(name: str, *, mirror: _Mirror = None, data_home: str | os.PathLike | None = None,
          offline: bool = False, timeout: float = 30.0, verify: bool = False) -> list[Path]:
    """Download and verify every file of a dataset into the cache.

    Parameters
    ----------
    name : str
        Catalog name.
    mirror : str, PathLike or sequence of str, optional
        Mirror URL(s) or folder(s); default ``$MCBOOST_MIRROR``, else the official sites.
    data_home : str or PathLike, optional
        Cache root; default ``$MCBOOST_DATA``, else ``~/.cache/mcboost``.
    offline : bool
        Never use the network; fail at once, naming every missing file, if a file is neither
        cached nor in a local-folder mirror.
    timeout : float
        Network timeout in seconds (connect and each read).
    verify : bool
        Re-hash files already in the cache (a corrupt one is fetched again).

    Returns
    -------
    list of Path
        The cached files, in catalog order (a derived entry's are its base's; a generator
        entry has none).

    Raises
    ------
    DatasetError
        Unknown name, offline with files missing, or a download that failed.
    """
    spec = get_spec(name)
    files = _files_of(spec)
    base = get_spec(spec.derived.base) if spec.derived is not None else spec
    if offline:
        # Name every missing file in one message rather than failing on the first.
        missing = [f.path for f in files if not _download.is_cached(f.path, data_home)
                   and not _download.locate_locally(f.path, f.sources, mirror)]
        if missing:
            where = _download.data_home(data_home) / "uci"
            raise DatasetError(
                f"dataset {spec.name!r} is not fully cached and offline mode is on: missing "
                f"{', '.join(missing)} in {where}; run `mcboost datasets fetch {spec.name}` "
                f"while online, {_download.OFFLINE_HINT}")
    return [
        _download.fetch_file(f.path, f.sha256, md5=f.md5, sources=f.sources,
                             repository=base.repository, mirror=mirror, home=data_home,
                             offline=offline, timeout=timeout, verify=verify,
                             dataset=spec.name)
        for f in files
    ]


# ---------------------------------------------------------------------------------------------
# Loading

def _check_shape(spec: DatasetSpec, ds: Dataset) -> None:
    present = len(np.unique(ds.y))
    got = {"rows": ds.X.shape[0], "features": ds.X.shape[1], "classes": present}
    want = {"rows": spec.rows, "features": spec.n_features, "classes": spec.n_classes}
    if spec.test_rows is not None or ds.test_mask is not None:
        got["test rows"] = None if ds.test_mask is None else int(ds.test_mask.sum())
        want["test rows"] = spec.test_rows
    wrong = [f"{k} {got[k]} (expected {want[k]})" for k in got if got[k] != want[k]]
    if len(ds.y) != ds.X.shape[0]:
        wrong.append(f"{len(ds.y)} labels for {ds.X.shape[0]} rows")
    if wrong:
        origin = ("the generator disagrees with the catalog" if ds.source.startswith("generator")
                  else "the cached files may be damaged (fetch again with verify) or the "
                       "catalog entry is wrong")
        raise DatasetError(f"dataset {spec.name!r} parsed to the wrong shape: "
                           f"{', '.join(wrong)}; {origin}")


def _provenance(spec: DatasetSpec, data_home) -> str:
    parts = []
    for f in spec.files:
        if f.digest is not None:
            algorithm, value = f.digest
            parts.append(f"{f.path} ({algorithm} {value[:8]}...)")
        else:
            recorded = _download.recorded_sha256(f.path, data_home)
            parts.append(f"{f.path} (sha256 {recorded[:8]}... recorded)" if recorded
                         else f"{f.path} (no checksum)")
    return f"{spec.repository.label}: " + ", ".join(parts)


def _load_files(spec: DatasetSpec, *, mirror, data_home, offline, timeout, verify) -> Dataset:
    paths = fetch(spec.name, mirror=mirror, data_home=data_home, offline=offline,
                  timeout=timeout, verify=verify)
    X, y, test_mask = parse_dataset(spec, paths)
    return Dataset(
        name=spec.name,
        X=X.astype(X_DTYPE, copy=False),
        y=y.astype(Y_DTYPE, copy=False),
        classes=spec.classes,
        feature_names=spec.feature_names,
        categorical=np.array([f.categorical for f in spec.features], dtype=bool),
        test_mask=test_mask,
        source=_provenance(spec, data_home),
    )


def _derive(spec: DatasetSpec, base: Dataset) -> Dataset:
    """Apply a derived entry's construction rule to its base dataset."""
    rule, kw = spec.derived.rule, spec.derived.kwargs
    n = base.n_samples
    if rule == "poker525k":
        if base.test_mask is None:
            raise DatasetError(f"dataset {spec.name!r}: base {base.name!r} has no test part")
        # The same choice as generators.poker525k: stream PCG64(seed).jumped(1).
        test_rows = np.flatnonzero(base.test_mask)
        rng = np.random.Generator(np.random.PCG64(int(kw.get("seed", 0))).jumped(1))
        order = rng.permutation(len(test_rows))
        test_mask = base.test_mask.copy()
        test_mask[test_rows[order[:len(test_rows) // 2]]] = False
    elif rule == "first_rows_train":
        test_mask = np.arange(n) >= int(kw["train"])
    elif rule == "sample_train":
        return _sample_train(spec, base, int(kw["train"]), int(kw.get("seed", 0)))
    else:   # pragma: no cover - the catalog validates rules
        raise ValueError(f"unknown rule {rule!r}")
    args = ", ".join(f"{k}={v!r}" for k, v in spec.derived.params)
    return Dataset(name=spec.name, X=base.X, y=base.y, classes=base.classes,
                   feature_names=base.feature_names, categorical=base.categorical,
                   test_mask=test_mask, source=f"{rule}({args}) of {base.name} [{base.source}]")


def _sample_train(spec: DatasetSpec, base: Dataset, n_train: int, seed: int) -> Dataset:
    """Rule ``sample_train``: ``n_train`` of the base's training rows, drawn as
    ``Generator(PCG64(seed)).choice(n_base_train, n_train, replace=False)`` and kept in file
    order, train; the base's test rows test; its other training rows are left out."""
    if base.test_mask is None:
        raise DatasetError(f"dataset {spec.name!r}: base {base.name!r} has no test part")
    train_rows = np.flatnonzero(~base.test_mask)
    if not 0 < n_train <= train_rows.size:
        raise DatasetError(f"dataset {spec.name!r}: cannot draw {n_train} training rows from "
                           f"the {train_rows.size} of {base.name!r}")
    picked = np.sort(np.random.Generator(np.random.PCG64(seed)).choice(
        train_rows.size, size=n_train, replace=False))
    rows = np.concatenate([train_rows[picked], np.flatnonzero(base.test_mask)])
    args = ", ".join(f"{k}={v!r}" for k, v in spec.derived.params)
    return Dataset(name=spec.name, X=base.X[rows], y=base.y[rows], classes=base.classes,
                   feature_names=base.feature_names, categorical=base.categorical,
                   test_mask=np.arange(rows.size) >= n_train,
                   source=f"sample_train({args}) of {base.name} [{base.source}]")


def _load(spec: DatasetSpec, source: str | None, kw: dict[str, Any]) -> Dataset:
    if spec.source == "generator":
        if source == "files":
            raise DatasetError(f"dataset {spec.name!r} is generated; it has no files")
        return _generate(spec)
    if spec.source == "derived":
        if source == "generator" and spec.generator is not None:
            return _generate(spec)
        return _derive(spec, _load(get_spec(spec.derived.base), source, kw))
    if source == "generator":
        if spec.generator is None:
            raise DatasetError(f"dataset {spec.name!r} has no generator; its files are the "
                               f"only source")
        return _generate(spec)
    try:
        return _load_files(spec, **kw)
    except _download.CachedFileChanged:
        raise               # the user repairs the cache; no other source stands in silently
    except DatasetError as exc:
        gen = spec.generator
        if source == "files" or gen is None or not gen.exact or not generator_status(
                spec.name)[0]:
            raise
        log.warning("%s; using the exact generator %r instead (same rows and labels, possibly "
                    "in another order)", exc, gen.name)
        return _generate(spec)


def load_dataset(name: str, *, mirror: _Mirror = None,
                 data_home: str | os.PathLike | None = None, offline: bool = False,
                 timeout: float = 30.0, verify: bool = False,
                 source: str | None = None) -> Dataset:
    """Fetch (if needed), parse or generate, and check a dataset.

    Parameters
    ----------
    name : str
        Catalog name (see :func:`list_datasets`).
    mirror, data_home, offline, timeout, verify
        As for :func:`fetch`.
    source : {None, "auto", "files", "generator"}
        None / ``"auto"``: the entry's files, falling back to its generator only when that is
        exact and the files cannot be had; ``"files"``: files only; ``"generator"``: the
        generator (exact or in distribution).

    Returns
    -------
    Dataset
        Rows of all files concatenated in catalog order (for a predefined split: training
        file first, ``test_mask`` marks the test part).

    Raises
    ------
    DatasetError
        Unknown name, failed download, malformed file, generator not available, or a result
        whose shape (rows, features, classes, test rows) differs from the catalog.
    """
    if source not in _SOURCES:
        raise DatasetError(f"source {source!r} is not valid; expected auto, files or generator")
    spec = get_spec(name)
    kw = {"mirror": mirror, "data_home": data_home, "offline": offline, "timeout": timeout,
          "verify": verify}
    ds = _load(spec, None if source == "auto" else source, kw)
    _check_shape(spec, ds)
    return ds


# ---------------------------------------------------------------------------------------------
# Verification of the cache

def verify_cache(names: Sequence[str] | None = None, *,
                 data_home: str | os.PathLike | None = None
                 ) -> list[tuple[str, FileSpec, CheckResult]]:
    """Re-hash every cached file of the given entries (default: all).

    Returns
    -------
    list of (dataset name, FileSpec, CheckResult)
        One per cached file (files not in the cache are left out), each file once.
    """
    specs = [get_spec(n) for n in names] if names else list(catalog().values())
    seen: set[str] = set()
    out = []
    for spec in specs:
        for f in _files_of(spec):
            if f.path in seen:
                continue
            seen.add(f.path)
            result = _download.check_cached(f.path, f.sha256, f.md5, data_home)
            if result.status != "missing":
                out.append((spec.name, f, result))
    return out
