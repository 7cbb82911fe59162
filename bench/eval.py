"""Board-evaluation speed: pure-Python LinearEvaluator.board against the numba port (ai.jit_eval) on the same fields.

    python bench/eval.py [--boards N] [--repeat R] [--batch B] [--weights modern] [--seed S] [--no-compile]

Field groups: N seeded random fields per height band (columns to random heights, holes punched, overhangs added),
and N fields from greedy one-piece play with the pure evaluator (7-bag, every reachable placement). Every value is
checked against the pure evaluator first. Each timing loops over the whole group; a repeat times every method
once, in a rotating order, so background load hits them alike; the table gives the median over repeats of the
time per board (µs) and the ratio pure / method. Methods:
  pure          LinearEvaluator.board(bits)
  jit.board     JitLinearEvaluator.board: bits.to_bytes(50) handed to the compiled entry point directly
  board_value   ai.jit_eval.board_value: the same bytes through numba's dispatcher (argument typing per call)
  frombuffer    np.frombuffer(bytes, uint8) through the dispatcher (the other way to hand the board over)
  many/B        JitLinearEvaluator.board_many on batches of B fields (one joined bytes object, direct entry)
  values/B      ai.jit_eval.board_values on the same batches (dispatcher)
  values-arr/B  the joined bytes as an (n * 50) uint8 array through the dispatcher
Before the table (unless --no-compile): first-call time of `import ai.jit_eval; warm_up()` in a fresh process
with NUMBA_CACHE_DIR an empty temporary folder (cold: compiles), then again with that folder filled (warm: loads).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from ai import jit_eval
from ai.eval import LinearEvaluator, WeightSet
from game.board import Board
from game.movegen import find_moves
from game.randomizer import make_randomizer
from game.rules import Rules
from game.scoring import lock_piece

ROOT = Path(__file__).resolve().parents[1]

HEIGHT_BANDS = {"low 1-6": (1, 6), "mid 7-12": (7, 12), "high 13-20": (13, 20)}

_COMPILE_SNIPPET = (
    "import time; t0 = time.perf_counter(); import ai.jit_eval as j; t1 = time.perf_counter(); j.warm_up(); "
    "t2 = time.perf_counter(); print(f'{t1 - t0:.2f} {t2 - t1:.2f}')"
)


def random_field(rng: random.Random, low: int, high: int) -> int:
    """A jagged field whose tallest column is in [low, high], with holes and overhangs."""
    top = rng.randint(low, high)
    heights = [rng.randint(max(0, top - 6), top) for _ in range(10)]
    heights[rng.randrange(10)] = top
    bits = 0
    for x, h in enumerate(heights):
        for y in range(h):
            if y == h - 1 or rng.random() > 0.1:  # about one cell in ten below the top is a hole
                bits |= 1 << (10 * y + x)
    for _ in range(rng.randint(0, 2)):  # an overhang: a cell one row above a neighbour's top
        x = rng.randrange(9)
        y = heights[x + 1] + 1
        if y < 40 and not bits >> (10 * y + x + 1) & 1:
            bits |= 1 << (10 * y + x)
    return bits


def played_fields(evaluator: LinearEvaluator, count: int, seed: int) -> list[int]:
    """Fields after each lock of greedy one-piece play (move value + board value), restarting on a top-out."""
    rules = Rules()
    randomizer = make_randomizer("7bag", seed)
    board, b2b, combo = Board(), -1, -1
    out: list[int] = []
    while len(out) < count:
        piece = randomizer.draw()
        best = None
        for p in (m.placement for m in find_moves(board, piece, rules)):
            after, result = lock_piece(board, p, b2b, combo)
            value = evaluator.move(p.piece, p.rotation, p.x, p.y, result, b2b) + evaluator.board(after.bits)
            if best is None or value > best[0]:
                best = (value, after, result)
        if best is None or best[1].bits >> 200:
            board, b2b, combo = Board(), -1, -1
            continue
        _, board, result = best
        b2b, combo = result.b2b, result.combo
        out.append(board.bits)
    return out


def compile_times() -> tuple[str, str]:
    """(cold, warm) 'import s, warm_up s' of a fresh interpreter on an empty, then filled, numba cache folder."""
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = [
            subprocess.run(
                [sys.executable, "-c", _COMPILE_SNIPPET], cwd=ROOT, env=env, check=True, capture_output=True, text=True
            ).stdout.split()
            for _ in range(2)
        ]
    return tuple(f"import {imp} s, warm_up {warm} s" for imp, warm in runs)  # type: ignore[return-value]


def make_methods(
    pure: LinearEvaluator, jit: jit_eval.JitLinearEvaluator, vector: np.ndarray, fields: list[int], batch: int
) -> dict[str, Callable[[], object]]:
    """One callable per method, each evaluating every field once (see the module docstring)."""
    batches = [fields[i : i + batch] for i in range(0, len(fields), batch)]
    kernel = jit_eval._value_kernel  # the dispatchers, for the array variants
    batch_kernel = jit_eval._values_kernel
    u8 = np.dtype(np.uint8)
    return {
        "pure": lambda: [pure.board(b) for b in fields],
        "jit.board": lambda: [jit.board(b) for b in fields],
        "board_value": lambda: [jit_eval.board_value(b, vector) for b in fields],
        "frombuffer": lambda: [kernel(np.frombuffer(b.to_bytes(50, "little"), u8), vector) for b in fields],
        "many": lambda: [jit.board_many(chunk) for chunk in batches],
        "values": lambda: [jit_eval.board_values(chunk, vector) for chunk in batches],
        "values-arr": lambda: [
            batch_kernel(np.frombuffer(b"".join([b.to_bytes(50, "little") for b in chunk]), u8), vector)
            for chunk in batches
        ],
    }


def time_methods(methods: dict[str, Callable[[], object]], boards: int, repeat: int) -> dict[str, float]:
    """Median over repeats of µs per board; every repeat runs every method once, starting one further along the
    list each time (so no method always follows the same one)."""
    names = list(methods)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for index in range(repeat):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            run = methods[name]
            start = time.perf_counter()
            run()
            samples[name].append((time.perf_counter() - start) * 1e6 / boards)
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200, help="fields per group")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--batch", type=int, default=40, help="fields per board_many call")
    parser.add_argument("--weights", default="modern")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-compile", action="store_true", help="skip the cold/warm compile measurement")
    args = parser.parse_args(argv)

    if not args.no_compile:
        cold, warm = compile_times()
        print(f"first call, fresh process: cold cache {cold}; warm cache {warm}")
    start = time.perf_counter()
    jit_eval.warm_up()
    print(f"warm_up in this process: {time.perf_counter() - start:.2f} s")

    weights = WeightSet.load(args.weights)
    pure = LinearEvaluator(weights)
    jit = jit_eval.JitLinearEvaluator(weights)
    vector = jit_eval.weight_vector(weights)
    rng = random.Random(args.seed)
    groups = {name: [random_field(rng, lo, hi) for _ in range(args.boards)] for name, (lo, hi) in HEIGHT_BANDS.items()}
    groups["played"] = played_fields(pure, args.boards, args.seed)

    print(
        f"weights {weights.name}, {args.boards} fields per group, batches of {args.batch}, "
        f"median of {args.repeat} repeats, µs per board (ratio = pure / method)"
    )
    header = [
        "group",
        "height",
        "pure",
        "jit.board",
        "board_value",
        "frombuffer",
        f"many/{args.batch}",
        f"values/{args.batch}",
        f"values-arr/{args.batch}",
    ]
    print(" ".join(f"{h:>14}" for h in header))
    identical = total = 0
    for name, fields in groups.items():
        want = [pure.board(b) for b in fields]
        got = jit.board_many(fields)
        worst = max(abs(g - w) / max(1.0, abs(w)) for g, w in zip(got, want))
        assert worst <= 1e-9, f"{name}: values differ (relative {worst})"
        identical += sum(g == w for g, w in zip(got, want))
        total += len(fields)
        methods = make_methods(pure, jit, vector, fields, args.batch)
        for run in methods.values():
            run()  # compile the array variants, fill caches
        result = time_methods(methods, len(fields), args.repeat)
        heights = [(b.bit_length() + 9) // 10 for b in fields]
        cells = [f"{name:>14}", f"{statistics.median(heights):>14}"]
        for method, micros in result.items():
            ratio = "" if method == "pure" else f" x{result['pure'] / micros:.0f}"
            cells.append(f"{f'{micros:.2f}{ratio}':>14}")
        print(" ".join(cells))
    print(f"values bit-identical to LinearEvaluator.board: {identical} of {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
