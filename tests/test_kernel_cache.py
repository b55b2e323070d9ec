"""The compiled kernels' cache folder follows their sources (``mcboost_cli._kernel_cache``):
a change of any kernel source gives a new folder, a change elsewhere does not, and a user's
``NUMBA_CACHE_DIR`` wins."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from mcboost_cli._kernel_cache import (KERNEL_SOURCES, PACKAGE, kernel_cache_dir,
                                       kernel_sources_digest)


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__", "*.nb*"))
    return root


def test_digest_changes_with_a_kernel_source_only(tmp_path):
    root = _copy(tmp_path)
    digest = kernel_sources_digest(root)
    assert digest == kernel_sources_digest(PACKAGE)          # the bytes, not the place
    # A change in a module a kernel inlines from another file (numba's own cache misses it).
    callee = root / "learners" / "margin_search_fast.py"
    callee.write_text(callee.read_text() + "\n# changed\n")
    changed = kernel_sources_digest(root)
    assert changed != digest
    # The constants kernels are compiled with are part of it too.
    dtypes = root / "_dtypes.py"
    dtypes.write_text(dtypes.read_text() + "\n")
    assert kernel_sources_digest(root) not in (digest, changed)
    # Code without kernels (report, runner, CLI) does not recompile them.
    before = kernel_sources_digest(root)
    for name in ("cli.py", "report/tables.py", "runner/store.py"):
        f = root / name
        f.write_text(f.read_text() + "\n# changed\n")
    assert kernel_sources_digest(root) == before
    # A new kernel module counts as well.
    (root / "learners" / "new_kernel.py").write_text("X = 1\n")
    assert kernel_sources_digest(root) != before
    assert all((PACKAGE / s).exists() for s in KERNEL_SOURCES)


def test_the_folder_and_numba_use_it_unless_the_user_chose_one(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    code = ("import mcboost_cli, numba, os; "
            "print(os.environ['NUMBA_CACHE_DIR']); print(numba.config.CACHE_DIR)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    expected = str(tmp_path / "xdg" / "mcboost" / "kernels" / kernel_sources_digest())
    assert out == [expected, expected]
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == [str(tmp_path / "mine")] * 2
    assert kernel_cache_dir().name == kernel_sources_digest()


def test_other_versions_folders_unused_for_30_days_are_removed(tmp_path):
    from mcboost_cli._kernel_cache import STALE_DAYS, prune_stale_kernel_dirs
    kernels = tmp_path / "kernels"
    current, recent, stale = (kernels / d for d in ("0" * 16, "1" * 16, "2" * 16))
    other = kernels / "notes"                 # not a digest's name: never touched
    for d in (current, recent, stale, other):
        (d / "sub").mkdir(parents=True)
        (d / "sub" / "k.nbi").write_bytes(b"x")
    old = time.time() - (STALE_DAYS + 1) * 86400
    for d in (current, stale, other):         # the current one is kept however old
        os.utime(d, (old, old))
    os.utime(recent, (time.time() - (STALE_DAYS - 1) * 86400,) * 2)
    assert prune_stale_kernel_dirs(current) == [stale]
    assert sorted(p.name for p in kernels.iterdir()) == ["0" * 16, "1" * 16, "notes"]


def test_starting_marks_the_folder_used_and_prunes(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    kernels = tmp_path / "xdg" / "mcboost" / "kernels"
    current, stale = kernels / kernel_sources_digest(), kernels / ("f" * 16)
    for d in (current, stale):
        d.mkdir(parents=True)
        os.utime(d, (1.0e9, 1.0e9))           # 2001
    subprocess.run([sys.executable, "-c", "import mcboost_cli"], env=env, check=True)
    assert not stale.exists()
    assert current.stat().st_mtime > time.time() - 3600


_CALLER_AND_CALLEE = '''
from numba import njit


@njit(cache=True)
def twice(x):
    return 2 * x


@njit(cache=True)
def twice_plus_one(x):
    return twice(x) + 1
'''

# Compiles the two kernels in a fresh cache with numba's serialisation of compiled code broken
# the way numba breaks it ("no compiled object yet", ``tolerate_cache_write_failures``), and
# prints the caller's result and the warnings.
_BROKEN_CACHE_WRITE = '''
import sys, warnings
{imports}
from numba.core import compiler

def _no_object(self):
    raise RuntimeError("no compiled object yet for <Library 'twice'>")

compiler.CompileResult._reduce = _no_object
sys.path.insert(0, sys.argv[1])
import kernels_under_test as k
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(k.twice_plus_one(20))
print(len(caught), "|".join(str(w.message) for w in caught))
'''


def _run_broken_cache_write(tmp_path, imports):
    (tmp_path / "kernels_under_test.py").write_text(_CALLER_AND_CALLEE)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-c", _BROKEN_CACHE_WRITE.format(imports=imports),
                           str(tmp_path)], env=env, capture_output=True, text=True)


def test_a_kernel_numba_cannot_write_to_its_cache_still_runs(tmp_path):
    # numba alone: the failed cache write fails the call that compiled the kernel.
    plain = _run_broken_cache_write(tmp_path, "import numba")
    assert plain.returncode != 0 and "no compiled object yet" in plain.stderr
    # With mcboost imported the kernels run from memory: the right result, one warning per
    # kernel that could not be written (the callee, compiled inside the caller's typing,
    # and the caller), each naming it.
    ours = _run_broken_cache_write(tmp_path, "import mcboost_cli")
    assert ours.returncode == 0, ours.stderr
    result, warned = ours.stdout.strip().splitlines()
    assert result == "41"
    count, messages = warned.split(" ", 1)
    assert count == "2"
    assert "twice" in messages and "twice_plus_one" in messages
    assert "no compiled object yet" in messages and "runs from memory" in messages
