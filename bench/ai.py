"""AI play benchmark: both protocols of `stackcoach bench` in one run, with the numbers the issue asks for.

    python bench/ai.py [--games G] [--pieces N] [--classic-pieces M] [--engine beam|mcts] [--budget-ms MS]

guideline: 7-bag, hold, 5 previews, SRS, full move generation, the default time budget per move;
classic:   Dellacherie weights, one-piece greedy play, 10x20, uniform random pieces, hard drops only.
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
    args = parser.parse_args(argv)
    common = ["--games", str(args.games), "--seed", str(args.seed), "--engine", args.engine]
    if args.budget_ms is not None:
        common += ["--budget-ms", str(args.budget_ms)]
    for rules, cap, features in (("guideline", args.pieces, "modern"), ("classic", args.classic_pieces, "dellacherie")):
        namespace = argparse.ArgumentParser()
        bench.add_arguments(namespace)
        status = bench.run(namespace.parse_args(common + ["--rules", rules, "--max-pieces", str(cap),
                                                          "--features", features]))
        if status:
            return status
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
