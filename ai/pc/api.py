"""The perfect-clear solver's public functions: solve, percent and live chance (pc_chance).

Boards may be given as `game.board.Board` or as bitboard ints; only rows 0..lines-1 may hold blocks.
`soft_drop=False` means hard drops only (shifts and turns above the stack). Every solution returned has been
replayed through `game.movegen.find_moves` and `game.scoring.lock_piece` (see ai.pc.verify).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from ai.pc.cover import Arrangement
from ai.pc.pattern import Pattern, parse_pattern
from ai.pc.percent import Trie, TrieSearch
from ai.pc.search import Problem, Solution, gc_paused, searcher_for
from ai.pc.verify import replay
from game.board import WIDTH, Bitboard, Board
from game.pieces import Piece
from game.rules import Rules


def _bits(board: Board | Bitboard) -> Bitboard:
    return board.bits if isinstance(board, Board) else board


@dataclass
class SolveResult:
    solutions: list[Solution]
    elapsed_ms: float
    nodes: int
    truncated: bool  # stopped at the limit or budget: the list may be incomplete

    @property
    def solvable(self) -> bool:
        return bool(self.solutions)


def solve(
    board: Board | Bitboard,
    queue: list[Piece] | tuple[Piece, ...],
    *,
    hold: Piece | None = None,
    use_hold: bool = True,
    rules: Rules | None = None,
    soft_drop: bool = True,
    lines: int = 4,
    find_all: bool = False,
    limit: int = 10_000,
    budget_ms: float | None = None,
    verify: bool = True,
    should_stop: Callable[[], bool] | None = None,
) -> SolveResult:
    """Perfect clears of `lines` rows for the queue (first piece = piece in play) and hold piece.

    find_all=False: the first solution found (or none). find_all=True: every distinct solution (distinct
    placements or order) up to `limit`, ranked by Solution.rank_key. Raises PCInputError for bad problems.
    should_stop: asked every few milliseconds, as the budget is; True ends the search (marked truncated).
    """
    rules = rules or Rules.named("srs")
    problem = Problem(_bits(board), lines, tuple(Piece(p) for p in queue), hold, use_hold)
    searcher = searcher_for(rules, soft_drop)
    with gc_paused():
        solutions, stats = searcher.solve(
            problem, find_all=find_all, limit=limit, budget_ms=budget_ms, should_stop=should_stop
        )
    if verify:
        for solution in solutions:
            replay(problem, solution, rules, soft_drop)
    return SolveResult(solutions, stats.elapsed_ms, stats.nodes, stats.truncated)


# single-queue searches finding no PC before percent hands the queues left to the trie search
PERCENT_SINGLE_LOSSES = 8


def _start_cover(arrangement: Arrangement, hold: Piece | None, use_hold: bool, root, token: object) -> int:
    """Leaves of the trie (root numbering) whose queue builds the arrangement, hold starting as given."""
    if use_hold and hold is None:  # the piece in play fills the buffer (see ai.pc.search)
        won = 0
        for piece, sub in root.children.items():
            won |= (arrangement.cover(piece, sub, token, use_hold) & sub.leaves) << root.offsets[piece]
        return won
    return arrangement.cover(hold if use_hold else None, root, token, use_hold)


def _witnessed(
    bits: Bitboard,
    lines: int,
    hold: Piece | None,
    use_hold: bool,
    trie: Trie,
    rules: Rules,
    soft_drop: bool,
    search: TrieSearch,
) -> int:
    """Leaves proved to succeed by arrangements: a single-queue search for a leaf no arrangement builds yet,
    whose PC then wins every leaf that can build it (ai.pc.cover). Stops after PERCENT_SINGLE_LOSSES leaves
    without a PC (those and the rest are left to the trie search) or when the budget runs out."""
    searcher = searcher_for(rules, soft_drop)
    token = object()
    won = lost = 0
    everything = trie.root.leaves
    deadline = search.deadline
    while won | lost != everything and lost.bit_count() < PERCENT_SINGLE_LOSSES:
        rest = everything & ~won & ~lost
        leaf = (rest & -rest).bit_length() - 1
        left_ms = None if deadline is None else (deadline - time.perf_counter()) * 1000
        if left_ms is not None and left_ms <= 0:
            search.truncated = True
            break
        found, stats = searcher.solve(Problem(bits, lines, trie.sequences[leaf], hold, use_hold), budget_ms=left_ms)
        if stats.truncated:
            search.truncated = True
            break
        if not found:
            lost |= 1 << leaf
            continue
        arrangement = Arrangement.from_steps(searcher.gen, bits, lines, found[0].steps)
        won |= _start_cover(arrangement, hold, use_hold, trie.root, token) | 1 << leaf
    return won


def search_rest(search: TrieSearch, bits: Bitboard, lines: int, hold: Piece | None, root, won: int) -> int:
    """The trie search for the leaves not won yet."""
    if search.use_hold and hold is None:
        result = 0
        for piece, sub in root.children.items():
            offset = root.offsets[piece]
            need = ~(won >> offset) & sub.leaves
            if need:
                result |= search.run(bits, lines, piece, sub, need) << offset
        return result
    return search.run(bits, lines, hold if search.use_hold else None, root, ~won & root.leaves)


@dataclass
class PercentResult:
    success: int
    total: int
    failed: list[tuple[Piece, ...]]
    elapsed_ms: float
    truncated: bool = False

    @property
    def rate(self) -> float:
        return self.success / self.total if self.total else 0.0


def percent(
    board: Board | Bitboard,
    pattern: str | Pattern | list[tuple[Piece, ...]],
    *,
    hold: Piece | None = None,
    use_hold: bool = True,
    rules: Rules | None = None,
    soft_drop: bool = True,
    lines: int = 4,
    budget_ms: float | None = None,
) -> PercentResult:
    """For every queue of the pattern, whether a PC exists; counts as solution-finder's `percent`.

    Queues shorter than the pieces needed count as failures. Raises PatternError / PCInputError.
    """
    started = time.perf_counter()
    rules = rules or Rules.named("srs")
    if isinstance(pattern, str):
        pattern = parse_pattern(pattern)
    sequences = pattern.sequences() if isinstance(pattern, Pattern) else [tuple(s) for s in pattern]
    bits = _bits(board)
    Problem(bits, lines, (), hold, use_hold).check()
    empty = WIDTH * lines - bits.bit_count()
    if empty % 4:
        return PercentResult(0, len(sequences), list(sequences), (time.perf_counter() - started) * 1000)
    need = empty // 4
    keep = need + 1 if use_hold else need
    # group queues by the part that matters
    groups: dict[tuple[Piece, ...], list[tuple[Piece, ...]]] = {}
    short: list[tuple[Piece, ...]] = []
    for seq in sequences:
        usable = len(seq) + (hold is not None and use_hold)
        if usable < need:
            short.append(seq)
        else:
            groups.setdefault(tuple(seq[:keep]), []).append(seq)
    failed = list(short)
    success = 0
    truncated = False
    by_length: dict[int, list[tuple[Piece, ...]]] = {}
    for prefix in groups:
        by_length.setdefault(len(prefix), []).append(prefix)
    gen = searcher_for(rules, soft_drop).gen
    for prefixes in by_length.values():
        trie = Trie(prefixes)
        search = TrieSearch(gen, use_hold, budget_ms)
        with gc_paused():
            won = _witnessed(bits, lines, hold, use_hold, trie, rules, soft_drop, search)
            if won != trie.root.leaves and not search.truncated:
                won |= search_rest(search, bits, lines, hold, trie.root, won)
        truncated |= search.truncated
        for index, prefix in enumerate(trie.sequences):
            if won >> index & 1:
                success += len(groups[prefix])
            else:
                failed.extend(groups[prefix])
    order = {seq: i for i, seq in enumerate(sequences)}
    failed.sort(key=order.__getitem__)
    return PercentResult(success, len(sequences), failed, (time.perf_counter() - started) * 1000, truncated)


def warm_up(rules: Rules | None = None) -> None:
    """Load the compiled kernels (ai.pc.jit_tiling, ai.pc.jit_placements, ai.pc.jit_search, ai.pc.jit_trie; numba
    compiles them on the first run after an install and caches them) by solving small problems, and read the
    opening tables (ai.pc.opening, ai.pc.seconds, ai.pc.later_start; with `rules`, the worth of an empty field's
    placements too: ai.pc.seconds.first_placement_worth), so the first real question does not pay for either.
    `rules`: read the tables of these rules only (see ai.pc.opening.load_all, ai.pc.seconds.load_all); None: all."""
    from ai.pc import later_start, opening, seconds
    from ai.pc.tiling import tileable

    opening.load_all(rules)
    seconds.load_all(rules)
    for each in [rules] if rules is not None else opening.RULES.values():
        later_start.load(each)
    if rules is not None:
        seconds.first_placement_worth(rules)  # the whole table after a first placement, read for the live chance
    solve(0, [Piece.I, Piece.J, Piece.L, Piece.O, Piece.S, Piece.T, Piece.Z, Piece.I, Piece.J, Piece.L], verify=False)
    solve(
        0,
        [Piece.I, Piece.J, Piece.L, Piece.O, Piece.S, Piece.T, Piece.Z, Piece.I, Piece.J, Piece.L],
        soft_drop=False,
        verify=False,
    )
    tileable(0, 4, (2,) * 7)  # the entry point the percent and chance searches use
    trie = Trie([(Piece.I, Piece.I, Piece.I)])  # the compiled trie search (ai.pc.jit_trie) of percent and chance
    TrieSearch(searcher_for(Rules.named("srs")).gen, True).from_start(0, 2, Piece.I, trie.root)
