"""`stackcoach bench`: play whole games at placement level with an engine and report how it did.

Two protocols:
  classic    research benchmark: 10x20 (a piece locked with a cell at row 20 or above ends the game, before any
             line clears, as in Thiery & Scherrer's MDPTetris), uniformly random pieces,
             no hold, no preview, hard drops from spawn only (no soft drop); default lookahead 1 (the current
             piece only; 2 adds an expectation over the unknown next piece).
  guideline  7-bag, hold, 5 previews, SRS, full move generation (soft drops, spins); lock-out or a blocked
             spawn ends the game.
Games are simulated with `game.scoring.lock_piece` (no tick engine): spawn, ask the engine, lock, repeat.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ai import cluster

RULE_PROTOCOLS = ("classic", "guideline")
FEATURE_SETS = (
    "dellacherie",
    "el-tetris",
    "bcts",
    "modern",
    "modern-hand",
)  # built in; any weights/*.toml or path works


MAX_WEIGHTS_FILE_BYTES = 1_000_000


def check_weight_set(value: str) -> str | None:
    """Why `value` (a built-in weight set name or a TOML path) does not load, in one line; None if it does.
    A path is checked first: a regular file of at most 1 MB (a device or a huge file is never read whole)."""
    import os
    import stat

    from ai.eval import WeightSet

    if Path(value).suffix:
        try:
            info = os.stat(value)
        except OSError as error:
            return f"cannot read weight set {value}: {error.strerror or error}"
        if not stat.S_ISREG(info.st_mode):
            return f"weight set {value}: not a regular file"
        if info.st_size > MAX_WEIGHTS_FILE_BYTES:
            return f"weight set {value}: file too large (more than 1 MB)"
    try:
        weights = WeightSet.load(value).weights
    except RecursionError:
        return f"weight set {value}: not valid TOML (nested too deeply)"
    except (TypeError, AttributeError, OverflowError):
        return f"weight set {value}: expected a [weights] table of feature = finite number"
    except (ValueError, OSError) as error:
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
        return f"weight set {value}: {text}" if value not in text else text
    if not all(math.isfinite(w) for w in weights.values()):
        return f"weight set {value}: expected a [weights] table of feature = finite number"
    return None


def _weight_set_name(value: str) -> str:
    """argparse type: a built-in weight set name or a TOML path that loads."""
    problem = check_weight_set(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


@dataclass
class GameStats:
    seed: int
    lines: int = 0
    pieces: int = 0
    attack: int = 0
    tspins: int = 0
    perfect_clears: int = 0
    clears: int = 0
    difficult_clears: int = 0
    b2b_clears: int = 0
    topped_out: bool = False
    move_ms: list[float] = field(default_factory=list, repr=False)
    seconds: float = 0.0

    def summary(self) -> dict[str, float | int | bool]:
        ms = sorted(self.move_ms) or [0.0]
        return {
            "seed": self.seed,
            "lines": self.lines,
            "pieces": self.pieces,
            "attack": self.attack,
            "app": round(self.attack / self.pieces, 3) if self.pieces else 0.0,
            "tspins": self.tspins,
            "pcs": self.perfect_clears,
            "b2b_ratio": round(self.b2b_clears / self.clears, 3) if self.clears else 0.0,
            "topped_out": self.topped_out,
            "ms_median": round(statistics.median(ms), 2),
            "ms_p95": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 2),
            "pps": round(self.pieces / self.seconds, 1) if self.seconds else 0.0,
        }


def make_bench_engine(
    protocol: str, features, lookahead: int, engine: str, seed: int, budget_ms: float | None, **engine_kwargs
):
    """The engine a protocol plays with, and the Budget for each move. `features`: a weight set name, a path or an
    Evaluator; `engine_kwargs` override the engine's constructor arguments (e.g. width)."""
    from ai.search import DEFAULT_TIME_MS, Budget, make_engine
    from game.rules import Rules

    if protocol == "classic":
        rules = Rules.named("srs", hold=False)
        kwargs = {
            "rules": rules,
            "evaluator": features,
            "use_hold": False,
            "soft_drop": False,
            "top_out_row": 20,
            "seed": seed,
            "depth": max(1, lookahead),
            "panic_evaluator": None,
        }
        budget = Budget(time_ms=budget_ms, depth=max(1, lookahead))
    else:
        rules = Rules.named("srs")
        kwargs = {
            "rules": rules,
            "evaluator": features,
            "use_hold": True,
            "soft_drop": True,
            "seed": seed,
            "depth": max(1, lookahead),
        }
        budget = Budget(time_ms=budget_ms if budget_ms is not None else DEFAULT_TIME_MS, depth=max(1, lookahead))
    kwargs.update(engine_kwargs)
    return make_engine(engine, **kwargs), budget


