"""Checks of every place a run writes to, made before any work starts.

A run writes its result store (``--store``), its tables (``--results-dir``), optionally the
splits (``--export-splits``) and, when a dataset must be downloaded, the dataset cache
(``$MCBOOST_DATA``). A location that cannot be written used to fail late — the tables after
every cell had been computed, with a traceback — so :func:`check_run_paths` looks at them all
first and raises one ``UserError`` line naming the location, the option or variable that set
it, and what would be right. It creates nothing (``--dry-run`` leaves no trace).

Writability is asked of the operating system (``os.access``) on the location, or on its
nearest existing parent when the location is still to be created; a parent that is a regular
file is caught whoever runs the command (root may write anywhere else).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import UserError


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (as anything)."""
    p = path
    while not (p.exists() or p.is_symlink()) and p != p.parent:
        p = p.parent
    return p


def _can_write(path: Path) -> bool:
    """Whether this user may write the file ``path``, or create files in the folder."""
    return os.access(path, os.W_OK | (os.X_OK if path.is_dir() else 0))


def check_output_dir(path, what: str, fix: str) -> None:
    """Raise UserError unless ``path`` is a writable folder or can be created as one.

    ``what`` names the location in the message (e.g. "--results-dir /x"); ``fix`` says what
    would be right (e.g. "give a writable folder with --results-dir")."""
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            raise UserError(f"{what}: {p} is a file, not a folder; {fix}")
        if not _can_write(p):
            raise UserError(f"{what}: folder {p} is not writable (permission denied); {fix}")
        return
    base = _nearest_existing(p.absolute().parent)
    if not base.is_dir():
        raise UserError(f"{what}: cannot create folder {p}: {base} is a file, not a folder; "
                        f"{fix}")
    if not _can_write(base):
        raise UserError(f"{what}: cannot create folder {p}: {base} is not writable "
                        f"(permission denied); {fix}")


def check_output_file(path, what: str, fix: str) -> None:
    """Raise UserError unless ``path`` is a writable file, or can be created, in a folder
    that can be written (SQLite writes its journal beside the file)."""
    p = Path(path)
    if p.exists():
        if p.is_dir():
            raise UserError(f"{what}: {p} is a folder; give a file path ({fix})")
        if not _can_write(p):
            raise UserError(f"{what}: {p} is not writable (permission denied); {fix}")
    check_output_dir(p.absolute().parent, what, fix)


def check_data_home() -> None:
    """Raise UserError when the dataset cache location is or lies under a regular file.

    Whether it can be written is left to a download that needs it (a read-only cache that
    already holds every file is fine)."""
    from ..datasets.download import data_home
    home = data_home()
    env = os.environ.get("MCBOOST_DATA", "").strip()
    what = f"MCBOOST_DATA={env}" if env else f"dataset cache {home}"
    fix = ("set MCBOOST_DATA to a folder (the dataset cache)" if env
           else "set MCBOOST_DATA to a folder for the dataset cache")
    base = _nearest_existing(home.absolute())
    if base.exists() and not base.is_dir():
        where = "is a file" if base == home.absolute() else f"lies under the file {base}"
        raise UserError(f"{what}: {home} {where}, not a folder; {fix}")


def check_run_paths(store_file, out_dir, export_dir=None, *, store_given: bool = True,
                    results_given: bool = True) -> None:
    """Check every location a run writes to (see the module docstring). ``store_given`` and
    ``results_given`` say whether the user named the store and the results folder (else
    they are defaults, named as such)."""
    check_output_dir(out_dir, f"--results-dir {out_dir}" if results_given
                     else f"results folder {out_dir}",
                     "give a writable folder with --results-dir")
    check_output_file(store_file, f"--store {store_file}" if store_given
                      else f"result store {store_file}",
                      "give a writable file path with --store")
    if export_dir:
        check_output_dir(export_dir, f"--export-splits {export_dir}",
                         "give a writable folder with --export-splits")
    check_data_home()
