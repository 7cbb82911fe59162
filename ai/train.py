"""`stackcoach train --method cem`: tune linear evaluation weights with the noisy cross-entropy method.

Noisy CEM (Szita & Lőrincz 2006; Thiery & Scherrer 2009): keep a Gaussian over weight vectors (mean, per-feature
standard deviation); each generation samples `population` vectors, scores each by the mean lines cleared in
`games` seeded classic games (uniform random pieces, hard drops, one-piece greedy play, optionally epsilon-greedy),
keeps the elite fraction, refits mean and deviation to the elite and adds noise to the variance (decreasing over
the generations) so the search does not collapse early.

Each generation is `population` x `games` tasks of one whole game, played on a backend (ai.cluster): `local`
(this process, or a spawn process pool with `--workers K`) or `ray` (actors on a Ray cluster). Results come back in
task order, so the same seeds give the same weights on either backend. A JSON checkpoint is written after every
generation, and during one (at most every 30 s) with the games finished so far; `--resume FILE` continues from
one on either backend, without playing those games again. Ctrl+C stops the workers and leaves the mean of the
last finished generation in `--out` and the checkpoint beside it (exit status 130).

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
import os
import random
import sys
import time
from pathlib import Path

from ai import cluster

LOCAL_WORKERS = 2  # default --workers with --backend local
MAX_WORKERS = cluster.MAX_LOCAL_WORKERS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--method", choices=("cem",), default="cem")
    parser.add_argument(
        "--rules",
        choices=("classic", "guideline"),
        default="classic",
        help="classic: lines in greedy classic games; guideline: attack in beam-searched 7-bag games",
    )
    # Defaults: the settings that produced the shipped modern weights. A node budget keeps training games
    # deterministic; 1200 is close to what the 14 ms play budget reaches (median ~1,400 nodes, width 6).
    parser.add_argument("--depth", type=int, default=6, help="guideline: pieces searched per move (default 6)")
    parser.add_argument("--width", type=int, default=4, help="guideline: beam width (default 4)")
    parser.add_argument("--nodes", type=int, default=1200, help="guideline: node budget per move (default 1200)")
    parser.add_argument(
        "--sigma-rel",
        type=float,
        default=0.0,
        help="initial deviation of weight w is max(sigma, sigma-rel * |w|) (default 0)",
    )
    parser.add_argument("--games", type=int, default=4, help="games per weight vector (default 4)")
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help=f"local: worker processes, 1..{MAX_WORKERS} (default {LOCAL_WORKERS}); ray: actors "
        "(default one per free CPU of the cluster)",
    )
    parser.add_argument("--out", default="weights.toml", help="where to write the best weights (TOML)")
    parser.add_argument("--generations", type=int, default=10)
    parser.add_argument("--population", type=int, default=20)
    parser.add_argument("--elite", type=float, default=0.2, help="elite fraction, above 0 and at most 1 (default 0.2)")
    parser.add_argument(
        "--base",
        default=None,
        help="weight set whose features are tuned and whose values "
        "start the mean (default bcts for classic, modern-hand for guideline)",
    )
    parser.add_argument("--sigma", type=float, default=5.0, help="initial standard deviation per weight")
    parser.add_argument(
        "--noise",
        type=float,
        default=4.0,
        help="variance noise added at generation 0, decreasing linearly towards 0 over the generations",
    )
    parser.add_argument("--max-pieces", type=int, default=2000, help="piece cap per training game")
    parser.add_argument("--height", type=int, default=20, help="top-out row (smaller boards end games sooner)")
    parser.add_argument("--epsilon", type=float, default=0.0, help="chance of a random placement per move, 0..1")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--resume", default=None, metavar="FILE", help="checkpoint to continue from")
    parser.add_argument(
        "--checkpoint", default=None, metavar="FILE", help="checkpoint path (default: OUT with .ckpt.json)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar or per-generation lines")
    cluster.add_arguments(parser)


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
    stats = play_game(
        "guideline",
        evaluator,
        seed=seed,
        max_pieces=max_pieces,
        lookahead=depth,
        budget=Budget(time_ms=None, max_nodes=nodes, depth=depth),
        width=width,
    )
    return stats.attack - (max_pieces if stats.topped_out else 0)


def play_task(task: tuple) -> float:
    """Worker entry: the fitness of one weight vector in one whole seeded game (lines, or attack for guideline)."""
    weights, seed, max_pieces, height, epsilon, guideline = task
    if guideline is not None:
        depth, width, nodes = guideline
        return play_guideline(weights, seed, max_pieces, depth, width, nodes)
    return play_classic(weights, seed, max_pieces, height, epsilon)


class TrainingInterrupted(Exception):
    """Ctrl+C: the workers are stopped and the weights of the last finished generation are on disk."""

    def __init__(self, state: dict, out: Path, checkpoint: Path) -> None:
        super().__init__("interrupted")
        self.state, self.out, self.checkpoint = state, out, checkpoint


def _initial_state(args: argparse.Namespace) -> dict:
    from ai.eval import WeightSet

    if args.resume:
        return load_checkpoint(args.resume)
    base = WeightSet.load(args.base or ("modern-hand" if args.rules == "guideline" else "bcts"))
    names = sorted(base.weights)
    return {
        "rules": args.rules,
        "features": names,
        "mean": [base.weights[n] for n in names],
        "sigma": [max(args.sigma, args.sigma_rel * abs(base.weights[n])) for n in names],
        "generation": 0,
        "rng": args.seed,
        "best": None,
        "history": [],
    }


def generation_tasks(state: dict, args: argparse.Namespace) -> tuple[list[list[float]], list[tuple]]:
    """The samples of the state's next generation and its tasks, one whole game each, sample-major: task
    i * games + g plays sample i on seed g. A function of the state and the arguments only."""
    names = state["features"]
    gen = state["generation"]
    guideline = (args.depth, args.width, args.nodes) if state.get("rules", "classic") == "guideline" else None
    rng = random.Random(state["rng"] * 1_000_003 + gen)
    samples = [
        [m + s * rng.gauss(0.0, 1.0) for m, s in zip(state["mean"], state["sigma"])] for _ in range(args.population)
    ]
    seeds = [state["rng"] * 7919 + gen * 1000 + g for g in range(args.games)]
    tasks = [
        (dict(zip(names, vector)), seed, args.max_pieces, args.height, args.epsilon, guideline)
        for vector in samples
        for seed in seeds
    ]
    return samples, tasks


def next_state(
    state: dict, args: argparse.Namespace, samples: list[list[float]], fitness: list[float], seconds: float
) -> dict:
    """The CEM update from one generation's game results (in task order): refit mean and deviation to the elite."""
    names = state["features"]
    gen = state["generation"]
    population, games = len(samples), args.games
    scores = [sum(fitness[i * games : (i + 1) * games]) / games for i in range(population)]
    n_elite = max(1, round(population * args.elite))
    ranked = sorted(range(population), key=lambda i: scores[i], reverse=True)
    elite = [samples[i] for i in ranked[:n_elite]]
    noise = args.noise * max(0.0, 1.0 - gen / args.generations)
    mean = [sum(v[j] for v in elite) / n_elite for j in range(len(names))]
    sigma = [math.sqrt(sum((v[j] - mean[j]) ** 2 for v in elite) / n_elite + noise) for j in range(len(names))]
    top = ranked[0]
    state = dict(state, mean=mean, sigma=sigma, generation=gen + 1, history=list(state["history"]))
    state.pop("partial", None)
    if state["best"] is None or scores[top] >= state["best"]["score"]:
        state["best"] = {"score": scores[top], "weights": dict(zip(names, samples[top]))}
    state["history"].append(
        {
            "generation": gen + 1,
            "best": scores[top],
            "mean_score": sum(scores) / population,
            "elite_mean": sum(scores[i] for i in ranked[:n_elite]) / n_elite,
            "seconds": round(seconds, 2),
        }
    )
    return state


