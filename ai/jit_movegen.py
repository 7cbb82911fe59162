"""Compiled placement search: `game.movegen`'s breadth-first search ported to numba, for the AI's hot loop.

Contract: `placements` finds exactly the (cells, spin) placements `game.movegen.generate_raw` finds (tested on
random fields under every shipped rule variant), without key sequences. The kernel is a line-by-line port of
`game.movegen._search` on the same state encoding (rotation << 11 | (x + 8) << 6 | (y + 8)) and the same fit
columns (bit p of F[rotation * 32 + x + 8] set where the piece fits at y = p - 8); only the bookkeeping that
exists to rebuild key sequences (parent links) is dropped, and the DAS ends are walked instead of cached.

Rules stay data: the per-(rules, piece) tables (cell offsets, kick tests in `game.movegen`'s order with its
TST/fin flag, canonical cell-set ids, spawn state) are built in Python from the same objects `game.movegen`
reads and cached by `(rules.cache_key(), piece)`; the kernel sees only arrays and ints.

The representative (rotation, x, y) of each placement is the one `game.movegen.generate_raw` reports: the first
landed state with the fewest keys for spin-capable pieces (its search), the lowest state index otherwise (its
flood fill lists landings in state order).
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import cast

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from game.board import FULL_MASK, PIECE_MASKS, Bitboard, Board
from game.movegen import RawPlacement
from game.movement import Spin
from game.pieces import SHAPES, Piece, Rotation
from game.rules import Rules, SpinRule, per_rules

_XOFF = 8  # xi = x + 8, as in game.movegen
_YOFF = 8  # p = y + 8
_STATES = 4 << 11
_TURNS = (1, -1, 2)  # cw, ccw, 180: game.movegen's successor order (it decides which arrival comes first)
_SPINS = tuple(Spin)
_BOARD_BYTES = 52  # 400 cells, plus two zero bytes so the kernel can read any row as 3 bytes


def _decode_table() -> list[tuple[int, int, int, int] | None]:
    """code = state * 4 + spin -> (rotation, x, y, spin), for every state a piece can occupy. The kernel returns
    codes because indexing this list is much cheaper than building tuples from a 2-D array."""
    table: list[tuple[int, int, int, int] | None] = [None] * (_STATES * 4)
    for rot in range(4):
        for x in range(-3, 13):
            for y in range(-3, 43):
                state = (rot << 11) | ((x + _XOFF) << 6) | (y + _YOFF)
                for spin in range(3):
                    table[state * 4 + spin] = (rot, x, y, spin)
    return table


_DECODE = _decode_table()
# The kernel returns codes of real states only, whose entries are never None.
_DECODED = cast("list[tuple[int, int, int, int]]", _DECODE)


@dataclass(frozen=True)
class _Tables:
    """Board-independent data for one piece under one rule set, as the kernel takes it."""

    fit_cells: np.ndarray  # int64 [m, 9]: per (rotation, xi) inside the walls: index, then (column, shift) x 4
    kick_span: np.ndarray  # int64 [4, 3, 2]: (first, count) of the tests per (start rotation, cw/ccw/180)
    kick_tests: np.ndarray  # int64 [tests, 4]: (dx, dy, fin, end rotation) in the order they are tried
    canon: np.ndarray  # int32 [4 << 11]: canonical cell-set id per state, -1 out of bounds (= game.movegen's)
    info: np.ndarray  # int64 [5]: spawn state (-1 if outside), is_t, all_spin, canonical id count, flood order
    canon_ids: list[int]  # canon as a list, for generate_raw


@per_rules(limit=8 * len(Piece))  # the seven pieces under the last eight rule sets
def _build_tables(rules: Rules, piece: Piece) -> _Tables:
    fit_cells = []
    for rot in Rotation:
        cells = SHAPES[piece, rot]
        for x in range(-3, 13):
            if all(0 <= x + dx < 10 for dx, _ in cells):
                entry = [(rot << 5) | (x + _XOFF)]
                for dx, dy in cells:
                    # bit p of (empty column << (8 - dy)) is cell (x + dx, p - 8 + dy)
                    entry += [x + dx, _YOFF - dy]
                fit_cells.append(entry)
    table = rules.rotation.table
    kick_span = np.zeros((4, 3, 2), dtype=np.int64)
    kick_tests: list[tuple[int, int, int, int]] = []
    for rot in Rotation:
        for k, turns in enumerate(_TURNS):
            kick_span[rot, k, 0] = len(kick_tests)
            if turns == 2 and not rules.allow_180:
                continue
            end = rot.turned(turns)
            written = table.get((piece, rot.srs_name + end.srs_name))
            tests = rules.rotation.tests[piece, rot, end]
            for index, (dx, dy) in enumerate(tests):
                # The fin/TST upgrade looks at the kick as written (true-centre form), as detect_spin does.
                kx, ky = written[index] if written is not None and index < len(written) else (dx, dy)
                kick_tests.append((dx, dy, int(abs(kx) == 1 and abs(ky) == 2), int(end)))
            kick_span[rot, k, 1] = len(tests)
    # Canonical ids numbered as game.movegen numbers them (the first mask met in this loop order gets the next id).
    canon = np.full(_STATES, -1, dtype=np.int32)
    ids: dict[int, int] = {}
    for rot in Rotation:
        for x in range(-3, 13):
            for y in range(-3, 43):
                mask = PIECE_MASKS.get((piece, rot, x, y))
                if mask is not None:
                    canon[(rot << 11) | ((x + _XOFF) << 6) | (y + _YOFF)] = ids.setdefault(mask, len(ids))
    x0, p0 = rules.spawn_x + _XOFF, rules.spawn_y + _YOFF
    s0 = (x0 << 6) | p0 if 0 <= x0 < 32 and 0 <= p0 < 64 else -1
    is_t = piece is Piece.T and rules.spin_rule is not SpinRule.NONE
    all_spin = piece is not Piece.T and rules.spin_rule is SpinRule.ALL_SPIN
    flood_order = not (is_t or all_spin)  # game.movegen.generate_raw takes its flood fill for these
    return _Tables(
        np.array(fit_cells, dtype=np.int64),
        kick_span,
        np.array(kick_tests, dtype=np.int64).reshape(-1, 4),
        canon,
        np.array([s0, is_t, all_spin, len(ids), flood_order], dtype=np.int64),
        canon.tolist(),
    )


# Per Rules object (by identity; the entry keeps the object alive so its id cannot be reused), its tables by
# piece: saves computing and hashing cache_key() on every call. The last _BY_RULES_KEPT objects are kept, the
# least recently used dropped first: callers may make many Rules values.
_BY_RULES: OrderedDict[int, tuple[Rules, list[_Tables | None]]] = OrderedDict()
_BY_RULES_KEPT = 64


def _tables(piece: Piece, rules: Rules) -> _Tables:
    entry = _BY_RULES.get(id(rules))
    if entry is None or entry[0] is not rules:
        entry = _BY_RULES[id(rules)] = (rules, [None] * len(Piece))
        if len(_BY_RULES) > _BY_RULES_KEPT:
            _BY_RULES.popitem(last=False)
    else:
        with contextlib.suppress(KeyError):  # dropped by another thread meanwhile: the entry is still good
            _BY_RULES.move_to_end(id(rules))
    found = entry[1][piece]
    if found is None:
        found = entry[1][piece] = _build_tables(rules, piece)
    return found


@njit(cache=True, nogil=True)
def _bit_length(v: int) -> int:
    return 64 - leading_zeros(v)  # type: ignore[call-arg]  # a numba intrinsic: numba passes the typing context


@njit(cache=True, nogil=True)
def _record(slot, rep, n, rk, final, state, spin, flood_order):
    """Keep one representative per (canonical cells, spin): the fewest keys, first arrival on ties (game.movegen's
    best dict), or the lowest state (its flood fill). Returns the new number of placements."""
    at = slot[rk]
    if at < 0:
        slot[rk] = n
        rep[0, n] = state
        rep[1, n] = spin
        rep[2, n] = final
        return n + 1
    if (final < rep[2, at]) if flood_order == 0 else (state < rep[0, at]):
        rep[0, at] = state
        rep[2, at] = final
    return n


@njit(cache=True, nogil=True)
def _fit_columns(board, fit_cells):
    """Bit p of fit[rotation * 32 + xi] set where the piece fits at (xi - 8, p - 8), from the board as 52
    little-endian bytes (bit y * 10 + x). Also returns the filled columns (bit y of filled[x]) for the spin
    corners."""
    filled = np.zeros(10, np.int64)
    top = len(board) - 1
    while top >= 0 and board[top] == 0:
        top -= 1
    rows = min(40, (top * 8 + 7) // 10 + 1) if top >= 0 else 0
    for y in range(rows):
        b = y * 10
        at = b >> 3
        window = np.int64(board[at]) | (np.int64(board[at + 1]) << 8) | (np.int64(board[at + 2]) << 16)
        row = (window >> (b & 7)) & 1023
        while row:
            filled[trailing_zeros(row)] |= np.int64(1) << y
            row &= row - 1
    empty = np.empty(10, np.int64)
    for x in range(10):
        empty[x] = ((np.int64(1) << 40) - 1) ^ filled[x]
    fit = np.zeros(128, np.int64)
    for e in range(fit_cells.shape[0]):
        fit[fit_cells[e, 0]] = (
            (empty[fit_cells[e, 1]] << fit_cells[e, 2])
            & (empty[fit_cells[e, 3]] << fit_cells[e, 4])
            & (empty[fit_cells[e, 5]] << fit_cells[e, 6])
            & (empty[fit_cells[e, 7]] << fit_cells[e, 8])
        )
    return fit, filled


@njit(cache=True, nogil=True)
def _search(board, fit_cells, kick_span, kick_tests, canon, info, soft_drop):  # noqa: C901 - the numba BFS kernel, step for step the search of game.movegen._search, in one function for speed
    """The BFS of game.movegen._search on the board as 52 little-endian bytes. Returns int64 [n]: state * 4 + spin
    per placement (n = 0 if the piece cannot spawn), sorted by state when imitating game.movegen's flood fill."""
    s0 = info[0]
    is_t = info[1] != 0
    all_spin = info[2] != 0
    want_spins = is_t or all_spin
    flood_order = info[4]
    fit, filled = _fit_columns(board, fit_cells)
    if s0 < 0 or not ((fit[s0 >> 6] >> (s0 & 63)) & 1):
        return np.zeros(0, np.int64)

    flags = np.zeros((3, _STATES), np.uint8)
    plain = flags[0]  # an arrival locking without a spin was met here
    spun = flags[1]  # bit k: an arrival locking with spin k was met here
    first = flags[2]  # how the first arrival locks: spin 0/1/2, 3 = came by soft drop
    queue = np.empty(_STATES, np.int16)  # each state is pushed at most once
    slot = np.full(info[3] * 3, -1, np.int16)  # placement index per canonical id * 3 + spin
    rep = np.empty((3, info[3] * 3), np.int32)  # per placement: state, spin, key count
    n = 0
    plain[s0] = 1
    queue[0] = s0
    tail = 1
    head = 0
    level_end = 1
    d = 1
    while head < tail:
        if head == level_end:
            level_end = tail
            d += 1
        s = np.int64(queue[head])
        head += 1
        idx = s >> 6
        p = s & 63
        land = _bit_length((~fit[idx]) & ((np.int64(1) << p) - 1))
        if land == p:
            how = np.int64(first[s])
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
        n = _record(slot, rep, n, canon[landed] * 3 + spin, final, landed, spin, flood_order)
        child = d + 1
        left_free = (fit[idx - 1] >> p) & 1
        right_free = (fit[idx + 1] >> p) & 1
        # Shifts, DAS ends, rotations, soft drop: game.movegen's successor order. An arrival at a state seen only
        # with spins (so grounded) records its no-spin placement instead of being expanded again.
        for step in range(4):
            if step == 0:
                if not left_free:
                    continue
                t = s - 64
            elif step == 1:
                if not right_free:
                    continue
                t = s + 64
            elif step == 2:
                if not left_free:
                    continue
                i = idx - 1
                while (fit[i - 1] >> p) & 1:  # columns outside the walls are 0, so this stops inside the row
                    i -= 1
                t = s - (idx - i) * 64
                if t >= s - 64:
                    continue
            else:
                if not right_free:
                    continue
                i = idx + 1
                while (fit[i + 1] >> p) & 1:
                    i += 1
                t = s + (i - idx) * 64
                if t <= s + 64:
                    continue
            if not plain[t]:
                plain[t] = 1
                if spun[t]:
                    n = _record(slot, rep, n, canon[t] * 3, child, t, 0, flood_order)
                else:
                    queue[tail] = t
                    tail += 1
        rot = s >> 11
        xi = idx & 31
        for k in range(3):
            begin = kick_span[rot, k, 0]
            for e in range(begin, begin + kick_span[rot, k, 1]):
                nxi = xi + kick_tests[e, 0]
                q = p + kick_tests[e, 1]
                if nxi < 0 or nxi > 31 or q < 1 or q > 62:
                    continue  # far outside the field: cannot fit
                end = kick_tests[e, 3]
                nidx = end * 32 + nxi
                column = fit[nidx]
                if not ((column >> q) & 1):
                    continue
                # The first kick test that fits wins.
                t = (nidx << 6) | q
                if want_spins and not ((column >> (q - 1)) & 1):
                    # Grounded right after the rotation: the spin it would lock with (detect_spin's rules).
                    tag = 0
                    if is_t:
                        tx = nxi - _XOFF
                        ty = q - _YOFF
                        corners = 0
                        front = 0
                        for c in range(4):  # corners (-1, 1), (1, 1), (1, -1), (-1, -1)
                            cx = tx + (1 if c == 1 or c == 2 else -1)
                            cy = ty + (1 if c < 2 else -1)
                            if cx < 0 or cx > 9 or cy < 0 or cy > 39 or ((filled[cx] >> cy) & 1) != 0:
                                corners += 1
                                if c == end or c == ((end + 1) & 3):  # rotation r faces corners r and r + 1
                                    front += 1
                        if corners >= 3:
                            tag = 2 if front == 2 or kick_tests[e, 2] else 1
                    elif not ((fit[nidx - 1] >> q) & 1 or (fit[nidx + 1] >> q) & 1 or (column >> (q + 1)) & 1):
                        tag = 1  # all-spin: immobile after the rotation
                    if tag:
                        met = np.int64(spun[t])
                        if not ((met >> tag) & 1):
                            spun[t] = met | (1 << tag)
                            if met or plain[t]:
                                n = _record(slot, rep, n, canon[t] * 3 + tag, child, t, tag, flood_order)
                            else:
                                first[t] = tag
                                queue[tail] = t
                                tail += 1
                        break
                if not plain[t]:
                    plain[t] = 1
                    if spun[t]:
                        n = _record(slot, rep, n, canon[t] * 3, child, t, 0, flood_order)
                    else:
                        queue[tail] = t
                        tail += 1
                break
        if soft_drop and land != p:
            t = s - p + land
            if not plain[t] and not spun[t]:
                first[t] = 3
                plain[t] = 1
                queue[tail] = t
                tail += 1

    out = np.empty(n, np.int64)
    for j in range(n):
        out[j] = np.int64(rep[0, j]) * 4 + rep[1, j]
    if flood_order:
        out.sort()
    return out


