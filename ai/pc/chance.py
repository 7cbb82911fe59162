"""Live PC odds: the chance of a perfect clear from the current state under the randomizer's exact model, and
the next placement that maximises it.

Model: the future queue is drawn from `randomizer.outcomes` starting at `randomizer_state` (for a 7-bag, the
pieces left in the bag), so impossible futures get probability 0. After the next placement the player is
assumed to see the rest of the queue in time (solution-finder's `percent` assumption); the chance of a
placement is the probability of the futures from which a PC still exists after it, and `chance` is that of
the best placement. With too many unknown pieces the futures are sampled (`sampled`); with a budget the search
may stop early, and then `approximate` says so and the chance is a lower bound, not the answer.

Method (exact): every future is a leaf of a trie. Per next placement the leaves won and lost are tracked; the
placement with the highest upper bound is refined until it is decided, so once the best one is exact no other
needs scoring (a placement winning every future ends the search at once). Refining mostly means one
single-queue search for an undecided leaf: the PC it finds is kept as an arrangement (`ai.pc.cover`), which
wins every leaf that can build it, usually dozens at once; with many leaves still open, one trie search from the
state a few placements before the end of that PC wins those it still clears in other ways (`widen`). Once a
single search proves a leaf lost, the rest of that placement goes to the exhaustive trie search
(`ai.pc.percent.TrieSearch`, compiled).

Ruling a placement out needs losses only. So the first time a placement is refined, every class of its leaves
(the same pieces to come) that cannot tile its field is lost at once; and while another placement already has a
better lower bound, its trie search is asked only for about as many futures as it is short of losses, those the
most placements lost first (`trie_wanted`), where it would decide all of them. On an empty field (a later PC's first
position) one pass over the placements comes before that (`UNION_PASS`): each one's trie search is asked for the
futures no placement before it has won, and those none wins are lost whatever the placement, out of every bound at
once; the others then need only the few losses more that set them below the best.

A table made under rules whose placements include these rules' (`ai.pc.opening.wider_rules`: SRS with 180 for plain
SRS) bounds every placement from above where it holds the same question, and its placement is tried first: when
it is decided at that bound, the search ends without ruling the others out. On an empty field, which no table
holds at a later PC, the placements are tried by how many futures they keep on average after a game's first piece
(`ai.pc.seconds.first_placement_worth`): an order only, the chance is the same.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ai.pc import opening, seconds
from ai.pc.cover import Arrangement, ArrangementStore, leaf_sequence
from ai.pc.field import clear_full_rows
from ai.pc.percent import Node, Trie, TrieSearch
from ai.pc.search import Problem, Solution, Step, gc_paused, searcher_for, step_of
from game.board import WIDTH, Bitboard, Board
from game.pieces import Piece
from game.rules import Rules, per_rules

MAX_FUTURES = 20_000
# single-queue searches that find no PC before the remaining futures of a placement go to the trie search; a
# failed single search costs about as much as the compiled trie search for all of them, and once the trie search
# is asked only for what ruling out needs (`trie_wanted`), one is enough (recorded questions of bench/pc.py asked
# both ways, 2 -> 1: held sum -16%, 9 -> 3 over 200 ms; firsts -10%; wander -11%, 3 -> 1 over; holding -9%;
# follow and chance the same; 0: wander's slowest 1.1 s)
MAX_SINGLE_LOSSES = 1
# after a single search finds a PC, the placement's futures still open below the state this many placements
# before the end of that PC, if at least WIDEN_MIN, go to one trie search from it (bench/pc.py's recorded
# questions, asked both ways, with MAX_SINGLE_LOSSES 2 then: held sum -6%, slowest 377 -> 311 ms; firsts -7%,
# 667 -> 624; holding -8%; wander -1%, slowest 256 -> 223, p99 85 -> 74; follow +5%). Five placements before the
# end is about where the pieces shown run out and the futures part; from an earlier state the trie search costs
# more, and for a few futures a single search is as cheap and brings an arrangement.
WIDEN_REST = 5
WIDEN_MIN = 40
# with this many futures (42 or 60 under a 7-bag: the last two or three pieces unknown, as at a later PC's second
# position), no single searches before the trie search. The futures share all but their last pieces, so the trie search
# decides the few futures a placement must lose for about what a single search costs, and the single searches there
# mostly find PCs for futures of placements that are ruled out in the end (s10pc5:L@4198412 of bench/pc.py --groups
# spots, traced while a generator ran: 109 of 153 found one, about 55 of 240 ms, before the ~50 placements that win
# fewer than the best were shown to lose 2 each). Recorded spots questions asked both ways, two rounds, a quiet machine:
# the slowest 206, 205 -> 172, 170 ms (SRS+), 198, 193 -> 163, 162 (default rules), 198, 194 -> 179, 195 (plain SRS);
# sums +2..9%, p99 +1..8%; recorded wander games' sums +2..11%, tails the same. Below 30 futures it cost wander's median
# 0.41 -> 0.47 ms, and from 120 up its tails (measured while a generator ran).
FEW_FUTURES = range(30, 100)
# a placement being ruled out asks its trie search for as many futures as it is short of losses and this many more
# (recorded wander questions asked both ways, 4 -> 1: s1pc13k1, the slowest under every rule set, 191 -> 178 ms,
# 208 -> 185, 205 -> 175; sums -0.3..-1%; firsts, held, holding, follow and chance the same). At least 1: asked
# for no future, a placement would be refined for ever.
RULING_SLACK = 1
# ... and, once such searches have found some of the futures asked won, as many more as it takes at the rate they
# found them lost so far (at most RULING_MOST times as many): under NRS and without kicks a later PC's first
# placements each win about half of the futures the best one lost, the likeliest losses, so asked as many as they
# were short, most had to be asked again. Later firsts (bench/pc.py's 300, both ways per position in one run, ad
# hoc, thread CPU, same chances, a table generator on both cores): NRS sum 88.3 -> 85.8 s, no kicks 53.1 -> 51.5 s,
# the default rules 3.30 -> 3.09 s; the ten slowest under NRS 39.4 -> 37.0 s. Asking three times as many whatever the
# rate did as well there, but `firsts` (840 futures, the likeliest losses mostly lost) went 221 -> 260 ms median
# (bench/pc.py --against, the generator running); adapted, 229 -> 231 ms.
ADAPT_RULING = True
RULING_MOST = 4.0
# with at least SECOND_MIN futures and no seeds, every other refine goes to a second order of the placements, those
# whose cells touch the floor, the walls and the blocks most first (`_contact`): see the best-first loop in
# `pc_chance` (taking turns below 100 futures too left wander's tails the same and cost its median 0.31 -> 0.33 ms)
SECOND_ORDER = True
SECOND_MIN = 100
# once this many futures are known lost whatever the placement, no more are looked for: each look is a single search
# from the position itself (~3 ms at a 3rd PC's second position), and where dozens of futures are lost that way the
# placements lose them more cheaply one by one (bench/pc.py --groups spots-srs, s11pc3:Z@268828800: 60 looks, 192 of
# 311 ms; recorded spots asked both ways, 8 against none: its slowest 339 -> 256 ms, 10 -> 8 over 200 ms, wander's
# the same)
HOPELESS_MAX = 8
# and a look gives up after one slice of its single search (2,048 states); the future then counts as the placement's
# loss only. Few looks take longer (bench/pc.py --groups spots: 58 of 1,599 that found a future lost everywhere, 22
# of 1,920 that found a PC), but at a 3rd PC's second position each costs 10-16 ms (spots asked both ways, games
# alternated: slowest 402 -> 336 ms, 23 -> 19 over 200 ms; spots-srs 383 -> 346, 24 -> 20; sums and wander the same)
HOPELESS_ONE_SLICE = True
# On an empty field, before the best-first loop: one pass over the placements in `order`, each one's trie search
# asked for the futures no placement before it has won (`union_pass`). The futures none wins are lost whatever the
# placement (hopeless) and drop out of every bound at once. At the slow later PCs' first positions the best placement
# loses only those (o2Z/h:LSJILI without kicks: all 24 it loses), and before, each of the 34 others was shown to lose
# 25 futures by its own asks. Later firsts (300, both ways per position in one run, ad hoc, thread CPU, same
# chances): no kicks sum 27.3 -> 21.8 s, slowest 3.5 -> 3.0 s, 17 -> 16 over 200 ms; NRS 34.7 -> 31.1 s, 3.5 ->
# 2.8 s, 23 -> 22. bench/pc.py --against: a proved range shown within 200 ms at every slow one (no kicks 11 -> 16
# of 16, NRS 17 of 23 -> 25 of 25), as the first placement's search wins futures at once; `firsts` (searched without the
# opening table) median 126 -> 132 ms, 1 -> 3 over 200 ms (201-227 ms).
UNION_PASS = True
# An empty field's placements are tried by their worth in steps of 2% of the futures (placements nearer than that
# are tried by the rest of the order). Over recorded and random later PCs' first positions (ad hoc, one run each,
# the same chances): fewer over 200 ms under every rule set tried (default rules 3 -> 1 of 150 random ones; NRS
# 27 -> 20 of 151 recorded, 13 -> 11 of 60 random; no kicks 21 -> 19 and 7 -> 4), thread CPU sums -5..-18%, no
# kicks' recorded +6%; the worth after the seeds did worse there, and unrounded, it tried an I on end before the
# same I flat (equal worths) and lost up to 200 ms.
WORTH_STEPS = 50
# While a search runs long, `progress` hears the proved bounds this often: no placement wins more than the upper,
# the best so far at least the lower (the panel shows them instead of "computing…": a 200 ms view of a search
# that may take seconds under NRS or without kicks)
PROGRESS_MS = 100.0
# Until some placement has won a future, the first placement the loop picks is refined alone (its arrangements, a
# single search, then its trie search), instead of every placement first losing one future to a single search each:
# the first win, and so the first range shown, comes sooner, and where that placement is the best (often: it leads
# `ahead`) the others are ruled out against its count. Later firsts (bench/pc.py's 300, both ways per position in
# one run, ad hoc; thread CPU, same chances): NRS sum 69.3 -> 67.8 s, no kicks 43.5 -> 42.3 s; o2Z/h:LSJILI 7.0 ->
# 5.1 s and 7.5 -> 5.5 s, but o2S/h:JOLZJJ 3.8 -> 4.7 s and 4.1 -> 5.2 s (its opener is the best, 320 of 360, yet
# deciding it first costs more there); the default rules' groups the same (bench/pc.py).
FIRST_WIN_FIRST = True
# Each of the seeds' single searches (`_promising_solutions`: a PC for each of three likely futures) stops after
# SEED_MS: a seed with a PC finds it in a few ms, a future without one is searched to no use (under NRS proving that
# takes ~1.2 s; two of o2Z/h:LSJILI's three seeds spent 200 ms each for nothing). 200 -> 67 ms, later firsts (300,
# both ways per position in one run, ad hoc, thread CPU, same chances): NRS sum 65.0 -> 63.5 s, no kicks 42.8 ->
# 40.9 s, the first win (so the first range shown) at most 524 -> 275 ms under NRS; the default rules' groups the
# same (bench/pc.py: `firsts`, searched without tables, 11 -> 13 over 200 ms at its 200-260 ms edge, max 294 -> 300).
SEED_MS = 67.0
# told (lower, upper, lead): see pc_chance's `progress`
Progress = Callable[[float, float, Step | None], None]
_FLOOR = (1 << WIDTH) - 1
_LEFT_WALL = sum(1 << (WIDTH * row) for row in range(8))
_RIGHT_WALL = _LEFT_WALL << (WIDTH - 1)


def _rows_spanned(mask: Bitboard) -> int:
    return sum(1 for y in range(opening.LINES) if mask >> (WIDTH * y) & _FLOOR)


def _contact(mask: Bitboard, bits: Bitboard) -> int:
    """How many sides of the placement's cells (`mask`, placed in the field `bits`) touch the floor, a wall or a
    block: a piece lying flat in a corner touches most."""
    return (
        (mask & (_FLOOR | _LEFT_WALL | _RIGHT_WALL)).bit_count()
        + (mask & _LEFT_WALL & _FLOOR).bit_count()
        + (mask & _RIGHT_WALL & _FLOOR).bit_count()
        + (mask >> WIDTH & bits).bit_count()
        + ((mask & ~_LEFT_WALL) >> 1 & bits).bit_count()
        + ((mask & ~_RIGHT_WALL) << 1 & bits).bit_count()
    )


# pieces left in the bag when the PC starts -> which PC of the 7-bag loop it is
_PC_NUMBER = {7: 1, 4: 2, 1: 3, 5: 4, 2: 5, 6: 6, 3: 7}


def pc_number(bag_position: int) -> int:
    """1st..7th PC of the 7-bag loop for a 4-line PC whose first piece is the `bag_position`-th piece (0-based)
    of its bag, i.e. 7 - bag_position pieces of that bag are still to come, the first piece included."""
    return _PC_NUMBER[7 - bag_position % 7]


def bag_position_of_current(randomizer_state: tuple, queue_len: int) -> int:
    """Position in its bag of the piece in play, given the 7-bag state after dealing the piece in play and the
    `queue_len` previews (state = pieces still in the bag, () at a bag boundary)."""
    dealt = (7 - len(randomizer_state)) % 7  # pieces of the current bag already dealt
    return (dealt - queue_len - 1) % 7


def _promising_solutions(
    bits: Bitboard,
    lines: int,
    sequences: list,
    weights: list[float],
    hold: Piece | None,
    use_hold: bool,
    searcher,
    budget_ms: float,
    samples: int = 3,
    should_stop: Callable[[], bool] | None = None,
) -> list[Solution]:
    """A solution for each of the few most likely futures that have one (within the budget; `should_stop` ends it
    early, as it ends the rest of the search)."""
    out = []
    likely = sorted(range(len(sequences)), key=lambda i: -weights[i])[:samples]
    for i in likely:
        problem = Problem(bits, lines, tuple(sequences[i]), hold, use_hold)
        found, _ = searcher.solve(problem, budget_ms=budget_ms, should_stop=should_stop)
        out.extend(found[:1])
    return out


def queue_length(need: int, hold: Piece | None, use_hold: bool) -> int:
    """Pieces of the queue (the piece in play first) a PC of `need` placements can use: one more with hold (the
    last stays in hold), one fewer when hold already has one."""
    return need + 1 - (hold is not None) if use_hold else need


def futures_trie(known: tuple[Piece, ...], length: int, randomizer, state) -> tuple[Trie, list[float], bool]:
    """The trie of the queues a PC can use from here: the pieces shown, then every continuation the randomizer can
    deal from `state`, cut to `length` pieces (equal queues merged); each leaf's probability (root numbering); and
    whether the futures were sampled (too many to list)."""
    unknown = max(0, length - len(known))
    # Every future is listed whatever the budget (a short budget must not turn an exact answer into a sample;
    # it ends the search instead, and the result then says it is approximate).
    futures, sampled = _futures(randomizer, state, unknown, MAX_FUTURES) if unknown else ([((), 1.0)], False)
    sequences = [(known + seq)[: max(length, 1)] for seq, _ in futures]
    weight_of: dict[tuple[Piece, ...], float] = {}
    for seq, (_, prob) in zip(sequences, futures):
        weight_of[seq] = weight_of.get(seq, 0.0) + prob
    trie = Trie(list(weight_of))
    return trie, [weight_of[seq] for seq in trie.sequences], sampled


def next_options(
    trie: Trie, current: Piece, hold: Piece | None, use_hold: bool, hold_spent: bool = False
) -> list[tuple[Piece, Piece | None, Node, int, int]]:
    """The next placement's choices from the buffer model's start state (see ai.pc.search): (piece placed, piece
    kept, next node, where its leaves start among the root's, queue pieces consumed)."""
    held: Piece | None
    node: Node
    if use_hold and hold is None:
        held, node, base = current, trie.root.children[current], trie.root.offsets[current]
    else:
        held, node, base = (hold if use_hold else None), trie.root, 0
    options: list[tuple[Piece, Piece | None, Node, int, int]] = []
    if node.children:
        for piece, sub in node.children.items():
            if use_hold and held is not None and held != piece and not hold_spent:
                options.append((held, piece, sub, base + node.offsets[piece], 1))
            options.append((piece, held, sub, base + node.offsets[piece], 1))
    elif use_hold and held is not None:
        options.append((held, None, node, base, 0))
    return options


@dataclass(eq=False)
class _Score:
    """What is known of one next placement: leaves (root numbering) it can win, has won, has lost, and the
    arrangements of its field not tried yet."""

    ways: list
    reach: int = 0
    won: int = 0
    lost: int = 0
    lower: float = 0.0
    upper: float = 1.0
    losses: int = 0  # single-queue searches that proved a leaf lost
    pending: list = field(default_factory=list)
    hits: int = 0  # usefulness of the pending arrangements (move order)
    classes_tested: bool = False  # the classes of leaves that cannot tile its field are lost already

    def add(self, arrangement: Arrangement, weight, token: object, use_hold: bool) -> None:
        """Win every leaf the arrangement builds, through any of the ways this placement can happen."""
        before = self.won
        counts = arrangement.counts()
        for child, keep, sub, offset, _ in self.ways:
            available = list(sub.max_counts)
            if keep is not None:
                available[keep] += 1
            if any(c > a for c, a in zip(counts, available)):
                continue  # no queue below brings these pieces
            if child.h and (keep is not None or not use_hold):
                self.won |= (arrangement.cover(keep, sub, token, use_hold) & sub.leaves) << offset
        gained = (self.won & ~before).bit_count()
        if gained:
            arrangement.hits += gained
            self.lower = weight(self.won)


@per_rules()
def store_for(rules: Rules, soft_drop: bool = True) -> ArrangementStore:
    """The arrangements found under these rules (see ai.pc.cover.ArrangementStore), shared by all calls."""
    return ArrangementStore(searcher_for(rules, soft_drop).gen)


@dataclass
class ChanceResult:
    chance: float  # probability of a PC after the best next placement
    best_placement: Step | None
    # next placements with their chance, best first (once one wins every winnable future the rest are not scored;
    # an answer from the opening table has the best one only)
    placements: list[tuple[Step, float]] = field(default_factory=list)
    futures: int = 0  # queues considered
    approximate: bool = False
    sampled: bool = False  # the futures were sampled (too many to list): more time cannot make it exact
    elapsed_ms: float = 0.0


def _futures(
    randomizer, state, count: int, limit: int = MAX_FUTURES, seed: int = 0
) -> tuple[list[tuple[tuple[Piece, ...], float]], bool]:
    """Every continuation of `count` pieces with its probability, or a sample of `limit` when too many."""
    out: list[tuple[tuple[Piece, ...], float]] = []
    for seq, prob in randomizer.sequences(count, state):
        if prob > 0:
            out.append((tuple(seq), prob))
            if len(out) > limit:
                break
    else:
        return out, False
    rng = random.Random(seed)
    sample: dict[tuple[Piece, ...], float] = {}
    for _ in range(limit):
        current, seq = state, []
        for _ in range(count):
            options = randomizer.outcomes(current)
            pick = rng.random()
            for piece, prob, nxt in options:  # noqa: B007 - the last ones looked at are the pick, used below
                pick -= prob
                if pick <= 0:
                    break
            seq.append(piece)
            current = nxt
        sample[tuple(seq)] = sample.get(tuple(seq), 0) + 1 / limit
    return list(sample.items()), True


def _from_table(
    answer: opening.Answer,
    bits: Bitboard,
    current: Piece,
    randomizer,
    state,
    unknown: int,
    rules: Rules,
    soft_drop: bool,
    started: float,
) -> ChanceResult:
    """The opening table's answer as the search gives it: the chance summed from the futures' probabilities as
    the search sums them (all equal under a 7-bag), and the best placement as a step."""
    futures, _ = _futures(randomizer, state, unknown)
    weights = [prob for _, prob in futures]
    if len(weights) != answer.futures or len(set(weights)) != 1:
        raise RuntimeError("the opening table's question has other futures than the table was made for")
    chance = math.fsum(weights[: answer.count])
    best = None
    if answer.count:
        for child in searcher_for(rules, soft_drop).gen.children(bits, opening.LINES, answer.piece):
            if child.mask == answer.mask:
                best = step_of(answer.piece, child, hold=answer.piece != current)
                break
        else:
            raise RuntimeError("the opening table names a placement the move generator does not offer")
    return ChanceResult(
        chance=chance,
        best_placement=best,
        placements=[(best, chance)] if best else [],
        futures=len(weights),
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )


@gc_paused()  # (a context manager made by contextlib also decorates)
def pc_chance(  # noqa: C901 - one search over shared bounds and caches (refine/score closures); split apart, they would pass a dozen values around
    board: Board | Bitboard,
    current: Piece,
    queue: list[Piece],
    hold: Piece | None,
    randomizer_state,
    randomizer,
    rules: Rules,
    lines: int = 4,
    budget_ms: float | None = None,
    *,
    soft_drop: bool = True,
    use_hold: bool = True,
    hold_spent: bool = False,
    should_stop: Callable[[], bool] | None = None,
    table: bool = True,
    wider_bound: bool | None = None,
    progress: Progress | None = None,
    progress_ms: float | None = None,
) -> ChanceResult:
    """Chance of a PC of `lines` rows from here and the best next placement (see the module docstring).

    hold_spent: hold was already pressed for the piece in play, so the next placement is `current` itself.
    should_stop: asked every few milliseconds, as the budget is; True ends the search (the result is then
    approximate, as when the budget runs out).
    table: answer a 7-bag game's opening positions from the opening tables (ai.pc.opening) when the question is
    one of theirs; False always searches (the tables' own making, and tests comparing the two).
    wider_bound: let the wider rules' table (opening.wider_rules) bound the search, as `ceiling` below (default: as
    `table`); with `table` False, the tables' own making: the count is the same, found sooner where the best
    placement reaches the bound (no kicks' two-dealt positions: a mean 353 -> 207 ms).
    progress: told (lower, upper, lead) every `progress_ms` (default PROGRESS_MS) while the exact search runs: the
    chance is proved to lie between them (the placement `lead` wins at least `lower`, none can win more than
    `upper`; lead is None while nothing is won); never for sampled futures, whose counts are not the chance."""
    started = time.perf_counter()
    proved_bounds: list[Callable[[], tuple[float, float, Step | None]]] = []  # set once the placements are scored
    last_report = [started]
    every_ms = PROGRESS_MS if progress_ms is None else progress_ms

    def report_bounds() -> None:
        now = time.perf_counter()
        if progress is not None and proved_bounds and (now - last_report[0]) * 1000 >= every_ms:
            last_report[0] = now
            progress(*proved_bounds[0]())

    asked_to_stop: Callable[[], bool] | None = should_stop
    if progress is not None:

        def stop_or_report() -> bool:  # the searches' clock checks report the bounds too
            report_bounds()
            return should_stop is not None and should_stop()

        asked_to_stop = stop_or_report

    above: opening.Answer | None = None  # the wider rules' table's answer (see `ceiling` below)
    bits = board.bits if isinstance(board, Board) else board
    known = (Piece(current),) + tuple(Piece(p) for p in queue)
    Problem(bits, lines, known, hold, use_hold).check()
    empty = WIDTH * lines - bits.bit_count()
    if empty % 4 or empty == 0:
        return ChanceResult(0.0, None, elapsed_ms=(time.perf_counter() - started) * 1000)
    length = queue_length(empty // 4, hold, use_hold)
    unknown = max(0, length - len(known))
    if wider_bound is None:
        wider_bound = table
    if table or wider_bound:

        def looked_up(under: Rules) -> opening.Answer | None:
            return opening.lookup(
                bits,
                lines,
                known[0],
                known[1:],
                hold,
                randomizer_state,
                randomizer,
                under,
                soft_drop=soft_drop,
                use_hold=use_hold,
                hold_spent=hold_spent,
            )

        answer = looked_up(rules) if table else None
        if answer is not None:
            return _from_table(answer, bits, known[0], randomizer, randomizer_state, unknown, rules, soft_drop, started)
        wider = opening.wider_rules(rules)
        if wider is not None and wider_bound:  # the same question under rules whose placements include these rules'
            above = looked_up(wider)
    trie, weights, sampled = futures_trie(known, length, randomizer, randomizer_state)
    # With a budget the whole search stops at the deadline and the result says it is approximate.
    # the trie search's memo is kept by the futures' sequences: the same question asked again (cut short by a
    # budget or a newer question, or the position back) goes on from what was proved
    search = TrieSearch(searcher_for(rules, soft_drop).gen, use_hold, trie=trie, should_stop=asked_to_stop)

    options = next_options(trie, known[0], hold, use_hold, hold_spent)

    # Every next placement (piece, cells), with the ways it can happen: (child, piece kept, node, leaf offset).
    moves: dict[tuple[Piece, int], tuple[Step, list]] = {}
    for placed, keep, sub, offset, consumed in options:
        for child in search.gen.children(bits, lines, placed):
            key = (placed, child.mask)
            if key not in moves:
                moves[key] = (step_of(placed, child, hold=placed != known[0]), [])
            moves[key][1].append((child, keep, sub, offset, consumed))

    searcher = searcher_for(rules, soft_drop)
    deadline = None if budget_ms is None else started + budget_ms / 1000
    search.set_deadline(deadline)

    uniform = len(set(weights)) == 1
    single_losses = 0 if len(weights) in FEW_FUTURES else MAX_SINGLE_LOSSES
    heaviest = max(weights)
    # The wider rules' count bounds every placement's chance from above (opening.wider_rules): a placement decided at it
    # is the best, so the others need not be ruled out one by one (most of the time at a 3rd PC's second position
    # under plain SRS). Its placement is tried first.
    ceiling = math.inf
    if above is not None and uniform and not sampled and len(weights) == above.futures:
        ceiling = above.count * weights[0]  # as weight() sums leaves

    def weight(leaves: int) -> float:
        if uniform:
            # n equal weights: the product is the correctly rounded exact sum, as math.fsum gives it (equal
            # answers whichever way a chance was summed, the opening table's included)
            return leaves.bit_count() * weights[0]
        total = []
        while leaves:
            low = leaves & -leaves
            total.append(weights[low.bit_length() - 1])
            leaves ^= low
        return math.fsum(total)

    # Per placement: the leaves (root numbering) it can still win, those won (proved by an arrangement or the
    # trie search) and those lost (proved by a search), and the arrangements of its field known from earlier
    # calls (stored for that field, or stored for this one with this placement in them).
    store = store_for(rules, soft_drop)
    token = object()
    # arrangements of this field by placement: (arrangement, index) of each placement in each
    by_placement: dict[tuple[Piece, int], list[tuple[Arrangement, int]]] = {}
    for arrangement in store.at(bits, lines):
        for i, placement in enumerate(zip(arrangement.pieces, arrangement.masks)):
            by_placement.setdefault(placement, []).append((arrangement, i))
    scores = {key: _Score(ways) for key, (_, ways) in moves.items()}
    for (piece, mask), score in scores.items():
        first = score.ways[0][0]
        for child, keep, sub, offset, _ in score.ways:
            score.reach |= sub.leaves << offset
            if child.h == 0:
                score.won |= sub.leaves << offset
            elif not search.viable(child.field, child.h, sub, keep):
                score.lost |= sub.leaves << offset  # the pieces cannot tile the field whatever comes
        score.upper = weight(score.reach & ~score.lost)
        score.lower = weight(score.won)
        if first.h and score.reach & ~score.won & ~score.lost:
            # (arrangement, None) of the child's field, or (arrangement, i) of this field with this placement
            # as its placement i (turned into the child's arrangement when tried); most useful last
            pending = [(a, None) for a in store.at(first.field, first.h)] + by_placement.get((piece, mask), [])
            pending.sort(key=lambda item: item[0].hits)
            score.pending = pending
            score.hits = sum(a.hits for a, _ in pending)

    def remember(key: tuple[Piece, int], steps: tuple[Step, ...]) -> Arrangement:
        """Store a PC found after placement `key` for its field and, with the placement, for this one."""
        child = scores[key].ways[0][0]
        store.add(Arrangement.from_steps(search.gen, bits, lines, (moves[key][0], *steps)))
        return store.add(Arrangement.from_steps(search.gen, child.field, child.h, steps))

    # Seeds when nothing is known of this field: solutions for a few likely futures, found by the fast
    # single-queue search; their first placement is tried first and the rest is an arrangement for it.
    priority: dict[tuple[Piece, int], int] = {}
    if not by_placement:
        for solution in _promising_solutions(
            bits,
            lines,
            trie.sequences,
            weights,
            hold,
            use_hold,
            searcher,
            SEED_MS if budget_ms is None else min(SEED_MS, budget_ms / 30),
            should_stop=asked_to_stop,
        ):
            first = solution.steps[0]
            key = (first.piece, first.mask)
            if key in scores and (not hold_spent or first.piece == known[0]) and scores[key].ways[0][0].h:
                priority.setdefault(key, len(priority))
                scores[key].pending.append((remember(key, solution.steps[1:]), None))
    # the wider rules' best placement first (not as a seed: where it is not the best here, the second order helps)
    hint = (above.piece, above.mask) if above is not None and ceiling < math.inf else None
    # On an empty field (a later PC's first position, which no table holds) the placements that keep the most
    # futures on average after a game's first piece come next (seconds.first_placement_worth, in steps of
    # 1/WORTH_STEPS of the futures), before the seeds: the seeds' single searches name the first placement they
    # meet, leftmost first, where one that wins every future is often further in. Among equals, one on fewer rows
    # first: flat, it is cheaper to decide (wander-srs's s4pc4k0: 210 ms with an I on end, 16 ms with it flat).
    worth = seconds.first_placement_worth(rules) if bits == 0 and lines == opening.LINES else {}
    order = {
        key: (
            key != hint,
            -round(worth.get(key, 0.0) * WORTH_STEPS / opening.FUTURES),
            priority.get(key, len(priority)),
            -scores[key].hits,
            _rows_spanned(key[1]) if worth else 0,
            not moves[key][0].hard,
            i,
        )
        for i, key in enumerate(moves)
    }

    ahead = {key: tuple(-v for v in rank) for key, rank in order.items()}  # max() picks the first in `order`
    lost_anywhere = [0]  # leaves some placement lost
    times_lost = [0] * len(trie.sequences)  # by how many placements, per leaf
    best_lower = [max((score.lower for score in scores.values()), default=0.0)]

    def note_lost(leaves: int) -> None:
        lost_anywhere[0] |= leaves
        while leaves:
            low = leaves & -leaves
            times_lost[low.bit_length() - 1] += 1
            leaves ^= low

    def most_lost(leaves: int, offset: int, count: int) -> int:
        """The `count` leaves of `leaves` (numbered from `offset`) the most placements lost so far (the first
        ones of equals)."""
        ranked = []
        while leaves:
            low = leaves & -leaves
            at = low.bit_length() - 1
            ranked.append((-times_lost[at + offset], at))
            leaves ^= low
        ranked.sort()
        return sum(1 << at for _, at in ranked[:count])

    ruling = [0, 0]  # futures asked of the trie searches ruling a placement out, and those of them found lost

    def trie_wanted(need: int, offset: int, score: _Score) -> tuple[int, bool]:
        """The leaves of `need` to ask the trie search for: the futures lost elsewhere first (they share most of
        their search); while another placement is better, only as many of them as this one is short of losses
        (more where such asks were found won, ADAPT_RULING, and RULING_SLACK more), most lost first (bench/pc.py
        --groups firsts: median 300 -> 212 ms, held -6%, holding -11%, follow's slowest 347 -> 247 ms; chance and
        wander the same); and whether it asks so, to rule the placement out."""
        wanted = need & (lost_anywhere[0] >> offset) or need
        if best_lower[0] <= score.lower:
            return wanted, False
        losses_short = (score.upper - best_lower[0]) / heaviest  # (at least) to be ruled out
        lost_rate = ruling[1] / ruling[0] if ruling[1] and ADAPT_RULING else 1.0  # (see ADAPT_RULING)
        ask = int(min(losses_short / lost_rate, losses_short * RULING_MOST)) + RULING_SLACK
        return most_lost(wanted, offset, ask), True

    def next_leaf(need: int, offset: int) -> int:
        """The leaf of `need` (numbered from `offset`) to search alone: the first one lost elsewhere (the most lost
        one there: bench/pc.py --groups firsts +20%)."""
        hard = need & (lost_anywhere[0] >> offset) or need
        return (hard & -hard).bit_length() - 1

    # Leaves lost whatever the next placement (no PC from this state for that queue at all): lost for every
    # placement, so they lower every upper bound at once. Checked for leaves the placement being refined lost, until
    # HOPELESS_MAX are found, each by a single search of one slice at most (HOPELESS_ONE_SLICE).
    hopeless = [0]
    checked = [0]

    def undecided(score: _Score) -> int:
        return score.reach & ~score.won & ~score.lost & ~hopeless[0]

    def rebound(score: _Score) -> None:
        """The placement's upper bound brought down to the leaves it may still win."""
        score.upper = weight(score.reach & ~score.lost & ~hopeless[0])

    def check_hopeless(leaf: int, left_ms: float | None) -> bool:
        """Is root leaf `leaf` lost whatever the next placement? (A PC found instead is kept for its first
        placement.)"""
        checked[0] |= 1 << leaf
        if any(other.won >> leaf & 1 for other in scores.values()):  # won already (a search would find it again)
            return False
        problem = Problem(bits, lines, trie.sequences[leaf], hold, use_hold)
        gave_up = []

        def at_first_look() -> bool:
            """Stop at the search's first look at the clock (after one slice of states, SLICE_NODES of
            ai.pc.jit_search), unless the caller stops the whole search."""
            if asked_to_stop is None or not asked_to_stop():
                gave_up.append(True)
            return True

        solutions, stats = searcher.solve(
            problem, budget_ms=left_ms, should_stop=at_first_look if HOPELESS_ONE_SLICE else asked_to_stop
        )
        if stats.truncated and gave_up:
            return False  # not known: the leaf counts as the placement's loss only
        if stats.truncated:
            search.truncated = True
            return False
        if solutions:
            first = solutions[0].steps[0]
            key = (first.piece, first.mask)
            if key in scores and scores[key].ways[0][0].h:
                scores[key].pending.append((remember(key, solutions[0].steps[1:]), None))
            return False
        hopeless[0] |= 1 << leaf
        for other in scores.values():
            rebound(other)
        return True

    running: list[tuple[tuple[Piece, int], int]] = []  # the placement whose trie search runs, its leaves' offset
    # per placement, the leaves its running searches were seen to have won: kept, as a search whose memo starts over
    # (when full) finds them again later, and its stack meanwhile holds fewer
    told_won: dict[tuple[Piece, int], int] = {}

    def run_for(
        key: tuple[Piece, int], offset: int, bits: Bitboard, h: int, held: Piece | None, node: Node, wanted: int
    ) -> int:
        """`search.run` for one of placement `key`'s ways: while it runs, the bounds reported count what it has
        won so far (`proved`)."""
        running.append((key, offset))
        try:
            return search.run(bits, h, held, node, wanted)
        finally:
            running.pop()

    def widen(key: tuple[Piece, int], child, keep, sub: Node, offset: int, sequence, steps) -> None:
        """Win the placement's open futures that the state WIDEN_REST placements before the end of a PC just
        found (for the future `sequence`, from `child` with `keep` in the buffer) still clears, by one trie search
        from that state: an arrangement only wins futures that build the same cells, where that state's last
        placements may be any."""
        score = scores[key]
        bits, h, held, node, base = child.field, child.h, keep, sub, offset
        used = 0  # pieces of `sequence` consumed (the buffer model of ai.pc.search)
        for done, step in enumerate(steps):
            if len(steps) - done <= WIDEN_REST:  # (a shorter PC: from `child` itself)
                need = (undecided(score) >> base) & node.leaves
                if need.bit_count() >= WIDEN_MIN:
                    got = run_for(key, base, bits, h, held, node, need)
                    if not search.truncated:
                        score.won |= (got & node.leaves) << base
                        score.lower = weight(score.won)
                return
            if used < len(sequence):
                piece = sequence[used]
                if step.piece != piece:  # the buffer's piece went down, the queue's took its place
                    held = piece
                base += node.offsets[piece]
                node = node.children[piece]
                used += 1
            else:  # the queue is used up: the buffer's piece goes down
                held = None
            bits, cleared = clear_full_rows(bits | step.mask, h)
            h -= cleared

    def refine(key: tuple[Piece, int]) -> None:
        """Decide more of this placement's undecided leaves (the first time, those whose pieces cannot tile its
        field, `TrieSearch.untileable`; then see `decide_more`), then bring its upper bound down to the leaves not
        lost. Done here once for every way leaves get lost: a bound left stale made a decided placement look better
        than it is, which ended the search before a better undecided one was scored."""
        score = scores[key]
        if not score.classes_tested:
            score.classes_tested = True
            for child, keep, sub, offset, _ in score.ways:
                if child.h:
                    lost = search.untileable(child.field, child.h, sub, keep) << offset
                    score.lost |= lost
                    note_lost(lost)
        else:
            decide_more(key)
        rebound(score)
        best_lower[0] = max(best_lower[0], score.lower)

    def take_answer(score: _Score, offset: int, wanted: int, got: int) -> None:
        """A finished trie search's answer (its node's numbering, from `offset`): the leaves `got` are won, those
        `wanted` and not got are lost."""
        score.won |= got << offset
        score.lost |= (wanted & ~got) << offset
        note_lost((wanted & ~got) << offset)

    def decide_more(key: tuple[Piece, int]) -> None:
        """The next arrangement known for the placement's field, else one single-queue search (a PC found becomes
        an arrangement, which usually wins many leaves at once; a failed search proves one leaf lost, and then
        whether it is lost whatever the placement), or, after MAX_SINGLE_LOSSES failures (at once with FEW_FUTURES),
        the exhaustive trie search for all the rest."""
        score = scores[key]
        if score.pending:
            arrangement, i = score.pending.pop()
            if i is not None:
                view = arrangement.after(i)
                view.hits = max(view.hits, arrangement.hits)
                arrangement = store.add(view)
            score.add(arrangement, weight, token, use_hold)
            return
        open_leaves = undecided(score)
        for child, keep, sub, offset, _ in score.ways:
            need = (open_leaves >> offset) & sub.leaves
            if not need:
                continue
            if score.losses < single_losses and (keep is not None or not use_hold):
                # futures other placements lost: they are the likeliest to be lost here too (those whose very pieces
                # cannot fill the field were lost by the placement's first refine)
                leaf = next_leaf(need, offset)
                sequence = leaf_sequence(sub, leaf)
                left_ms = None if deadline is None else (deadline - time.perf_counter()) * 1000
                if left_ms is not None and left_ms <= 0:
                    search.truncated = True
                    return
                problem = Problem(child.field, child.h, sequence, keep, use_hold)
                solutions, stats = searcher.solve(problem, budget_ms=left_ms, should_stop=asked_to_stop)
                if stats.truncated:
                    search.truncated = True
                elif solutions:
                    score.add(remember(key, solutions[0].steps), weight, token, use_hold)
                    widen(key, child, keep, sub, offset, sequence, solutions[0].steps)
                else:
                    root_leaf = leaf + offset
                    score.lost |= 1 << root_leaf
                    note_lost(1 << root_leaf)
                    if (
                        hold_spent
                        or checked[0] >> root_leaf & 1
                        or hopeless[0].bit_count() >= HOPELESS_MAX
                        or not check_hopeless(root_leaf, left_ms)
                    ):
                        score.losses += 1
                return
            wanted, ruling_out = trie_wanted(need, offset, score)
            got = run_for(key, offset, child.field, child.h, keep, sub, wanted)
            if search.truncated:
                return
            if ruling_out:
                ruling[0] += wanted.bit_count()
                ruling[1] += (wanted & ~got).bit_count()
            take_answer(score, offset, wanted, got & sub.leaves)
            break
        score.lower = weight(score.won)

    # Best first: always refine the placement with the highest upper bound; when that one is decided, no other
    # can beat it. Placements that win every future stop the search at once.
    # Until one is decided, each placement with the top bound needs a loss to drop out, and where several win
    # dozens of futures before their first loss, the order tried decides the time: s4pc8k0 of wander-srs took
    # 330 ms trying 34 T placements before the J that wins all 840 futures, 60 ms with the J first. Where no seeds
    # inform `ahead` (its order is then the arrangements' hits and the generator's), no order found puts the
    # winner first everywhere, so two take turns: `ahead`'s, and every other refine the placement that touches
    # most (`_contact`) among those with the top bound, kept until its bound drops (recorded wander questions
    # asked both ways: p99 -5..-15% under each rule set, plain SRS's slowest 361 -> 221 ms; with seeds, `firsts`
    # was slower, 7 against 2 over 200 ms, so they keep the one order).
    second = (
        {key: (_contact(key[1], bits), ahead[key]) for key in moves}
        if SECOND_ORDER and len(trie.sequences) >= SECOND_MIN and not priority
        else None
    )

    def bound(key: tuple[Piece, int]) -> float:
        """The placement's upper bound, the wider rules' count included."""
        return min(scores[key].upper, ceiling)

    held_second: tuple[Piece, int] | None = None
    opener: tuple[Piece, int] | None = None
    turn = False
    best_key = None

    def closest_to_winning() -> tuple[Piece, int] | None:
        """The placement that has won the most so far (the first in `ahead` of equals)."""
        return max(scores, key=lambda k: (scores[k].lower, ahead[k]), default=None)

    def proved() -> tuple[float, float, Step | None]:
        """(lower, upper, lead): the placement `lead` wins at least `lower` (a trie search still running counts the
        leaves it has won so far: the first one at a later PC's first position can take a second), no placement
        wins more than `upper`; lead is None while nothing is won."""
        for key, offset in running:
            told_won[key] = told_won.get(key, 0) | search.won_so_far() << offset
        lead = closest_to_winning()
        lower = 0.0 if lead is None else scores[lead].lower
        for key, won in told_won.items():
            if won & ~scores[key].won and weight(scores[key].won | won) > lower:
                lower, lead = weight(scores[key].won | won), key
        upper = max(map(bound, scores), default=0.0)
        return lower, upper, (moves[lead][0] if lead is not None and lower > 0 else None)

    if not sampled:
        proved_bounds.append(proved)

    def union_pass() -> None:
        """Each placement in `order` decides the futures no placement before it has won; then the futures none
        won are hopeless."""
        won_anywhere = 0
        for score in scores.values():
            won_anywhere |= score.won
        for key in sorted(scores, key=order.__getitem__):
            score = scores[key]
            while score.pending:  # the arrangements known win their futures at no search
                decide_more(key)
            for child, keep, sub, offset, _ in score.ways:
                need = ((score.reach & ~score.won & ~score.lost & ~won_anywhere) >> offset) & sub.leaves
                if not need or not child.h:
                    continue
                got = run_for(key, offset, child.field, child.h, keep, sub, need) & need
                if search.truncated:
                    return
                take_answer(score, offset, need, got)
            won_anywhere |= score.won
            score.lower = weight(score.won)
            rebound(score)  # (a stale bound: see `refine`)
            best_lower[0] = max(best_lower[0], score.lower)
            if best_lower[0] >= ceiling:
                return
        hopeless[0] |= trie.root.leaves & ~won_anywhere
        for score in scores.values():
            rebound(score)

    if UNION_PASS and bits == 0 and not sampled:
        union_pass()
    while not search.truncated and scores:
        report_bounds()
        if search.out_of_time():
            search.truncated = True
            break
        key = max(scores, key=lambda k: (bound(k), scores[k].lower, ahead[k]))
        score = scores[key]
        if not undecided(score) or score.lower >= ceiling:  # (at the bound, the futures still open are lost)
            best_key = key
            break
        if FIRST_WIN_FIRST and best_lower[0] == 0:  # (see FIRST_WIN_FIRST)
            if opener is None:
                opener = key
            if undecided(scores[opener]):
                refine(opener)
                continue
        turn = not turn
        if second is not None and turn:
            top = bound(key)
            if held_second is None or bound(held_second) < top or not undecided(scores[held_second]):
                held_second = max(
                    scores, key=lambda k: (bound(k), undecided(scores[k]) != 0, scores[k].lower, second[k])
                )
            key = held_second
        refine(key)
    ranked = [
        (moves[key][0], score.lower)
        for key, score in scores.items()
        if key == best_key or (not undecided(score) and score.lower > 0)
    ]
    if search.truncated:  # a lower bound for the placement closest to winning; not the answer
        closest = closest_to_winning()
        ranked = [(moves[closest][0], scores[closest].lower)] if closest is not None else []
    ranked.sort(key=lambda item: (-item[1], not item[0].hard, item[0].hold))
    best = ranked[0] if ranked and ranked[0][1] > 0 else None
    return ChanceResult(
        chance=best[1] if best else 0.0,
        best_placement=best[0] if best else None,
        placements=ranked,
        futures=len(trie.sequences),
        approximate=sampled or search.truncated,
        sampled=sampled,
        elapsed_ms=(time.perf_counter() - started) * 1000,
    )