def _write_weights(state: dict, args: argparse.Namespace) -> None:
    from ai.eval import WeightSet

    weights = WeightSet(
        Path(args.out).stem,
        dict(zip(state["features"], state["mean"])),
        f"CEM mean after {state['generation']} generations (population {args.population}, {args.games} games each)",
    )
    Path(args.out).write_text(weights.to_toml(), encoding="utf-8")


PARTIAL_EVERY_S = 30.0  # during a generation, finished games are saved in the checkpoint at most this often


def task_key(state: dict, args: argparse.Namespace) -> list:
    """What a generation's tasks depend on besides the state: a partial generation is reused only under the same."""
    guideline = [args.depth, args.width, args.nodes] if state.get("rules", "classic") == "guideline" else None
    return [args.population, args.games, args.max_pieces, args.height, args.epsilon, guideline]


def _partial_fitness(state: dict, args: argparse.Namespace, count: int) -> dict[int, float]:
    """The games of the state's next generation that a checkpoint already holds (an interrupted generation)."""
    partial = state.get("partial")
    if not partial or partial["generation"] != state["generation"] or partial["key"] != task_key(state, args):
        return {}
    return {index: value for index, value in partial["fitness"] if 0 <= index < count}


def _save(path: Path, state: dict) -> None:
    """Write the checkpoint whole or not at all (a kill while writing leaves the previous one)."""
    scratch = path.with_name(path.name + ".tmp")
    scratch.write_text(json.dumps(state, indent=1), encoding="utf-8")
    os.replace(scratch, path)


