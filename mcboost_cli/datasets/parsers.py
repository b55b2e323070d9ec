"""Parsers: data files on disk -> ``(X, y)`` arrays, driven by a catalog entry.

Single-file parsers have the signature ``parser(path, spec, file) -> (X, y, test)`` with ``X``
of dtype ``X_DTYPE`` and shape ``(file.rows, spec.n_features)`` (categorical columns hold their
codes, NaN = missing), ``y`` of dtype ``Y_DTYPE`` holding class codes, and ``test`` a boolean
array marking test rows when the file carries its own split column (else None). They are
registered in :data:`PARSERS` under the name a catalog entry gives as ``format.parser``:

``delimited``  CSV-like or whitespace-separated text (read in bounded chunks, so the
               1,000,000-row poker test file does not need gigabytes of Python strings)
``libsvm``     LIBSVM sparse text ``label index:value ...`` (1-based indices)

MNIST's ``idx`` format pairs an images file with a labels file, so it is read at the dataset
level by :func:`parse_dataset`, which also concatenates the files of any entry and builds the
predefined test mask.

Errors in a file are reported as :class:`DatasetError` naming the file, the line and what was
expected, because a damaged or unexpected file is something the user can act on (re-fetch,
fix the mirror), not a bug.
"""

from __future__ import annotations

import gzip
import struct
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from .._dtypes import X_DTYPE, Y_DTYPE
from .catalog import DatasetError, DatasetSpec, FileSpec

__all__ = [
    "PARSERS",
    "parse_dataset",
    "parse_delimited",
    "parse_file",
    "parse_libsvm",
    "read_idx",
]

CHUNK_CELLS = 2_000_000     # cells converted to arrays at a time by the delimited parser

Parsed = tuple[np.ndarray, np.ndarray, "np.ndarray | None"]


def _shorten(values: Sequence[str], limit: int = 12) -> str:
    shown = ", ".join(values[:limit])
    return shown + (", ..." if len(values) > limit else "")


def _class_lookup(spec: DatasetSpec) -> Callable[[str], int | None]:
    """Cell text -> class code (None when the cell names no class), per the format rules."""
    fmt = spec.format
    suffix = fmt.class_suffix
    if fmt.numeric_classes:
        by_value = {float(c): i for i, c in enumerate(spec.classes)}

        def code(cell: str) -> int | None:
            if suffix and cell.endswith(suffix):
                cell = cell[:-len(suffix)]
            try:
                return by_value.get(float(cell))
            except ValueError:
                return None
    else:
        by_name = {c: i for i, c in enumerate(spec.classes)}

        def code(cell: str) -> int | None:
            if suffix and cell.endswith(suffix):
                cell = cell[:-len(suffix)]
            return by_name.get(cell)
    return code


def _encode_classes(col: np.ndarray, spec: DatasetSpec, path: Path,
                    linenos: list[int]) -> np.ndarray:
    uniq, inverse = np.unique(col, return_inverse=True)
    lookup = _class_lookup(spec)
    codes = []
    for u in uniq.tolist():          # tolist: plain str, so messages show 'x', not np.str_('x')
        c = lookup(u)
        if c is None:
            row = int(np.flatnonzero(col == u)[0])
            raise DatasetError(f"{path}:{linenos[row]}: unknown class value {u!r}; expected "
                               f"one of {_shorten(spec.classes)}")
        codes.append(c)
    return np.array(codes, dtype=Y_DTYPE)[inverse]


def _encode(col: np.ndarray, values: tuple[str, ...], missing: tuple[str, ...], what: str,
            path: Path, linenos: list[int]) -> np.ndarray:
    """Codes (as float, NaN for missing) of a column of category names."""
    # Map each distinct value once instead of every cell: files have few distinct values.
    uniq, inverse = np.unique(col, return_inverse=True)
    lookup = {v: float(i) for i, v in enumerate(values)}
    lookup.update({m: np.nan for m in missing})
    for u in uniq.tolist():
        if u not in lookup:
            row = int(np.flatnonzero(col == u)[0])
            raise DatasetError(f"{path}:{linenos[row]}: unknown {what} value {u!r}; expected "
                               f"one of {_shorten(values)}")
    return np.array([lookup[u] for u in uniq], dtype=X_DTYPE)[inverse]


