"""Benchmark the set-up finder and verify the whole set-up library.

    python bench/setups.py                 # speed, then every library figure recomputed and compared
    python bench/setups.py --speed-only    # just the speed groups
    python bench/setups.py --repeat 5

Speed (process CPU time; the machine is shared, so compare numbers within one run):
  setup     build chance over `*p7` for 4-line shapes (what `python main.py setup --pattern '*p7'` does),
            cold: the move generator's caches cleared before each shape. Target: <= 2 s each.
  overlay   what guided practice needs for a new bag: `cover` of one 7-piece queue over every library entry
            and its mirror, then the placements for the best entry; the first bag with cold caches (the finders
            are built), then new bags (finders kept). Target: <= 200 ms per new bag.
  guided    the worker's answer in guided practice (ai.setup_service.plan: the advised placement and its exact
            build chance) for every library entry and its mirror, bag after bag as the game deals them (the
            pieces left for that PC of the loop, then fresh bags; 5 previews), at every piece of the build while
            the advice is followed; finders are cleared before each bag (a new bag is a new question). The
            compiled move generator is loaded once first, as in the running worker. Target: <= 200 ms each.
Verification: scripts/regenerate_setups.py --check over every entry (prints the entries that differ).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ai.pc.setup import Shape

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SHAPES = ("pco_with_I", "pco_i_saved", "grace", "tki", "albatross", "hachispin")


def clear_caches() -> None:
    from ai.pc import movegen
    from ai.pc.setup import clear_finders

    movegen.for_rules.cache_clear()
    clear_finders()


def bench_setup(repeat: int) -> bool:
    from ai.pc.pattern import parse_pattern
    from ai.pc.setup import build_chance, load_library

    entries = {e.key: e for e in load_library()}
    queues = parse_pattern("*p7").sequences()
    ok = True
    print("setup: build chance over *p7 (5,040 queues), cold caches, CPU seconds")
    for key in SHAPES:
        shape = entries[key].shape()
        times = []
        for _ in range(repeat):
            clear_caches()
            started = time.process_time()
            result = build_chance(shape, queues)
            times.append(time.process_time() - started)
        worst = max(times)
        ok &= worst <= 2.0
        print(
            f"  {key:12s} rows {shape.height}  {result.success:5d}/{result.total}  "
            f"median {statistics.median(times):.3f} s  max {worst:.3f} s  {'ok' if worst <= 2.0 else 'SLOW'}"
        )
    return ok


def bench_overlay(repeat: int) -> bool:
    import random

    from ai.pc.setup import cover, finder, library_shapes, load_library
    from game.pieces import ALL_PIECES

    shapes = {name: shape for name, shape in library_shapes(load_library()).items() if not shape.base}
    rng = random.Random(15)

    def one_bag() -> float:
        bag = list(ALL_PIECES)
        rng.shuffle(bag)
        started = time.process_time()
        result = cover([bag], shapes)
        ((_, names),) = result.per_queue
        if names:
            finder(shapes[names[0]], queues=[bag]).ways(bag, None, 1)
        return time.process_time() - started

    cold: list[float] = []
    warm: list[float] = []
    for _ in range(repeat):
        clear_caches()
        cold.append(one_bag())
        warm.extend(one_bag() for _ in range(10))
    worst = max(warm)
    print(f"overlay: cover of one bag over {len(shapes)} shapes (library + mirrors, empty-field entries) + one way:")
    print(f"  first bag, cold caches: median {statistics.median(cold) * 1000:.0f} ms, max {max(cold) * 1000:.0f} ms")
    print(
        f"  each new bag after it:  median {statistics.median(warm) * 1000:.1f} ms, max {worst * 1000:.1f} ms "
        f"({'ok' if worst <= 0.2 else 'over the 200 ms target'})"
    )
    return worst <= 0.2


PREVIEWS = 5


def guided_positions(entry, mirror: bool, seed: int):
    """The positions of one guided build as a player following the advice meets them: (snapshot, shape) for each
    piece until the shape stands or cannot be built; the caller answers with plan() and gets the next one."""
    import random

    from ai.protocol import Snapshot
    from game.board import Board
    from game.pieces import Piece
    from game.rules import Rules
    from game.setups import start_bag

    rng = random.Random(seed)
    left = start_bag(entry, seed, mirror)
    sequence = list(left)
    rng.shuffle(sequence)
    for _ in range(4):
        bag = list(Piece)
        rng.shuffle(bag)
        sequence += bag
    cells = entry.cells(mirror=mirror)
    board, index, hold = cells.base, 0, None

    def snapshot() -> Snapshot:
        bag = list(left) if left else list(Piece)
        for piece in sequence[: index + 1 + PREVIEWS]:
            if not bag:
                bag = list(Piece)
            bag.remove(piece)
        return Snapshot(
            board=Board.from_bits(board) if board else Board.empty(),
            current=sequence[index],
            queue=tuple(sequence[index + 1 : index + 1 + PREVIEWS]),
            hold=hold,
            hold_used=False,
            b2b=0,
            combo=0,
            rules=Rules.named("srs"),
            randomizer="7bag",
            randomizer_state=tuple(sorted(bag)) if bag else (),
        )

    while cells.must & ~board:
        placement = yield snapshot(), cells
        if placement is None:
            return
        board |= placement.mask
        if placement.hold:
            if hold is None:
                hold, index = sequence[index], index + 2
            else:
                hold, index = sequence[index], index + 1
        else:
            index += 1


def _left_to_build(shape: Shape | None) -> Shape:
    if shape is None:  # guided_positions stops once the shape stands
        raise RuntimeError("a guided position with the set-up already built")
    return shape


def bench_guided(repeat: int) -> bool:
    from ai.pc.setup import clear_finders, load_library
    from ai.setup_service import plan, remaining_shape

    entries = load_library()
    warm = next(e for e in entries if e.key == "pco_no_I")  # loads the move generator's tables once
    positions = guided_positions(warm, False, 0)
    snapshot, cells = next(positions)
    plan(snapshot, _left_to_build(remaining_shape(snapshot, cells.must | cells.base, cells.may)), True)
    print(f"guided: the worker's advice and build chance at every piece of a followed build, {repeat} bags per entry")
    worst_all = 0.0
    for entry in entries:
        for mirror in (False, True) if entry.mirror else (False,):
            times = []
            built = 0
            for seed in range(repeat):
                clear_finders()
                positions = guided_positions(entry, mirror, seed)
                answer = None
                try:
                    while True:
                        snapshot, cells = positions.send(answer)
                        shape = _left_to_build(
                            remaining_shape(snapshot, cells.must | cells.base, cells.may, entry.saved(mirror=mirror))
                        )
                        started = time.process_time()
                        way, _ = plan(snapshot, shape, True)
                        times.append(time.process_time() - started)
                        answer = way.placements[0] if way is not None else None
                except StopIteration:
                    built += answer is not None
            worst = max(times)
            worst_all = max(worst_all, worst)
            name = entry.key + ("/mirror" if mirror else "")
            print(
                f"  {name:22s} {len(times):3d} answers  median {statistics.median(times) * 1000:6.1f} ms  "
                f"max {worst * 1000:6.1f} ms  built {built}/{repeat}  {'ok' if worst <= 0.2 else 'SLOW'}"
            )
    print(f"  worst answer {worst_all * 1000:.1f} ms ({'ok' if worst_all <= 0.2 else 'over the 200 ms target'})")
    return worst_all <= 0.2


def verify_library() -> bool:
    import importlib.util

    spec = importlib.util.spec_from_file_location("regenerate_setups", ROOT / "scripts" / "regenerate_setups.py")
    if spec is None or spec.loader is None:
        raise SystemExit("cannot load scripts/regenerate_setups.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    started = time.process_time()
    status = script.main(["--check"])
    print(
        f"library: every figure recomputed in {time.process_time() - started:.0f} s CPU "
        f"({'all match' if status == 0 else 'DIFFERENCES above'})"
    )
    return status == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--speed-only", action="store_true")
    parser.add_argument("--guided-only", action="store_true", help="only the guided-practice answers")
    args = parser.parse_args(argv)
    if args.guided_only:
        return 0 if bench_guided(args.repeat) else 1
    ok = bench_setup(args.repeat)
    ok &= bench_overlay(args.repeat)
    ok &= bench_guided(args.repeat)
    if not args.speed_only:
        ok &= verify_library()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
