"""The set-up finder: ways to build a target shape from a queue, the build chance over a pattern, and `cover`.

A shape (solution-finder's `setup` semantics) is a field in which every cell is one of
    X  already filled (part of the field before the build)
    *  must be filled by the pieces placed
    +  may be filled (margin): pieces may use it, the build does not need it
    _  must stay empty
A queue builds the shape when some placements of its pieces, in an order the queue allows (with hold: any order
real hold allows, the hold slot starting empty unless given), fill every `*` cell, put no block on a `_` cell,
and each lie where the move generator of the rules (`ai.pc.movegen`: shifts, kicked turns, soft drop unless
hard drops only, 180 turns when the rules allow them) can bring that piece from its spawn position in the field
as it is at that moment. Pieces rest on something (the generator only yields resting positions). The build stops
as soon as every `*` cell is filled; pieces not needed stay in the queue. No placement may complete a row: line
clears during a build are not allowed (a shape whose `X` and `*` cells fill a whole row is refused).

A shape may save a piece (`Shape.save`, a library entry's `save`): the PC after the set-up counts on it, so a
build must leave one of it unplaced, in hold or still in the queue, among the pieces the build looks at (`window`:
the pieces it can place, plus one). A queue that holds exactly one of it builds the shape without it; a queue with
none of it does not build the shape; with two, one may be placed.

Public API (used by `python main.py setup`, scripts/regenerate_setups.py and the guided-practice UI):
    Shape.from_text(text) / Shape.from_fumen(code, fill="I", margin="O") / shape.mirrored() / shape.saving(P)
    build_ways(shape, queue, *, hold=None, use_hold=True, rules=None, drop="softdrop", limit=1) -> list[Way]
    can_build(shape, queue, ...) -> bool
    build_chance(shape, pattern, ...) -> BuildChance(success, total, rate, failed, ways, elapsed_ms)
    cover(pattern, shapes: dict[name, Shape], ...) -> CoverResult(names, total, per_queue, any_count, counts)
    tspin_slots(field_bits, rules, drop) -> list[TSpinSlot]   (full T-spins reachable on a field)
    finder(shape, *, use_hold, rules, drop, queues=None, hold=None) -> Finder   (kept between calls; the queues
        it will be asked about let it skip tilings no queue has the pieces for)
        .buildable(queue, hold) -> bool, .ways(queue, hold, limit) -> list[Way]
    load_library() -> list[LibraryEntry]; entry.shape(mirror=False), entry.colours(mirror=False), entry.figures
    library_shapes(entries) -> {"KEY": Shape, "KEY/mirror": Shape} for cover()

A piece may lie wholly on `+` cells (it uses up a piece of the queue, or holds others up). Shapes of more than
LAZY_PIECES pieces are searched queue by queue (slower per queue, but no order sets that grow as n!).

Coordinates: (x, y) of a placement is the rotation cell (TBP / solution-finder convention) with y = 0 the
bottom row; no rows clear during a build, so every placement is given in the shape's own rows.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from ai.pc.movegen import MASKS, MoveGenerator, for_rules, unpack
from ai.pc.pattern import Pattern, parse_pattern
from ai.pc.search import Step
from game.board import WIDTH, Bitboard
from game.pieces import Piece, Rotation
from game.placement import Move, Placement
from game.rules import Rules
from game.setups import ENTRY_FIELDS, SetupEntry, entry_fields
from game.setups import LIBRARY_DIR as SETUPS_DIR

ROW = (1 << WIDTH) - 1
LAZY_PIECES = 7  # shapes of more pieces are searched queue by queue (see Finder)
MAX_HEIGHT = 12  # rows a shape may use (the move generator's bounded field)
DROPS = ("softdrop", "harddrop", "180")


class ShapeError(ValueError):
    """A shape that cannot be read or searched; the message is one line."""


# --- the target shape -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Shape:
    """Cells as bitboards (bit y*10+x): `base` already filled, `must` to fill, `may` margin. Rows 0..height-1.
    `save`: a piece every build leaves unplaced (see the module docstring), or None."""

    base: Bitboard
    must: Bitboard
    may: Bitboard = 0
    save: Piece | None = None

    def __post_init__(self) -> None:
        if self.save is not None and not isinstance(self.save, Piece):
            raise ShapeError(f"the saved piece must be a piece, got {self.save!r}")
        if self.base & self.must or self.base & self.may or self.must & self.may:
            raise ShapeError("a cell is given two roles (filled, must fill, may fill)")
        if not self.must:
            raise ShapeError("the shape has no cell to fill ('*' in text, the fill colour in a fumen)")
        if (self.base | self.must | self.may) >> (WIDTH * MAX_HEIGHT):
            raise ShapeError(f"the shape is more than {MAX_HEIGHT} rows high")
        both = self.base | self.must
        for y in range(self.height):
            if (both >> (y * WIDTH)) & ROW == ROW:
                raise ShapeError(
                    f"row {y} (from the bottom) would be full: line clears during a build are not supported"
                )

    @property
    def height(self) -> int:
        top = (self.base | self.must | self.may).bit_length()
        return (top + WIDTH - 1) // WIDTH

    @property
    def allowed(self) -> Bitboard:
        return self.must | self.may

    @property
    def built(self) -> Bitboard:
        """The field once built with no margin cell used."""
        return self.base | self.must

    @property
    def pieces_min(self) -> int:
        return -(-self.must.bit_count() // 4)

    @property
    def pieces_max(self) -> int:
        return (self.must | self.may).bit_count() // 4

    @classmethod
    def from_text(cls, text: str) -> Shape:
        """Rows top first, 10 cells each: X (or any piece letter, G, #) filled, * must, + may, _ or . empty.
        Blank lines and '/' separators are ignored."""
        rows = [r.strip() for r in text.replace("/", "\n").splitlines() if r.strip()]
        if not rows:
            raise ShapeError("empty shape")
        if len(rows) > MAX_HEIGHT:
            raise ShapeError(f"the shape has {len(rows)} rows; at most {MAX_HEIGHT} are supported")
        base = must = may = 0
        for index, row in enumerate(rows):
            if len(row) != WIDTH:
                raise ShapeError(f"shape row {index + 1} ({row[:20]!r}) has {len(row)} cells; expected {WIDTH}")
            y = len(rows) - 1 - index
            for x, char in enumerate(row):
                bit = 1 << (y * WIDTH + x)
                if char == "*":
                    must |= bit
                elif char == "+":
                    may |= bit
                elif char in "_.":
                    continue
                elif char.upper() in "XGIJLOSTZ#":
                    base |= bit
                else:
                    raise ShapeError(f"shape row {index + 1}: unknown cell {char!r} (X * + _)")
        return cls(base, must, may)

    @classmethod
    def from_fumen(cls, code: str, *, fill: str = "I", margin: str | None = "O") -> Shape:
        """The first page of a fumen: cells of colour `fill` must be filled, cells of colour `margin` may be,
        every other coloured or grey cell is already filled (solution-finder's --fill / --margin)."""
        from game.fumen import FumenError, decode

        try:
            page = decode(code.strip(), max_pages=1)[0]
        except (FumenError, ValueError) as error:
            raise ShapeError(f"bad fumen: {str(error).splitlines()[0] if str(error) else 'unreadable'}") from None
        fill_c, margin_c = _colour(fill), (_colour(margin) if margin else None)
        if fill_c == margin_c:
            raise ShapeError("the fill and margin colours must differ")
        field_ = page.field
        assert field_ is not None  # a first page always carries its field
        base = must = may = 0
        for y in range(23):
            for x in range(WIDTH):
                cell = field_.at(x, y)
                if cell == "_":
                    continue
                bit = 1 << (y * WIDTH + x)
                if y >= MAX_HEIGHT:
                    raise ShapeError(f"the shape is more than {MAX_HEIGHT} rows high")
                if cell == fill_c:
                    must |= bit
                elif cell == margin_c:
                    may |= bit
                else:
                    base |= bit
        return cls(base, must, may)

    @classmethod
    def from_built(cls, built: Bitboard, base: Bitboard = 0, may: Bitboard = 0) -> Shape:
        """A shape from a finished build (every block not in `base` must be filled)."""
        return cls(base, built & ~base & ~may, may)

    def mirrored(self) -> Shape:
        save = MIRROR_PIECE[self.save] if self.save is not None else None
        return Shape(_mirror(self.base), _mirror(self.must), _mirror(self.may), save)

    def saving(self, piece: Piece | None) -> Shape:
        """The same cells, saving `piece` (None: saving nothing)."""
        return Shape(self.base, self.must, self.may, piece)

    def to_text(self) -> str:
        rows = []
        for y in range(self.height - 1, -1, -1):
            row = ""
            for x in range(WIDTH):
                bit = 1 << (y * WIDTH + x)
                row += "X" if self.base & bit else "*" if self.must & bit else "+" if self.may & bit else "_"
            rows.append(row)
        return "\n".join(rows)


def _colour(name: str) -> str:
    letter = name.strip().upper()
    if letter in ("GRAY", "GREY", "G"):
        letter = "X"
    if len(letter) != 1 or letter not in "ILOZTJSX":
        raise ShapeError(f"unknown colour {name!r}: expected a piece letter I L O Z T J S or X (grey)")
    return letter


def _mirror(bits: Bitboard) -> Bitboard:
    out = 0
    y = 0
    while bits >> (y * WIDTH):
        row = (bits >> (y * WIDTH)) & ROW
        flipped = 0
        for x in range(WIDTH):
            if row >> x & 1:
                flipped |= 1 << (WIDTH - 1 - x)
        out |= flipped << (y * WIDTH)
        y += 1
    return out


MIRROR_PIECE = {
    Piece.I: Piece.I,
    Piece.O: Piece.O,
    Piece.T: Piece.T,
    Piece.J: Piece.L,
    Piece.L: Piece.J,
    Piece.S: Piece.Z,
    Piece.Z: Piece.S,
}


# --- results ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Way:
    """A build: the placements in order and the piece left over (in hold or next in the queue), if any. A build
    clears no line, so each step's (x, y) is in the shape's rows."""

    placements: tuple[Step, ...]
    leftover: Piece | None

    @property
    def cells(self) -> Bitboard:
        out = 0
        for p in self.placements:
            out |= p.mask
        return out

    @property
    def soft_count(self) -> int:
        return sum(not p.hard for p in self.placements)

    def as_dict(self) -> dict:
        return {
            "placements": [{**p.as_dict(), "hard_drop": p.hard} for p in self.placements],
            "leftover": self.leftover.name if self.leftover is not None else None,
        }


@dataclass
class BuildChance:
    success: int
    total: int
    failed: list[tuple[Piece, ...]]
    ways: dict[tuple[Piece, ...], Way | None] = field(default_factory=dict)  # filled on request
    elapsed_ms: float = 0.0

    @property
    def rate(self) -> float:
        return self.success / self.total if self.total else 0.0


@dataclass
class CoverResult:
    names: list[str]
    per_queue: list[tuple[tuple[Piece, ...], tuple[str, ...]]]  # each queue and the names it builds
    elapsed_ms: float = 0.0

    @property
    def total(self) -> int:
        return len(self.per_queue)

    @property
    def any_count(self) -> int:
        return sum(1 for _, names in self.per_queue if names)

    @property
    def any_rate(self) -> float:
        return self.any_count / self.total if self.total else 0.0

    def counts(self) -> dict[str, int]:
        out = {name: 0 for name in self.names}
        for _, names in self.per_queue:
            for name in names:
                out[name] += 1
        return out


# --- the search ------------------------------------------------------------------------------------------
def rules_for(drop: str, rules: Rules | None = None) -> tuple[Rules, bool]:
    """(rules, soft_drop) for a drop mode: softdrop (tucks and spins), harddrop (hard drops only), 180 (soft
    drop and 180 turns)."""
    if drop not in DROPS:
        raise ShapeError(f"unknown drop {drop!r}: expected one of {', '.join(DROPS)}")
    base = rules or Rules.named("srs")
    if drop == "180" and not base.allow_180:
        from dataclasses import replace

        base = replace(base, allow_180=True)
    return base, drop != "harddrop"


class Finder:
    """Searches one shape under one set of rules (solution-finder's approach).

    1. Arrangements: every set of piece placements (any kinds) that covers all `*` cells, stays inside `*`/`+`
       cells and leaves no row full (pieces covering `*` cells, plus optional pieces wholly on `+` cells).
    2. Orders: for each arrangement, every order of its placements in which each piece can be placed when its
       turn comes (resting on the field as it is then and reachable under the rules), kept as piece-letter
       strings (`orders`), with the arrangements that give each one.
    3. A queue builds the shape iff some order that real hold allows (the buffer model of `ai.pc.search`) is
       in `orders`: at most 2**(n-1) orders per queue, checked by set look-ups.
    """

    def __init__(
        self,
        shape: Shape,
        rules: Rules,
        soft_drop: bool,
        use_hold: bool,
        max_counts: dict[Piece, int] | None = None,
        lazy: bool | None = None,
        arrangements: list[tuple[tuple[int, Bitboard, int], ...]] | None = None,
    ) -> None:
        """`max_counts`: at most this many of each piece can ever be placed (from the queues to be asked
        about); arrangements needing more are skipped. None: no limit. `lazy`: skip step 2 and follow each
        queue through the arrangements instead (the default above LAZY_PIECES pieces, where the orders of
        one arrangement alone can number 8! and more). `arrangements`: step 1 already done (`after`)."""
        self.shape = shape
        self.rules = rules
        self.gen: MoveGenerator = for_rules(rules, soft_drop)
        self.soft_drop = soft_drop
        self.use_hold = use_hold
        self.h = shape.height
        self.keep = window(shape, use_hold)
        self.save = shape.save.name if shape.save is not None else None
        self.max_counts = None if max_counts is None else {int(p): n for p, n in max_counts.items()}
        self.arrangements: list[tuple[tuple[int, Bitboard, int], ...]] = (
            _arrangements(shape, self.max_counts) if arrangements is None else arrangements
        )
        self._children: dict[tuple[int, Bitboard, bool | None], Finder] = {}
        self.orders: dict[str, list[int]] = {}  # piece letters in build order -> arrangements giving it
        self.prefixes: set[str] = {""}
        self._shadow: dict[Bitboard, Bitboard] = {}
        self.lazy = shape.pieces_max > LAZY_PIECES if lazy is None else lazy
        for number, arrangement in enumerate([] if self.lazy else self.arrangements):
            for order in self._orders_of(arrangement):
                found = self.orders.setdefault(order, [])
                if len(found) < 8:
                    found.append(number)
        for order in self.orders:
            for k in range(len(order)):
                self.prefixes.add(order[:k])
        self._verdict: dict[tuple[str, int | None], bool] = {}

    def covers(self, queue: Iterable[Piece], hold: Piece | None = None) -> bool:
        """Whether `max_counts` allows this queue (a Finder only answers for queues within its limits)."""
        if self.max_counts is None:
            return True
        letters = [Piece(p) for p in queue][: self.keep]
        counts = _piece_counts([tuple(letters)], hold, self.keep, self.shape.save)
        return all(n <= self.max_counts.get(int(p), 0) for p, n in counts.items())

    # reachability of one placement in a field
    def _placeable(self, bits: Bitboard, piece: int, mask: Bitboard) -> bool:
        if not ((mask >> WIDTH) & bits or mask & ROW):  # nothing under it: it would fall
            return False
        shadow = self._shadow.get(mask)
        if shadow is None:
            shadow = self._shadow[mask] = _shadow(mask, self.h)
        if not shadow & bits:  # a straight drop from above lands here
            return True
        return self.soft_drop and mask in self.gen.mask_set(bits, self.h, piece)

    def _orders_of(self, arrangement: tuple) -> set[str]:
        """Letters of every buildable order of the arrangement's placements."""
        base = self.shape.base
        full = (1 << len(arrangement)) - 1
        memo: dict[int, set[str]] = {full: {""}}

        def suffixes(subset: int, bits: Bitboard) -> set[str]:
            known = memo.get(subset)
            if known is not None:
                return known
            out: set[str] = set()
            for i, (piece, mask, _) in enumerate(arrangement):
                if not subset >> i & 1 and self._placeable(bits, piece, mask):
                    letter = _NAMES[piece]
                    for tail in suffixes(subset | 1 << i, bits | mask):
                        out.add(letter + tail)
            memo[subset] = out
            return out

        return suffixes(0, base)

    def _saved(self, letters: str, idx: int, held: str | None) -> bool:
        """Whether the saved piece (if any) is among the pieces not placed: the buffer (hold) and the queue from
        `idx` on (the queue is already cut to the window)."""
        return self.save is None or self.save == held or self.save in letters[idx:]

    def _start(self, letters: str, hold: Piece | None) -> tuple[int, str | None]:
        if hold is not None and not self.use_hold:
            raise ShapeError("a hold piece was given but hold is not allowed")
        if self.use_hold and hold is None and letters:
            return 1, letters[0]
        return 0, (hold.name if hold is not None else None)

    def _moves(self, letters: str, idx: int, held: str | None) -> list[tuple[str, int, str | None]]:
        """(piece placed, next index, buffer piece after) for each choice the buffer model of hold allows."""
        n = len(letters)
        if not self.use_hold:
            return [(letters[idx], idx + 1, None)] if idx < n else []
        if idx >= n:
            return [(held, n, None)] if held is not None else []
        nxt = letters[idx]
        if held is None or held == nxt:
            return [(nxt, idx + 1, held)]
        return [(nxt, idx + 1, held), (held, idx + 1, nxt)]

    def _playable(self, letters: str, hold: Piece | None) -> list[tuple[str, list[int]]]:
        """The build orders this queue can play (hold as the buffer model), each with arrangements giving it."""
        idx, held = self._start(letters, hold)
        found: list[tuple[str, list[int]]] = []
        if self.lazy:
            live = {(number, 0): self.shape.base for number in range(len(self.arrangements))}
            self._walk_lazy(letters, "", live, idx, held, found)
            return found
        orders, prefixes = self.orders, self.prefixes

        def walk(prefix: str, idx: int, held: str | None) -> None:
            if prefix in orders and self._saved(letters, idx, held):
                found.append((prefix, orders[prefix]))
            if prefix not in prefixes:
                return
            for letter, nidx, nheld in self._moves(letters, idx, held):
                walk(prefix + letter, nidx, nheld)

        walk("", idx, held)
        return found

    def _walk_lazy(
        self, letters: str, prefix: str, live: dict, idx: int, held: str | None, found: list, first: bool = False
    ) -> None:
        """Follow the queue through every arrangement at once: `live` maps (arrangement, placements made) to
        the field; an arrangement whose placements are all made is a build. `first`: stop at the first build."""
        done = [number for (number, subset) in live if subset == (1 << len(self.arrangements[number])) - 1]
        if done and self._saved(letters, idx, held):
            found.append((prefix, done[:8]))
        if len(done) == len(live) or (first and found):
            return
        for letter, nidx, nheld in self._moves(letters, idx, held):
            step: dict = {}
            for (number, subset), bits in live.items():
                arrangement = self.arrangements[number]
                for i, (piece, mask, _) in enumerate(arrangement):
                    if (
                        not subset >> i & 1
                        and _NAMES[piece] == letter
                        and (number, subset | 1 << i) not in step
                        and self._placeable(bits, piece, mask)
                    ):
                        step[number, subset | 1 << i] = bits | mask
            if step:
                self._walk_lazy(letters, prefix + letter, step, nidx, nheld, found, first)
                if first and found:
                    return

    def buildable(self, queue: Iterable[Piece], hold: Piece | None = None) -> bool:
        letters = "".join(Piece(p).name for p in queue)[: self.keep]
        key = (letters, hold)
        known = self._verdict.get(key)
        if known is None:
            known = self._verdict[key] = bool(self._first_order(letters, hold))
        return known

    def _first_order(self, letters: str, hold: Piece | None) -> str | None:
        if self.lazy:
            idx, held = self._start(letters, hold)
            found: list[tuple[str, list[int]]] = []
            live = {(number, 0): self.shape.base for number in range(len(self.arrangements))}
            self._walk_lazy(letters, "", live, idx, held, found, first=True)
            return found[0][0] if found else None
        orders = self._playable(letters, hold)
        return orders[0][0] if orders else None

    # guided practice: the first placement, then the rest
    def firsts(self, queue: tuple[Piece, ...], hold: Piece | None, hold_spent: bool = False) -> list[Step]:
        """Every placement that can start a build from this queue and hold (the piece in play, or with the hold
        key the hold piece or the next one): a placement of some arrangement that rests on the field and is
        reachable now. No hold when `hold_spent` (hold was pressed for the piece in play)."""
        options: list[tuple[Piece, bool]] = [(queue[0], False)] if queue else []
        if self.use_hold and not hold_spent:
            other = hold if hold is not None else (queue[1] if len(queue) > 1 else None)
            if other is not None and (not queue or other != queue[0]):
                options.append((other, True))
        base = self.shape.base
        out: list[Step] = []
        for piece, flag in options:
            seen: set[Bitboard] = set()
            for arrangement in self.arrangements:
                for kind, mask, _ in arrangement:
                    if kind == piece and mask not in seen:
                        seen.add(mask)
                        if self._placeable(base, kind, mask):
                            hard = not self._shadow[mask] & base
                            out.append(Step(placement=_placement(kind, mask), hold=flag, hard=hard, lines=0))
        return out

    def after(self, piece: Piece, mask: Bitboard, *, lazy: bool | None = None) -> Finder | None:
        """The finder of what is left to build once `piece` lies on `mask` (None: nothing is left): its
        arrangements are this finder's that hold that placement, less it (no new tiling search)."""
        if not self.shape.must & ~mask:
            return None
        key = (int(piece), mask, lazy)
        child = self._children.get(key)
        if child is None:
            placed = (int(piece), mask, 0)
            rest = Shape(self.shape.base | mask, self.shape.must & ~mask, self.shape.may & ~mask, self.shape.save)
            arrangements = [tuple(p for p in a if p != placed) for a in self.arrangements if placed in a]
            child = Finder(rest, self.rules, self.soft_drop, self.use_hold, None, lazy, arrangements)
            self._children[key] = child
        return child

    def ways(self, queue: Iterable[Piece], hold: Piece | None = None, limit: int = 1) -> list[Way]:
        """Up to `limit` builds (order and placements), the fewest soft-drop placements first."""
        queue = tuple(Piece(p) for p in queue)
        letters = "".join(p.name for p in queue)[: self.keep]
        candidates = []
        for order, numbers in self._playable(letters, hold):
            for number in numbers:
                path = self._path(self.arrangements[number], order)
                if path is not None:
                    candidates.append(path)
        ways, seen = [], set()
        for path in candidates:
            key = tuple((piece, mask) for piece, mask, _ in path)
            if key not in seen:
                seen.add(key)
                ways.append(self._to_way(queue, hold, path))
        ways.sort(key=lambda way: (way.soft_count, sum(p.hold for p in way.placements), len(way.placements)))
        return ways[:limit]

    def _path(self, arrangement: tuple, order: str) -> list[tuple[int, Bitboard, bool]] | None:
        """The placements of the arrangement in this order of letters, each placeable in turn (None if not)."""
        bits = self.shape.base
        used = 0
        path = []

        def walk(k: int, bits: Bitboard, used: int) -> bool:
            if k == len(order):
                return True
            for i, (piece, mask, _) in enumerate(arrangement):
                if not used >> i & 1 and _NAMES[piece] == order[k] and self._placeable(bits, piece, mask):
                    path.append((piece, mask, not self._shadow[mask] & bits))
                    if walk(k + 1, bits | mask, used | 1 << i):
                        return True
                    path.pop()
            return False

        return path if walk(0, bits, used) else None

    def _to_way(self, queue: tuple[Piece, ...], hold: Piece | None, path: list) -> Way:
        placed = [Piece(piece) for piece, _, _ in path]
        flags, leftover = _hold_flags(queue, hold, placed, self.use_hold)
        out = []
        for (piece, mask, hard), flag in zip(path, flags):
            out.append(Step(placement=_placement(piece, mask), hold=flag, hard=hard, lines=0))
        return Way(placements=tuple(out), leftover=leftover)


def _placement(piece: int, mask: Bitboard) -> Placement:
    """The placement covering `mask` (a build's cells are unique to one pose of the piece)."""
    rot, x, y = _POSE[piece][mask]
    return Placement(piece=Piece(piece), rotation=Rotation(rot), x=x, y=y)


def _shadow(mask: Bitboard, h: int) -> Bitboard:
    """The cells above `mask` in its columns, up to row h + 3 (what a straight drop passes through)."""
    out = 0
    for x in range(WIDTH):
        top = -1
        for y in range(h + 4):
            if mask >> (y * WIDTH + x) & 1:
                top = y
        if top >= 0:
            for y in range(top + 1, h + 4):
                out |= 1 << (y * WIDTH + x)
    return out


def _build_poses() -> dict[int, dict[Bitboard, tuple[int, int, int]]]:
    """piece -> cells -> (rotation, x, y) of the rotation cell (the lowest rotation with those cells)."""
    table: dict[int, dict[Bitboard, tuple[int, int, int]]] = {}
    for piece in Piece:
        poses: dict[Bitboard, tuple[int, int, int]] = {}
        for sid, mask in sorted(MASKS[piece].items()):
            if mask >> (WIDTH * MAX_HEIGHT) == 0:
                poses.setdefault(mask, unpack(sid))
        table[piece] = poses
    return table


_POSE = _build_poses()
_NAMES = {int(p): p.name for p in Piece}
# cell index -> every (piece, cells) covering that cell, inside the bounded rows
_COVERING: dict[int, list[tuple[int, Bitboard]]] = {}
for _piece, _poses in _POSE.items():
    for _mask in _poses:
        _m = _mask
        while _m:
            _low = _m & -_m
            _COVERING.setdefault(_low.bit_length() - 1, []).append((_piece, _mask))
            _m ^= _low


def _arrangements(
    shape: Shape, max_counts: dict[int, int] | None = None
) -> list[tuple[tuple[int, Bitboard, int], ...]]:
    """Every set of placements (piece, cells, 0) that covers the `*` cells and stays within `*`/`+` cells: the
    pieces covering `*` cells, found once each by always covering the lowest `*` cell not yet covered, plus any
    set of pieces lying wholly on `+` cells (a margin piece can hold others up or use up a piece of the queue).
    At most pieces_max pieces, at most max_counts[piece] of each piece (None: no limit), no full row."""
    must, allowed, base, may = shape.must, shape.allowed, shape.base, shape.may
    out: list[tuple[tuple[int, Bitboard, int], ...]] = []
    chosen: list[tuple[int, Bitboard, int]] = []
    rows = range(shape.height)
    left = dict(max_counts) if max_counts is not None else {int(p): shape.pieces_max for p in Piece}
    margin_only = [(piece, mask) for piece, poses in _POSE.items() for mask in poses if mask & may == mask]

    def no_full_row(filled: Bitboard) -> bool:
        done = base | filled
        return all((done >> (y * WIDTH)) & ROW != ROW for y in rows)

    def add_margin(filled: Bitboard, start: int) -> None:
        """Record the arrangement, then every way to add margin-only pieces (in list order: each set once)."""
        if no_full_row(filled):
            out.append(tuple(chosen))
        if len(chosen) >= shape.pieces_max:
            return
        for index in range(start, len(margin_only)):
            piece, mask = margin_only[index]
            if not mask & filled and left.get(piece, 0) > 0:
                left[piece] -= 1
                chosen.append((piece, mask, 0))
                add_margin(filled | mask, index + 1)
                chosen.pop()
                left[piece] += 1

    def walk(filled: Bitboard) -> None:
        missing = must & ~filled
        if not missing:
            add_margin(filled, 0)
            return
        if len(chosen) >= shape.pieces_max:
            return
        cell = (missing & -missing).bit_length() - 1
        free = allowed & ~filled
        for piece, mask in _COVERING.get(cell, ()):
            if mask & free == mask and left.get(piece, 0) > 0:
                left[piece] -= 1
                chosen.append((piece, mask, 0))
                walk(filled | mask)
                chosen.pop()
                left[piece] += 1

    walk(0)
    return out


_LETTER = {p.name: int(p) for p in Piece}


def _hold_flags(
    queue: tuple[Piece, ...], hold: Piece | None, placed: list[Piece], use_hold: bool
) -> tuple[list[bool], Piece | None]:
    """Per placed piece, whether the hold key was pressed for it, and the piece left over afterwards
    (the hold piece, else the next in the queue). The order must be one real hold allows."""
    held, r, flags = hold, 0, []
    for piece in placed:
        if r < len(queue) and queue[r] == piece:
            flags.append(False)
            r += 1
        elif use_hold and held == piece:
            flags.append(True)
            held = queue[r] if r < len(queue) else None
            r = min(r + 1, len(queue))
        elif use_hold and held is None and r + 1 < len(queue) and queue[r + 1] == piece:
            flags.append(True)
            held = queue[r]
            r += 2
        else:
            raise AssertionError("order not playable with hold")  # the search only makes playable orders
    leftover = held if held is not None else (queue[r] if r < len(queue) else None)
    return flags, leftover


# --- the public functions ---------------------------------------------------------------------------------
def window(shape: Shape, use_hold: bool) -> int:
    """How many pieces of a queue (after the hold piece) a build of the shape looks at: the most it can place,
    plus one for hold or for the saved piece."""
    return shape.pieces_max + (1 if use_hold or shape.save is not None else 0)


def _piece_counts(
    sequences: Iterable[tuple[Piece, ...]], hold: Piece | None, keep: int, save: Piece | None = None
) -> dict[Piece, int]:
    """For each piece, the most copies of it any queue (cut to `keep` pieces, plus the hold piece) holds that a
    build may place (one saved piece fewer)."""
    best: dict[Piece, int] = {}
    for seq in sequences:
        counts: dict[Piece, int] = {}
        for p in list(seq)[:keep] + ([hold] if hold is not None else []):
            counts[p] = counts.get(p, 0) + 1
        if save is not None:
            counts[save] = counts.get(save, 0) - 1
        for p, n in counts.items():
            if n > best.get(p, 0):
                best[p] = n
    return best


def finder(
    shape: Shape,
    *,
    use_hold: bool = True,
    rules: Rules | None = None,
    drop: str = "softdrop",
    queues: Iterable[Iterable[Piece]] | None = None,
    hold: Piece | None = None,
    lazy: bool | None = None,
) -> Finder:
    """A Finder for the shape; given the `queues` it will be asked about (and the hold piece), it skips the
    arrangements no such queue has the pieces for (much faster for bag patterns)."""
    rules, soft = rules_for(drop, rules)
    counts = None
    if queues is not None:
        counts = _piece_counts((tuple(Piece(p) for p in q) for q in queues), hold, window(shape, use_hold), shape.save)
    key = (shape, rules.cache_key(), soft, use_hold, None if counts is None else tuple(sorted(counts.items())), lazy)
    found = _FINDERS.get(key)
    if found is None:
        if len(_FINDERS) >= 256:  # finders hold their answers; keep the most recent few hundred
            _FINDERS.pop(next(iter(_FINDERS)))
        found = _FINDERS[key] = Finder(shape, rules, soft, use_hold, counts, lazy)
    else:
        _FINDERS[key] = _FINDERS.pop(key)  # most recently used last
    return found


_FINDERS: dict[tuple, Finder] = {}


def clear_finders() -> None:
    """Forget the finders kept between calls (benchmarks measure cold runs with this)."""
    _FINDERS.clear()


def build_ways(
    shape: Shape,
    queue: Iterable[Piece],
    *,
    hold: Piece | None = None,
    use_hold: bool = True,
    rules: Rules | None = None,
    drop: str = "softdrop",
    limit: int = 1,
) -> list[Way]:
    """Up to `limit` ways to build `shape` from `queue` (first piece = the piece in play), [] if none."""
    queue = tuple(Piece(p) for p in queue)
    return finder(shape, use_hold=use_hold, rules=rules, drop=drop, queues=[queue], hold=hold).ways(queue, hold, limit)


def can_build(
    shape: Shape,
    queue: Iterable[Piece],
    *,
    hold: Piece | None = None,
    use_hold: bool = True,
    rules: Rules | None = None,
    drop: str = "softdrop",
) -> bool:
    queue = tuple(Piece(p) for p in queue)
    return finder(shape, use_hold=use_hold, rules=rules, drop=drop, queues=[queue], hold=hold).buildable(queue, hold)


def _sequences(pattern: str | Pattern | Iterable[Iterable[Piece]]) -> list[tuple[Piece, ...]]:
    if isinstance(pattern, str):
        pattern = parse_pattern(pattern)
    if isinstance(pattern, Pattern):
        return pattern.sequences()
    return [tuple(Piece(p) for p in seq) for seq in pattern]


def build_chance(
    shape: Shape,
    pattern: str | Pattern | Iterable[Iterable[Piece]],
    *,
    hold: Piece | None = None,
    use_hold: bool = True,
    rules: Rules | None = None,
    drop: str = "softdrop",
    with_ways: bool = False,
) -> BuildChance:
    """For every queue of the pattern, whether it builds the shape (solution-finder `setup`'s success rate)."""
    started = time.perf_counter()
    sequences = _sequences(pattern)
    search = finder(shape, use_hold=use_hold, rules=rules, drop=drop, queues=sequences, hold=hold)
    result = BuildChance(0, len(sequences), [])
    for seq in sequences:
        ok = search.buildable(seq, hold)
        if ok:
            result.success += 1
        else:
            result.failed.append(seq)
        if with_ways:
            found = search.ways(seq, hold, 1) if ok else []
            result.ways[seq] = found[0] if found else None
    result.elapsed_ms = (time.perf_counter() - started) * 1000
    return result


def cover(
    pattern: str | Pattern | Iterable[Iterable[Piece]],
    shapes: dict[str, Shape],
    *,
    hold: Piece | None = None,
    use_hold: bool = True,
    rules: Rules | None = None,
    drop: str = "softdrop",
) -> CoverResult:
    """For every queue of the pattern, which of `shapes` (name -> shape) it builds; the chance that at least one
    can be built is `any_rate` (solution-finder `cover`)."""
    started = time.perf_counter()
    sequences = _sequences(pattern)
    finders = {
        name: finder(shape, use_hold=use_hold, rules=rules, drop=drop, queues=sequences, hold=hold)
        for name, shape in shapes.items()
    }
    per_queue = []
    for seq in sequences:
        per_queue.append((seq, tuple(name for name, f in finders.items() if f.buildable(seq, hold))))
    return CoverResult(list(shapes), per_queue, (time.perf_counter() - started) * 1000)


# --- T-spin slots -----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class TSpinSlot:
    move: Move  # the T's placement (a full spin) and the shortest keys to it
    lines: int  # rows the spin clears (1 single, 2 double, 3 triple)

    @property
    def name(self) -> str:
        return {1: "TSS", 2: "TSD", 3: "TST"}.get(self.lines, f"T-spin {self.lines}")


def tspin_slots(bits: Bitboard, *, rules: Rules | None = None, drop: str = "softdrop") -> list[TSpinSlot]:
    """Every T placement reachable from spawn on this field (the engine's movement search, game.movegen.find_moves) that
    scores a full T-spin (not a mini) and clears at least one row; most lines first."""
    from game.movegen import find_moves
    from game.movement import Spin

    rules, soft = rules_for(drop, rules)
    out = []
    for move in find_moves(bits, Piece.T, rules, soft_drop=soft):
        if move.placement.spin is not Spin.FULL:
            continue
        after = bits | move.placement.mask
        lines = sum(1 for y in range(40) if (after >> (y * WIDTH)) & ROW == ROW)
        if lines:
            out.append(TSpinSlot(move=move, lines=lines))
    out.sort(key=lambda s: (-s.lines, len(s.move.keys)))
    return out


# --- the library (assets/setups/*.toml) --------------------------------------------------------------------
LIBRARY_DIR = SETUPS_DIR  # assets/setups
FAMILIES = ("pc", "opener")


class LibraryError(ValueError):
    """A library file that cannot be used; the message names the file and the entry."""


@dataclass(frozen=True)
class LibraryEntry(SetupEntry):
    """A library entry (game.setups.SetupEntry: the plain data the menu also reads) with its shape for the
    finder. `figures` are written only by scripts/regenerate_setups.py (see assets/setups/README.md)."""

    def shape(self, *, mirror: bool = False) -> Shape:
        cells = self.cells(mirror=mirror)
        return Shape(cells.base, cells.must, cells.may, self.saved(mirror=mirror))


def _entry(raw: dict, where: str) -> LibraryEntry:
    unknown = set(raw) - ENTRY_FIELDS
    if unknown:
        raise LibraryError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    try:
        entry = LibraryEntry(**entry_fields(raw))
    except KeyError as error:
        raise LibraryError(f"{where}: missing field {error.args[0]!r}") from None
    except (TypeError, ValueError) as error:
        raise LibraryError(f"{where}: {error}") from None
    if entry.family not in FAMILIES:
        raise LibraryError(f"{where}: family must be one of {', '.join(FAMILIES)}, got {entry.family!r}")
    if entry.family == "pc" and not (entry.pc and 1 <= entry.pc <= 7):
        raise LibraryError(f"{where}: a 'pc' entry needs pc = 1..7")
    if entry.save and entry.pc_pattern and entry.pc_pattern.split(",")[0].strip().upper() != entry.save:
        raise LibraryError(
            f"{where}: an entry that saves {entry.save} needs a pc_pattern that starts with {entry.save}"
        )
    try:
        entry.shape()
        parse_pattern(entry.bags)
        if entry.pc_pattern:
            parse_pattern(entry.pc_pattern)
    except (ShapeError, ValueError) as error:
        raise LibraryError(f"{where}: {str(error).splitlines()[0]}") from None
    return entry


def load_library(directory=None) -> list[LibraryEntry]:
    """Every entry of every `*.toml` file in the library folder, in file then entry order; LibraryError if a
    file cannot be read, an entry is malformed, or two entries share a key."""
    import pathlib
    import tomllib

    folder = pathlib.Path(directory) if directory is not None else LIBRARY_DIR
    entries: list[LibraryEntry] = []
    seen: set[str] = set()
    for path in sorted(folder.glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise LibraryError(f"{path.name}: {error}") from None
        for number, raw in enumerate(data.get("setup", []), 1):
            entry = _entry(raw, f"{path.name} entry {number} ({raw.get('key', '?')})")
            if entry.key in seen:
                raise LibraryError(f"{path.name}: key {entry.key!r} is used twice")
            seen.add(entry.key)
            entries.append(entry)
    return entries


def library_shapes(entries: Iterable[LibraryEntry], *, mirrors: bool = True) -> dict[str, Shape]:
    """name -> shape for `cover`: each entry, and its mirror (as 'KEY/mirror') when allowed."""
    out: dict[str, Shape] = {}
    for entry in entries:
        out[entry.key] = entry.shape()
        if mirrors and entry.mirror:
            out[entry.key + "/mirror"] = entry.shape(mirror=True)
    return out