def _numbers(col: np.ndarray, missing: tuple[str, ...], what: str, path: Path,
             linenos: list[int]) -> np.ndarray:
    """A column of numeric text as floats, NaN for the missing-value markers."""
    cells = np.where(np.isin(col, missing), "nan", col) if missing else col
    try:
        return cells.astype(X_DTYPE)
    except ValueError:
        pass
    # Slow path only to say *where* the bad cell is.
    for row, cell in enumerate(cells.tolist()):
        try:
            float(cell)
        except ValueError:
            raise DatasetError(f"{path}:{linenos[row]}: {what} value {cell!r} is not a number "
                               f"(missing values are written {' or '.join(missing) or 'never'})"
                               ) from None
    raise AssertionError("unreachable")  # pragma: no cover


def _text_lines(path: Path, spec: DatasetSpec) -> Iterator[tuple[int, str]]:
    """(line number, line) of a text file, with one-line errors for unreadable files."""
    try:
        # Universal newlines, so CRLF copies parse the same as the LF originals.
        with open(path, encoding="utf-8") as fh:
            yield from enumerate(fh, 1)
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not a UTF-8 text file ({exc.reason} at byte {exc.start}); "
                           f"delete it and fetch {spec.name!r} again") from None
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc.strerror or exc}") from None


