"""The opening tables: the live PC chance at the first two positions of a 7-bag game, looked up, not searched.

At a game's first position the field is empty, hold is empty and not pressed, and the piece in play with the
five previews are the first six pieces of the bag, so its seventh is known and the four pieces after it (the
next bag's: 840 orders) are not. With the first piece placed as advised, the next position still has 840
futures. These are the live chance's hardest questions (up to ~1.5 s of search: bench/pc.py --groups
opening), every game and every PC-practice start asks them, and there are only 5,040 bag orders.
`scripts/make_opening_table.py` answers each with `ai.pc.chance.pc_chance` and writes `opening_<rules>.txt`;
`pc_chance` answers from it when the question is exactly one of the table's (rules with the same placements as
a table's, `table_name`: the spin rule, which only scores, does not count; soft drop, hold, 4 lines, 7-bag) or equal to
one (a later PC's first position with the bag's last six pieces shown and its missing one in hold: see `lookup`), and
searches otherwise.

A line of the table: the bag's order, then for each position how many of the 840 futures keep a PC after the best
next placement, and that placement (piece and cells; hold is pressed when the piece is not the one in play): the
first position, the one after its advice (when that does not hold), and the first with hold pressed.
"""

from __future__ import annotations

import hashlib
import logging
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from game.board import Bitboard
from game.pieces import ALL_PIECES, Piece
from game.rules import Rules

_log = logging.getLogger(__name__)

LINES = 4
FUTURES = 840  # 7 * 6 * 5 * 4 orders of the next bag's first four pieces
# the rules there are tables for, by name (file opening_<name>.txt beside this module): SRS with 180 is the game's
# default, SRS without it the solvers' and benchmarks', SRS+ (with its 180 kicks) the other common choice; those three
# have the second-position tables too (ai.pc.seconds). SRS+ without 180 turns has an opening table, the table after a
# first placement (ai.pc.seconds.SECONDS) and the held one (HELD); its other positions are bounded by SRS+ with 180's
# tables. No kicks and NRS, both with 180 turns (the settings' default for them), have opening tables made first-only
# (`compute_entry`): every order's first answer (a game's first position took up to 1.5 s without kicks and 6.3 s under
# NRS searched), the second for some orders, and the one with hold pressed for every order (added `--no-second`: the
# table after a first placement answers the second). Both have the whole table after a first placement (SECONDS); no
# kicks and NRS have later-start tables of their own (ai.pc.later_start); the kinds no kicks lacks are bounded by SRS
# with 180's tables, and NRS's are searched. Other rules are bounded by a wider set's tables (`wider_rules`: no kicks
# without 180 turns by plain SRS's, NRS without them by NRS with them) or searched. The order matters there: the first
# that includes a rule set bounds it.
RULES = {
    "srs": Rules.named("srs"),
    "srs-180": Rules.named("srs", allow_180=True),
    "srsplus-180": Rules.named("srs+", allow_180=True),
    "srsplus": Rules.named("srs+"),
    "none-180": Rules.named("none", allow_180=True),
    "nrs-180": Rules.named("nrs", allow_180=True),
}


def _turns(rules: Rules) -> dict[tuple, tuple]:
    """The kick tests of every turn the rules allow, by (piece, start state, end state)."""
    tests = rules.rotation.tests
    return {key: kicks for key, kicks in tests.items() if rules.allow_180 or (key[2] - key[1]) % 4 != 2}


def placements_within(narrow: Rules, wide: Rules) -> bool:
    """Whether every way to put a piece under `narrow` is one under `wide`: the same hold and spawn, and every turn
    `narrow` allows is allowed by `wide` with `narrow`'s kick tests as the first of its own. A turn takes the first
    test that fits, so where `narrow`'s fits, `wide`'s tries the same ones before it and lands the same way (SRS
    within SRS with 180; no kicks within SRS or SRS+, whose first test is the turn in place). The spin rule only
    scores, so it does not count."""
    if (narrow.hold, narrow.spawn_x, narrow.spawn_y) != (wide.hold, wide.spawn_x, wide.spawn_y):
        return False
    wide_turns = _turns(wide)
    return all(key in wide_turns and wide_turns[key][: len(kicks)] == kicks for key, kicks in _turns(narrow).items())


_TABLE_NAMES: dict[tuple, str | None] = {}
_WIDER: dict[tuple, str | None] = {}


