"""Datasets: catalog, checksummed download with mirrors, cache, parsers.

Modules
-------
``catalog.yaml``  the data: one entry per dataset (files + sha256, parser settings, expected
                  shape, class and category order, credits)
``catalog.py``    loads and validates the YAML into frozen :class:`DatasetSpec` objects;
                  :func:`get_spec`; defines :class:`DatasetError`
``download.py``   cache location (:func:`data_home`), mirror list (:func:`mirrors_from`),
                  atomic sha256-verified download/copy of one file (``fetch_file``)
``parsers.py``    data file -> ``(X, y)`` arrays, one parser per file format
``__init__.py``   this public API: :class:`Dataset`, :func:`list_datasets`, :func:`fetch`,
                  :func:`load_dataset`

Typical use::

    from mcboost_cli.datasets import load_dataset
    ds = load_dataset("car")          # downloads into ~/.cache/mcboost/uci on first use
    ds.X, ds.y, ds.classes, ds.categorical

Environment: ``MCBOOST_DATA`` (cache root), ``MCBOOST_MIRROR`` (URLs or folders laid out like
the UCI archive, tried in order instead of the official site).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from .._dtypes import X_DTYPE, Y_DTYPE
from . import download as _download
from .catalog import DatasetError, DatasetSpec, FileSpec, catalog, dataset_names, get_spec
from .download import UCI_BASE, data_home, mirrors_from
from .parsers import parse_file

__all__ = [
    "Dataset",
    "DatasetError",
    "DatasetSpec",
    "FileSpec",
    "UCI_BASE",
    "data_home",
    "dataset_names",
    "fetch",
    "get_spec",
    "list_datasets",
    "load_dataset",
    "mirrors_from",
]

_Mirror = str | os.PathLike | Sequence[str] | None


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
        True for the rows of the predefined test file; None when the dataset has no
        predefined split.
    source : str
        Provenance, e.g. ``"UCI: car/car.data (sha256 b703a9ac...)"``.
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


def list_datasets(*, data_home: str | os.PathLike | None = None) -> list[dict]:
    """One summary dict per catalog entry, sorted by name.

    Parameters
    ----------
    data_home : str or PathLike, optional
        Cache root used for the ``cached`` flag (default: :func:`data_home`).

    Returns
    -------
    list of dict
        Keys: ``name``, ``title``, ``rows``, ``features``, ``classes`` (counts), ``split``
        (``"predefined"`` or ``"none"``), ``cached`` (all files present in the cache),
        ``files`` (paths relative to the UCI archive base).
    """
    return [
        {
            "name": spec.name,
            "title": spec.title,
            "rows": spec.rows,
            "features": spec.n_features,
            "classes": spec.n_classes,
            "split": spec.split,
            "cached": all(_download.is_cached(f.path, data_home) for f in spec.files),
            "files": [f.path for f in spec.files],
        }
        for spec in catalog().values()
    ]


def fetch(name: str, *, mirror: _Mirror = None, data_home: str | os.PathLike | None = None,
          offline: bool = False, timeout: float = 30.0, verify: bool = False) -> list[Path]:
    """Download and verify every file of a dataset into the cache.

    Parameters
    ----------
    name : str
        Catalog name.
    mirror : str, PathLike or sequence of str, optional
        Mirror URL(s) or folder(s); default ``$MCBOOST_MIRROR``, else the official UCI archive.
    data_home : str or PathLike, optional
        Cache root; default ``$MCBOOST_DATA``, else ``~/.cache/mcboost``.
    offline : bool
        Never use the network; fail at once if a file is neither cached nor in a local-folder
        mirror.
    timeout : float
        Network timeout in seconds (connect and each read).
    verify : bool
        Re-hash files already in the cache (a corrupt one is fetched again).

    Returns
    -------
    list of Path
        The cached files, in catalog order.

    Raises
    ------
    DatasetError
        Unknown name, offline with files missing, or a download that failed.
    """
    spec = get_spec(name)
    if offline and all(_download.is_url(s) for s in mirrors_from(mirror)):
        # Name every missing file in one message rather than failing on the first.
        missing = [f.path for f in spec.files if not _download.is_cached(f.path, data_home)]
        if missing:
            where = _download.data_home(data_home) / "uci"
            raise DatasetError(
                f"dataset {spec.name!r} is not fully cached and offline mode is on: missing "
                f"{', '.join(missing)} in {where}; run `mcboost datasets fetch {spec.name}` "
                f"while online, {_download.OFFLINE_HINT}")
    return [
        _download.fetch_file(f.path, f.sha256, mirror=mirror, home=data_home, offline=offline,
                             timeout=timeout, verify=verify)
        for f in spec.files
    ]


def _check_shape(spec: DatasetSpec, X: np.ndarray, y: np.ndarray) -> None:
    present = len(np.unique(y))
    got = {"rows": X.shape[0], "features": X.shape[1], "classes": present}
    want = {"rows": spec.rows, "features": spec.n_features, "classes": spec.n_classes}
    wrong = [f"{k} {got[k]} (expected {want[k]})" for k in got if got[k] != want[k]]
    if wrong:
        raise DatasetError(f"dataset {spec.name!r} parsed to the wrong shape: {', '.join(wrong)}; "
                           f"the cached files may be damaged (fetch again with verify) or the "
                           f"catalog entry is wrong")


def load_dataset(name: str, *, mirror: _Mirror = None,
                 data_home: str | os.PathLike | None = None, offline: bool = False,
                 timeout: float = 30.0, verify: bool = False) -> Dataset:
    """Fetch (if needed), parse and check a dataset.

    Parameters
    ----------
    name : str
        Catalog name (see :func:`list_datasets`).
    mirror, data_home, offline, timeout, verify
        As for :func:`fetch`.

    Returns
    -------
    Dataset
        Rows of all files concatenated in catalog order (for a predefined split: training
        file first, ``test_mask`` marks the test file's rows).

    Raises
    ------
    DatasetError
        Unknown name, failed download, malformed file, or a parse whose shape (rows, features,
        classes) differs from the catalog.
    """
    spec = get_spec(name)
    paths = fetch(spec.name, mirror=mirror, data_home=data_home, offline=offline,
                  timeout=timeout, verify=verify)
    parts = [parse_file(path, spec, f) for path, f in zip(paths, spec.files, strict=True)]
    X = np.concatenate([p[0] for p in parts]).astype(X_DTYPE, copy=False)
    y = np.concatenate([p[1] for p in parts]).astype(Y_DTYPE, copy=False)
    _check_shape(spec, X, y)

    test_mask = None
    if spec.split == "predefined":
        test_mask = np.concatenate([np.full(len(p[1]), f.split == "test")
                                    for p, f in zip(parts, spec.files, strict=True)])
    return Dataset(
        name=spec.name,
        X=X,
        y=y,
        classes=spec.classes,
        feature_names=spec.feature_names,
        categorical=np.array([f.categorical for f in spec.features], dtype=bool),
        test_mask=test_mask,
        source="UCI: " + ", ".join(f"{f.path} (sha256 {f.sha256[:8]}...)" for f in spec.files),
    )