def play_game(
    protocol: str = "guideline",
    features="modern",
    *,
    seed: int = 0,
    max_pieces: int = 1000,
    lookahead: int = 6,
    engine: str = "beam",
    budget_ms: float | None = None,
    budget=None,
    height: int = 20,
    **engine_kwargs,
) -> GameStats:
    """Play one seeded game until top-out or `max_pieces`. `budget` (a search.Budget) replaces the protocol's
    per-move budget, e.g. a fixed node budget so that training games are deterministic."""
    from ai.search import SearchState
    from game.board import Board
    from game.randomizer import make_randomizer
    from game.scoring import lock_piece

    classic = protocol == "classic"
    if classic and lookahead == 1 and engine == "beam" and budget is None and budget_ms is None:
        return play_classic(features, seed=seed, max_pieces=max_pieces, height=height, **engine_kwargs)
    if classic:
        engine_kwargs.setdefault("top_out_row", height)
    bot, default_budget = make_bench_engine(protocol, features, lookahead, engine, seed, budget_ms, **engine_kwargs)
    budget = budget or default_budget
    randomizer = make_randomizer("random" if classic else "7bag", seed)
    previews = 0 if classic else 5
    current = randomizer.draw()
    queue = [randomizer.draw() for _ in range(previews)]
    board = Board()
    hold = None
    b2b = combo = -1
    stats = GameStats(seed)
    started = time.perf_counter()
    while stats.pieces < max_pieces:
        state = SearchState(
            board, current, hold, tuple(queue), b2b, combo, randomizer.state, "random" if classic else "7bag"
        )
        t0 = time.perf_counter()
        suggestion = bot.suggest(state, budget)
        stats.move_ms.append((time.perf_counter() - t0) * 1000)
        if suggestion is None:
            stats.topped_out = True
            break
        if suggestion.move.hold:
            if hold is None:
                hold, current = current, queue.pop(0)
                queue.append(randomizer.draw())
            else:
                hold, current = current, hold
        p = suggestion.move.placement
        assert p.piece == current
        if classic and p.mask >> (10 * height):  # the piece is not inside the board: game over before its lines clear
            stats.topped_out = True
            break
        board, result = lock_piece(board, p, b2b, combo)
        b2b, combo = result.b2b, result.combo
        stats.pieces += 1
        stats.lines += result.lines
        stats.attack += result.attack
        if result.lines:
            stats.clears += 1
            stats.difficult_clears += result.is_difficult
            stats.b2b_clears += result.b2b_bonus
            stats.tspins += p.piece.name == "T" and result.spin != 0
            stats.perfect_clears += result.perfect_clear
        if result.lock_out:
            stats.topped_out = True
            break
        if queue:
            current = queue.pop(0)
            queue.append(randomizer.draw())
        else:
            current = randomizer.draw()
    stats.seconds = time.perf_counter() - started
    return stats