def table_name(rules: Rules) -> str | None:
    """The name of the rule set with tables whose placements are exactly these rules' (then its tables answer
    these rules' questions), or None."""
    key = rules.cache_key()
    if key not in _TABLE_NAMES:
        _TABLE_NAMES[key] = next(
            (name for name, each in RULES.items() if placements_within(rules, each) and placements_within(each, rules)),
            None,
        )
    return _TABLE_NAMES[key]


def wider_rules(rules: Rules) -> Rules | None:
    """A rule set with tables whose placements include these rules' (`placements_within`) and are not the same:
    a PC made under these rules is one under it, so its table's count bounds a position's from above (see
    ai.pc.chance.pc_chance's `ceiling`, and the tables' making, ai.pc.seconds.Family.bounds). The first in RULES'
    order, the narrowest: plain SRS for no kicks without 180 turns, SRS with 180 for plain SRS and for no kicks
    with 180 turns, SRS+ with 180 for SRS+ without, NRS with 180 for NRS without. None: no such rule set (no rule
    set includes SRS with 180's, SRS+ with 180's or NRS with 180's placements: NRS turns about other centres)."""
    key = rules.cache_key()
    if key not in _WIDER:
        _WIDER[key] = next(
            (
                name
                for name, each in RULES.items()
                if placements_within(rules, each) and not placements_within(each, rules)
            ),
            None,
        )
    name = _WIDER[key]
    return None if name is None else RULES[name]


def table_path(name: str) -> Path:
    return Path(__file__).with_name(f"opening_{name}.txt")


@dataclass(frozen=True)
class Answer:
    """The chance at one position: how many of its `futures` (equally likely) keep a PC after the best next
    placement (`piece` on the cells `mask` of the field as it is; hold is pressed when `piece` is not the piece in
    play)."""

    count: int
    piece: Piece
    mask: Bitboard
    futures: int = FUTURES


@dataclass(frozen=True)
class Entry:
    order: tuple[Piece, ...]  # the first bag, piece in play first
    first: Answer  # at the game's first position
    # at the position after `first` when it is played without hold: the next five pieces are the rest of the
    # bag, so that position is known too (None when `first` holds: the next piece shown is not known then)
    second: Answer | None
    # at the first position with hold pressed (the bag's first piece held, its second in play): the advice when
    # it was to hold, else the best of the second piece's placements (None in a table made before it was kept)
    held: Answer | None = None


def rules_key(rules: Rules) -> str:
    """A short fingerprint of the rules' placement-affecting switches (the table holds only for these)."""
    return hashlib.sha1(repr(rules.cache_key()).encode()).hexdigest()[:16]


def order_text(order: tuple[Piece, ...]) -> str:
    return "".join(piece.name for piece in order)


def answer_text(answer: Answer | None) -> str:
    return "- - -" if answer is None else f"{answer.count} {answer.piece.name} {answer.mask:#x}"


def format_entry(entry: Entry) -> str:
    answers = (entry.first, entry.second, entry.held)
    return " ".join([order_text(entry.order), *(answer_text(answer) for answer in answers)])


# a piece by its letter: a dict lookup, where Piece[name] (an Enum's) costs a few times as much, and the tables
# hold millions of pieces (parsing every later-start table: 35 -> 26 s of CPU)
PIECE_NAMED = {piece.name: piece for piece in ALL_PIECES}


def parse_answer(count: str, piece: str, mask: str, *, futures: int = FUTURES) -> Answer | None:
    return None if count == "-" else Answer(int(count), PIECE_NAMED[piece], int(mask, 16), futures)


def parse_entry(line: str) -> Entry:
    order, *fields = line.split()
    first = parse_answer(*fields[:3])
    if first is None:
        raise ValueError(f"opening table line without a first answer: {line!r}")
    held = parse_answer(*fields[6:9]) if len(fields) >= 9 else None
    return Entry(tuple(PIECE_NAMED[c] for c in order), first, parse_answer(*fields[3:6]), held)


def write_table(path: Path, rules: Rules, lines: list[str]) -> None:
    header = [
        "# The live PC chance at the opening positions of a 7-bag game (see ai/pc/opening.py).",
        "# Made by scripts/make_opening_table.py; do not edit by hand.",
        f"# rules {rules_key(rules)}",
    ]
    write_whole(path, ("\n".join(header + sorted(lines)) + "\n").encode())


