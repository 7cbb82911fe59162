"""Live PC odds: the chance of a perfect clear from the current state under the randomizer's exact model, and
the next placement that maximises it.

Model: the future queue is drawn from `randomizer.outcomes` starting at `randomizer_state` (for a 7-bag, the
pieces left in the bag), so impossible futures get probability 0. After the next placement the player is
assumed to see the rest of the queue in time (solution-finder's `percent` assumption); the chance of a
placement is the probability of the futures from which a PC still exists after it, and `chance` is that of
the best placement. With many unknown pieces the futures are sampled and with a budget the search may stop
early; `approximate` then says so (a stopped search only under-counts).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from ai.pc.cover import Arrangement, leaf_sequence
from ai.pc.movegen import unpack
from ai.pc.percent import Trie, TrieSearch
from ai.pc.search import Problem, Step, searcher_for
from game.board import WIDTH, Bitboard, Board
from game.pieces import Piece, Rotation
from game.rules import Rules

MAX_FUTURES = 20_000
# single-queue searches that find no PC before the remaining futures of a placement go to the trie search
MAX_SINGLE_LOSSES = 3
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


def _promising_moves(bits: Bitboard, lines: int, sequences: list, weights: list[float], hold: Piece | None,
                     use_hold: bool, rules: Rules, soft_drop: bool, samples: int = 3,
                     budget_ms: float = 200) -> dict[tuple[Piece, int], int]:
    """(piece, cells) of the first placement of a solution for each of the most likely futures -> rank."""
    ranks: dict[tuple[Piece, int], int] = {}
    likely = sorted(range(len(sequences)), key=lambda i: -weights[i])[:samples]
    searcher = searcher_for(rules, soft_drop)
    for i in likely:
        problem = Problem(bits, lines, tuple(sequences[i]), hold, use_hold)
        found, _ = searcher.solve(problem, budget_ms=budget_ms)
        if found:
            first = found[0].steps[0]
            ranks.setdefault((first.piece, first.mask), len(ranks))
    return ranks


@dataclass
class ChanceResult:
    chance: float  # probability of a PC after the best next placement
    best_placement: Step | None
    # next placements with their chance, best first (once one wins every winnable future the rest are not scored)
    placements: list[tuple[Step, float]] = field(default_factory=list)
    futures: int = 0  # queues considered
    approximate: bool = False
    sampled: bool = False  # the futures were sampled (too many to list): more time cannot make it exact
    elapsed_ms: float = 0.0


def _futures(randomizer, state, count: int, limit: int = MAX_FUTURES,
             seed: int = 0) -> tuple[list[tuple[tuple[Piece, ...], float]], bool]:
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
            for piece, prob, nxt in options:
                pick -= prob
                if pick <= 0:
                    break
            seq.append(piece)
            current = nxt
        sample[tuple(seq)] = sample.get(tuple(seq), 0) + 1 / limit
    return list(sample.items()), True


def pc_chance(board: Board | Bitboard, current: Piece, queue: list[Piece], hold: Piece | None,
              randomizer_state, randomizer, rules: Rules, lines: int = 4, budget_ms: float | None = None,
              *, soft_drop: bool = True, use_hold: bool = True, hold_spent: bool = False) -> ChanceResult:
    """Chance of a PC of `lines` rows from here and the best next placement (see the module docstring).

    hold_spent: hold was already pressed for the piece in play, so the next placement is `current` itself."""
    started = time.perf_counter()
    bits = board.bits if isinstance(board, Board) else board
    known = (Piece(current),) + tuple(Piece(p) for p in queue)
    Problem(bits, lines, known, hold, use_hold).check()
    empty = WIDTH * lines - bits.bit_count()
    if empty % 4 or empty == 0:
        return ChanceResult(0.0, None, elapsed_ms=(time.perf_counter() - started) * 1000)
    need = empty // 4
    length = need + 1 - (hold is not None) if use_hold else need
    unknown = max(0, length - len(known))
    # Every future is listed whatever the budget (a short budget must not turn an exact answer into a sample;
    # it ends the search instead, and the result then says it is approximate).
    limit = MAX_FUTURES
    futures, sampled = _futures(randomizer, randomizer_state, unknown, limit) if unknown else ([((), 1.0)], False)
    sequences = [(known + seq)[:max(length, 1)] for seq, _ in futures]
    weight_of: dict[tuple[Piece, ...], float] = {}
    for seq, (_, prob) in zip(sequences, futures):
        weight_of[seq] = weight_of.get(seq, 0.0) + prob
    trie = Trie(list(weight_of))
    weights = [weight_of[seq] for seq in trie.sequences]
    # With a budget the whole search stops at the deadline and the result says it is approximate.
    search = TrieSearch(searcher_for(rules, soft_drop).gen, use_hold)

    # the buffer model's start state (see ai.pc.search): held piece and trie node
    if use_hold and hold is None:
        held, node, base = known[0], trie.root.children[known[0]], trie.root.offsets[known[0]]
    else:
        held, node, base = (hold if use_hold else None), trie.root, 0
    # (piece placed, piece kept, next node, where its leaves start among the root's, queue pieces consumed)
    options: list[tuple[Piece, Piece | None, object, int, int]] = []
    if node.children:
        for piece, sub in node.children.items():
            if use_hold and held is not None and held != piece and not hold_spent:
                options.append((held, piece, sub, base + node.offsets[piece], 1))
            options.append((piece, held, sub, base + node.offsets[piece], 1))
    elif use_hold and held is not None:
        options.append((held, None, node, base, 0))

    # Every next placement (piece, cells), with the ways it can happen: (child, piece kept, node, leaf offset).
    moves: dict[tuple[Piece, int], tuple[Step, list]] = {}
    for placed, keep, sub, offset, consumed in options:
        for child in search.gen.children(bits, lines, placed):
            key = (placed, child.mask)
            if key not in moves:
                rot, x, y = unpack(child.sid)
                step = Step(placed, Rotation(rot), x, y, placed != known[0], child.hard, child.lines, child.mask)
                moves[key] = (step, [])
            moves[key][1].append((child, keep, sub, offset, consumed))

    searcher = searcher_for(rules, soft_drop)
    deadline = None if budget_ms is None else started + budget_ms / 1000
    witnesses: dict[tuple[Bitboard, int], list[Arrangement]] = {}

    def decide(child, keep: Piece | None, sub, need: int) -> int:
        """Leaves of `sub` won from the child state, deciding at least those in `need`. First the arrangements
        already found there and new ones from single-queue searches of undecided leaves (each covers many
        leaves at once); the leaves left (those a single search showed lost, and the rest once a few were)
        go to the exhaustive trie search."""
        if child.h == 0:
            return sub.leaves
        got = 0
        if keep is not None or not use_hold:
            found = witnesses.setdefault((child.field, child.h), [])
            for arrangement in found:
                got |= arrangement.cover(keep, sub)
            lost = 0
            while need & ~got & ~lost and lost.bit_count() < MAX_SINGLE_LOSSES:
                rest = need & ~got & ~lost
                leaf = (rest & -rest).bit_length() - 1
                left_ms = None if deadline is None else (deadline - time.perf_counter()) * 1000
                if left_ms is not None and left_ms <= 0:
                    search.truncated = True
                    return got
                problem = Problem(child.field, child.h, leaf_sequence(sub, leaf), keep, use_hold)
                solutions, stats = searcher.solve(problem, budget_ms=left_ms)
                if stats.truncated:
                    search.truncated = True
                    return got
                if not solutions:
                    lost |= 1 << leaf
                    continue
                arrangement = Arrangement.from_steps(search.gen, child.field, child.h, solutions[0].steps, use_hold)
                found.append(arrangement)
                got |= arrangement.cover(keep, sub)
            if not need & ~got & ~lost:
                return got
        if deadline is not None:
            search.set_deadline(deadline)
        return got | search.run(child.field, child.h, keep, sub, need & ~got)

    def wins(ways: list, wanted: int) -> int:
        """Leaves (root numbering) won after this placement, deciding at least those in `wanted`."""
        won = 0
        for child, keep, sub, offset, _ in ways:
            need = (wanted >> offset) & sub.leaves & ~(won >> offset)
            if not need:
                continue
            got = decide(child, keep, sub, need)
            won |= (got & sub.leaves) << offset
            if search.truncated:
                break
        return won

    # Score placements one by one, the most promising first: the first placements of solutions for a few
    # likely futures (found by the fast single-queue search). Once one wins every future nothing can beat it
    # and the rest are skipped; otherwise all are scored exactly (or until the time budget ends: then the
    # scores are lower bounds).
    everything = trie.root.leaves
    priority = _promising_moves(bits, lines, trie.sequences, weights, hold, use_hold, rules, soft_drop,
                                budget_ms=200 if budget_ms is None else budget_ms / 30)
    order = sorted(moves, key=lambda k: (priority.get(k, len(priority)), not moves[k][0].hard))
    scored: dict[tuple[Piece, int], tuple[Step, int]] = {}
    for key in order:
        step, ways = moves[key]
        won = wins(ways, everything)
        scored[key] = (step, won)
        if won == everything or search.truncated:
            break
    ranked = []
    for step, won in scored.values():
        prob = min(1.0, math.fsum(w for i, w in enumerate(weights) if won >> i & 1))
        ranked.append((step, prob))
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
