"""The dataset catalog: typed, validated view of ``catalog.yaml``.

The YAML file is the single place where datasets are described (repositories and their
official URLs, files, checksums, download alternatives, parser settings, expected shape,
credits). This module turns it into frozen dataclasses once per process, and checks it for
internal consistency so a mistake in a new entry fails loudly when the catalog is loaded rather
than as a wrong array later.

An entry has one of three sources:

``files``      files downloaded from a repository (UCI, LIBSVM, MNIST) and parsed; may name an
               exact or in-distribution *generator* as an alternative source
``generator``  rows made by ``mcboost_cli.datasets.generators.GENERATORS[name](**params)``
``derived``    built from another entry by a construction rule (e.g. poker525k from poker)

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
    "DerivedSpec",
    "FeatureSpec",
    "FileSpec",
    "FormatSpec",
    "GeneratorCall",
    "GeneratorSpec",
    "Repository",
    "SourceSpec",
    "catalog",
    "dataset_names",
    "get_spec",
    "repositories",
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
class Repository:
    """Where a family of files officially lives, and where it sits in a mirror.

    Attributes
    ----------
    name : str
        Catalog key (``uci``, ``libsvm``, ``mnist``).
    label : str
        Shown in provenance strings (``"UCI"``).
    prefix : str
        Folder of these files below a mirror root (and below ``<data_home>/uci``): ``""`` for
        the UCI archive, ``"libsvm/binary/"``, ``"mnist/"``.
    urls : tuple of str
        Official base URLs, tried in order when no mirror is configured; a file at mirror path
        ``prefix + name`` is downloaded from ``url + name``.
    """

    name: str
    label: str
    prefix: str
    urls: tuple[str, ...]

    def official_urls(self, path: str) -> list[str]:
        """Official URLs of the file at mirror-relative ``path``."""
        return [base + path[len(self.prefix):] for base in self.urls]


@dataclass(frozen=True)
class SourceSpec:
    """One way of obtaining a file: a path below a mirror root, possibly compressed.

    ``compression`` is None (the bytes are the file), ``"Z"`` (unix compress), ``"gz"`` or
    ``"zip"`` (then ``member`` names the file inside the archive). A ``path`` that is an
    ``http(s)://`` URL is an official alternative outside the archive layout (e.g. the zip of
    the current UCI site); it is tried only when no mirror is configured.
    """

    path: str
    compression: str | None = None
    member: str | None = None

    @property
    def is_url(self) -> bool:
        return self.path.startswith(("https://", "http://"))


@dataclass(frozen=True)
class FileSpec:
    """One file of a dataset.

    Attributes
    ----------
    path : str
        Path of the file below a mirror root, e.g. ``"nursery/nursery.data"`` or
        ``"libsvm/binary/splice"``. Also its path below ``<data_home>/uci``.
    sha256 : str or None
        Lower-case hex digest the (decompressed) file must have; None when unknown.
    rows : int
        Number of data rows in the file (blank and header lines excluded).
    split : str or None
        ``"test"`` if the rows of this file are the predefined test set, else None.
    skip_lines : int
        Header lines at the top of the file that are not data.
    md5 : str or None
        Alternative published digest (MNIST publishes md5 sums), checked when ``sha256`` is
        unknown. When both are None the sha256 of the first download is recorded beside the
        cached file and checked from then on.
    sources : tuple of SourceSpec
        Ways to obtain the file, tried in order on each mirror (default: ``path`` itself).
    role : str or None
        For multi-file formats (MNIST idx): ``"images"`` or ``"labels"``.
    """

    path: str
    sha256: str | None
    rows: int
    split: str | None
    skip_lines: int
    md5: str | None = None
    sources: tuple[SourceSpec, ...] = ()
    role: str | None = None

    @property
    def digest(self) -> tuple[str, str] | None:
        """The published digest as ``(algorithm, hex)``, or None when none is known."""
        if self.sha256:
            return "sha256", self.sha256
        if self.md5:
            return "md5", self.md5
        return None

    @property
    def alternatives(self) -> tuple[SourceSpec, ...]:
        return self.sources or (SourceSpec(self.path),)


@dataclass(frozen=True)
class FormatSpec:
    """Parser settings shared by the files of a dataset (see ``catalog.yaml``)."""

    parser: str
    sep: str | None
    class_column: int
    missing: tuple[str, ...]
    drop_columns: tuple[int, ...] = ()
    split_column: int | None = None
    split_test_value: str | None = None
    numeric_classes: bool = False
    class_suffix: str = ""
    optional_header: bool = False


@dataclass(frozen=True)
class FeatureSpec:
    """One feature column: numeric when ``values`` is None, else categorical in that order."""

    name: str
    values: tuple[str, ...] | None = None

    @property
    def categorical(self) -> bool:
        return self.values is not None


@dataclass(frozen=True)
class GeneratorCall:
    """One call ``GENERATORS[name](**kwargs)``; ``test`` marks all its rows as test rows."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    test: bool = False

    @property
    def kwargs(self) -> dict[str, Any]:
        return {k: list(v) if isinstance(v, tuple) else v for k, v in self.params}

    def describe(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.kwargs.items())})"