def write_whole(path: Path, data: bytes) -> None:
    """Write a table file beside its place, then move it there: a generator stopped while writing (they save as they
    go) leaves the last table it wrote, never a truncated one (ai.pc.seconds' tables are written the same way)."""
    part = path.with_name(path.name + ".part")
    part.write_bytes(data)
    os.replace(part, path)


def load_table(path: Path, rules: Rules) -> dict[tuple[Piece, ...], Entry]:
    """The entries of a table file, or {} when it is missing, unreadable or was made under other rules than
    `rules` (then every opening is searched, as any other position)."""
    try:
        text = path.read_text().splitlines()
        if f"# rules {rules_key(rules)}" not in text:
            return {}
        entries = [parse_entry(line) for line in text if line and not line.startswith("#")]
    except (OSError, ValueError, KeyError, TypeError) as error:
        _log.warning("opening table %s not used: %s", path.name, error)
        return {}
    return {entry.order: entry for entry in entries}


@cache
def _table(name: str) -> dict[tuple[Piece, ...], Entry]:
    """The shipped table of the rule set `name` of RULES, read on first use (~0.15 s)."""
    return load_table(table_path(name), RULES[name])


def load_all(rules: Rules | None = None) -> int:
    """Read the shipped tables now (the first look-up would otherwise pay for it); the entries read. `rules`: only
    the table a question under these rules reads (its own, else the wider rules' that bounds it); None: all."""
    if rules is None:
        return sum(len(_table(name)) for name in RULES)
    own = table_name(rules)
    if own is not None and _table(own):
        return len(_table(own))
    wider = wider_rules(rules)
    return 0 if wider is None else load_all(wider)


def lookup(
    bits: Bitboard,
    lines: int,
    current: Piece,
    queue: tuple[Piece, ...],
    hold: Piece | None,
    randomizer_state,
    randomizer,
    rules: Rules,
    *,
    soft_drop: bool,
    use_hold: bool,
    hold_spent: bool,
) -> Answer | None:
    """The table's answer when this is exactly one of the table's questions (or one equal to it: see the held
    piece below), else None. The position after a first placement other than the advised one, after the first
    piece held and the second placed, or after the first placed and hold pressed at the second, and a later PC's
    second position with the bag shown whole and a piece held (and, when its best placement is the held piece's,
    with hold pressed there), are answered by the second-position tables (ai.pc.seconds); a later PC's first
    position with a bag's last six shown and one of them held or hold empty, or with its last five and the next
    bag's first shown (or its last four or three and the next bag's first two or three, a piece held, or a bag's
    first six, a piece held), by the later-start tables (ai.pc.later_start)."""
    if lines != LINES or not use_hold or not soft_drop or len(queue) != 5 or getattr(randomizer, "key", None) != "7bag":
        return None
    state = tuple(randomizer_state)
    shown = (Piece(current), *(Piece(p) for p in queue))
    if hold is not None and bits and len(state) == 6:
        from ai.pc import seconds  # (it reads this module's answers)

        # the first piece held and the second placed, or the first placed and hold pressed at the second: the next
        # bag's first piece is shown (it may repeat one)
        return seconds.lookup_held(bits, Piece(hold), shown, state, rules, hold_spent)
    if hold is not None and bits and not state:
        from ai.pc import seconds  # (it reads this module's answers)

        if not hold_spent:  # a later PC whose first piece was a bag's first, a piece held: the bag's six others shown
            return seconds.lookup_boundary(bits, Piece(hold), shown, rules)
        # Hold pressed there: this position's value is that of the one before the press (the two pieces swapped,
        # hold free) when the best placement there was of the piece now in play, the only piece left to place,
        # as with the opening table's held answer, or when no placement there made a PC. Otherwise it may be
        # lower: the hold-pressed boundary table's (keyed by the position before the press), or searched.
        unpressed = (Piece(hold), *shown[1:])
        before = seconds.lookup_boundary(bits, shown[0], unpressed, rules)
        if before is not None and (before.piece == shown[0] or not before.count):
            return before
        return seconds.lookup_boundary(bits, shown[0], unpressed, rules, pressed=True)
    # This table's own empty-field positions: a game's first (hold empty, the bag's seventh piece left in it) and a
    # bag's last six with its missing piece held. Any other empty field is a later PC's first position, and the
    # later-start tables' kinds decide which of those they hold.
    own_first = (hold is None and len(state) == 1) or (hold is not None and not state)
    if len(set(shown)) != 6 or hold in shown or (not bits and not own_first):
        return _later_start(bits, shown, hold, state, rules, hold_spent)
    name = table_name(rules)
    table = None if name is None else _table(name)
    if not table:
        return None
    if hold is None and not hold_spent:
        if not bits and len(state) == 1:  # the first position: the bag's seventh piece is the one left in it
            entry = table.get((*shown, Piece(state[0])))
            return entry.first if entry is not None else None
        if bits and not state:  # the second: the first piece is the one not shown, placed as the table said
            (placed,) = set(ALL_PIECES) - set(shown)
            entry = table.get((placed, *shown))
            if entry is not None and entry.second is not None and entry.first.mask == bits:
                return entry.second
            from ai.pc import seconds  # (it reads this module's answers)

            return seconds.lookup(bits, placed, shown, rules)  # after a first placement of the player's own
    elif hold is not None and not bits and not state:
        entry = table.get((Piece(hold), *shown))
        if entry is None:
            return None
        if hold_spent:  # the first position, hold pressed
            return entry.held
        # A later PC's first position, the bag's last six pieces shown and its missing one in hold, not pressed
        # yet: holding a piece with hold free to press offers exactly the placement sequences of having it in
        # play with hold empty (place it: the piece in play moves to hold; keep it: as if held at once), over the
        # same pieces and futures, so it is the first position of this order, and the table's advice stands
        # (hold is pressed when the piece it names is the held one).
        return entry.first
    return None