def train(args: argparse.Namespace) -> dict:
    """Run CEM on the chosen backend; returns the final checkpoint dict (also written to disk). The checkpoint is
    written after every generation, and during one with the games finished so far (`partial`, which --resume
    does not play again). Ctrl+C stops the workers, writes the mean of the last finished generation to --out and
    the finished games to the checkpoint, and raises TrainingInterrupted."""
    checkpoint_path = _checkpoint_path(args)
    state = _initial_state(args)
    remaining = max(0, args.generations - state["generation"])
    already = _partial_fitness(state, args, args.population * args.games) if remaining else {}
    progress = cluster.Progress(remaining * args.population * args.games - len(already), enabled=not args.quiet)
    backend = None
    finished: dict[int, float] = {}

    def with_partial() -> dict:
        if not finished:
            return state
        return dict(
            state,
            partial={
                "generation": state["generation"],
                "key": task_key(state, args),
                "fitness": sorted(finished.items()),
            },
        )

    try:
        if remaining:
            backend = cluster.open_backend(args.backend, args.workers, args.address)
        while state["generation"] < args.generations:
            gen = state["generation"]
            samples, tasks = generation_tasks(state, args)
            finished = _partial_fitness(state, args, len(tasks))
            todo = [index for index in range(len(tasks)) if index not in finished]
            progress.describe(
                f"gen {gen + 1}/{args.generations}", f"best {state['best']['score']:.1f}" if state["best"] else ""
            )
            started = saved = time.perf_counter()

            def on_result(position: int, value: float, todo: list[int] = todo, done: dict = finished) -> None:
                nonlocal saved
                done[todo[position]] = value
                progress.update()
                if time.perf_counter() - saved > PARTIAL_EVERY_S:
                    _save(checkpoint_path, with_partial())
                    saved = time.perf_counter()

            assert backend is not None  # opened before the first generation
            backend.map(play_task, [tasks[index] for index in todo], on_result=on_result)
            fitness = [finished[index] for index in range(len(tasks))]
            state = next_state(state, args, samples, fitness, time.perf_counter() - started)
            finished = {}
            _save(checkpoint_path, state)
            last = state["history"][-1]
            if not args.quiet:
                progress.write(
                    f"gen {gen + 1}/{args.generations}: best {last['best']:.1f}, elite mean "
                    f"{last['elite_mean']:.1f}, mean {last['mean_score']:.1f} ({last['seconds']:.1f} s)"
                )
    except KeyboardInterrupt:
        with cluster.sigint_ignored():
            progress.close()
            _write_weights(state, args)
            _save(checkpoint_path, with_partial())  # the last finished generation and the games done since
            if backend is not None:
                backend.close(abort=True)
        raise TrainingInterrupted(state, Path(args.out), checkpoint_path) from None
    except BaseException:
        progress.close()
        if backend is not None:
            backend.close(abort=True)
        if finished:  # a worker failed: keep the games it did not take down with it
            with cluster.sigint_ignored():
                _save(checkpoint_path, with_partial())
        raise
    progress.close()
    if backend is not None:
        backend.close()
    _write_weights(state, args)
    return state


