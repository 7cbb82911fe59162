"""Differential properties of the PC odds: whole-pattern `percent` against `solve` queue by queue, and the live
chance (`pc_chance`, no budget) against a brute force over next placements and bag outcomes.

Fields: the set-ups of ../shared/pc/setups.tsv, mid-PC positions taken from the shared solutions (when present),
and random 2- to 6-line fields cut from random tilings; patterns in solution-finder syntax; hold used or avoided,
with or without a piece already held; soft or hard drop.
"""

from __future__ import annotations

import csv
import importlib
import random
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ai.pc.api import percent, solve
from ai.pc.chance import pc_chance, store_for
from ai.pc.field import REGION, clear_full_rows, from_rows
from ai.pc.movegen import for_rules
from ai.pc.pattern import parse_pattern
from game.board import PIECE_MASKS, ROW_MASK, WIDTH
from game.pieces import SHAPES, Piece, Rotation
from game.randomizer import make_randomizer
from game.rules import Rules

SHARED = Path(__file__).resolve().parents[2] / "shared" / "pc"
SRS = Rules.named("srs")
ALL = "IJLOSTZ"


def _shared_rows(name: str) -> list[dict[str, str]]:
    path = SHARED / name
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _setups() -> list[tuple[int, int]]:
    """(bits, lines) of each non-empty set-up; the text rows are given when the shared data is absent."""
    rows = _shared_rows("setups.tsv")
    texts = (
        [row[list(row)[2]] for row in rows]
        if rows
        else [
            "XXXX____XX/XXXX___XXX/XXXX__XXXX/XXXX___XXX",
            "XXXXX_____/XXXXXX____/XXXXXXX___/XXXXXX____",
            "XXXXXX____/XXXXXX____/XXXXXX____/XXXXXX____",
        ]
    )
    fields = [from_rows(text.split("/")) for text in texts]
    return [(bits, 4) for bits in fields if bits]


def _mid_pc() -> list[tuple[int, int, tuple[Piece, ...]]]:
    """(field, lines, pieces of the rest of the solution) after the first k placements of each shared solution,
    with 2 to 5 pieces still to place (k = 0 on the set-ups)."""
    out = set()
    for row in _shared_rows("cases.tsv"):
        if row["solution_ops"] == "NA":
            continue
        bits, h = 0, int(row["clear_lines"])
        if row["setup"] != "empty":
            from game.fumen import decode

            bits = decode(row["field_fumen"])[0].field.to_board().bits
        ops = [op.split(",") for op in row["solution_ops"].split(";")]
        for done, (name, rot, x, y) in enumerate(ops):
            if 2 <= len(ops) - done <= 5:
                out.add((bits, h, tuple(Piece[op[0]] for op in ops[done:])))
            mask = PIECE_MASKS[Piece[name], Rotation.parse(rot), int(x), int(y)]
            bits, cleared = clear_full_rows(bits | mask, h)
            h -= cleared
    return sorted(out)


SETUPS = _setups()
MID_PC = _mid_pc()


def _shapes() -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    out = set()
    for piece in Piece:
        for rot in Rotation:
            cells = SHAPES[piece, rot]
            mx, my = min(dx for dx, _ in cells), min(dy for _, dy in cells)
            out.add((int(piece), tuple(sorted((dx - mx, dy - my) for dx, dy in cells))))
    return sorted(out)


SHAPE_LIST = _shapes()


