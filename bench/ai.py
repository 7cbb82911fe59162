"""AI play benchmark: both protocols of `stackcoach bench` in one run, with the numbers the issue asks for.

    python bench/ai.py [--games G] [--pieces N] [--classic-pieces M] [--engine beam|mcts] [--budget-ms MS]
                       [--guideline-features modern,modern-hand] [--classic-features dellacherie,cem-classic]

guideline: 7-bag, hold, 5 previews, SRS, full move generation, the default time budget per move;
classic:   one-piece greedy play, 10x20, uniform random pieces, hard drops only.
Every weight set of a protocol plays the same seeds, so the rows compare directly. An empty list skips a protocol.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ai import bench


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--pieces", type=int, default=1000, help="guideline cap per game")
    parser.add_argument("--classic-pieces", type=int, default=2000, help="classic cap per game")
    parser.add_argument("--engine", choices=("beam", "mcts"), default="beam")
    parser.add_argument("--budget-ms", type=float, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--guideline-features", default="modern,modern-hand", help="comma-separated weight sets")
    parser.add_argument("--classic-features", default="dellacherie", help="comma-separated weight sets")
    args = parser.parse_args(argv)
    common = ["--games", str(args.games), "--seed", str(args.seed), "--engine", args.engine]
    if args.budget_ms is not None:
        common += ["--budget-ms", str(args.budget_ms)]
    runs = [("guideline", args.pieces, f) for f in args.guideline_features.split(",") if f]
    runs += [("classic", args.classic_pieces, f) for f in args.classic_features.split(",") if f]
    for rules, cap, features in runs:
        namespace = argparse.ArgumentParser()
        bench.add_arguments(namespace)
        status = bench.run(
            namespace.parse_args(common + ["--rules", rules, "--max-pieces", str(cap), "--features", features])
        )
        if status:
            return status
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
