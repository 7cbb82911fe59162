"""The move generator: `find_moves(board, piece, rules, soft_drop=...)` lists every reachable final placement of
a piece with its spin and shortest key sequence. The engine's finesse count, the UI, the AI, PC verification and
the `moves` command all use it; the compiled port (ai.jit_movegen) is tested equal to it.

"Reachable" is the breadth-first search from spawn that players' key counting implies (the tuple-state reference
search it is tested against lives in tests/oracle_movegen.py): the same move order, each (rotation, x, y)
expanded once from its first arrival, and a later arrival recorded as its own placement when it locks there
with a spin not met there before (e.g. a longer rotation into cells first reached by a shift). Keys are counted
as a player presses them: a tap moves one column, holding a direction (DAS) slides to the wall and counts once,
a soft drop held to the floor counts once, each rotation once, and the hard drop ends every sequence.
It runs on fast primitives:

* the board is transposed once into 10 column bitsets; for every (rotation, x) a *fit column* `F` is built with
  four shifts and ANDs: bit p of F is set when the piece fits at y = p - 8. Fitting, dropping (the highest
  blocked bit below p) and kick tests then cost one or two integer operations instead of a dict lookup per row;
* states are small ints (rotation, x, p) and the search keeps parent pointers instead of key tuples, so keys are
  built only for the placements returned;
* equal cell sets are recognised through a per-piece canonical id table, not by hashing 400-bit masks.

`find_moves` returns `Move` values (a `game.placement.Placement` and its keys); `generate_raw` returns plain ints
for search, which only needs the final positions and builds a `Placement` only for the move it picks.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from operator import itemgetter

from game.board import PIECE_MASKS, Bitboard, Board, filled_columns
from game.movement import Spin
from game.pieces import SHAPES, Piece, Rotation
from game.placement import Key, Move, Placement
from game.rules import Rules, SpinRule, per_rules

__all__ = ["Key", "Move", "Placement", "RawPlacement", "find_moves", "generate_raw"]


_XOFF = 8  # xi = x + 8: kicks of up to 4 columns from any legal x stay inside 0..31
_YOFF = 8  # p = y + 8: bit p of a fit column

# A piece state as one small int, the encoding of every move generator here (this one, the compiled port
# ai.jit_movegen and the PC search's ai.pc.movegen): rotation << 11 | (x + 8) << 6 | (y + 8).
# A row up is +STATE_ROW, a column right +STATE_COL, a quarter turn +STATE_ROT; 4 * STATE_ROT states in all.
STATE_ROW, STATE_COL, STATE_ROT = 1, 1 << 6, 1 << 11


def state_of(rotation: int, x: int, y: int) -> int:
    """The state int of a piece at (rotation, x, y) (x in -8..23, y in -8..55)."""
    return int(rotation) * STATE_ROT + (x + _XOFF) * STATE_COL + (y + _YOFF) * STATE_ROW


def state_parts(state: int) -> tuple[int, int, int]:
    """(rotation, x, y) of a state int."""
    return state >> 11, ((state >> 6) & 31) - _XOFF, (state & 63) - _YOFF


_XS = 32
_ROW = 1023
_COL_FULL = (1 << 40) - 1
_LOW = [(1 << p) - 1 for p in range(64)]

# Key codes used inside the search (indexes into _KEYS).
LEFT, RIGHT, DAS_LEFT, DAS_RIGHT, CW, CCW, FLIP, SOFT = range(8)
_KEYS = (Key.LEFT, Key.RIGHT, Key.DAS_LEFT, Key.DAS_RIGHT, Key.CW, Key.CCW, Key.FLIP, Key.SOFT_DROP)
_ROTATION_KEYS = ((CW, 1), (CCW, -1), (FLIP, 2))
_ROTATIONS = tuple(Rotation)
_SPINS = tuple(Spin)

# T-spin corners (dx, dy) and, per rotation, the indexes of the two front corners (as in game.movement).
_CORNERS = ((-1, 1), (1, 1), (1, -1), (-1, -1))
_FRONT = ((0, 1), (1, 2), (2, 3), (3, 0))


@dataclass(frozen=True, slots=True)
class RawPlacement:
    """A placement without its key sequence: enough for search. `keys` is the length of the shortest sequence."""

    rotation: int
    x: int
    y: int
    spin: Spin
    keys: int  # -1 when the fast path did not count them
    canon: int  # equal for placements covering the same cells


class _PieceTables:
    """Everything about one piece under one rule set that does not depend on the board."""

    def __init__(self, piece: Piece, rules: Rules) -> None:
        self.piece = piece
        # For each rotation: (xi, ((column, shift), ...)) for every x where the piece is inside the walls.
        self.columns: list[list[tuple[int, tuple[tuple[int, int], ...]]]] = []
        for rot in Rotation:
            cells = SHAPES[piece, rot]
            entries = []
            for x in range(-3, 13):
                if all(0 <= x + dx < 10 for dx, _ in cells):
                    entries.append((x + _XOFF, tuple((x + dx, _YOFF - dy) for dx, dy in cells)))
            self.columns.append(entries)
        # For each rotation: [(key code, end rotation, (kick test, ...)), ...]; a kick test is
        # (end * 32 + dx, dy, state delta, is the TST/fin kick, lowest xi, highest xi it may be tried from).
        self.kicks: list[list[tuple[int, int, tuple[tuple[int, int, int, bool, int, int], ...]]]] = []
        table = rules.rotation.table
        for rot in Rotation:
            options = []
            for code, turns in _ROTATION_KEYS:
                if turns == 2 and not rules.allow_180:
                    continue
                end = rot.turned(turns)
                tests = rules.rotation.tests[piece, rot, end]
                written = table.get((piece, rot.srs_name + end.srs_name))
                kick_tests = []
                for index, (dx, dy) in enumerate(tests):
                    kx, ky = written[index] if written is not None and index < len(written) else (dx, dy)
                    # xi must stay in lo..hi (its own rotation's columns) for this test to be looked up at all:
                    # user tables may kick further than the 8 spare columns on each side.
                    lo, hi = max(0, -dx), min(_XS - 1, _XS - 1 - dx)
                    kick_tests.append(
                        (int(end) * _XS + dx, dy, (end << 11) + dx * 64 + dy, abs(kx) == 1 and abs(ky) == 2, lo, hi)
                    )
                options.append((code, int(end), tuple(kick_tests)))
            self.kicks.append(options)
        # Canonical id per state index (rot << 11 | xi << 6 | p); -1 where out of bounds.
        self.canon = [-1] * (4 << 11)
        ids: dict[int, int] = {}
        for rot in Rotation:
            for x in range(-3, 13):
                for y in range(-3, 43):
                    mask = PIECE_MASKS.get((piece, rot, x, y))
                    if mask is None:
                        continue
                    cid = ids.get(mask)
                    if cid is None:
                        cid = ids[mask] = len(ids)
                    self.canon[(rot << 11) | ((x + _XOFF) << 6) | (y + _YOFF)] = cid


@per_rules(limit=8 * len(Piece))  # the seven pieces under the last eight rule sets
def _piece_tables(rules: Rules, piece: Piece) -> _PieceTables:
    return _PieceTables(piece, rules)


def _tables(piece: Piece, rules: Rules) -> _PieceTables:
    return _piece_tables(rules, piece)


def column_sets(bits: Bitboard) -> list[int]:
    """The board transposed: for each column x, an int with bit y set where (x, y) is empty (40 rows)."""
    return [_COL_FULL ^ column for column in filled_columns(bits)]


def shifted_columns(bits: Bitboard) -> list[list[int]]:
    """For each column, its empty-cell set shifted left by 0..12 (shared by every piece on this board)."""
    return [[column << k for k in range(13)] for column in column_sets(bits)]


def _fit_columns(tables: _PieceTables, shifted: list[list[int]]) -> list[int]:
    """F[rot * 32 + xi]: bit p set where the piece fits at (x, y) = (xi - 8, p - 8); 0 outside the walls."""
    fit = [0] * (4 * _XS)
    for rot in range(4):
        base = rot * _XS
        for xi, cells in tables.columns[rot]:
            (c0, s0), (c1, s1), (c2, s2), (c3, s3) = cells
            fit[base + xi] = shifted[c0][s0] & shifted[c1][s1] & shifted[c2][s2] & shifted[c3][s3]
    return fit


# Search asks for the same board twice in a row (current piece, then the hold piece): keep the last few.
_shifted_for = functools.lru_cache(maxsize=64)(shifted_columns)


def _search(  # noqa: C901 - the BFS inner loop is kept in one function for speed (bench/movegen.py)
    bits: Bitboard, piece: Piece, rules: Rules, soft_drop: bool, start: tuple[Rotation, int, int] | None
) -> tuple[_PieceTables, dict[int, int], dict[int, tuple]]:
    """The breadth-first search. Returns (tables, link, best).

    link[state] = parent state * 8 + key code for every visited state but the first;
    best[canon * 4 + spin] = (final key count, landed state, spin, tail state, extra key code or -1): the shortest
    sequence is path(tail) + extra code, whose final soft drop becomes the hard drop (else a hard drop is added).
    An extra code marks a later arrival at an already expanded state that locks there with a new spin.
    """
    tables = _tables(piece, rules)
    fit = _fit_columns(tables, _shifted_for(bits))
    rot0, x0, y0 = start if start is not None else (Rotation.NORTH, rules.spawn_x, rules.spawn_y)
    s0 = (int(rot0) << 11) | ((x0 + _XOFF) << 6) | (y0 + _YOFF)
    if not (0 <= x0 + _XOFF < _XS and 0 <= y0 + _YOFF < 64) or not (fit[s0 >> 6] >> (s0 & 63) & 1):
        return tables, {}, {}
    canon = tables.canon
    kicks = tables.kicks
    low = _LOW
    is_t = piece is Piece.T and rules.spin_rule is not SpinRule.NONE
    all_spin = piece is not Piece.T and rules.spin_rule is SpinRule.ALL_SPIN
    want_spins = is_t or all_spin

    def spin_class(s: int) -> int:
        """How a rotation into the grounded state s scores, as detect_spin: 0 none, 1 mini, 2 full, 3 mini unless
        the rotation used the TST/fin kick (then full). Depends on the position only, so it is cached per state."""
        rot = s >> 11
        x = ((s >> 6) & 31) - _XOFF
        y = (s & 63) - _YOFF
        if is_t:
            filled = [
                not (0 <= x + dx < 10 and 0 <= y + dy < 40) or bool(bits >> ((y + dy) * 10 + x + dx) & 1)
                for dx, dy in _CORNERS
            ]
            if sum(filled) < 3:
                return 0
            a, b = _FRONT[rot]
            return 2 if filled[a] and filled[b] else 3
        idx = s >> 6
        p = s & 63
        mobile = (fit[idx - 1] >> p & 1) or (fit[idx + 1] >> p & 1) or (fit[idx] >> (p + 1) & 1)
        return 0 if mobile else 1

    def record_tagged(t: int, final: int, spin: int, tail: int, code: int) -> None:
        """A later arrival at the grounded state t that locks with a spin not met there before: its own placement."""
        rk = canon[t] * 4 + spin
        known = best.get(rk)
        if known is None or final < known[0]:
            best[rk] = (final, t, spin, tail, code)

    # The reference's set of (state, tag), split so the common check stays one lookup: plain[state] is set once an
    # arrival locking there without a spin was met, spun[state] has bit k set once one locking with spin k was met
    # (a state is unseen while both are 0). first[state]: how the first (expanded) arrival locks in place: its
    # spin (0 none, 1 mini, 2 full), or 3 = arrived by soft drop (the hard drop replaces that key).
    plain = bytearray(4 << 11)
    spun = bytearray(4 << 11)
    first = bytearray(4 << 11)
    classes = bytearray(b"\xff") * (4 << 11 if want_spins else 0)  # spin_class cache, 255 = not yet
    link: dict[int, int] = {}
    best: dict[int, tuple] = {}
    left_end: dict[int, int] = {}
    right_end: dict[int, int] = {}
    plain[s0] = 1
    queue = [s0]
    push = queue.append
    head = 0
    level_end = 1  # the queue holds one BFS level after another; d counts the current level's depth + 1
    d = 1
    while head < len(queue):
        if head == level_end:
            level_end = len(queue)
            d += 1
        s = queue[head]
        head += 1
        idx = s >> 6
        p = s & 63
        # Record where this state lands (reference: record on pop with the first arrival's kick).
        land = ((~fit[idx]) & low[p]).bit_length()
        if land == p:
            how = first[s]
            if how == 3:
                spin = 0
                final = d - 1
            else:
                spin = how
                final = d
            landed = s
        else:
            spin = 0
            final = d
            landed = s - p + land
        rk = canon[landed] * 4 + spin
        known = best.get(rk)
        if known is None or final < known[0]:
            best[rk] = (final, landed, spin, s, -1)
        child = d + 1
        # Successors in the reference order: left, right, das left, das right, cw, ccw, 180, soft drop.
        # A shift into a seen state whose arrivals so far all scored a spin (so it is grounded) adds its no-spin
        # placement; a soft drop never does (its parent's own hard drop already lands there with as many keys).
        left_free = fit[idx - 1] >> p & 1
        right_free = fit[idx + 1] >> p & 1
        if left_free:
            t = s - 64
            if not plain[t]:
                plain[t] = 1
                if spun[t]:  # seen only with spins (so it is grounded)
                    record_tagged(t, child, 0, s, LEFT)
                else:
                    link[t] = (s << 3) | LEFT
                    push(t)
        if right_free:
            t = s + 64
            if not plain[t]:
                plain[t] = 1
                if spun[t]:  # seen only with spins (so it is grounded)
                    record_tagged(t, child, 0, s, RIGHT)
                else:
                    link[t] = (s << 3) | RIGHT
                    push(t)
        if left_free:
            # DAS end: every state of one free run shares it, so each run is walked once.
            run_end = left_end.get(s)
            if run_end is None:
                i = idx - 1
                while fit[i - 1] >> p & 1:
                    i -= 1
                t = s - (idx - i) * 64
                for run in range(t, s + 1, 64):
                    left_end[run] = t
            else:
                t = run_end
            if t < s - 64 and not plain[t]:
                plain[t] = 1
                if spun[t]:  # seen only with spins (so it is grounded)
                    record_tagged(t, child, 0, s, DAS_LEFT)
                else:
                    link[t] = (s << 3) | DAS_LEFT
                    push(t)
        if right_free:
            run_end = right_end.get(s)
            if run_end is None:
                i = idx + 1
                while fit[i + 1] >> p & 1:
                    i += 1
                t = s + (i - idx) * 64
                for run in range(s, t + 1, 64):
                    right_end[run] = t
            else:
                t = run_end
            if t > s + 64 and not plain[t]:
                plain[t] = 1
                if spun[t]:  # seen only with spins (so it is grounded)
                    record_tagged(t, child, 0, s, DAS_RIGHT)
                else:
                    link[t] = (s << 3) | DAS_RIGHT
                    push(t)
        xi = idx & 31
        for rcode, _end, tests in kicks[s >> 11]:
            for fidx, dy, _delta, fin, lo, hi in tests:
                q = p + dy
                nidx = fidx + xi
                if q >= 0 and lo <= xi <= hi and fit[nidx] >> q & 1:  # the first kick test that fits wins
                    t = (nidx << 6) | q
                    # The spin of locking right here; only a grounded arrival can score one.
                    if want_spins and not (fit[nidx] >> (q - 1) & 1):
                        tag = classes[t]
                        if tag == 255:
                            tag = classes[t] = spin_class(t)
                        if tag == 3:
                            tag = 2 if fin else 1
                        if tag:
                            met = spun[t]
                            if not met >> tag & 1:
                                spun[t] = met | 1 << tag
                                if met or plain[t]:
                                    record_tagged(t, child, tag, s, rcode)
                                else:
                                    first[t] = tag
                                    link[t] = (s << 3) | rcode
                                    push(t)
                            break
                    if not plain[t]:
                        plain[t] = 1
                        if spun[t]:
                            record_tagged(t, child, 0, s, rcode)
                        else:
                            link[t] = (s << 3) | rcode
                            push(t)
                    break
        if soft_drop and land != p:
            t = s - p + land
            if not plain[t] and not spun[t]:
                first[t] = 3
                plain[t] = 1
                link[t] = (s << 3) | SOFT
                push(t)
    return tables, link, best


def _keys_of(link: dict[int, int], tail: int, code: int) -> tuple[Key, ...]:
    """path(tail) + code (if >= 0), with the final soft drop turned into the hard drop or a hard drop added."""
    keys = [_KEYS[code]] if code >= 0 else []  # built backwards from the last key
    up = link.get(tail)
    while up is not None:
        keys.append(_KEYS[up & 7])
        up = link.get(up >> 3)
    keys.reverse()
    if keys and keys[-1] is Key.SOFT_DROP:
        keys[-1] = Key.HARD_DROP
    else:
        keys.append(Key.HARD_DROP)
    return tuple(keys)


def find_moves(
    board: Board | Bitboard,
    piece: Piece,
    rules: Rules,
    *,
    soft_drop: bool = True,
    start: tuple[Rotation, int, int] | None = None,
) -> list[Move]:
    """All distinct (cells, spin) placements with a shortest key sequence each, ordered by key count then
    discovery order; [] if the piece cannot spawn. `soft_drop=False`: hard drops only (moves above the stack)."""
    bits = board.bits if isinstance(board, Board) else board
    _, link, best = _search(bits, piece, rules, soft_drop, start)
    return [
        Move(
            placement=Placement(
                piece=piece,
                rotation=_ROTATIONS[landed >> 11],
                x=((landed >> 6) & 31) - _XOFF,
                y=(landed & 63) - _YOFF,
                spin=_SPINS[spin],
            ),
            keys=_keys_of(link, tail, code),
        )
        for _final, landed, spin, tail, code in sorted(best.values(), key=itemgetter(0))
    ]


def _fall(reach: int, free: int) -> int:
    """Where each set bit of `reach` lands when dropped through `free` (bit p = fits at p): the bottom of its run."""
    fill = reach
    gap = free
    fill |= gap & (fill >> 1)
    gap &= gap >> 1
    fill |= gap & (fill >> 2)
    gap &= gap >> 2
    fill |= gap & (fill >> 4)
    gap &= gap >> 4
    fill |= gap & (fill >> 8)
    gap &= gap >> 8
    fill |= gap & (fill >> 16)
    gap &= gap >> 16
    fill |= gap & (fill >> 32)
    return fill & free & ~(free << 1)


def _reachable_landings(bits: Bitboard, piece: Piece, rules: Rules, soft_drop: bool) -> tuple[_PieceTables, list[int]]:  # noqa: C901 - the bit-parallel flood fill is kept in one loop for speed (bench/movegen.py)
    """Bit-parallel flood fill over (rotation, x) columns of y-positions: the set of reachable states under one-column
    shifts (DAS is a repeat of them), kicked rotations and drops to the floor (soft drop), like the reference search,
    but without distances or kicks. Returns, per (rotation, xi) index, the landing positions of reachable states."""
    tables = _tables(piece, rules)
    fit = _fit_columns(tables, _shifted_for(bits))
    idx0 = int(Rotation.NORTH) * _XS + rules.spawn_x + _XOFF
    p0 = rules.spawn_y + _YOFF
    reach = [0] * (4 * _XS)
    if not (0 <= rules.spawn_x + _XOFF < _XS and 0 <= p0 < 64) or not (fit[idx0] >> p0 & 1):
        return tables, reach
    kicks = tables.kicks
    reach[idx0] = 1 << p0
    rotated = [0] * (4 * _XS)  # positions whose rotations were already applied
    spans = [[base * _XS + xi for xi, _ in tables.columns[base]] for base in range(4)]
    dirty = [False] * 4
    dirty[0] = True
    while any(dirty):
        for rot in range(4):
            if not dirty[rot]:
                continue
            dirty[rot] = False
            span = spans[rot]
            # Closure under shifts and drops inside this rotation: sweep right then left until nothing moves.
            moving = True
            while moving:
                moving = False
                for order in (span, span[::-1]):
                    carry = 0
                    for i in order:
                        old = reach[i]
                        r = old | (carry & fit[i])
                        if soft_drop and r != old:
                            r |= _fall(r, fit[i])
                        if r != old:
                            reach[i] = r
                            moving = True
                        carry = r
            # Rotations out of this rotation, for positions not rotated before.
            for i in span:
                new = reach[i] & ~rotated[i]
                if not new:
                    continue
                rotated[i] |= new
                xi = i & 31
                for _code, end, tests in kicks[rot]:
                    left = new
                    for fidx, dy, _delta, _fin, lo, hi in tests:
                        nidx = fidx + xi
                        free = fit[nidx] if lo <= xi <= hi else 0
                        if dy >= 0:
                            ok = left & (free >> dy)
                            moved = ok << dy
                        else:
                            ok = left & (free << -dy)
                            moved = ok >> -dy
                        if ok:
                            left ^= ok  # these positions took this kick; later tests apply only to the rest
                            moved &= ~reach[nidx]
                            if moved:
                                reach[nidx] |= moved
                                if soft_drop:
                                    reach[nidx] |= _fall(moved, free)
                                dirty[end] = True
                            if not left:
                                break
    return tables, [_fall(r, fit[i]) if r else 0 for i, r in enumerate(reach)]


def _can_spin(piece: Piece, rules: Rules) -> bool:
    return rules.spin_rule is SpinRule.ALL_SPIN or (piece is Piece.T and rules.spin_rule is not SpinRule.NONE)


def generate_raw(board: Board | Bitboard, piece: Piece, rules: Rules, *, soft_drop: bool = True) -> list[RawPlacement]:
    """The same (cells, spin) placements as `find_moves`, without key sequences (for search). Unordered.

    Pieces that can never score a spin under the rules (all but T with the T-spin rule) take a bit-parallel
    flood fill, which finds the same placements several times faster; their `keys` is -1 (not computed).
    Spin-capable pieces take the exact breadth-first search, whose recording rules decide which spins exist.
    """
    bits = board.bits if isinstance(board, Board) else board
    if not _can_spin(piece, rules):
        tables, landings = _reachable_landings(bits, piece, rules, soft_drop)
        canon = tables.canon
        seen: set[int] = set()
        out = []
        for idx, landing in enumerate(landings):
            while landing:
                low = landing & -landing
                landing ^= low
                state = (idx << 6) | (low.bit_length() - 1)
                cid = canon[state]
                if cid not in seen:
                    seen.add(cid)
                    out.append(
                        RawPlacement(
                            rotation=idx >> 5,
                            x=(idx & 31) - _XOFF,
                            y=(state & 63) - _YOFF,
                            spin=Spin.NONE,
                            keys=-1,
                            canon=cid,
                        )
                    )
        return out
    tables, _link, best = _search(bits, piece, rules, soft_drop, None)
    canon = tables.canon
    spins = _SPINS
    return [
        RawPlacement(
            rotation=landed >> 11,
            x=((landed >> 6) & 31) - _XOFF,
            y=(landed & 63) - _YOFF,
            spin=spins[spin],
            keys=final,
            canon=canon[landed],
        )
        for final, landed, spin, _tail, _code in best.values()
    ]
