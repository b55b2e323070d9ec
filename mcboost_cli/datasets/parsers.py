"""Parsers: one data file on disk -> ``(X, y)`` arrays, driven by a catalog entry.

Every parser has the signature ``parser(path, spec, file) -> (X, y)`` with ``X`` of dtype
``X_DTYPE`` and shape ``(file.rows, spec.n_features)`` (categorical columns hold their codes,
NaN = missing) and ``y`` of dtype ``Y_DTYPE`` holding class codes. Parsers are registered in
:data:`PARSERS` under the name a catalog entry gives as ``format.parser``; new file formats
(LIBSVM, ARFF, ...) are added there.

Errors in a file are reported as :class:`DatasetError` naming the file, the line and what was
expected, because a damaged or unexpected file is something the user can act on (re-fetch,
fix the mirror), not a bug.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np

from .._dtypes import X_DTYPE, Y_DTYPE
from .catalog import DatasetError, DatasetSpec, FileSpec

__all__ = ["PARSERS", "parse_file", "parse_delimited"]


def _shorten(values: tuple[str, ...], limit: int = 12) -> str:
    shown = ", ".join(values[:limit])
    return shown + (", ..." if len(values) > limit else "")


def _encode(col: np.ndarray, values: tuple[str, ...], missing: tuple[str, ...], what: str,
            path: Path, linenos: list[int]) -> np.ndarray:
    """Codes (as float, NaN for missing) of a column of category names."""
    # Map each distinct value once instead of every cell: files have few distinct values.
    uniq, inverse = np.unique(col, return_inverse=True)
    lookup = {v: float(i) for i, v in enumerate(values)}
    lookup.update({m: np.nan for m in missing})
    for u in uniq.tolist():          # tolist: plain str, so messages show 'x', not np.str_('x')
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


def parse_delimited(path: Path, spec: DatasetSpec, file: FileSpec
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Parse a delimited text file (CSV-like, or whitespace-separated when ``sep`` is None).

    The first ``file.skip_lines`` lines and all blank lines are ignored; cells are stripped of
    surrounding spaces; the class column is ``spec.format.class_column`` and the remaining
    columns are the features in catalog order.

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

    Raises
    ------
    DatasetError
        Unreadable file, wrong number of fields, unknown category or class, non-numeric cell.
    """
    fmt = spec.format
    n_cols = len(spec.features) + 1
    rows: list[list[str]] = []
    linenos: list[int] = []
    try:
        # Universal newlines, so CRLF copies parse the same as the LF originals.
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if lineno <= file.skip_lines or not line.strip():
                    continue
                cells = [c.strip() for c in line.split(fmt.sep)]
                if len(cells) != n_cols:
                    sep = "whitespace" if fmt.sep is None else repr(fmt.sep)
                    raise DatasetError(
                        f"{path}:{lineno}: {len(cells)} fields separated by {sep}, expected "
                        f"{n_cols}; the file does not match the catalog entry for {spec.name!r}")
                rows.append(cells)
                linenos.append(lineno)
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path}: not a UTF-8 text file ({exc.reason} at byte {exc.start}); "
                           f"delete it and fetch {spec.name!r} again") from None
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc.strerror or exc}") from None

    if not rows:
        return np.empty((0, len(spec.features)), X_DTYPE), np.empty(0, Y_DTYPE)

    table = np.array(rows, dtype=str)
    class_col = fmt.class_column % n_cols
    y = _encode(table[:, class_col], spec.classes, (), "class", path, linenos)
    feature_cols = [j for j in range(n_cols) if j != class_col]
    X = np.empty((len(rows), len(spec.features)), dtype=X_DTYPE)
    for k, (j, feat) in enumerate(zip(feature_cols, spec.features, strict=True)):
        what = f"feature {feat.name!r}"
        if feat.categorical:
            X[:, k] = _encode(table[:, j], feat.values, fmt.missing, what, path, linenos)
        else:
            X[:, k] = _numbers(table[:, j], fmt.missing, what, path, linenos)
    return X, y.astype(Y_DTYPE)


PARSERS: dict[str, Callable[[Path, DatasetSpec, FileSpec], tuple[np.ndarray, np.ndarray]]] = {
    "delimited": parse_delimited,
}


def parse_file(path: Path, spec: DatasetSpec, file: FileSpec) -> tuple[np.ndarray, np.ndarray]:
    """Parse one file of ``spec`` with the parser its catalog entry names.

    Also checks the row count of the file against ``file.rows``.
    """
    try:
        parser = PARSERS[spec.format.parser]
    except KeyError:
        raise ValueError(f"catalog entry {spec.name!r} names unknown parser "
                         f"{spec.format.parser!r}; known: {', '.join(PARSERS)}") from None
    X, y = parser(Path(path), spec, file)
    if len(y) != file.rows:
        raise DatasetError(f"{path}: {len(y)} data rows, expected {file.rows} for "
                           f"{spec.name!r}; the file may be damaged: delete it and fetch "
                           f"{spec.name!r} again")
    return X, y
