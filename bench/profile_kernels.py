"""Where the compiled PC kernels spend their time: `perf` samples of the live chance at one position of the 7-bag
PC loop, shared out among the numba functions (the inlined ones too, by their own machine code).

    python bench/profile_kernels.py [s3pc4k0] [--repeat 3] [--rules nrs-180]

perf sees numba's machine code as anonymous memory, so this script compiles the kernels afresh in a temporary
numba cache (a kernel loaded from the cache keeps no symbols, about a minute), asks each compiled library where
its functions start, plays the game up to the position (caches emptied), records the process with `perf record -p`
while the position's chance is worked out, `--repeat` times, and names each sample by the nearest function start
below it. Needs `perf`.
Prints the share of samples per function, then per module.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import importlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNEL_MODULES = ("jit_trie", "jit_search", "jit_tiling", "jit_table", "jit_placements")


def _symbols() -> list[tuple[int, str]]:
    """(start address, module.function) of every compiled function the kernels' libraries define."""
    import numba

    out = []
    for name in KERNEL_MODULES:
        module = importlib.import_module(f"ai.pc.{name}")
        for value in vars(module).values():
            if not isinstance(value, numba.core.registry.CPUDispatcher):
                continue
            for result in value.overloads.values():
                library = result.library  # type: ignore[attr-defined]  # numba's compile result, untyped
                for function in library._final_module.functions:
                    if function.is_declaration:
                        continue
                    address = library.get_pointer_to_function(function.name)
                    if address:
                        out.append((address, _readable(function.name)))
    return sorted(set(out))


def _readable(mangled: str) -> str:
    """ai.pc.jit_tiling._search from numba's mangled name (_ZN2ai2pc10jit_tiling7_searchB3v24...)."""
    if not mangled.startswith("_ZN"):
        return mangled
    parts, i = [], 3
    while i < len(mangled) and mangled[i].isdigit():
        j = i
        while mangled[j].isdigit():
            j += 1
        size = int(mangled[i:j])
        parts.append(mangled[j : j + size])
        i = j + size
    return ".".join(parts[2:4]) if len(parts) >= 4 else mangled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("position", nargs="?", default="s3pc4k0", help="a loop position, as bench/pc.py names it")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", default="srs", help="the rule set, as bench/pc.py's groups name them (nrs-180)")
    args = parser.parse_args()
    if shutil.which("perf") is None:
        print("perf is not installed")
        return 1
    if "NUMBA_CACHE_DIR" not in os.environ:  # compile afresh: run again with a cache of our own
        cache = tempfile.mkdtemp(prefix="stackcoach-numba-")
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        try:
            return subprocess.run([sys.executable, *sys.argv], env=env, check=False).returncode
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    sys.path.insert(0, str(ROOT))
    pc_bench = importlib.import_module("bench.pc")
    from game.randomizer import make_randomizer

    rules = pc_bench.rules_named(args.rules)
    bag = make_randomizer("7bag", 0)
    try:
        before, pos = pc_bench.loop_position(args.position, rules)
    except ValueError as error:
        print(error)
        return 1

    def record(output: Path) -> float:
        """The game up to the position as bench/pc.py's chance group plays it (caches emptied first), then the
        position itself under `perf record`: its thread CPU ms."""
        pc_bench.clear_caches()
        for earlier in before:
            pc_bench.ask(earlier, rules, bag)
        recorder = subprocess.Popen(["perf", "record", "-q", "-F", "4999", "-p", str(os.getpid()), "-o", str(output)])
        time.sleep(1.0)  # perf attaches
        try:
            started = time.thread_time()
            pc_bench.ask(pos, rules, bag)
            return (time.thread_time() - started) * 1000
        finally:
            recorder.send_signal(signal.SIGINT)
            recorder.wait()

    pc_bench._warm_up(rules)
    folder = Path(tempfile.mkdtemp(prefix="stackcoach-perf-"))
    record(folder / "warm.data")  # every kernel the position uses, compiled
    symbols = _symbols()
    starts = [address for address, _ in symbols]
    ms = []
    by_function: collections.Counter[str] = collections.Counter()
    for i in range(args.repeat):
        data = folder / f"{i}.data"
        ms.append(record(data))
        samples = subprocess.run(["perf", "script", "-i", str(data), "-F", "ip,sym"], capture_output=True, text=True)
        for line in samples.stdout.splitlines():
            fields = line.split()
            if not fields:
                continue
            if len(fields) > 1 and fields[1] != "[unknown]":
                by_function["(not compiled) " + fields[1]] += 1
                continue
            at = bisect.bisect_right(starts, int(fields[0], 16)) - 1
            by_function[symbols[at][1] if at >= 0 else "(unknown)"] += 1
    shutil.rmtree(folder, ignore_errors=True)
    total = sum(by_function.values()) or 1
    print(f"{args.position}: live chance {', '.join(f'{m:.0f}' for m in ms)} ms thread CPU; {total} samples")
    for name, count in by_function.most_common(15):
        print(f"{100 * count / total:6.1f}%  {name}")
    by_module: collections.Counter[str] = collections.Counter()
    for name, count in by_function.items():
        by_module[name.split(".")[0] if name.startswith("jit_") else "(not compiled)"] += count
    print("by module: " + ", ".join(f"{name} {100 * count / total:.0f}%" for name, count in by_module.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