def play_classic(
    features="dellacherie",
    *,
    seed: int = 0,
    max_pieces: int = 1000,
    height: int = 20,
    epsilon: float = 0.0,
    accelerate: bool = True,
) -> GameStats:
    """One seeded classic game of greedy one-piece play, lean enough for games of millions of pieces: uniform
    random pieces, hard drops, 10 columns, `height` rows (a piece locked with a cell at row `height` or above ends
    the game before its lines clear). Equal values go to the fewest rotations, then the leftmost x (a fixed rule,
    so a game is a function of its seed). With `epsilon`, that share of moves is a random placement (training)."""
    import random

    from ai.search import BeamEngine
    from game.randomizer import make_randomizer
    from game.rules import Rules

    bot = BeamEngine(
        Rules.named("srs", hold=False),
        features,
        use_hold=False,
        soft_drop=False,
        top_out_row=height,
        panic_evaluator=None,
        accelerate=accelerate,
        seed=seed,
    )
    randomizer = make_randomizer("random", seed)
    explore = random.Random(seed ^ 0x5EED)
    stats = GameStats(seed)
    bits = 0
    clock = time.perf_counter
    started = clock()
    while stats.pieces < max_pieces:
        t0 = clock()
        options = bot.options(bits, randomizer.draw())
        if not options:
            stats.topped_out = True
            break
        if epsilon and explore.random() < epsilon:
            choice = explore.choice(sorted(options, key=lambda option: option[0]))
        else:
            choice = max(options, key=lambda option: (option[2], -option[0][0], -option[0][1]))
        stats.move_ms.append((clock() - t0) * 1000)
        if choice[3]:  # above the top: game over, its lines do not count
            stats.topped_out = True
            break
        lines = (bits.bit_count() + 4 - choice[1].bit_count()) // 10
        bits = choice[1]
        stats.pieces += 1
        if lines:
            stats.lines += lines
            stats.clears += 1
            stats.difficult_clears += lines == 4
    stats.seconds = clock() - started
    return stats


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=3, help="number of seeded games (default 3)")
    parser.add_argument(
        "--features",
        type=_weight_set_name,
        default=None,
        help="weight set: a name in ai/weights (dellacherie, el-tetris, bcts, modern, modern-hand, "
        "...) or a TOML path (default: dellacherie for classic, modern for guideline)",
    )
    parser.add_argument(
        "--lookahead",
        type=int,
        default=None,
        help="pieces searched per move: classic 1..2 (default 1), guideline 1..6 (default 6 = current + 5 previews)",
    )
    parser.add_argument("--rules", choices=RULE_PROTOCOLS, default="guideline")
    parser.add_argument("--max-pieces", type=int, default=500, help="cap per game (default 500)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game; game i uses seed + i")
    parser.add_argument(
        "--engine",
        choices=("beam", "mcts", "random"),
        default="beam",
        help="random: a uniformly random legal placement of the piece in play (the weak player)",
    )
    parser.add_argument(
        "--replay-dir",
        metavar="DIR",
        default=None,
        help="play on the timed game through key presses and save each game there as a replay "
        "(game-SEED.json) that `review` reads (guideline rules; beam or random)",
    )
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        help="time budget per move (default: the engine default, 14 ms, for guideline; unlimited classic)",
    )
    parser.add_argument(
        "--height",
        type=int,
        default=20,
        help="classic: board height, 4..40 (default 20; smaller boards end games sooner, as in the literature)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object with games and mean")
    parser.add_argument(
        "--nodes",
        type=int,
        default=None,
        help="guideline: node budget per move (with no --budget-ms the games do not depend on the "
        "machine's speed, so they repeat exactly on any backend)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="local: processes, 1 (default: this one) to the number of CPUs; ray: actors (default "
        "one per free CPU of the cluster)",
    )
    cluster.add_arguments(parser)


def play_task(task: tuple) -> dict:
    """Worker entry: the summary row of one whole seeded game (a task of `run`, on any backend)."""
    from ai.eval import LinearEvaluator
    from ai.search import Budget

    rules, weights, seed, max_pieces, lookahead, engine, budget_ms, nodes, height = task
    budget = Budget(time_ms=budget_ms, max_nodes=nodes, depth=lookahead) if nodes is not None else None
    stats = play_game(
        rules,
        LinearEvaluator(weights),
        seed=seed,
        max_pieces=max_pieces,
        lookahead=lookahead,
        engine=engine,
        budget_ms=budget_ms,
        budget=budget,
        height=height,
    )
    return stats.summary()


def _mean(rows: list[dict]) -> dict:
    keys = [k for k in rows[0] if k != "seed"]
    mean: dict = {}
    for key in keys:
        values = [row[key] for row in rows]
        mean[key] = round(sum(float(v) for v in values) / len(values), 3)
    return mean


MAX_GAMES = 100_000
MAX_PIECES = 100_000_000  # classic games at 1-piece lookahead run to millions of pieces
MAX_LOOKAHEAD = {
    "classic": 2,
    "guideline": 6,
}  # classic: current (+ expectation over the next); guideline: + 5 previews
MAX_BUDGET_MS = 60_000.0
MAX_NODES = 10_000_000


def check_budget_ms(value: float | None, what: str = "--budget-ms") -> str | None:
    """The problem with a per-move time budget (None: the default), or None if it is usable."""
    if value is None:
        return None
    if not math.isfinite(value) or not 0 < value <= MAX_BUDGET_MS:
        return f"{what} must be a number of milliseconds above 0 and at most {MAX_BUDGET_MS:,.0f}, got {value}"
    return None


def check_height(value: int, what: str = "--height") -> str | None:
    from game.board import HEIGHT

    if not 4 <= value <= HEIGHT:
        return f"{what} must be 4..{HEIGHT} rows, got {value}"
    return None


def _check(args: argparse.Namespace, lookahead: int) -> str | None:
    """The first problem with the arguments, checked before any game starts."""
    if not 1 <= args.games <= MAX_GAMES:
        return f"--games must be 1..{MAX_GAMES:,}, got {args.games}"
    if not 1 <= args.max_pieces <= MAX_PIECES:
        return f"--max-pieces must be 1..{MAX_PIECES:,}, got {args.max_pieces}"
    top = MAX_LOOKAHEAD[args.rules]
    if not 1 <= lookahead <= top:
        return f"--lookahead must be 1..{top} for {args.rules} rules, got {lookahead}"
    if args.nodes is not None and (args.rules != "guideline" or not 1 <= args.nodes <= MAX_NODES):
        return (
            f"--nodes must be 1..{MAX_NODES:,}, got {args.nodes}"
            if args.rules == "guideline"
            else "--nodes is for guideline rules (classic games already repeat exactly)"
        )
    if (args.replay_dir is not None or args.engine == "random") and (args.backend != "local" or args.workers):
        return "--replay-dir and --engine random play in this process (no --workers, no --backend ray)"
    return (
        check_budget_ms(args.budget_ms)
        or check_height(args.height)
        or cluster.check_arguments(args, max_local_workers=cluster.MAX_LOCAL_WORKERS)
    )


def run(args: argparse.Namespace) -> int:
    lookahead = args.lookahead if args.lookahead is not None else (1 if args.rules == "classic" else 6)
    problem = _check(args, lookahead)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    features = args.features or ("dellacherie" if args.rules == "classic" else "modern")
    if args.replay_dir is not None or args.engine == "random":
        return _run_recorded(args, features)
    try:
        rows, workers = _play_all(args, features, lookahead)
    except cluster.BackendError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt:
        print("interrupted: the workers are stopped; no games reported", file=sys.stderr)
        return 130
    about = {
        "rules": args.rules,
        "features": features,
        "lookahead": lookahead,
        "engine": args.engine,
        "max_pieces": args.max_pieces,
        "height": args.height,
        "nodes": args.nodes,
        "backend": args.backend,
        "workers": workers,
    }
    title = (
        f"{args.rules} rules, {features} weights, lookahead {lookahead}, engine {args.engine}, "
        f"cap {args.max_pieces} pieces" + (f", board height {args.height}" if args.rules == "classic" else "")
    )
    return _report(args.json, about, title, rows)


def _play_all(args: argparse.Namespace, features: str, lookahead: int) -> tuple[list[dict], int]:
    """Every game's summary row, in seed order, played on the chosen backend; and how many workers played them."""
    from ai.eval import WeightSet

    weights = WeightSet.load(features)
    tasks = [
        (
            args.rules,
            weights,
            args.seed + i,
            args.max_pieces,
            lookahead,
            args.engine,
            args.budget_ms,
            args.nodes,
            args.height,
        )
        for i in range(args.games)
    ]
    progress = cluster.Progress(len(tasks), f"{args.rules} games", enabled=not args.json)
    with cluster.opened(args.backend, args.workers, args.address, progress=progress) as backend:
        rows = backend.map(play_task, tasks, on_result=lambda index, row: progress.update())
    return rows, backend.workers


def _run_recorded(args: argparse.Namespace, features: str) -> int:
    """--replay-dir / --engine random: seeded games on the timed engine (ai.recorded), saved as replays."""
    from ai.recorded import play_recorded
    from ai.search import Budget

    if args.rules != "guideline" or args.engine == "mcts":
        print(
            "error: --replay-dir and --engine random play guideline rules with the beam engine or random placements",
            file=sys.stderr,
        )
        return 2
    folder = Path(args.replay_dir) if args.replay_dir is not None else None
    if folder is not None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            print(f"error: cannot use --replay-dir {folder}: {error.strerror or error}", file=sys.stderr)
            return 2
    budget = Budget(time_ms=args.budget_ms) if args.budget_ms is not None else None
    rows = []
    for i in range(args.games):
        seed = args.seed + i
        started = time.perf_counter()
        played = play_recorded(args.engine, seed, max_pieces=args.max_pieces, budget=budget, weights=features)
        game = played.replay.play()
        stats = GameStats(
            seed,
            lines=game.stats.lines,
            pieces=game.stats.pieces,
            attack=game.stats.attack,
            tspins=game.stats.tspins,
            perfect_clears=game.stats.perfect_clears,
            clears=game.stats.line_clears,
            b2b_clears=game.stats.b2b_clears,
            topped_out=game.over,
            seconds=time.perf_counter() - started,
        )
        if folder is not None:
            try:
                played.replay.save(folder / f"game-{seed}.json")
            except OSError as error:
                print(f"error: cannot write to --replay-dir {folder}: {error.strerror or error}", file=sys.stderr)
                return 2
        rows.append(stats.summary())
    about = {
        "rules": args.rules,
        "features": features,
        "engine": args.engine,
        "max_pieces": args.max_pieces,
        "replay_dir": args.replay_dir,
    }
    title = f"{args.rules} rules on the timed game, engine {args.engine}, cap {args.max_pieces} pieces" + (
        f", replays in {folder}" if folder is not None else ""
    )
    return _report(args.json, about, title, rows)


def _report(as_json: bool, about: dict, title: str, rows: list[dict]) -> int:
    """Print the games: one JSON object (`about`, the games and their mean) or a titled table with a mean row."""
    mean = _mean(rows)
    if as_json:
        print(json.dumps({**about, "games": rows, "mean": mean}))
        return 0
    columns = list(rows[0])
    print(title)
    print("  ".join(f"{c:>10}" for c in columns))
    for row in rows:
        print("  ".join(f"{row[c]!s:>10}" for c in columns))
    print("  ".join(f"{'mean' if c == 'seed' else str(mean[c]):>10}" for c in columns))
    return 0
