"""`stackcoach train --method cem`: tune linear evaluation weights with the noisy cross-entropy method.

Noisy CEM (Szita & Lőrincz 2006; Thiery & Scherrer 2009): keep a Gaussian over weight vectors (mean, per-feature
standard deviation); each generation samples `population` vectors, scores each by the mean lines cleared in
`games` seeded classic games (uniform random pieces, hard drops, one-piece greedy play, optionally epsilon-greedy),
keeps the elite fraction, refits mean and deviation to the elite and adds noise to the variance (decreasing over
the generations) so the search does not collapse early. Scoring runs on a multiprocessing pool (spawn context).
A JSON checkpoint is written after every generation; `--resume FILE` continues from one.

`--rules guideline` scores a vector by guideline games instead (7-bag, hold, 5 previews, SRS with soft drops and
spins, played by the beam engine with a fixed node budget, depth and width so that games are deterministic and
fast): fitness = total attack over `max-pieces` pieces, minus `max-pieces` if the game topped out early (a top-out
costs more than any attack a game can earn, so survival comes first). `--sigma-rel` scales each weight's initial
deviation with its size (the modern weights span 5 to 1000).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", choices=("cem",), default="cem")
    parser.add_argument("--rules", choices=("classic", "guideline"), default="classic",
                        help="classic: lines in greedy classic games; guideline: attack in beam-searched 7-bag games")
    # Defaults: the settings that produced the shipped modern weights. A node budget keeps training games
    # deterministic; 1200 is close to what the 14 ms play budget reaches (median ~1,400 nodes, width 6).
    parser.add_argument("--depth", type=int, default=6, help="guideline: pieces searched per move (default 6)")
    parser.add_argument("--width", type=int, default=4, help="guideline: beam width (default 4)")
    parser.add_argument("--nodes", type=int, default=1200, help="guideline: node budget per move (default 1200)")
    parser.add_argument("--sigma-rel", type=float, default=0.0,
                        help="initial deviation of weight w is max(sigma, sigma-rel * |w|) (default 0)")
    parser.add_argument("--games", type=int, default=4, help="games per weight vector (default 4)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--out", default="weights.toml", help="where to write the best weights (TOML)")
    parser.add_argument("--generations", type=int, default=10)
    parser.add_argument("--population", type=int, default=20)
    parser.add_argument("--elite", type=float, default=0.2, help="elite fraction (default 0.2)")
    parser.add_argument("--base", default=None, help="weight set whose features are tuned and whose values "
                        "start the mean (default bcts for classic, modern-hand for guideline)")
    parser.add_argument("--sigma", type=float, default=5.0, help="initial standard deviation per weight")
    parser.add_argument("--noise", type=float, default=4.0, help="variance noise added at generation 0, "
                        "decreasing linearly towards 0 over the generations")
    parser.add_argument("--max-pieces", type=int, default=2000, help="piece cap per training game")
    parser.add_argument("--height", type=int, default=20, help="top-out row (smaller boards end games sooner)")
    parser.add_argument("--epsilon", type=float, default=0.0, help="chance of a random placement per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--resume", default=None, metavar="FILE", help="checkpoint to continue from")
    parser.add_argument("--checkpoint", default=None, metavar="FILE",
                        help="checkpoint path (default: OUT with .ckpt.json)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def play_classic(weights: dict[str, float], seed: int, max_pieces: int, height: int, epsilon: float) -> int:
    """Lines cleared by greedy one-piece play on a board of `height` rows (ai.bench.play_classic): uniform random
    pieces, hard drops; the game ends when the chosen piece has a cell at or above row `height`."""
    from ai.bench import play_classic as play
    from ai.eval import LinearEvaluator, WeightSet

    evaluator = LinearEvaluator(WeightSet("candidate", weights))
    return play(evaluator, seed=seed, max_pieces=max_pieces, height=height, epsilon=epsilon).lines


def play_guideline(weights: dict[str, float], seed: int, max_pieces: int, depth: int, width: int, nodes: int) -> float:
    """Fitness of one guideline game: total attack, minus `max_pieces` on a top-out before the cap."""
    from ai.bench import play_game
    from ai.eval import LinearEvaluator, WeightSet
    from ai.search import Budget

    evaluator = LinearEvaluator(WeightSet("candidate", weights))
    stats = play_game("guideline", evaluator, seed=seed, max_pieces=max_pieces, lookahead=depth,
                      budget=Budget(time_ms=None, max_nodes=nodes, depth=depth), width=width)
    return stats.attack - (max_pieces if stats.topped_out else 0)


def _score(task: tuple) -> float:
    """Worker entry: mean fitness of one weight vector over its seeded games (lines, or attack for guideline)."""
    weights, seeds, max_pieces, height, epsilon, guideline = task
    if guideline is not None:
        depth, width, nodes = guideline
        return sum(play_guideline(weights, seed, max_pieces, depth, width, nodes) for seed in seeds) / len(seeds)
    return sum(play_classic(weights, seed, max_pieces, height, epsilon) for seed in seeds) / len(seeds)


def _bar(done: int, total: int, width: int = 30) -> str:
    filled = width * done // total if total else width
    return "[" + "#" * filled + "." * (width - filled) + "]"


def train(args: argparse.Namespace) -> dict:
    """Run CEM; returns the final checkpoint dict (also written to disk)."""
    import multiprocessing

    from ai.eval import WeightSet

    checkpoint_path = Path(args.checkpoint or (str(Path(args.out).with_suffix("")) + ".ckpt.json"))
    if args.resume:
        state = json.loads(Path(args.resume).read_text())
    else:
        base = WeightSet.load(args.base or ("modern-hand" if args.rules == "guideline" else "bcts"))
        names = sorted(base.weights)
        state = {
            "rules": args.rules,
            "features": names,
            "mean": [base.weights[n] for n in names],
            "sigma": [max(args.sigma, args.sigma_rel * abs(base.weights[n])) for n in names],
            "generation": 0,
            "rng": args.seed,
            "best": None,
            "history": [],
        }
    names = state["features"]
    guideline = (args.depth, args.width, args.nodes) if state.get("rules", "classic") == "guideline" else None
    generations = args.generations
    population = args.population
    n_elite = max(1, round(population * args.elite))
    context = multiprocessing.get_context("spawn")
    with context.Pool(processes=max(1, args.workers)) as pool:
        while state["generation"] < generations:
            gen = state["generation"]
            rng = random.Random(state["rng"] * 1_000_003 + gen)
            samples = [
                [m + s * rng.gauss(0.0, 1.0) for m, s in zip(state["mean"], state["sigma"])] for _ in range(population)
            ]
            seeds = [state["rng"] * 7919 + gen * 1000 + g for g in range(args.games)]
            tasks = [(dict(zip(names, vector)), seeds, args.max_pieces, args.height, args.epsilon, guideline)
                     for vector in samples]
            scores: list[float] = []
            started = time.perf_counter()
            for score in pool.imap(_score, tasks):
                scores.append(score)
                if not args.quiet:
                    print(f"\rgen {gen + 1}/{generations} {_bar(len(scores), population)} "
                          f"{len(scores)}/{population} best {max(scores):.1f}", end="", file=sys.stderr, flush=True)
            ranked = sorted(range(population), key=lambda i: scores[i], reverse=True)
            elite = [samples[i] for i in ranked[:n_elite]]
            noise = args.noise * max(0.0, 1.0 - gen / generations)
            mean = [sum(v[j] for v in elite) / n_elite for j in range(len(names))]
            sigma = [
                math.sqrt(sum((v[j] - mean[j]) ** 2 for v in elite) / n_elite + noise) for j in range(len(names))
            ]
            top = ranked[0]
            if state["best"] is None or scores[top] >= state["best"]["score"]:
                state["best"] = {"score": scores[top], "weights": dict(zip(names, samples[top]))}
            state.update(mean=mean, sigma=sigma, generation=gen + 1)
            state["history"].append({"generation": gen + 1, "best": scores[top], "mean_score": sum(scores) / population,
                                     "elite_mean": sum(scores[i] for i in ranked[:n_elite]) / n_elite,
                                     "seconds": round(time.perf_counter() - started, 2)})
            checkpoint_path.write_text(json.dumps(state, indent=1))
            if not args.quiet:
                print(f"\rgen {gen + 1}/{generations} {_bar(population, population)} best {scores[top]:.1f} "
                      f"elite mean {state['history'][-1]['elite_mean']:.1f}", file=sys.stderr, flush=True)
    weights = WeightSet(
        Path(args.out).stem,
        dict(zip(names, state["mean"])),
        f"CEM mean after {state['generation']} generations (population {population}, {args.games} games each)",
    )
    Path(args.out).write_text(weights.to_toml())
    return state


def run(args: argparse.Namespace) -> int:
    if args.population < 2 or args.games < 1 or args.generations < 1:
        print("error: population must be at least 2, games and generations at least 1", file=sys.stderr)
        return 2
    try:
        state = train(args)
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    unit = "attack" if state.get("rules") == "guideline" else "lines"
    print(f"wrote {args.out} after {state['generation']} generations; best sample {state['best']['score']:.1f} {unit}")
    return 0