def _later_start(
    bits: Bitboard, shown: tuple[Piece, ...], hold: Piece | None, state: tuple, rules: Rules, hold_spent: bool
) -> Answer | None:
    """A later PC's first position: a bag's last six shown and one of them held, from the bag before (its missing
    one held is this module's), or hold empty; or the bag's last five and the next bag's first shown, any piece held
    or none; or its last four or three and the next bag's first two or three, or a bag's first six, a piece held:
    the later-start tables' answer (ai.pc.later_start), or None."""
    if bits:
        return None
    from ai.pc import later_start  # (it reads this module's answers)

    return later_start.lookup(shown, None if hold is None else Piece(hold), rules, hold_spent, state)


def compute_entry(
    order: tuple[Piece, ...],
    rules: Rules,
    keep: Entry | None = None,
    first_only: bool = False,
    second: bool = True,
) -> Entry:
    """The entry for this bag order under these rules, searched (what the table stores); with `keep`, its
    answers are kept and only the missing ones are searched. `first_only`: the first answer alone (a game's first
    position, the one every game meets), the others left to the search, for rules where they cost seconds each.
    `second` False: no answer for the position after the first placement (the table after a first placement,
    ai.pc.seconds.SECONDS, answers it where these rules have it whole; under no kicks it cost seconds each)."""
    from ai.pc.chance import pc_chance
    from ai.pc.field import clear_full_rows
    from game.randomizer import make_randomizer

    randomizer = make_randomizer("7bag", 0)

    def answer(bits: Bitboard, current: Piece, queue: tuple[Piece, ...], hold: Piece | None, state: tuple) -> Answer:
        result = pc_chance(
            bits, current, list(queue), hold, state, randomizer, rules, LINES, hold_spent=hold is not None, table=False
        )
        if result.approximate or result.futures != FUTURES:
            raise RuntimeError(f"{order_text(order)}: no exact chance over {FUTURES} futures")
        best = result.best_placement
        if best is None:
            return Answer(0, current, 0)
        return Answer(round(result.chance * FUTURES), best.piece, best.mask)

    first = keep.first if keep is not None else answer(0, order[0], order[1:6], None, (order[6],))
    if first_only:
        return keep or Entry(tuple(order), first, None, None)
    after = keep.second if keep is not None else None
    played = first.count and first.piece == order[0] and clear_full_rows(first.mask, LINES)[1] == 0
    if after is None and second and played:
        after = answer(first.mask, order[1], order[2:7], None, ())  # (kept without it: made first-only)
    held = keep.held if keep is not None else None
    if held is None:
        # advice to hold and place the second piece: once hold is pressed only that piece's placements are left,
        # and the best of them was the best of all, so the advice stands as it is
        held = first if first.piece == order[1] else answer(0, order[1], order[2:7], order[0], ())
    return Entry(tuple(order), first, after, held)