def random_field(rng: random.Random) -> tuple[int, int, tuple[Piece, ...]]:
    """A 2- to 6-line field: a random tiling of the rows (2 garbage cells when 10*h is not a multiple of 4) with
    its 2-5 highest pieces taken out, and those pieces (highest last). Such fields are sometimes solvable (not
    always: the pieces may not be placeable in any order) and sometimes not."""
    while True:
        h = rng.randint(2, 6)
        region = REGION[h]
        garbage = 0
        while garbage.bit_count() < (WIDTH * h) % 4:
            garbage |= 1 << rng.randrange(WIDTH * h)
        pieces: list[tuple[int, int]] = []
        steps = [20_000]  # garbage can make the rows untileable: give up then and draw another field

        def tile(bits: int, region: int = region, h: int = h, pieces: list = pieces, steps: list = steps) -> bool:
            if bits == region:
                return True
            steps[0] -= 1
            if steps[0] < 0:
                return False
            free = ~bits & region
            cell = (free & -free).bit_length() - 1  # lowest row first, then leftmost
            cx, cy = cell % WIDTH, cell // WIDTH
            options = SHAPE_LIST[:]
            rng.shuffle(options)
            for piece, cells in options:
                ax, ay = min(cells, key=lambda c: (c[1], c[0]))
                mask = 0
                for dx, dy in cells:
                    x, y = cx + dx - ax, cy + dy - ay
                    if not (0 <= x < WIDTH and 0 <= y < h):
                        break
                    mask |= 1 << (y * WIDTH + x)
                else:
                    if not mask & bits:
                        pieces.append((mask, piece))
                        if tile(bits | mask):
                            return True
                        pieces.pop()
            return False

        if not tile(garbage):
            continue
        remove = rng.randint(2, 5)
        pieces.sort(key=lambda item: (item[0].bit_length(), rng.random()))
        bits = garbage
        for mask, _ in pieces[:-remove]:
            bits |= mask
        if all((bits >> (y * WIDTH)) & ROW_MASK != ROW_MASK for y in range(h)):
            return bits, h, tuple(Piece(piece) for _, piece in pieces[-remove:])


def random_problem(seed: int) -> tuple[int, int, tuple[Piece, ...]]:
    """A field, its lines and a multiset of pieces that may finish it (a hint for building likely queues)."""
    rng = random.Random(seed)
    kind = rng.randrange(3)
    if kind == 0 and MID_PC:
        return rng.choice(MID_PC)
    if kind == 1:
        bits, lines = rng.choice(SETUPS)
        need = (WIDTH * lines - bits.bit_count()) // 4
        return bits, lines, tuple(rng.choice(list(Piece)) for _ in range(need))
    return random_field(rng)


def queue_from_hint(rng: random.Random, hint: tuple[Piece, ...], length: int) -> list[Piece]:
    """The hint's pieces, kept in order or lightly shuffled, padded with random pieces or cut to `length`."""
    pieces = list(hint)
    for _ in range(rng.randint(0, 2)):
        i, j = rng.randrange(len(pieces)), rng.randrange(len(pieces))
        pieces[i], pieces[j] = pieces[j], pieces[i]
    if rng.random() < 0.3:
        pieces.insert(rng.randrange(len(pieces) + 1), rng.choice(list(Piece)))
    while len(pieces) < length:
        pieces.append(rng.choice(list(Piece)))
    return pieces[:length]


def wide_pattern(rng: random.Random, queue: list[Piece], max_queues: int = 2520) -> str:
    """Patterns such as ``O,*p4``, ``*p5`` or ``[^T]p4,*``: many queues sharing prefixes and subtrees, which is
    where the whole-pattern search reuses its memo (and once went wrong)."""
    while True:
        parts, i = [], 0
        if rng.random() < 0.5:
            parts.append(queue[0].name)
            i = 1
        while i < len(queue):
            size = rng.randint(1, min(7, len(queue) - i))
            parts.append(
                f"*p{size}"
                if rng.random() < 0.7
                else f"[^{rng.choice([c for c in ALL if c not in {p.name for p in queue[i : i + size]}] or ['I'])}]"
                f"p{size}"
            )
            i += size
        text = ",".join(parts)
        if len(parse_pattern(text).sequences()) <= max_queues:
            return text


