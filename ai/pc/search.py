"""The perfect-clear search: depth-first over (field, queue position, hold) with dead-state memoisation.

Hold is modelled as a one-piece buffer: with hold allowed the state keeps `held` (the hold piece, or, when the
hold slot is empty, the piece in play) and `idx` (the next queue piece not yet in the buffer); each step places
either `held` or `queue[idx]` and the other one stays. This is exactly the set of orders real hold allows
(including playing the hold piece once the queue has run out); `real_hold_flags` turns a buffer path back
into per-placement "went through hold" flags.

Pruning, all sound: pieces must lie below the clear line (`movegen` only returns such placements); the pieces
left must cover the empty cells; a column filled to the clear line splits the field into parts that must each
take whole pieces (`field.walls_ok`); the empty cells must be coverable by the remaining pieces ignoring order
(`tiling.tileable`; with hard drops only, in an order of row clears that straight drops allow, which implies it:
`tiling.hard_drop_tileable_counts8`); states known dead for the same remaining queue and hold are skipped (memo
per rules).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ai.pc.field import walls_ok
from ai.pc.movegen import Child, MoveGenerator, for_rules, unpack
from ai.pc.tiling import hard_drop_tileable_counts8, tileable_counts8
from game.board import WIDTH, Bitboard
from game.pieces import Piece, Rotation
from game.placement import Placement
from game.rules import Rules, per_rules


class PCInputError(ValueError):
    """A problem that cannot be searched (field above the clear line, full rows, bad lines count...)."""


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector during a search. The searches make few reference cycles (a trie search
    and its compiled kernel, pc_chance's closures: a young collection after the search frees them), but a full
    collection walks every object of the move and arrangement caches and took up to ~200 ms, which made calls
    overshoot their time budget. (A full collection can still start at the first allocation of the next call;
    the worker freezes what it keeps between requests, ai.worker.freeze_survivors.)"""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@dataclass(frozen=True, slots=True)
class Step:
    """One placement of a solution (or of a set-up build): the placement, in the field as it is when the piece is
    placed (y = 0 is the bottom row and rows cleared earlier are gone), and how it is played."""

    placement: Placement
    hold: bool  # the hold key was pressed for this placement
    hard: bool  # a plain hard drop reaches it (no soft drop, tuck or spin needed)
    lines: int  # rows this placement cleared

    @property
    def piece(self) -> Piece:
        return self.placement.piece

    @property
    def mask(self) -> Bitboard:
        """The piece's cells in the field as it is when it is placed (same layout as game.board)."""
        return self.placement.mask

    def as_dict(self) -> dict:
        placement = self.placement
        return {
            "piece": placement.piece.name,
            "orientation": placement.rotation.tbp_name,
            "x": placement.x,
            "y": placement.y,
            "hold": self.hold,
        }


@dataclass(frozen=True)
class Solution:
    steps: tuple[Step, ...]
    leftover: Piece | None  # the piece left unused (in hold or next), if any

    @property
    def soft_count(self) -> int:
        return sum(not s.hard for s in self.steps)

    @property
    def early_clears(self) -> int:
        """Line-clearing placements before the last one."""
        return sum(1 for s in self.steps[:-1] if s.lines)

    def rank_key(self) -> tuple:
        """Fewest soft-drop/spin placements, then fewest clears before the last piece, then the leftover piece
        (none first, then I J L O S T Z), then the order of the pieces for a stable listing."""
        left = -1 if self.leftover is None else int(self.leftover)
        return (self.soft_count, self.early_clears, left, tuple((int(s.piece), s.mask) for s in self.steps))

    def ops(self) -> str:
        """solution-finder's solution_ops form: 'P,R,x,y;...'."""
        placements = [step.placement for step in self.steps]
        return ";".join(f"{p.piece.name},{p.rotation.srs_name},{p.x},{p.y}" for p in placements)


@dataclass(frozen=True)
class Problem:
    """What to solve: blocks in rows 0..lines-1 of `field`, the piece in play + queue, hold and its use."""

    field: Bitboard
    lines: int
    queue: tuple[Piece, ...]  # the piece in play first
    hold: Piece | None = None
    use_hold: bool = True

    def check(self) -> None:
        if not 1 <= self.lines <= 6:
            raise PCInputError(f"lines must be 1..6, got {self.lines}")
        if self.field >> (WIDTH * self.lines):
            raise PCInputError(f"the field has blocks above the {self.lines} lines to clear")
        for y in range(self.lines):
            if (self.field >> (y * WIDTH)) & 1023 == 1023:
                raise PCInputError(f"row {y} of the field is already full")
        if self.hold is not None and not self.use_hold:
            raise PCInputError("a hold piece was given but hold is not allowed")

    @property
    def pieces_needed(self) -> int | None:
        empty = WIDTH * self.lines - self.field.bit_count()
        return empty // 4 if empty % 4 == 0 else None


