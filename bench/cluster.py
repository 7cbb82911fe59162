"""Local process pool against Ray actors on this machine: start-up time, games per second on the same seeded games,
and the overhead per task. Prints numbers only (wall time, the driver's CPU time, ratios within this run).

    python bench/cluster.py                      # 2 workers, 16 guideline games of 150 pieces, 300 nodes a move
    python bench/cluster.py --quick              # fewer, shorter games
    python bench/cluster.py --address HOST:PORT  # Ray actors on a running cluster instead of a local instance

1. start: a spawn pool of K processes until every one has loaded the compiled kernels, against `ray.init` of a
   local instance with K CPUs plus K actors that have loaded them (or connecting to --address)
2. games: the same tasks (ai.bench.play_task, one whole game each, node budget so the games repeat exactly) in
   this process, on the pool and on the actors: games/second, speed-up over one process, and whether the rows are
   the same (they must be)
3. overhead per task: N tasks that do nothing (`abs(0)`), one per batch and in the automatic batches, on each
   backend: wall microseconds per task
4. batch review: `review FOLDER`'s tasks (ai.review_cli.review_task, one whole replay each: greedy games of
   --review-pieces placements, depth 6, PC check off so nothing depends on the clock) in this process, on the pool
   and on the actors: replays/second and whether the reviews are the same
5. `pc --percent`: the chunked count of --pattern on the PCO field (without I), in this process (chunks of 5,040
   queues) and on each backend (smaller chunks, one or more per worker): queues/second and whether the counts and
   failed queues are the same
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# The repository first, and not bench/ itself (bench/ai.py would shadow the ai package).
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
sys.path.insert(0, str(_HERE.parent))

TIMING = ("ms_median", "ms_p95", "pps")


def _clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def _since(start: tuple[float, float]) -> tuple[float, float]:
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def _rows(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in TIMING} for row in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="pool processes and Ray actors (default 2)")
    parser.add_argument("--games", type=int, default=16)
    parser.add_argument("--max-pieces", type=int, default=150)
    parser.add_argument("--nodes", type=int, default=300, help="node budget per move (default 300)")
    parser.add_argument("--tasks", type=int, default=400, help="empty tasks for the overhead part (default 400)")
    parser.add_argument("--address", default=None, help="a running Ray cluster (default: a local instance)")
    parser.add_argument("--replays", type=int, default=8, help="replays for the batch review part (default 8)")
    parser.add_argument("--review-pieces", type=int, default=60, help="placements per reviewed replay (default 60)")
    parser.add_argument("--pattern", default="*p4,*p3", help="pc --percent pattern on the PCO field (default *p4,*p3)")
    parser.add_argument("--quick", action="store_true", help="8 games of 60 pieces, 200 empty tasks, 4 replays")
    args = parser.parse_args()
    if args.quick:
        args.games, args.max_pieces, args.tasks, args.replays, args.review_pieces = 8, 60, 200, 4, 30

    from ai import cluster
    from ai.bench import play_task
    from ai.eval import WeightSet

    weights = WeightSet.load("modern")
    lookahead = 6
    tasks = [
        ("guideline", weights, 1 + i, args.max_pieces, lookahead, "beam", None, args.nodes, 20)
        for i in range(args.games)
    ]
    print(
        f"{args.games} guideline games of {args.max_pieces} pieces, {args.nodes} nodes a move, "
        f"{args.workers} workers; ray {'at ' + args.address if args.address else 'local instance'}"
    )

    cluster.warm_kernels()
    start = _clock()
    serial = [play_task(task) for task in tasks]
    serial_wall, serial_cpu = _since(start)

    start = _clock()
    local = cluster.LocalBackend(args.workers)
    local.map(abs, [0] * args.workers, batch=1)  # every process up, kernels loaded
    local_start = _since(start)
    start = _clock()
    try:
        ray = cluster.RayBackend(args.workers, args.address)
    except cluster.BackendError as error:
        local.close()
        print(f"error: {error}", file=sys.stderr)
        return 2
    ray_start = _since(start)
    print(
        f"\n1. start (wall s / driver CPU s): pool {local_start[0]:.2f} / {local_start[1]:.2f}   "
        f"ray {ray_start[0]:.2f} / {ray_start[1]:.2f}   ratio ray/pool {ray_start[0] / local_start[0]:.1f}x"
    )

    results = {}
    try:
        for name, backend in (("pool", local), ("ray", ray)):
            start = _clock()
            rows = backend.map(play_task, tasks)
            results[name] = (rows, *_since(start))
        print("\n2. games            games/s   speed-up   driver CPU s   same rows as one process")
        print(f"   one process   {args.games / serial_wall:10.2f}   {1.0:8.2f}x   {serial_cpu:12.2f}   -")
        for name, (rows, wall, cpu) in results.items():
            same = "yes" if _rows(rows) == _rows(serial) else "NO"
            print(f"   {name:<12}  {args.games / wall:10.2f}   {serial_wall / wall:8.2f}x   {cpu:12.2f}   {same}")
        ratio = results["pool"][1] / results["ray"][1]
        print(f"   ray/pool games per second: {ratio:.2f}")

        print(f"\n3. overhead per task ({args.tasks} empty tasks; wall us per task)")
        for label, batch in (("one task per batch", 1), ("automatic batches", None)):
            line = f"   {label:<20}"
            for name, backend in (("pool", local), ("ray", ray)):
                start = _clock()
                backend.map(abs, [0] * args.tasks, batch=batch)
                wall, cpu = _since(start)
                line += f"   {name} {wall / args.tasks * 1e6:9.0f} (driver CPU {cpu / args.tasks * 1e6:6.0f})"
            print(line)
        game_ms = serial_wall / args.games * 1000
        print(f"   for scale: one game here takes {game_ms:.0f} ms in one process")
        _batch_review(args, {"pool": local, "ray": ray})
        _percent(args, {"pool": local, "ray": ray})
    finally:
        local.close()
        ray.close()
    return 0


def _batch_review(args: argparse.Namespace, backends: dict) -> None:
    from ai.recorded import play_recorded
    from ai.review_cli import review_task

    tasks = [
        (play_recorded("greedy", 100 + i, max_pieces=args.review_pieces).replay, 6, False) for i in range(args.replays)
    ]
    print(f"\n4. batch review of {args.replays} replays of {args.review_pieces} placements (depth 6, no PC check)")
    print("                   replays/s   speed-up   same reviews as one process")
    start = _clock()
    serial = [review_task(task) for task in tasks]
    serial_wall = _since(start)[0]
    print(f"   one process   {args.replays / serial_wall:10.2f}   {1.0:8.2f}x   -")
    for name, backend in backends.items():
        start = _clock()
        reviews = backend.map(review_task, tasks, batch=1)  # as `review` hands them out: one replay per task
        wall = _since(start)[0]
        same = "yes" if reviews == serial else "NO"
        print(f"   {name:<12}  {args.replays / wall:10.2f}   {serial_wall / wall:8.2f}x   {same}")


def _percent(args: argparse.Namespace, backends: dict) -> None:
    """The count `pc --field PCO --pattern P --percent` makes, through the command's own chunking."""
    from ai.pc import cli
    from ai.pc.pattern import parse_pattern
    from ai.pc.search import Problem
    from game.fumen import decode
    from game.rules import Rules

    field = decode("v115@9gE8EeF8DeG8CeF8NeAgWBAUAAAA")[0].field  # PCO without I
    if field is None:  # (decode sets every page's field)
        raise ValueError("the PCO fumen has no field")
    bits = field.to_board().bits
    pattern = parse_pattern(args.pattern)
    needed = Problem(bits, 4, (), None, True).pieces_needed
    keep = None if needed is None else needed + 1
    cut = cli._cut(pattern, keep)
    work = cut.size() if keep is not None else 0
    options = dict(hold=None, use_hold=True, rules=Rules.named("srs"), soft_drop=True, lines=4)

    def count(backend) -> tuple:
        start = _clock()
        result = cli._percent_in_chunks(bits, pattern, cut, keep, work, options, None, backend)
        return (result.success, result.total, result.failed), _since(start)[0]

    first = next(iter(cut.iter_sequences()))
    for backend in backends.values():  # every worker loads the PC kernels before the clock starts
        backend.map(cli.percent_task, [(bits, [first], options)] * backend.workers, batch=1)
    cli.percent_task((bits, [first], options))
    print(f"\n5. pc --percent '{args.pattern}' on the PCO field: {work:,} distinct queues searched")
    print("                   queues/s   speed-up   chunk   same counts as one process")
    serial, serial_wall = count(None)
    print(f"   one process  {work / serial_wall:10.0f}   {1.0:8.2f}x   {cli.PERCENT_CHUNK:5}   -")
    for name, backend in backends.items():
        counts, wall = count(backend)
        same = "yes" if counts == serial else "NO"
        size = cli._chunk_size(work, backend.workers)
        print(f"   {name:<12} {work / wall:10.0f}   {serial_wall / wall:8.2f}x   {size:5}   {same}")
    print(f"   success {serial[0]:,} of {serial[1]:,} queues")


if __name__ == "__main__":
    sys.exit(main())