def random_pattern(rng: random.Random, queue: list[Piece], max_queues: int = 160) -> str:
    """A pattern in solution-finder's syntax whose queues include `queue`: chunks of it written as letters,
    bags holding them (``[..]``, ``[^..]``, ``[..]pN``, ``*pN``, ``[..]!``), at most `max_queues` queues;
    one time in four a wide one (see wide_pattern)."""
    if rng.random() < 0.25:
        return wide_pattern(rng, queue)
    while True:
        parts, i = [], 0
        while i < len(queue):
            size = rng.randint(1, min(3, len(queue) - i))
            chunk = queue[i : i + size]
            letters = {p.name for p in chunk}
            distinct = len(letters) == size
            kind = rng.choice("LLB^P*!")
            if kind == "L" or not distinct:
                parts.append("".join(sorted(letters)) if size == 1 else "".join(p.name for p in chunk))
            elif kind == "B" or kind == "P":
                extra = set(rng.sample(ALL, rng.randint(0, 2)))
                bag = "".join(sorted(letters | extra))
                parts.append(f"[{bag}]p{size}" if kind == "P" or size > 1 else f"[{bag}]")
            elif kind == "^":
                others = [c for c in ALL if c not in letters]
                out = "".join(rng.sample(others, rng.randint(1, min(3, len(others)))))
                parts.append(f"[^{out}]p{size}")
            elif kind == "*":
                parts.append(f"*p{size}")
            else:
                bag = "".join(sorted(letters))
                parts.append(f"[{bag}]!")
            i += size
        text = ",".join(parts)
        if len(parse_pattern(text).sequences()) <= max_queues:
            return text


PROBLEM = st.integers(0, 10**9).map(random_problem)


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(PROBLEM, st.integers(0, 10**9), st.booleans(), st.booleans(), st.booleans(), st.integers(-1, 1))
def test_percent_equals_solving_each_queue(problem, seed, use_hold, soft_drop, holding, extra) -> None:
    bits, lines, hint = problem
    need = (WIDTH * lines - bits.bit_count()) // 4
    rng = random.Random(seed)
    pieces = queue_from_hint(rng, hint, need + 3)
    held = pieces.pop(rng.randrange(len(pieces))) if use_hold and holding else None
    length = max(1, need + (use_hold and held is None) + extra - (held is not None))
    pattern = random_pattern(rng, pieces[:length])
    result = percent(bits, pattern, hold=held, use_hold=use_hold, soft_drop=soft_drop, lines=lines)
    queues = parse_pattern(pattern).sequences()
    failing = [
        q
        for q in queues
        if not solve(bits, q, hold=held, use_hold=use_hold, soft_drop=soft_drop, lines=lines, verify=False).solvable
    ]
    assert result.total == len(queues)
    assert result.failed == failing, pattern
    assert result.success == len(queues) - len(failing)


def test_box_pattern_counts_match_solution_finder() -> None:
    """The reported case: on the 4x4 box, OZSTL solves alone and *p5 is 1776/2520 for solution-finder."""
    box = from_rows(["XXXXXX____"] * 4)
    assert solve(box, [Piece.O, Piece.Z, Piece.S, Piece.T, Piece.L]).solvable
    assert (Piece.O, Piece.Z, Piece.S, Piece.T, Piece.L) not in percent(box, "O,*p4").failed
    assert percent(box, "*p5").success == 1776


@cache
def _solvable(bits: int, h: int, queue: tuple[Piece, ...], hold: Piece | None, use_hold: bool, soft_drop: bool) -> bool:
    if h == 0:
        return True
    if not queue and hold is None:
        return False
    return solve(bits, queue, hold=hold, use_hold=use_hold, soft_drop=soft_drop, lines=h, verify=False).solvable


def brute_chance(
    bits: int,
    lines: int,
    current: Piece,
    queue: tuple[Piece, ...],
    hold: Piece | None,
    state,
    use_hold: bool,
    soft_drop: bool,
    hold_spent: bool = False,
) -> dict[tuple[Piece, int], float]:
    """(piece, cells) of every next placement -> probability over the bag's outcomes that `solve` can finish
    after it (the player seeing the rest of the queue by then). hold_spent: hold cannot be pressed now."""
    need = (WIDTH * lines - bits.bit_count()) // 4
    known = (current, *queue)
    length = need + 1 - (hold is not None) if use_hold else need
    unknown = max(0, length - len(known))
    gen = for_rules(SRS, soft_drop)
    chance: dict[tuple[Piece, int], float] = {}
    for future, prob in make_randomizer("7bag", 0).sequences(unknown, state):
        pieces = known + future
        # the ways to make the next placement: (piece placed, hold afterwards, queue afterwards)
        ways = [(pieces[0], hold, pieces[1:])]
        if hold_spent:
            pass
        elif use_hold and hold is None and len(pieces) > 1:
            ways.append((pieces[1], pieces[0], pieces[2:]))
        elif use_hold and hold is not None and hold != pieces[0]:
            ways.append((hold, pieces[0], pieces[1:]))
        won: set[tuple[Piece, int]] = set()
        for placed, kept, rest in ways:
            for child in gen.children(bits, lines, placed):
                if _solvable(child.field, child.h, tuple(rest), kept, use_hold, soft_drop):
                    won.add((placed, child.mask))
                chance.setdefault((placed, child.mask), 0.0)
        for key in won:
            chance[key] += prob
    return chance