def _run(bits: Bitboard, piece: Piece, rules: Rules, soft_drop: bool) -> tuple[_Tables, np.ndarray]:
    tables = _tables(piece, rules)
    # The kernel reads the bytes object directly: cheaper than a Python transpose (filled_columns), and than
    # wrapping the bytes in a numpy array first (bench/movegen.py measures the first two).
    board = (bits & FULL_MASK).to_bytes(_BOARD_BYTES, "little")
    codes = _search(
        board, tables.fit_cells, tables.kick_span, tables.kick_tests, tables.canon, tables.info, bool(soft_drop)
    )
    return tables, codes


def placements(bits: Bitboard, piece: Piece, rules: Rules, soft_drop: bool = True) -> list[tuple[int, int, int, int]]:
    """(rotation, x, y, spin) per distinct (cells, spin) placement: the same set as game.movegen.generate_raw
    (spin as int(Spin)); [] if the piece cannot spawn. Unordered."""
    return list(map(_DECODED.__getitem__, _run(bits, piece, rules, soft_drop)[1].tolist()))


def generate_raw(board: Board | Bitboard, piece: Piece, rules: Rules, *, soft_drop: bool = True) -> list[RawPlacement]:
    """`placements` as game.movegen.RawPlacement values (keys = -1: not counted; canon = game.movegen's id)."""
    bits = board.bits if isinstance(board, Board) else board
    tables, codes = _run(bits, piece, rules, soft_drop)
    canon = tables.canon_ids
    spins = _SPINS
    decode = _DECODED
    found: list[int] = codes.tolist()
    return [RawPlacement(*decode[code][:3], spins[code & 3], -1, canon[code >> 2]) for code in found]


def warm_up() -> None:
    """Compile every jitted function (or load it from numba's cache) by searching a tiny board once."""
    rules = Rules()
    placements(1, Piece.T, rules)