@dataclass
class SearchStats:
    nodes: int = 0
    elapsed_ms: float = 0.0
    truncated: bool = False  # stopped at the solution limit or the time budget


def start_state(problem: Problem) -> tuple[int, Piece | None]:
    """(idx, held) of the buffer model for this problem."""
    if problem.use_hold and problem.hold is None and problem.queue:
        return 1, problem.queue[0]
    return 0, problem.hold


def real_hold_flags(problem: Problem, placed: list[Piece]) -> tuple[list[bool], Piece | None]:
    """Per placed piece, whether hold was pressed; and the piece left over (hold, or next in queue)."""
    queue = problem.queue
    held = problem.hold
    r = 0
    flags = []
    for piece in placed:
        if r < len(queue) and queue[r] == piece:
            flags.append(False)
            r += 1
        elif held == piece:
            flags.append(True)
            held = queue[r] if r < len(queue) else None
            r = min(r + 1, len(queue))
        elif held is None and r + 1 < len(queue) and queue[r + 1] == piece:
            flags.append(True)
            held = queue[r]
            r += 2
        else:  # pragma: no cover - the search only makes orders hold allows
            raise AssertionError("order not playable with hold")
    leftover = held if held is not None else (queue[r] if r < len(queue) else None)
    return flags, leftover


USE_KERNEL = True  # the compiled first-solution search (ai.pc.jit_search) when numba is there; tests switch it off