@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(PROBLEM, st.integers(0, 10**9), st.booleans(), st.booleans(), st.booleans(), st.integers(0, 2), st.booleans())
def test_live_chance_equals_brute_force(problem, seed, use_hold, soft_drop, holding, unknown, spent) -> None:
    bits, lines, hint = problem
    rng = random.Random(seed)
    need = (WIDTH * lines - bits.bit_count()) // 4
    pieces = queue_from_hint(rng, hint, need + 1)
    hold = pieces.pop(rng.randrange(len(pieces))) if use_hold and holding else None
    length = need + 1 - (hold is not None) if use_hold else need
    known = max(1 + (use_hold and hold is None), length - unknown)  # a preview when hold is empty
    # the bag still holds the pieces of the hint not yet shown, and a few others ('()': a fresh bag next)
    rest = {p for p in pieces[known:]} | set(rng.sample(list(Piece), rng.randint(0, 3)))
    state = tuple(sorted(rest)) if rng.random() < 0.9 else ()
    current, queue = pieces[0], tuple(pieces[1:known])
    spent = spent and hold is not None  # hold pressed for the piece in play (then the hold slot is not empty)
    forget_what_earlier_chances_found()  # each example as a fresh worker's first question: no arrangements known
    result = pc_chance(
        bits,
        current,
        list(queue),
        hold,
        state,
        make_randomizer("7bag", 0),
        SRS,
        lines,
        soft_drop=soft_drop,
        use_hold=use_hold,
        hold_spent=spent,
    )
    brute = brute_chance(bits, lines, current, queue, hold, state, use_hold, soft_drop, spent)
    best = max(brute.values(), default=0.0)
    assert not result.approximate
    assert result.chance == pytest.approx(best)
    if best > 0:
        step = result.best_placement
        assert step is not None and brute[step.piece, step.mask] == pytest.approx(best)
    else:
        assert result.best_placement is None
    for step, prob in result.placements:  # every placement it scored, scored right
        assert brute[step.piece, step.mask] == pytest.approx(prob)


def forget_what_earlier_chances_found() -> None:
    """The arrangements and trie memos earlier chances left: with them a search takes other paths (a stale
    bound that ended the search too early only showed without them)."""
    store_for.cache_clear()
    importlib.import_module("ai.pc.percent")._MEMOS.clear()


def forget_all_the_solver_learned() -> None:
    """`forget_what_earlier_chances_found`, and the single searches' dead states and the compiled trie search's
    memo: a question asked after this takes the path it takes in a fresh worker, whatever ran before."""
    from ai.pc import jit_trie, search

    search.searcher_for.cache_clear()
    forget_what_earlier_chances_found()
    for shared in jit_trie._SHARED:
        shared.forget()


def test_a_placement_decided_after_a_tiling_loss_is_not_taken_as_the_best() -> None:
    """Regression: 1st PC of the 7-bag loop (seed 4, following the panel), after four placements. The search
    proved one future of a placement lost by the pieces' counts alone, then found a PC for another: its upper
    bound stayed 1.0, so once decided it looked best and ended the search, and 0.5 was shown for 0.75."""
    forget_what_earlier_chances_found()
    bits, queue = 0x40307C33, (Piece.L, Piece.J, Piece.S, Piece.J, Piece.L)
    state = (Piece.I, Piece.O, Piece.T, Piece.Z)
    result = pc_chance(bits, Piece.I, list(queue), Piece.O, state, make_randomizer("7bag", 0), SRS, 4)
    brute = brute_chance(bits, 4, Piece.I, queue, Piece.O, state, True, True)
    assert max(brute.values()) == 0.75
    assert result.chance == 0.75 and not result.approximate
    assert brute[result.best_placement.piece, result.best_placement.mask] == 0.75


