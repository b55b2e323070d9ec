"""Where a Python script's time goes among the compiled kernels: a `perf` profile by kernel.

    python tools/kernel_profile.py [-F HZ] [-o PERF_DATA] [--lines KERNEL] SCRIPT [ARGS...]

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

``--lines KERNEL`` also splits the samples of the kernels whose name contains KERNEL by source
line (inlined helpers show as their own lines; "line 0" is code numba gives no line, such as
loop control): the script runs with ``NUMBA_DEBUGINFO=1``, so numba's assembly of each library
carries ``.loc`` directives; the code in memory, disassembled (``objdump``), is matched to that
assembly by its sequence of mnemonics (``difflib``; the two differ in places, as the code in
memory can be another library's copy of the same function, so lines are approximate where the
match is not exact, and the match ratio is printed).
Needs ``perf`` (Linux, ``perf_event_paranoid`` <= 2), and ``objdump`` for ``--lines``.
"""

from __future__ import annotations

import argparse
import atexit
import bisect
import collections
import ctypes
import difflib
import functools
import gc
import os
import pickle
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
    """(address, name, symbol, library) of every compiled function of every numba dispatcher
    in this process."""
    from numba.core.dispatcher import Dispatcher

    found: dict = {}
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
                    if address and address not in found:
                        found[address] = (address, kernel_name(name), name, lib)
    return [found[a] for a in sorted(found)]


def _mapped_end(address: int) -> int:
    """The end of the memory mapping that holds ``address`` (reads stop there)."""
    with open("/proc/self/maps") as fh:
        for line in fh:
            lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
            if lo <= address < hi:
                return hi
    return address


def _write_perf_map() -> None:
    functions = _compiled_functions()
    sizes = []
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for k, (address, name, _, _) in enumerate(functions):
            size = functions[k + 1][0] - address if k + 1 < len(functions) else 1 << 16
            size = min(size, 1 << 20)
            sizes.append(size)
            fh.write(f"{address:x} {size:x} {name}\n")
    want = os.environ.get("KERNEL_PROFILE_LINES")
    if want:
        dump, asm_of = [], {}
        for (address, name, symbol, lib), size in zip(functions, sizes):
            if want not in name:
                continue
            # One library holds several functions: its assembly is emitted once (and
            # pickled once: the same string).
            if id(lib) not in asm_of:
                try:
                    asm_of[id(lib)] = lib.get_asm_str()
                except Exception:
                    asm_of[id(lib)] = None
            asm = asm_of[id(lib)]
            if asm is None:
                continue
            size = min(size, _mapped_end(address) - address)
            dump.append((address, name, symbol, ctypes.string_at(address, size), asm))
        with open(os.environ["KERNEL_PROFILE_DUMP"], "wb") as fh:
            pickle.dump({"pid": os.getpid(), "functions": dump}, fh)


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
        if _is_kernel(symbol):
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


def _asm_instructions(asm: str, symbol: str):
    """(mnemonic, (file, line)) of each instruction of ``symbol`` in numba's assembly."""
    files, lines = {}, asm.splitlines()
    for line in lines:
        m = re.match(r'\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]*)")?', line)
        if m:
            files[m.group(1)] = os.path.basename(m.group(3) or m.group(2))
    try:
        start = next(i for i, line in enumerate(lines)
                     if line.startswith(symbol + ":") or line.startswith(f'"{symbol}":'))
    except StopIteration:
        return []
    out, where = [], ("?", 0)
    for line in lines[start + 1:]:
        text = line.strip()
        if line.startswith(".Lfunc_end"):
            break
        if not text or text.startswith("#") or text.endswith(":"):
            continue
        if text.startswith(".loc"):
            p = text.split()
            where = (files.get(p[1], p[1]), int(p[2]))
        elif not text.startswith("."):
            out.append((text.split()[0], where))
    return out


def _disassembly(address: int, code: bytes):
    """(address, mnemonic) of the machine code, alignment padding left out."""
    with tempfile.NamedTemporaryFile(suffix=".bin") as fh:
        fh.write(code)
        fh.flush()
        text = subprocess.run(["objdump", "--insn-width=16", "-D", "-b", "binary", "-m",
                               "i386:x86-64", f"--adjust-vma={address:#x}", fh.name],
                              capture_output=True, text=True, check=True).stdout
    out = []
    for line in text.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} )+\s*(\S+)(.*)", line)
        if m:
            mnemonic, rest = m.group(2), m.group(3)
            if (mnemonic.startswith("nop") or mnemonic in ("data16", "cs")
                    or (mnemonic == "xchg" and "%ax,%ax" in rest)):
                continue
            out.append((int(m.group(1), 16), mnemonic))
    return out