MAX_CHECKPOINT_BYTES = 16_000_000


class CheckpointError(ValueError):
    """A --resume file that is not a checkpoint this command wrote; the message names the file and the problem."""


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def load_checkpoint(path: str) -> dict:
    """Read and check a checkpoint (the dict train() writes) before any work; CheckpointError if it is not one."""
    from ai.eval import ALL_FEATURES
    from game.textfile import InputFileError, read_text

    try:
        text = read_text(path, MAX_CHECKPOINT_BYTES, what="checkpoint")
    except InputFileError as error:
        raise CheckpointError(str(error)) from None
    try:
        state = json.loads(text)
    except RecursionError:
        raise CheckpointError(f"checkpoint {path}: not a checkpoint (JSON nested too deeply)") from None
    except ValueError as error:
        raise CheckpointError(f"checkpoint {path}: not JSON ({str(error).splitlines()[0]})") from None

    def bad(problem: str) -> CheckpointError:
        return CheckpointError(f"checkpoint {path}: {problem}")

    if not isinstance(state, dict):
        raise bad("expected a JSON object")
    missing = [key for key in ("features", "mean", "sigma", "generation", "rng", "best", "history") if key not in state]
    if missing:
        raise bad(f"missing {', '.join(missing)}")
    if state.get("rules", "classic") not in ("classic", "guideline"):
        raise bad(f"rules must be classic or guideline, got {state.get('rules')!r}")
    names = state["features"]
    if (
        not isinstance(names, list)
        or not names
        or not all(isinstance(n, str) for n in names)
        or len(set(names)) != len(names)
    ):
        raise bad("features must be a non-empty list of distinct feature names")
    unknown = sorted(set(names) - set(ALL_FEATURES))
    if unknown:
        raise bad(f"unknown features {unknown}")
    for key in ("mean", "sigma"):
        values = state[key]
        if not isinstance(values, list) or len(values) != len(names) or not all(_number(v) for v in values):
            raise bad(f"{key} must be a list of {len(names)} finite numbers")
    if any(v < 0 for v in state["sigma"]):
        raise bad("sigma values must not be negative")
    problem = _counters_and_results_problem(state)
    if problem:
        raise bad(problem)
    return state


def _counters_and_results_problem(state: dict) -> str | None:
    """What is wrong with a checkpoint's generation and seed, best sample, history and unfinished generation."""
    for key in ("generation", "rng"):
        if type(state[key]) is not int or state[key] < 0:
            return f"{key} must be a whole number, 0 or more"
    best = state["best"]
    if best is not None and not (
        isinstance(best, dict)
        and _number(best.get("score"))
        and isinstance(best.get("weights"), dict)
        and all(_number(v) for v in best["weights"].values())
    ):
        return "best must be null or {score, weights}"
    if not isinstance(state["history"], list):
        return "history must be a list"
    if not _partial_ok(state.get("partial")):
        return "partial must be {generation, key, fitness: [[game, fitness], ...]}"
    return None