# Later-PC positions of bench/pc.py --groups wander (default rules) where most placements are ruled out by
# losses alone: leaves lost by their pieces' counts, and the trie search asked only for about as many of the futures
# most placements lost as a placement is short of (ai.pc.chance's docstring; a mutation marking the futures not
# asked as lost fails all of them); all but the fourth also win futures by `widen`'s trie searches (a mutation winning
# every future asked there fails them). (field, lines, piece in play, previews, hold, bag, hold spent)
RULED_OUT = [
    (0xF, 4, "T", "ZJLOS", "S", "", False),  # 205 of 210 futures; s6pc10k1, 0.5 s before the losses-only rules
    (0xF, 4, "S", "ZJLOS", "T", "", True),  # the same with hold pressed
    (0x802018, 4, "I", "LJSTO", "Z", "", False),  # 203 of 210
    (0x100E, 4, "I", "OLJIL", "S", "OSTZ", False),  # 18 of 24
    (0x180C, 4, "T", "LSOLO", "J", "IJSTZ", False),  # 48 of 60, 50 placements each short of 12 losses (s1pc13k1)
]


@pytest.mark.parametrize("position", RULED_OUT)
def test_placements_ruled_out_by_losses_are_scored_as_deciding_every_future_scores_them(position) -> None:
    """The independent answer: the compiled trie search decides every future of every next placement (no bounds,
    no single searches, no ruling out); the best of those counts is the chance, and every placement the live
    chance scored has its exact count."""
    from ai.pc.chance import futures_trie, next_options, queue_length
    from ai.pc.opening import RULES
    from ai.pc.percent import TrieSearch
    from ai.pc.search import searcher_for

    bits, lines, current, shown, held, bag_left, spent = position
    current, hold = Piece[current], Piece[held]
    queue, state = [Piece[p] for p in shown], tuple(Piece[p] for p in bag_left)
    rules, bag = RULES["srs-180"], make_randomizer("7bag", 0)
    forget_what_earlier_chances_found()
    result = pc_chance(bits, current, queue, hold, state, bag, rules, lines, hold_spent=spent, table=False)
    known = (current, *queue)
    length = queue_length((WIDTH * lines - bits.bit_count()) // 4, hold, True)
    trie, weights, _ = futures_trie(known, length, bag, state)
    gen = searcher_for(rules, True).gen
    search = TrieSearch(gen, True)
    won: dict[tuple[Piece, int], int] = {}
    for placed, keep, sub, offset, _ in next_options(trie, current, hold, True, spent):
        for child in gen.children(bits, lines, placed):
            got = sub.leaves if child.h == 0 else search.run(child.field, child.h, keep, sub) & sub.leaves
            won[placed, child.mask] = won.get((placed, child.mask), 0) | got << offset
    exact = {key: sum(weights[i] for i in range(len(weights)) if leaves >> i & 1) for key, leaves in won.items()}
    best = max(exact.values())
    assert not result.approximate
    assert result.chance == pytest.approx(best)
    assert exact[result.best_placement.piece, result.best_placement.mask] == pytest.approx(best)
    for step, prob in result.placements:
        assert exact[step.piece, step.mask] == pytest.approx(prob)


# later PCs' second positions with a few dozen futures (ai.pc.chance.FEW_FUTURES: no single searches before the trie
# search), the slowest of bench/pc.py --groups spots,spots-srsplus, asked here under plain SRS as `brute_chance` solves:
# (field, piece in play, previews, hold, bag, futures). RULED_OUT's test above takes its answer from the compiled trie
# search, which is all these positions use now; this one takes it from `solve`, one queue at a time.
FEW_FUTURES_POSITIONS = [(0x40100C, "J", "TLIZS", "T", "O", 42), (0x4010040100, "Z", "LSJOL", "T", "IJSTZ", 60)]


@pytest.mark.parametrize("position", FEW_FUTURES_POSITIONS)
def test_with_a_few_dozen_futures_every_placement_scored_equals_brute_force(position) -> None:
    from ai.pc import chance

    bits, current, shown, held, bag_left, futures = position
    queue, state = tuple(Piece[p] for p in shown), tuple(Piece[p] for p in bag_left)
    forget_what_earlier_chances_found()
    bag = make_randomizer("7bag", 0)
    result = pc_chance(bits, Piece[current], list(queue), Piece[held], state, bag, SRS, 4, table=False)
    assert result.futures == futures and futures in chance.FEW_FUTURES and not result.approximate
    brute = brute_chance(bits, 4, Piece[current], queue, Piece[held], state, True, True)
    best = max(brute.values())
    assert 0 < best < 1  # placements had to be ruled out
    assert result.chance == pytest.approx(best)
    assert brute[result.best_placement.piece, result.best_placement.mask] == pytest.approx(best)
    for step, prob in result.placements:
        assert brute[step.piece, step.mask] == pytest.approx(prob)


# Later PCs' first positions under plain SRS (bench/pc.py --groups wander-srs) where dozens of placements win many
# of the futures before they lose one, and the placement that wins them all comes last in `ahead`'s order (the J
# in s4pc8k0, the held L in s4pc18k0): the second order (`SECOND_ORDER`) reaches it first. It is used where no
# seeds order the placements: an earlier PC of the game has left arrangements of the empty field.
# (piece in play, previews, hold, bag, futures)
ALL_WON_LATE = [("J", "OSIZL", "T", "", 840), ("S", "JZILI", "L", "JOSTZ", 120)]


@pytest.mark.parametrize("second_order", [True, False])
@pytest.mark.parametrize("position", ALL_WON_LATE)
def test_either_order_of_refining_names_a_placement_that_wins_every_future(position, second_order, monkeypatch) -> None:
    """Both orders give the same exact answer, and the placement named wins every future by the compiled trie
    search alone (independent of the bounds, the single searches and the order)."""
    from ai.pc import chance
    from ai.pc.chance import futures_trie, next_options, queue_length
    from ai.pc.opening import RULES
    from ai.pc.percent import TrieSearch
    from ai.pc.search import searcher_for

    monkeypatch.setattr(chance, "SECOND_ORDER", second_order)
    contact_asked = []
    contact = chance._contact
    monkeypatch.setattr(chance, "_contact", lambda mask, bits: contact_asked.append(mask) or contact(mask, bits))
    current, shown, held, bag_left, futures = position
    queue, state = [Piece[p] for p in shown], tuple(Piece[p] for p in bag_left)
    rules, bag = RULES["srs"], make_randomizer("7bag", 0)
    forget_what_earlier_chances_found()
    seen = tuple(Piece[p] for p in "IJLOSZ")
    earlier = pc_chance(0, Piece.L, [Piece[p] for p in "JSZIO"], Piece.I, seen, bag, rules, 4, table=False)
    assert earlier.chance > 0 and not contact_asked
    result = pc_chance(0, Piece[current], queue, Piece[held], state, bag, rules, 4, table=False)
    assert bool(contact_asked) == second_order
    assert result.chance == 1.0 and result.futures == futures and not result.approximate
    trie, _, _ = futures_trie((Piece[current], *queue), queue_length(10, Piece[held], True), bag, state)
    gen = searcher_for(rules, True).gen
    named = result.best_placement
    for placed, keep, sub, offset, _ in next_options(trie, Piece[current], Piece[held], True, False):
        for child in gen.children(0, 4, placed):
            if (placed, child.mask) == (named.piece, named.mask):
                assert sub.leaves << offset == (1 << futures) - 1  # every future goes through this placement
                assert TrieSearch(gen, True).run(child.field, child.h, keep, sub) & sub.leaves == sub.leaves
                return
    raise AssertionError("the placement named is not a next placement")


def test_a_call_cut_short_says_so_and_under_counts() -> None:
    """First PC, 840 futures, searched (not the opening table's answer): with a tiny budget the answer is marked
    approximate (not sampled: more time makes it exact) and never over-counts; without a budget it is exact."""
    stream = [Piece.L, Piece.J, Piece.S, Piece.Z, Piece.I, Piece.O, Piece.T]
    rng = make_randomizer("7bag", 0)
    short = pc_chance(0, stream[0], stream[1:6], None, (Piece.T,), rng, SRS, 4, budget_ms=1, table=False)
    assert short.approximate and not short.sampled
    full = pc_chance(0, stream[0], stream[1:6], None, (Piece.T,), rng, SRS, 4, table=False)
    assert not full.approximate and full.futures == 840
    assert short.chance <= full.chance == pytest.approx(1.0)


def test_a_look_for_futures_lost_everywhere_that_gives_up_leaves_the_answer_exact(monkeypatch) -> None:
    """A 3rd PC's second position (bench/pc.py --groups spots, s12pc3:S@4206600; the default rules, an S on the
    floor, Z in play, J held, 210 futures) where looks for a future lost whatever the placement give up after one
    slice of their single search: the answer is not marked approximate, it is the same with every look run to its
    end, and the compiled trie search, asked every future after every next placement, finds none better than the
    one named and that one winning as many futures as the chance says."""
    from ai.pc import chance, search
    from ai.pc.chance import futures_trie, next_options, queue_length
    from ai.pc.opening import RULES
    from ai.pc.percent import TrieSearch

    truncated = []
    solve = search.Searcher.solve

    def spy(self, problem, **options):
        found = solve(self, problem, **options)
        truncated.append(found[1].truncated)
        return found

    monkeypatch.setattr(search.Searcher, "solve", spy)
    rules, bag = RULES["srs-180"], make_randomizer("7bag", 0)
    bits, current, queue, held = 4206600, Piece.Z, [Piece[p] for p in "ITJLO"], Piece.J
    forget_all_the_solver_learned()
    # searched: the boundary table (ai.pc.seconds.BOUNDARY) holds this position
    result = pc_chance(bits, current, queue, held, (), bag, rules, 4, table=False)
    assert any(truncated) and not result.approximate and result.futures == 210
    monkeypatch.setattr(chance, "HOPELESS_ONE_SLICE", False)
    forget_all_the_solver_learned()
    truncated.clear()
    to_the_end = pc_chance(bits, current, queue, held, (), bag, rules, 4, table=False)
    assert not any(truncated) and not to_the_end.approximate
    assert to_the_end.chance == result.chance
    trie, _, _ = futures_trie((current, *queue), queue_length(9, held, True), bag, ())
    gen = search.searcher_for(rules, True).gen
    trie_search = TrieSearch(gen, True)
    won: dict[tuple[Piece, int], int] = {}
    for placed, keep, sub, offset, _ in next_options(trie, current, held, True, False):
        for child in gen.children(bits, 4, placed):
            got = trie_search.run(child.field, child.h, keep, sub) & sub.leaves
            won[placed, child.mask] = won.get((placed, child.mask), 0) | got << offset
    named = result.best_placement
    assert won[named.piece, named.mask].bit_count() == round(result.chance * 210)
    assert max(leaves.bit_count() for leaves in won.values()) == won[named.piece, named.mask].bit_count()


@pytest.mark.parametrize("rows", [["XXXXX_____", "XXXXXX____", "XXXXXXX___", "XXXXXX____"], ["XXXXXX____"] * 4])
def test_percent_on_a_set_up_with_every_bag_equals_solving_each_prefix(rows: list[str]) -> None:
    """`*p4,*p3` on a 4-piece set-up: the first five pieces decide (four placements, one through hold), so the
    count is 30 times the five-piece prefixes that solve finds a PC for. Arrangements found for some queues win
    many others at once here (a wrong 'can be built' once counted 4,320 queues too many on the first field, the
    PCO wall)."""
    bits = from_rows(rows)
    assert bits.bit_count() == 40 - 16  # four pieces to place
    pattern = parse_pattern("*p4,*p3")
    solvable = {
        prefix for prefix in {tuple(q[:5]) for q in pattern.sequences()} if solve(bits, prefix, verify=False).solvable
    }
    result = percent(bits, "*p4,*p3")
    assert result.total == 176_400
    assert result.success == 30 * len(solvable)
    assert 0 < len(solvable) < 5880