def _mnemonic(m: str) -> str:
    # AT&T size suffixes are printed by one and not the other (movq / mov).
    return m[:4] if m in ("movsd", "vmovsd") else m.rstrip("qlwb")[:4]


def _report_lines(perf_data: str, dump_path: str, top: int = 40) -> None:
    with open(dump_path, "rb") as fh:
        dump = pickle.load(fh)
    ips: collections.Counter = collections.Counter()
    out = subprocess.run(["perf", "script", "-i", perf_data, "-F", "pid,ip"],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 2 and int(p[0]) == dump["pid"]:
            ips[int(p[1], 16)] += 1
    by_line: collections.Counter = collections.Counter()
    for address, name, symbol, code, asm in dump["functions"]:
        here = {ip: c for ip, c in ips.items() if address <= ip < address + len(code)}
        if not here:
            continue
        dis = _disassembly(address, code)
        ins = _asm_instructions(asm, symbol)
        match = difflib.SequenceMatcher(None, [_mnemonic(m) for m, _ in ins],
                                        [_mnemonic(m) for _, m in dis], autojunk=False)
        to_asm = [None] * len(dis)
        for block in match.get_matching_blocks():
            for t in range(block.size):
                to_asm[block.b + t] = block.a + t
        for k in range(1, len(dis)):        # unmatched: the line of the last matched one
            if to_asm[k] is None:
                to_asm[k] = to_asm[k - 1]
        matched = sum(b.size for b in match.get_matching_blocks())
        print(f"{name}: {sum(here.values())} samples; {matched} of {len(dis)} instructions "
              "matched to numba's assembly")
        starts = [a for a, _ in dis]
        for ip, c in here.items():
            k = bisect.bisect_right(starts, ip) - 1
            where = ins[to_asm[k]][1] if k >= 0 and to_asm[k] is not None else ("?", 0)
            by_line[where] += c
    total = sum(by_line.values())
    if not total:
        print("no samples in the kernels asked for")
        return
    for (filename, lineno), c in by_line.most_common(top):
        text = _source_line(filename, lineno) if lineno else ""
        print(f"{100 * c / total:5.1f}% {filename}:{lineno:<5d} {text}")


@functools.lru_cache(maxsize=None)
def _source_lines(filename: str) -> tuple:
    """The lines of the first file named ``filename`` under the current folder (best effort:
    the assembly names files without their folder)."""
    for root, dirs, names in os.walk("."):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "results"]
        if filename in names:
            with open(os.path.join(root, filename)) as fh:
                return tuple(line.strip() for line in fh)
    return ()


def _source_line(filename: str, lineno: int) -> str:
    lines = _source_lines(filename)
    return lines[lineno - 1][:80] if 0 < lineno <= len(lines) else ""


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
    parser.add_argument("--lines", metavar="KERNEL", default=None,
                        help="split the samples of kernels named like KERNEL by source line")
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    ns = parser.parse_args()
    data = ns.output or os.path.join(tempfile.mkdtemp(prefix="kernel-profile-"), "perf.data")
    env = dict(os.environ, NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="kernel-profile-cache-"))
    dump_path = os.path.join(os.path.dirname(os.path.abspath(data)), "kernels.pickle")
    if ns.lines:
        env.update(NUMBA_DEBUGINFO="1", KERNEL_PROFILE_LINES=ns.lines,
                   KERNEL_PROFILE_DUMP=dump_path)
    run = subprocess.run(["perf", "record", "-q", "-F", str(ns.frequency), "-o", data,
                          sys.executable, os.path.abspath(__file__), _CHILD, ns.script,
                          *ns.args], env=env)
    if run.returncode != 0:
        sys.exit(f"kernel_profile: the script or perf failed (exit {run.returncode})")
    _report(data)
    if ns.lines:
        print()
        _report_lines(data, dump_path)


if __name__ == "__main__":
    main()