def _partial_ok(partial: object) -> bool:
    """A checkpoint's games of an unfinished generation: absent, or {generation, key, fitness: [[game, value]]}."""
    if partial is None:
        return True
    if not (
        isinstance(partial, dict)
        and type(partial.get("generation")) is int
        and isinstance(partial.get("key"), list)
        and isinstance(partial.get("fitness"), list)
    ):
        return False
    return all(
        isinstance(pair, list) and len(pair) == 2 and type(pair[0]) is int and _number(pair[1])
        for pair in partial["fitness"]
    )


def _writable(path: Path, what: str) -> str | None:
    if path.is_dir():
        return f"{what} {path} is a directory"
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        return f"{what} {path}: folder {parent} does not exist"
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"{what} {path}: not writable"
    return None


def _check(args: argparse.Namespace) -> str | None:
    """The first problem with the arguments, found before any game is played."""
    from ai.bench import check_height

    limits = [
        ("population", 2, 100_000),
        ("games", 1, 100_000),
        ("generations", 1, 1_000_000),
        ("max_pieces", 1, 100_000_000),
        ("depth", 1, 6),
        ("width", 1, 1_000),
        ("nodes", 1, 10_000_000),
    ]
    for name, low, high in limits:
        value = getattr(args, name)
        if not low <= value <= high:
            return f"--{name.replace('_', '-')} must be {low:,}..{high:,}, got {value}"
    backend_problem = cluster.check_arguments(args, max_local_workers=MAX_WORKERS)
    if backend_problem:
        return backend_problem
    if args.backend == "local" and args.workers is None:
        args.workers = LOCAL_WORKERS
    if not (math.isfinite(args.elite) and 0 < args.elite <= 1):
        return f"--elite must be a fraction above 0 and at most 1, got {args.elite}"
    if not (math.isfinite(args.epsilon) and 0 <= args.epsilon <= 1):
        return f"--epsilon must be a probability from 0 to 1, got {args.epsilon}"
    for name in ("sigma", "sigma_rel", "noise"):
        value = getattr(args, name)
        if not (math.isfinite(value) and value >= 0):
            return f"--{name.replace('_', '-')} must be a finite number, 0 or more, got {value}"
    problem = check_height(args.height)
    if problem:
        return problem
    out = Path(args.out)
    return _writable(out, "--out") or _writable(_checkpoint_path(args), "--checkpoint")


def _checkpoint_path(args: argparse.Namespace) -> Path:
    return Path(args.checkpoint or (str(Path(args.out).with_suffix("")) + ".ckpt.json"))


def run(args: argparse.Namespace) -> int:
    problem = _check(args)
    if problem is None and args.base is not None:
        from ai.bench import check_weight_set

        base_problem = check_weight_set(args.base)
        problem = f"--base: {base_problem}" if base_problem else None
    if problem is None and args.resume:
        try:
            load_checkpoint(args.resume)
        except CheckpointError as error:
            problem = str(error)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    try:
        state = train(args)
    except TrainingInterrupted as stop:
        done = stop.state["generation"]
        print(
            f"interrupted: wrote {stop.out} (the mean after {done} finished generation{'s' * (done != 1)}); "
            f"continue with --resume {stop.checkpoint}",
            file=sys.stderr,
        )
        return 130
    except cluster.BackendError as error:
        failed = isinstance(error, cluster.WorkerFailed)
        hint = f"; --resume {_checkpoint_path(args)} continues" if failed and _checkpoint_path(args).exists() else ""
        print(f"error: {error}{hint}", file=sys.stderr)
        return error.exit_status
    except (ValueError, OSError) as error:
        print(f"error: {str(error).splitlines()[0] if str(error) else type(error).__name__}", file=sys.stderr)
        return 2
    unit = "attack" if state.get("rules") == "guideline" else "lines"
    print(f"wrote {args.out} after {state['generation']} generations; best sample {state['best']['score']:.1f} {unit}")
    return 0