def parse_delimited(path: Path, spec: DatasetSpec, file: FileSpec) -> Parsed:
    """Parse a delimited text file (CSV-like, or whitespace-separated when ``sep`` is None).

    The first ``file.skip_lines`` lines and all blank lines are ignored (and, with
    ``optional_header``, a first line whose class cell names no class); cells are stripped of
    surrounding spaces; the class column is ``spec.format.class_column``, the columns in
    ``drop_columns`` and the ``split_column`` are not features, and the remaining columns are
    the features in catalog order.

    Parameters
    ----------
    path : Path
        The file to read.
    spec : DatasetSpec
        Catalog entry (format, features, classes).
    file : FileSpec
        Which of the entry's files this is (for ``skip_lines``).

    Returns
    -------
    X : ndarray of X_DTYPE, shape (n, n_features)
    y : ndarray of Y_DTYPE, shape (n,)
    test : ndarray of bool, shape (n,), or None
        Rows whose split column holds the test value (None without a split column).

    Raises
    ------
    DatasetError
        Unreadable file, wrong number of fields, unknown category or class, non-numeric cell.
    """
    fmt = spec.format
    n_cols = len(spec.features) + 1 + len(fmt.drop_columns) + (fmt.split_column is not None)
    class_col = fmt.class_column % n_cols
    split_col = None if fmt.split_column is None else fmt.split_column % n_cols
    skip = {class_col, *(c % n_cols for c in fmt.drop_columns)}
    if split_col is not None:
        skip.add(split_col)
    feature_cols = [j for j in range(n_cols) if j not in skip]
    if len(feature_cols) != len(spec.features):   # pragma: no cover - catalog bug
        raise ValueError(f"catalog entry {spec.name!r}: column layout does not add up")
    class_code = _class_lookup(spec)
    chunk_rows = max(1000, CHUNK_CELLS // n_cols)

    parts: list[Parsed] = []
    rows: list[list[str]] = []
    linenos: list[int] = []
    header_checked = not fmt.optional_header

    def flush() -> None:
        if not rows:
            return
        table = np.array(rows, dtype=str)
        y = _encode_classes(table[:, class_col], spec, path, linenos)
        X = np.empty((len(rows), len(spec.features)), dtype=X_DTYPE)
        for k, (j, feat) in enumerate(zip(feature_cols, spec.features, strict=True)):
            what = f"feature {feat.name!r}"
            if feat.categorical:
                X[:, k] = _encode(table[:, j], feat.values, fmt.missing, what, path, linenos)
            else:
                X[:, k] = _numbers(table[:, j], fmt.missing, what, path, linenos)
        test = None if split_col is None else table[:, split_col] == fmt.split_test_value
        parts.append((X, y, test))
        rows.clear()
        linenos.clear()

    for lineno, line in _text_lines(path, spec):
        if lineno <= file.skip_lines or not line.strip():
            continue
        cells = [c.strip() for c in line.split(fmt.sep)]
        if not header_checked:
            header_checked = True
            if len(cells) == n_cols and class_code(cells[class_col]) is None:
                continue       # a header line added by a third-party copy
        if len(cells) != n_cols:
            sep = "whitespace" if fmt.sep is None else repr(fmt.sep)
            raise DatasetError(
                f"{path}:{lineno}: {len(cells)} fields separated by {sep}, expected "
                f"{n_cols}; the file does not match the catalog entry for {spec.name!r}")
        rows.append(cells)
        linenos.append(lineno)
        if len(rows) >= chunk_rows:
            flush()
    flush()

    if not parts:
        return (np.empty((0, len(spec.features)), X_DTYPE), np.empty(0, Y_DTYPE),
                None if split_col is None else np.empty(0, bool))
    X = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    test = None if split_col is None else np.concatenate([p[2] for p in parts])
    return X, y, test


def parse_libsvm(path: Path, spec: DatasetSpec, file: FileSpec) -> Parsed:
    """Parse a LIBSVM sparse file: ``label index:value index:value ...`` per line.

    Indices are 1-based feature numbers up to ``spec.n_features``; absent entries are 0.
    Labels are matched to the class names as numbers (``+1`` is ``1``).
    """
    n_features = len(spec.features)
    code = _class_lookup(spec)
    labels: list[int] = []
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for lineno, line in _text_lines(path, spec):
        if lineno <= file.skip_lines:
            continue
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            continue
        c = code(tokens[0])
        if c is None:
            raise DatasetError(f"{path}:{lineno}: unknown class value {tokens[0]!r}; expected "
                               f"one of {_shorten(spec.classes)}")
        row = len(labels)
        labels.append(c)
        for tok in tokens[1:]:
            index, sep, value = tok.partition(":")
            try:
                j, v = int(index), float(value)
            except ValueError:
                raise DatasetError(f"{path}:{lineno}: {tok!r} is not index:value; the file "
                                   f"is not in LIBSVM format") from None
            if not sep or not 1 <= j <= n_features:
                raise DatasetError(f"{path}:{lineno}: feature index {index} is outside 1.."
                                   f"{n_features} of the catalog entry for {spec.name!r}")
            rows.append(row)
            cols.append(j - 1)
            vals.append(v)
    X = np.zeros((len(labels), n_features), dtype=X_DTYPE)
    X[np.array(rows, dtype=np.intp), np.array(cols, dtype=np.intp)] = vals
    return X, np.array(labels, dtype=Y_DTYPE), None


PARSERS: dict[str, Callable[[Path, DatasetSpec, FileSpec], Parsed]] = {
    "delimited": parse_delimited,
    "libsvm": parse_libsvm,
}


def _check_rows(path: Path, spec: DatasetSpec, file: FileSpec, n: int) -> None:
    if n != file.rows:
        raise DatasetError(f"{path}: {n} data rows, expected {file.rows} for "
                           f"{spec.name!r}; the file may be damaged: delete it and fetch "
                           f"{spec.name!r} again")


def parse_file(path: Path, spec: DatasetSpec, file: FileSpec, *, with_test: bool = False
               ) -> tuple[np.ndarray, ...]:
    """Parse one file of ``spec`` with the parser its catalog entry names.

    Also checks the row count of the file against ``file.rows``. Returns ``(X, y)``, or
    ``(X, y, test)`` with ``with_test=True`` (``test`` is None unless the entry has a split
    column).
    """
    try:
        parser = PARSERS[spec.format.parser]
    except KeyError:
        raise ValueError(f"catalog entry {spec.name!r} names parser {spec.format.parser!r}, "
                         f"which reads single files only: use parse_dataset; single-file "
                         f"parsers: {', '.join(PARSERS)}") from None
    X, y, test = parser(Path(path), spec, file)
    _check_rows(Path(path), spec, file, len(y))
    return (X, y, test) if with_test else (X, y)


# ---------------------------------------------------------------------------------------------
# MNIST idx

_IDX_TYPES = {0x08: np.uint8, 0x09: np.int8, 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4",
              0x0E: ">f8"}


def read_idx(path: Path) -> np.ndarray:
    """Read an idx file (MNIST format), gzip-compressed or not, as an array."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            magic = fh.read(2)
        opener = gzip.open if magic == b"\x1f\x8b" else open
        with opener(path, "rb") as fh:
            data = fh.read()
    except (OSError, EOFError) as exc:
        raise DatasetError(f"cannot read {path}: {exc}; delete it and fetch it again") from None
    if len(data) < 4 or data[:2] != b"\x00\x00" or data[2] not in _IDX_TYPES:
        raise DatasetError(f"{path}: not an idx file (bad magic number)")
    ndim = data[3]
    header = 4 + 4 * ndim
    shape = struct.unpack(f">{ndim}I", data[4:header])
    dtype = np.dtype(_IDX_TYPES[data[2]])
    count = int(np.prod(shape)) if shape else 1
    if len(data) != header + count * dtype.itemsize:
        raise DatasetError(f"{path}: idx header says shape {shape} but the file holds "
                           f"{len(data) - header} data bytes; the file is damaged")
    return np.frombuffer(data, dtype=dtype, offset=header).reshape(shape)


def _parse_idx(spec: DatasetSpec, paths: Sequence[Path]) -> Parsed:
    """Images/labels pairs in catalog order -> (X, y, test_mask)."""
    Xs, ys, tests = [], [], []
    pending: tuple[Path, FileSpec, np.ndarray] | None = None
    for path, f in zip(paths, spec.files, strict=True):
        arr = read_idx(path)
        if f.role == "images":
            if arr.ndim < 2:
                raise DatasetError(f"{path}: an images file needs 2+ dimensions, got {arr.shape}")
            pending = (path, f, arr.reshape(arr.shape[0], -1))
            continue
        if pending is None or arr.ndim != 1:
            raise ValueError(f"catalog entry {spec.name!r}: idx labels must follow images")
        ipath, ifile, images = pending
        pending = None
        _check_rows(ipath, spec, ifile, images.shape[0])
        _check_rows(path, spec, f, arr.shape[0])
        if images.shape[1] != len(spec.features):
            raise DatasetError(f"{ipath}: {images.shape[1]} values per image, expected "
                               f"{len(spec.features)}")
        classes = np.array([int(c) for c in spec.classes])
        codes = np.searchsorted(classes, arr)
        bad = (codes >= len(classes)) | (classes[np.minimum(codes, len(classes) - 1)] != arr)
        if bad.any():
            raise DatasetError(f"{path}: label {int(arr[np.argmax(bad)])} is not one of "
                               f"{_shorten(spec.classes)}")
        Xs.append(images.astype(X_DTYPE))
        ys.append(codes.astype(Y_DTYPE))
        tests.append(np.full(len(arr), f.split == "test"))
    return np.concatenate(Xs), np.concatenate(ys), np.concatenate(tests)


def parse_dataset(spec: DatasetSpec, paths: Sequence[Path]) -> Parsed:
    """Parse all files of a files entry; return ``(X, y, test_mask)``.

    Rows of all files are concatenated in catalog order; ``test_mask`` marks the rows of the
    test files (or of the split column's test value), None when the entry has no predefined
    split.
    """
    if spec.format.parser == "idx":
        X, y, test = _parse_idx(spec, [Path(p) for p in paths])
    else:
        parts = [parse_file(Path(p), spec, f, with_test=True)
                 for p, f in zip(paths, spec.files, strict=True)]
        X = np.concatenate([p[0] for p in parts]).astype(X_DTYPE, copy=False)
        y = np.concatenate([p[1] for p in parts]).astype(Y_DTYPE, copy=False)
        test = np.concatenate([
            p[2] if p[2] is not None else np.full(len(p[1]), f.split == "test")
            for p, f in zip(parts, spec.files, strict=True)])
    return X, y, (test if spec.test_rows is not None else None)