class Searcher:
    """Runs searches under one set of rules; the dead-state memo survives between calls with the same rules."""

    def __init__(self, rules: Rules, soft_drop: bool = True) -> None:
        self.gen: MoveGenerator = for_rules(rules, soft_drop)
        self.dead: set = set()
        self._kernel: Any = None  # ai.pc.jit_search.Kernel, made on first use (False: numba is not there)

    def kernel(self) -> Any:
        """The compiled search for these rules (ai.pc.jit_search.Kernel), or None without numba."""
        if not USE_KERNEL:
            return None
        if self._kernel is None:
            try:
                from ai.pc.jit_search import Kernel
            except ImportError:
                self._kernel = False
            else:
                try:
                    self._kernel = Kernel(self.gen)
                except ImportError:  # the placement or tiling kernel is switched off
                    return None
        return self._kernel or None

    def solve(  # noqa: C901 - the depth-first search and its closures share one state; the hot path of every PC
        self,
        problem: Problem,
        *,
        find_all: bool = False,
        limit: int = 100_000,
        budget_ms: float | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> tuple[list[Solution], SearchStats]:
        """First solution (find_all=False) or all of them (up to `limit`), ranked when find_all. The budget and
        `should_stop` are looked at every few milliseconds; either ends the search, marked truncated."""
        problem.check()
        stats = SearchStats()
        started = time.perf_counter()
        need = problem.pieces_needed
        if need is None or need == 0:
            return [], stats
        deadline = None if budget_ms is None else started + budget_ms / 1000

        def in_time() -> bool:
            if deadline is not None and time.perf_counter() > deadline:
                return False
            return should_stop is None or not should_stop()

        clock = None if deadline is None and should_stop is None else in_time
        kernel = None if find_all else self.kernel()
        if kernel is not None:
            return self._solve_compiled(kernel, problem, stats, started, clock)
        paths: list[list[tuple[Piece, Child]]] = []
        queue = problem.queue
        n = len(queue)
        letters = "".join(p.name for p in queue)
        use_hold = problem.use_hold
        gen = self.gen
        # with hard drops only, the tiling test in an order of row clears (it implies the order-free one)
        tiling_test = tileable_counts8 if gen.soft_drop else hard_drop_tileable_counts8
        if len(self.dead) > 1_000_000:
            self.dead.clear()
        dead = self.dead
        path: list[tuple[Piece, Child]] = []
        # suffix8[i]: how many of each piece are in queue[i:], 8 bits per piece (piece p in bits 8p..8p+7); the
        # window queue[i:j] is suffix8[i] - suffix8[j] (counts stay below 256: windows are at most 15 long)
        suffix8 = [0] * (n + 1)
        for i in range(n - 1, -1, -1):
            suffix8[i] = suffix8[i + 1] + (1 << (8 * queue[i]))

        def options(idx: int, held: Piece | None) -> list[tuple[Piece, int, Piece | None]]:
            if not use_hold:
                return [(queue[idx], idx + 1, None)] if idx < n else []
            if idx >= n:
                return [(held, n, None)] if held is not None else []
            if held is None or held == queue[idx]:
                return [(queue[idx], idx + 1, held)]
            return [(held, idx + 1, queue[idx]), (queue[idx], idx + 1, held)]

        def dfs(bits: Bitboard, h: int, idx: int, held: Piece | None) -> bool:
            """True if at least one solution was found below this state."""
            key = (bits, h, letters[idx:], held, use_hold)
            if key in dead:
                return False
            # the pieces that can still be placed: the buffer and the next `needed` queue pieces (each placement
            # takes one queue piece into play or into the buffer); later ones come too late for this PC
            needed = (WIDTH * h - bits.bit_count()) // 4
            counts = suffix8[idx] - suffix8[min(n, idx + needed)]
            if held is not None:
                counts += 1 << (8 * held)
            if not tiling_test(bits, h, counts):
                dead.add(key)
                return False
            stats.nodes += 1
            if clock is not None and stats.nodes & 15 == 0 and not clock():
                stats.truncated = True
                return False
            any_found = False
            for piece, nidx, nheld in options(idx, held):
                left = n - nidx + (nheld is not None)
                for child in gen.children(bits, h, piece):
                    path.append((piece, child))
                    if child.h == 0:
                        paths.append(list(path))
                        any_found = True
                    else:
                        needed = (WIDTH * child.h - child.field.bit_count()) // 4
                        if needed <= left and walls_ok(child.field, child.h) and dfs(child.field, child.h, nidx, nheld):
                            any_found = True
                    path.pop()
                    if any_found and (not find_all or len(paths) >= limit):
                        if len(paths) >= limit and find_all:
                            stats.truncated = True
                        return True
                    if stats.truncated:
                        return any_found
            if not any_found and not stats.truncated:
                dead.add(key)
            return any_found

        idx, held = start_state(problem)
        dfs(problem.field, problem.lines, idx, held)
        solutions = [self._to_solution(problem, p) for p in paths]
        if find_all:
            solutions.sort(key=Solution.rank_key)
        stats.elapsed_ms = (time.perf_counter() - started) * 1000
        return solutions, stats

    def _solve_compiled(
        self, kernel: Any, problem: Problem, stats: SearchStats, started: float, clock: Callable[[], bool] | None
    ) -> tuple[list[Solution], SearchStats]:
        """The first solution, by the compiled search (the same search, order and answer as the Python one);
        `clock()` is asked between slices and says False to stop."""
        from ai.pc.jit_search import FOUND, PAUSED

        idx, held = start_state(problem)
        status, found, nodes = kernel.run(
            problem.field,
            problem.lines,
            [int(p) for p in problem.queue],
            idx,
            -1 if held is None else int(held),
            problem.use_hold,
            self.gen.soft_drop,
            clock,
        )
        stats.nodes = nodes
        stats.truncated = status == PAUSED
        solutions = []
        if status == FOUND:
            path = [
                (Piece(piece), Child(mask, sid, bool(hard), field, h, lines))
                for piece, mask, field, h, sid, hard, lines in found
            ]
            solutions.append(self._to_solution(problem, path))
        stats.elapsed_ms = (time.perf_counter() - started) * 1000
        return solutions, stats

    @staticmethod
    def _to_solution(problem: Problem, path: list[tuple[Piece, Child]]) -> Solution:
        placed = [piece for piece, _ in path]
        flags, leftover = real_hold_flags(problem, placed)
        steps = []
        for (piece, child), hold in zip(path, flags):
            steps.append(step_of(piece, child, hold=hold))
        return Solution(steps=tuple(steps), leftover=leftover)


def step_of(piece: Piece, child: Child, *, hold: bool) -> Step:
    """The Step a child of the PC move generator makes (its plain ints turned into a placement)."""
    rot, x, y = unpack(child.sid)
    placement = Placement(piece=piece, rotation=Rotation(rot), x=x, y=y)
    return Step(placement=placement, hold=hold, hard=child.hard, lines=child.lines)


@per_rules()
def searcher_for(rules: Rules, soft_drop: bool = True) -> Searcher:
    """One searcher (and dead-state memo) per rules key; a change of rules gets a fresh one."""
    return Searcher(rules, soft_drop)
