"""The dataset catalog: typed, validated view of ``catalog.yaml``.

The YAML file is the single place where datasets are described (files, checksums, parser
settings, expected shape, credits). This module turns it into frozen dataclasses once per
process, and checks it for internal consistency so a mistake in a new entry fails loudly at
import of the entry rather than as a wrong array later.

It also defines :class:`DatasetError`, the one exception type of the datasets layer.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import PurePosixPath
from typing import Any

import yaml

from ..errors import UserError

__all__ = [
    "DatasetError",
    "DatasetSpec",
    "FileSpec",
    "FormatSpec",
    "FeatureSpec",
    "catalog",
    "dataset_names",
    "get_spec",
]


class DatasetError(UserError):
    """A dataset cannot be provided: unknown name, failed download, bad file, wrong shape.

    The message is forced onto one line (runs of whitespace, including newlines that may come
    from server replies or OS errors, are collapsed) because the CLI prints it as a single
    ``error: ...`` line.
    """

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()))


@dataclass(frozen=True)
class FileSpec:
    """One file of a dataset.

    Attributes
    ----------
    path : str
        Path relative to the UCI archive base, e.g. ``"nursery/nursery.data"``. Also the path
        below a mirror and below ``<data_home>/uci``.
    sha256 : str
        Lower-case hex digest the file must have.
    rows : int
        Number of data rows in the file (blank and header lines excluded).
    split : str or None
        ``"test"`` if the rows of this file are the predefined test set, else None.
    skip_lines : int
        Header lines at the top of the file that are not data.
    """

    path: str
    sha256: str
    rows: int
    split: str | None
    skip_lines: int


@dataclass(frozen=True)
class FormatSpec:
    """Parser settings shared by the files of a dataset (see ``catalog.yaml``)."""

    parser: str
    sep: str | None
    class_column: int
    missing: tuple[str, ...]


@dataclass(frozen=True)
class FeatureSpec:
    """One feature column: numeric when ``values`` is None, else categorical in that order."""

    name: str
    values: tuple[str, ...] | None = None

    @property
    def categorical(self) -> bool:
        return self.values is not None


@dataclass(frozen=True)
class DatasetSpec:
    """Everything the catalog says about one dataset.

    Attributes
    ----------
    name, title : str
        Catalog key and human-readable name.
    files : tuple of FileSpec
        The files, in the order their rows are concatenated.
    format : FormatSpec
        How to parse them.
    features : tuple of FeatureSpec
        Feature columns in file order (class column excluded).
    classes : tuple of str
        Class names as spelled in the file; index = label code.
    rows, n_features, n_classes : int
        Expected shape of the parsed dataset.
    citation, license : str
        Credits.
    papers : tuple of str
        Papers of the reproduction set that use this dataset.
    notes : str
        Free-form remarks.
    """

    name: str
    title: str
    files: tuple[FileSpec, ...]
    format: FormatSpec
    features: tuple[FeatureSpec, ...]
    classes: tuple[str, ...]
    rows: int
    n_features: int
    n_classes: int
    citation: str
    license: str
    papers: tuple[str, ...] = ()
    notes: str = ""

    @property
    def split(self) -> str:
        """``"predefined"`` when a file holds the official test set, else ``"none"``."""
        return "predefined" if any(f.split == "test" for f in self.files) else "none"

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.features)


# ---------------------------------------------------------------------------------------------
# Loading and validation

_ENTRY_KEYS = {"title", "files", "format", "features", "classes", "expect", "citation",
               "papers", "notes", "license"}
_FILE_KEYS = {"path", "sha256", "rows", "split", "skip_lines"}
_FORMAT_KEYS = {"parser", "sep", "skip_lines", "class_column", "missing"}
_RANGE = re.compile(r"^(.*)\{(\d+)\.\.(\d+)\}$")      # "pixel{1..64}"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _fail(name: str, what: str) -> None:
    # A malformed catalog is a bug in the package, not a user error: plain ValueError.
    raise ValueError(f"catalog.yaml, dataset {name!r}: {what}")


def _strings(name: str, what: str, values: Any) -> tuple[str, ...]:
    if not isinstance(values, list) or not values:
        _fail(name, f"{what} must be a non-empty list")
    for v in values:
        # YAML reads 2 as an int and yes/no as booleans; silently str()-ing them would give
        # '2' but also 'True', so the catalog must quote such values instead.
        if not isinstance(v, str):
            _fail(name, f"{what}: value {v!r} is not a string; quote it in the YAML")
    if len(set(values)) != len(values):
        _fail(name, f"{what} has duplicate values")
    return tuple(values)


def _features(name: str, items: Any) -> tuple[FeatureSpec, ...]:
    if not isinstance(items, list) or not items:
        _fail(name, "features must be a non-empty list")
    out: list[FeatureSpec] = []
    for item in items:
        if isinstance(item, str):
            m = _RANGE.match(item)
            if m:
                prefix, lo, hi = m.group(1), int(m.group(2)), int(m.group(3))
                out.extend(FeatureSpec(f"{prefix}{i}") for i in range(lo, hi + 1))
            else:
                out.append(FeatureSpec(item))
        elif isinstance(item, dict) and len(item) == 1:
            (fname, values), = item.items()
            out.append(FeatureSpec(str(fname), _strings(name, f"feature {fname!r}", values)))
        else:
            _fail(name, f"bad feature item {item!r}")
    if len({f.name for f in out}) != len(out):
        _fail(name, "duplicate feature names")
    return tuple(out)


def _build(name: str, entry: dict, defaults: dict) -> DatasetSpec:
    unknown = set(entry) - _ENTRY_KEYS
    if unknown:
        _fail(name, f"unknown keys {sorted(unknown)}")
    fmt = {**defaults.get("format", {}), **(entry.get("format") or {})}
    if set(fmt) - _FORMAT_KEYS:
        _fail(name, f"unknown format keys {sorted(set(fmt) - _FORMAT_KEYS)}")

    files = []
    for f in entry.get("files") or []:
        if set(f) - _FILE_KEYS or not {"path", "sha256", "rows"} <= set(f):
            _fail(name, f"file entries need path, sha256, rows (and optionally split, "
                        f"skip_lines); got {sorted(f)}")
        path = PurePosixPath(f["path"])
        if path.is_absolute() or ".." in path.parts:
            _fail(name, f"file path {f['path']!r} must be relative, without '..'")
        if not _SHA256.match(str(f["sha256"])):
            _fail(name, f"sha256 of {f['path']} is not 64 lower-case hex digits")
        if f.get("split") not in (None, "test"):
            _fail(name, f"split of {f['path']} must be 'test' or unset")
        files.append(FileSpec(path=str(path), sha256=f["sha256"], rows=int(f["rows"]),
                              split=f.get("split"),
                              skip_lines=int(f.get("skip_lines", fmt.get("skip_lines", 0)))))
    if not files:
        _fail(name, "no files")

    features = _features(name, entry.get("features"))
    classes = _strings(name, "classes", entry.get("classes"))
    expect = entry.get("expect") or {}
    if set(expect) != {"rows", "features", "classes"}:
        _fail(name, "expect needs exactly rows, features, classes")
    # Cross-checks that catch most copy-paste slips in a new entry.
    if expect["features"] != len(features):
        _fail(name, f"expect.features={expect['features']} but {len(features)} features listed")
    if expect["classes"] != len(classes):
        _fail(name, f"expect.classes={expect['classes']} but {len(classes)} classes listed")
    if expect["rows"] != sum(f.rows for f in files):
        _fail(name, f"expect.rows={expect['rows']} but the files' rows add up to "
                    f"{sum(f.rows for f in files)}")

    return DatasetSpec(
        name=name,
        title=str(entry.get("title", name)),
        files=tuple(files),
        format=FormatSpec(parser=fmt.get("parser", "delimited"), sep=fmt.get("sep"),
                          class_column=int(fmt.get("class_column", -1)),
                          missing=tuple(str(m) for m in fmt.get("missing") or ())),
        features=features,
        classes=classes,
        rows=int(expect["rows"]),
        n_features=int(expect["features"]),
        n_classes=int(expect["classes"]),
        citation=str(entry.get("citation", "")).strip(),
        license=str(entry.get("license", defaults.get("license", ""))).strip(),
        papers=tuple(entry.get("papers") or ()),
        notes=str(entry.get("notes", "")).strip(),
    )


@functools.lru_cache(maxsize=1)
def catalog() -> dict[str, DatasetSpec]:
    """All catalog entries by name (parsed once per process).

    Returns
    -------
    dict of str to DatasetSpec
        Sorted by name.
    """
    text = resources.files(__package__).joinpath("catalog.yaml").read_text(encoding="utf-8")
    doc = yaml.safe_load(text)
    if doc.get("version") != 1:
        raise ValueError(f"catalog.yaml: unsupported version {doc.get('version')!r}")
    defaults = doc.get("defaults") or {}
    entries = doc.get("datasets") or {}
    return {name: _build(name, entries[name], defaults) for name in sorted(entries)}


def dataset_names() -> list[str]:
    """Names of all catalog entries, sorted."""
    return list(catalog())


def get_spec(name: str) -> DatasetSpec:
    """Catalog entry of one dataset.

    Parameters
    ----------
    name : str
        Dataset name; surrounding spaces and case are ignored.

    Returns
    -------
    DatasetSpec

    Raises
    ------
    DatasetError
        If the name is not in the catalog; the message lists the known names and, for a
        near miss, the closest one.
    """
    specs = catalog()
    key = str(name).strip().lower()
    if key in specs:
        return specs[key]
    close = difflib.get_close_matches(key, specs, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise DatasetError(f"dataset {name!r} is not in the catalog; {hint}"
                       f"known: {', '.join(specs)}")
