"""Where a Python script's time goes among the compiled kernels: a `perf` profile by kernel.

    python tools/kernel_profile.py [-F HZ] [-o PERF_DATA] SCRIPT [ARGS...]

`perf` samples machine code, and numba's code lives in anonymous memory that `perf report`
cannot name (no ELF file, no perf map: llvmlite is built without LLVM's perf listener). This
tool runs SCRIPT under ``perf record`` with a hook that, when the script ends, writes the map
perf reads for such code (``/tmp/perf-<pid>.map``: start, size, name of every compiled
function), then prints the samples per kernel (``module.function``): its share of the samples
in compiled code and of all samples (the rest is Python, numba's compiler, the kernel).

``NUMBA_CACHE_DIR`` is a new temporary folder, so every kernel is compiled in the process:
only then does numba keep the module of each library, and with it the functions LLVM did not
inline into their callers (a kernel loaded from the cache shows as its entry point alone).
The compile is sampled too; it is not compiled code, so the per-kernel shares leave it out.
Kernels inlined by numba (``inline="always"``) or by LLVM count as their caller. What
ALGORITHMS.md, "The budget's next targets", 5 says of Phase I on Letter was measured with it.
Needs ``perf`` (Linux, ``perf_event_paranoid`` <= 2).
"""

from __future__ import annotations

import argparse
import atexit
import collections
import gc
import os
import re
import runpy
import subprocess
import sys
import tempfile

_CHILD = "--kernel-profile-child"
# A numba symbol: _ZN <len><name> ... then abi tags (B...) and the argument types.
_NUMBA_SYMBOL = re.compile(r"_ZN((?:\d+[A-Za-z_][A-Za-z0-9_]*)+)")


def kernel_name(symbol: str) -> str:
    """``module.function`` of a numba symbol (the last two components of its mangled path,
    the abi tag ``B<n>v<n>...`` cut), the symbol itself otherwise; wrappers numba makes for
    Python (``cpython.``, ``cfunc.``) are named as such."""
    m = _NUMBA_SYMBOL.search(symbol)
    if not m:
        return symbol
    s, parts, i = m.group(1), [], 0
    while i < len(s) and s[i].isdigit():
        j = i
        while s[j].isdigit():
            j += 1
        n = int(s[i:j])
        parts.append(s[j:j + n])
        i = j + n
    parts[-1] = re.sub(r"B\d+v\d+.*$", "", parts[-1])
    name = ".".join(parts[-2:])
    if symbol.startswith("cfunc.") or parts[0] == "cpython":
        name += " (Python wrapper)"
    return name


def _compiled_functions():
    """(address, name) of every compiled function of every numba dispatcher in this process."""
    from numba.core.dispatcher import Dispatcher

    found = set()
    # Every live dispatcher: those of modules and of the script run (``_child``) alike.
    for obj in gc.get_objects():
        if isinstance(obj, Dispatcher):
            for cres in list(obj.overloads.values()):
                lib = cres.library
                names = [cres.fndesc.llvm_func_name]
                try:
                    names += [f.name for f in lib._final_module.functions
                              if not f.is_declaration]
                except Exception:        # loaded from a cache: the entry point alone
                    pass
                for name in names:
                    try:
                        address = lib.get_pointer_to_function(name)
                    except Exception:
                        continue
                    if address:
                        found.add((address, kernel_name(name)))
    return sorted(found)


def _write_perf_map() -> None:
    functions = _compiled_functions()
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for k, (address, name) in enumerate(functions):
            size = functions[k + 1][0] - address if k + 1 < len(functions) else 1 << 16
            fh.write(f"{address:x} {min(size, 1 << 20):x} {name}\n")


_script_globals: list = []


def _child(argv: list[str]) -> None:
    atexit.register(_write_perf_map)
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
    # The script's globals are kept alive to the end, so its kernels are found then.
    _script_globals.append(runpy.run_path(argv[0], run_name="__main__"))


def _report(perf_data: str) -> None:
    out = subprocess.run(["perf", "report", "-i", perf_data, "--sort", "sym", "--stdio"],
                         capture_output=True, text=True, check=True).stdout
    shares: collections.Counter = collections.Counter()
    other = 0.0
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+\[(.)\]\s+(.+)$", line)
        if not m:
            continue
        pct, symbol = float(m.group(1)), m.group(3).strip()
        if "." in symbol and not symbol.startswith("0x") and _is_kernel(symbol):
            shares[symbol] += pct
        else:
            other += pct
    compiled = sum(shares.values())
    print(f"compiled code: {compiled:.1f}% of the samples; Python, numba's compiler, the "
          f"kernel and libraries: {other:.1f}%")
    print(f"{'of compiled':>11} {'of all':>7}  kernel")
    for name, pct in shares.most_common():
        if pct >= 0.05:
            print(f"{100 * pct / compiled:10.1f}% {pct:6.2f}%  {name}")


def _is_kernel(symbol: str) -> bool:
    # Names this tool wrote: module.function, with no spaces but the wrapper note.
    return re.fullmatch(r"[A-Za-z_][\w]*\.[A-Za-z_]\w*( \(Python wrapper\))?", symbol) is not None


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == _CHILD:
        _child(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-F", "--frequency", type=int, default=499, help="samples a second")
    parser.add_argument("-o", "--output", default=None, help="perf data file (kept)")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    ns = parser.parse_args()
    data = ns.output or os.path.join(tempfile.mkdtemp(prefix="kernel-profile-"), "perf.data")
    env = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="kernel-profile-cache-"))
    run = subprocess.run(["perf", "record", "-q", "-F", str(ns.frequency), "-o", data,
                          sys.executable, os.path.abspath(__file__), _CHILD, ns.script,
                          *ns.args], env=env)
    if run.returncode != 0:
        sys.exit(f"kernel_profile: the script or perf failed (exit {run.returncode})")
    _report(data)


if __name__ == "__main__":
    main()