@dataclass(frozen=True)
class GeneratorSpec:
    """A generator that makes the rows: one or several calls whose rows are concatenated.

    ``exact`` is True when the generator reproduces the published rows and labels (possibly in
    another order); False when it draws fresh samples of the same process.
    """

    calls: tuple[GeneratorCall, ...]
    exact: bool = False

    @property
    def name(self) -> str:
        return " + ".join(c.name for c in self.calls)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.calls)

    def describe(self) -> str:
        kind = "exact" if self.exact else "in distribution"
        return f"generator {' + '.join(c.describe() for c in self.calls)} ({kind})"


@dataclass(frozen=True)
class DerivedSpec:
    """An entry built from entry ``base`` by the construction rule ``rule(**params)``."""

    base: str
    rule: str
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.params)


@dataclass(frozen=True)
class DatasetSpec:
    """Everything the catalog says about one dataset.

    Attributes
    ----------
    name, title : str
        Catalog key and human-readable name.
    files : tuple of FileSpec
        The files, in the order their rows are concatenated (empty for generator and derived
        entries).
    format : FormatSpec
        How to parse them.
    features : tuple of FeatureSpec
        Feature columns in file order (class, id and split columns excluded); empty for
        generator and derived entries (the generator or base entry defines them).
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
    source : str
        ``"files"``, ``"generator"`` or ``"derived"``.
    repository : Repository or None
        Where the files officially live (files entries).
    generator : GeneratorSpec or None
        The generator (generator entries) or an alternative source (files entries).
    derived : DerivedSpec or None
        The construction rule (derived entries).
    test_rows : int or None
        Expected size of the predefined test part; None when there is none.
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
    source: str = "files"
    repository: Repository | None = None
    generator: GeneratorSpec | None = None
    derived: DerivedSpec | None = None
    test_rows: int | None = None

    @property
    def split(self) -> str:
        """``"predefined"`` when the dataset comes with a test part, else ``"none"``."""
        return "none" if self.test_rows is None else "predefined"

    @property
    def split_sizes(self) -> tuple[int, int] | None:
        """``(train rows, test rows)`` of the predefined split, or None."""
        return None if self.test_rows is None else (self.rows - self.test_rows, self.test_rows)

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.features)


# ---------------------------------------------------------------------------------------------
# Loading and validation

_ENTRY_KEYS = {"title", "files", "format", "features", "classes", "expect", "citation",
               "papers", "notes", "license", "source", "repository", "generator", "from",
               "rule", "params"}
_FILE_KEYS = {"path", "sha256", "md5", "rows", "split", "skip_lines", "sources", "role"}
_FORMAT_KEYS = {"parser", "sep", "skip_lines", "class_column", "missing", "drop_columns",
                "split_column", "numeric_classes", "class_suffix", "optional_header"}
_GENERATOR_KEYS = {"name", "params", "exact", "parts"}
_PARSERS = {"delimited", "libsvm", "idx"}
_RULES = {"poker525k", "first_rows_train", "sample_train"}
_RANGE = re.compile(r"^(.*)\{(\d+)\.\.(\d+)\}$")      # "pixel{1..64}"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_MD5 = re.compile(r"^[0-9a-f]{32}$")


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


def _relpath(name: str, path: Any, repo: Repository) -> str:
    p = PurePosixPath(str(path))
    if p.is_absolute() or ".." in p.parts or not str(path).strip():
        _fail(name, f"file path {path!r} must be relative, without '..'")
    if not str(p).startswith(repo.prefix):
        _fail(name, f"file path {path!r} must lie below {repo.prefix!r} (repository "
                    f"{repo.name})")
    return str(p)


def _source(name: str, item: Any, file_path: str, repo: Repository) -> SourceSpec:
    if isinstance(item, str):
        item = {"path": item}
    if not isinstance(item, dict) or set(item) - {"path", "member", "compression"}:
        _fail(name, f"bad source {item!r}; give a path or {{path, member}}")
    if str(item["path"]).startswith(("https://", "http://")):
        path = str(item["path"])        # an official alternative outside the archive layout
    else:
        path = _relpath(name, item["path"], repo)
    compression = item.get("compression")
    if compression is None:
        if path.endswith(".Z"):
            compression = "Z"
        elif path.endswith(".zip"):
            compression = "zip"
        elif path.endswith(".gz") and not file_path.endswith(".gz"):
            compression = "gz"
    if compression not in (None, "Z", "gz", "zip"):
        _fail(name, f"source {path}: compression must be Z, gz or zip")
    member = item.get("member")
    if (compression == "zip") != (member is not None):
        _fail(name, f"source {path}: a zip source needs a member (and only a zip source)")
    if member is not None:
        m = PurePosixPath(member)
        if m.is_absolute() or ".." in m.parts:
            _fail(name, f"source {path}: member {member!r} must be relative, without '..'")
    return SourceSpec(path=path, compression=compression, member=member)


def _params(name: str, value: Any) -> tuple[tuple[str, Any], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        _fail(name, "params must be a mapping")
    return tuple(sorted(value.items()))


def _freeze(value: Any) -> Any:
    return tuple(_freeze(v) for v in value) if isinstance(value, list) else value


def _call(name: str, value: Any, test: bool = False) -> GeneratorCall:
    if not isinstance(value, dict) or set(value) - {"name", "params", "test"} or \
            "name" not in value:
        _fail(name, f"a generator call needs name (and optionally params, test); got {value!r}")
    params = tuple((k, _freeze(v)) for k, v in _params(name, value.get("params")))
    return GeneratorCall(name=str(value["name"]), params=params,
                         test=bool(value.get("test", test)))


def _generator(name: str, value: Any) -> GeneratorSpec | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = {"name": value}
    if not isinstance(value, dict) or set(value) - _GENERATOR_KEYS or \
            ("name" in value) == ("parts" in value):
        _fail(name, f"generator must be a name, {{name, params, exact}} or {{parts, exact}}; "
                    f"got {value!r}")
    if "parts" in value:
        calls = tuple(_call(name, part) for part in value["parts"] or [])
        if not calls:
            _fail(name, "generator parts must be a non-empty list")
    else:
        calls = (_call(name, {k: v for k, v in value.items() if k in ("name", "params")}),)
    return GeneratorSpec(calls=calls, exact=bool(value.get("exact", False)))


def _expect(name: str, entry: dict) -> dict:
    expect = entry.get("expect") or {}
    if not {"rows", "features", "classes"} <= set(expect) <= {"rows", "features", "classes",
                                                               "test"}:
        _fail(name, "expect needs rows, features, classes (and optionally test)")
    return expect


def _build(name: str, entry: dict, defaults: dict, repos: dict[str, Repository]) -> DatasetSpec:
    unknown = set(entry) - _ENTRY_KEYS
    if unknown:
        _fail(name, f"unknown keys {sorted(unknown)}")
    source = entry.get("source", "files")
    if source not in ("files", "generator", "derived"):
        _fail(name, f"source must be files, generator or derived, not {source!r}")
    expect = _expect(name, entry)
    common = dict(
        name=name,
        title=str(entry.get("title", name)),
        rows=int(expect["rows"]),
        n_features=int(expect["features"]),
        n_classes=int(expect["classes"]),
        test_rows=None if expect.get("test") is None else int(expect["test"]),
        citation=str(entry.get("citation", "")).strip(),
        license=str(entry.get("license", defaults.get("license", ""))).strip(),
        papers=tuple(entry.get("papers") or ()),
        notes=str(entry.get("notes", "")).strip(),
        generator=_generator(name, entry.get("generator")),
    )
    no_format = FormatSpec(parser="none", sep=None, class_column=-1, missing=())

    if source == "generator":
        if common["generator"] is None:
            _fail(name, "a generator entry needs generator: {name, params}")
        extra = set(entry) & {"files", "format", "features", "classes", "from", "rule",
                              "repository"}
        if extra:
            _fail(name, f"a generator entry takes no {sorted(extra)}")
        return DatasetSpec(files=(), format=no_format, features=(), classes=(),
                           source="generator", **common)

    if source == "derived":
        if "from" not in entry or entry.get("rule") not in _RULES:
            _fail(name, f"a derived entry needs from: <entry> and rule: one of {sorted(_RULES)}")
        return DatasetSpec(files=(), format=no_format, features=(), classes=(),
                           source="derived",
                           derived=DerivedSpec(base=str(entry["from"]), rule=entry["rule"],
                                               params=_params(name, entry.get("params"))),
                           **common)

    repo_name = entry.get("repository", "uci")
    if repo_name not in repos:
        _fail(name, f"unknown repository {repo_name!r}; known: {', '.join(repos)}")
    repo = repos[repo_name]
    fmt = {**defaults.get("format", {}), **(entry.get("format") or {})}
    if set(fmt) - _FORMAT_KEYS:
        _fail(name, f"unknown format keys {sorted(set(fmt) - _FORMAT_KEYS)}")
    if fmt.get("parser", "delimited") not in _PARSERS:
        _fail(name, f"parser must be one of {sorted(_PARSERS)}")

    files = []
    for f in entry.get("files") or []:
        if set(f) - _FILE_KEYS or not {"path", "rows"} <= set(f):
            _fail(name, f"file entries need path and rows (and optionally sha256, md5, split, "
                        f"skip_lines, sources, role); got {sorted(f)}")
        path = _relpath(name, f["path"], repo)
        sha256, md5 = f.get("sha256"), f.get("md5")
        if sha256 is not None and not _SHA256.match(str(sha256)):
            _fail(name, f"sha256 of {path} is not 64 lower-case hex digits")
        if md5 is not None and not _MD5.match(str(md5)):
            _fail(name, f"md5 of {path} is not 32 lower-case hex digits")
        if f.get("split") not in (None, "test"):
            _fail(name, f"split of {path} must be 'test' or unset")
        if f.get("role") not in (None, "images", "labels"):
            _fail(name, f"role of {path} must be images or labels")
        sources = tuple(_source(name, s, path, repo) for s in f.get("sources") or [])
        files.append(FileSpec(path=path, sha256=sha256, rows=int(f["rows"]),
                              split=f.get("split"),
                              skip_lines=int(f.get("skip_lines", fmt.get("skip_lines", 0))),
                              md5=md5, sources=sources, role=f.get("role")))
    if not files:
        _fail(name, "no files")
    if len({f.path for f in files}) != len(files):
        _fail(name, "duplicate file paths")

    features = _features(name, entry.get("features"))
    classes = _strings(name, "classes", entry.get("classes"))
    split = fmt.get("split_column")
    if split is not None and (not isinstance(split, dict) or set(split) != {"column", "test"}):
        _fail(name, "split_column must be {column: <index>, test: '<value>'}")
    fspec = FormatSpec(
        parser=fmt.get("parser", "delimited"), sep=fmt.get("sep"),
        class_column=int(fmt.get("class_column", -1)),
        missing=tuple(str(m) for m in fmt.get("missing") or ()),
        drop_columns=tuple(int(c) for c in fmt.get("drop_columns") or ()),
        split_column=None if split is None else int(split["column"]),
        split_test_value=None if split is None else str(split["test"]),
        numeric_classes=bool(fmt.get("numeric_classes", False)),
        class_suffix=str(fmt.get("class_suffix") or ""),
        optional_header=bool(fmt.get("optional_header", False)),
    )

    # Cross-checks that catch most copy-paste slips in a new entry.
    if expect["features"] != len(features):
        _fail(name, f"expect.features={expect['features']} but {len(features)} features listed")
    if expect["classes"] != len(classes):
        _fail(name, f"expect.classes={expect['classes']} but {len(classes)} classes listed")
    counted = [f for f in files if f.role != "labels"]
    if expect["rows"] != sum(f.rows for f in counted):
        _fail(name, f"expect.rows={expect['rows']} but the files' rows add up to "
                    f"{sum(f.rows for f in counted)}")
    test_files = sum(f.rows for f in counted if f.split == "test")
    if fspec.split_column is None and (test_files or None) != common["test_rows"]:
        _fail(name, f"expect.test={common['test_rows']} but the test files hold {test_files} rows")
    if fspec.split_column is not None and common["test_rows"] is None:
        _fail(name, "a split_column needs expect.test")
    if fspec.parser == "idx" and {f.role for f in files} != {"images", "labels"}:
        _fail(name, "idx files need roles images and labels")

    return DatasetSpec(files=tuple(files), format=fspec, features=features, classes=classes,
                       source="files", repository=repo, **common)


def _repositories(doc: dict) -> dict[str, Repository]:
    out = {}
    for key, value in (doc.get("repositories") or {}).items():
        urls = tuple(u if u.endswith("/") else u + "/" for u in value["urls"])
        prefix = str(value.get("prefix") or "")
        out[key] = Repository(name=key, label=str(value.get("label", key)), prefix=prefix,
                              urls=urls)
    if "uci" not in out:
        raise ValueError("catalog.yaml: repositories must define uci")
    return out


@functools.lru_cache(maxsize=1)
def _load() -> tuple[dict[str, Repository], dict[str, DatasetSpec]]:
    text = resources.files(__package__).joinpath("catalog.yaml").read_text(encoding="utf-8")
    doc = yaml.safe_load(text)
    if doc.get("version") != 2:
        raise ValueError(f"catalog.yaml: unsupported version {doc.get('version')!r}")
    repos = _repositories(doc)
    defaults = doc.get("defaults") or {}
    entries = doc.get("datasets") or {}
    specs = {name: _build(name, entries[name], defaults, repos) for name in sorted(entries)}
    for spec in specs.values():
        if spec.derived is not None:
            base = specs.get(spec.derived.base)
            if base is None or base.source == "derived":
                _fail(spec.name, f"derived from {spec.derived.base!r}, which is not a files or "
                                 f"generator entry")
    return repos, specs


def catalog() -> dict[str, DatasetSpec]:
    """All catalog entries by name (parsed once per process).

    Returns
    -------
    dict of str to DatasetSpec
        Sorted by name.
    """
    return _load()[1]


def repositories() -> dict[str, Repository]:
    """The repositories (official URL bases and mirror prefixes) by name."""
    return _load()[0]


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
