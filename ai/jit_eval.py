"""Compiled board evaluation: `ai.eval.board_features` ported to numba, and a linear evaluator built on it.

Contract: `feature_vector(bits)` is `[ai.eval.board_features(bits)[k] for k in BOARD_FEATURES]` as int64, for every
field 0 <= bits < 2**400 (tested on random, hand-built and played fields, including the tall-field edge cases
below); `board_value(bits, w)` is `LinearEvaluator.board` for the weight set whose vector is `w`: the products
are summed in BOARD_FEATURES order, skipping zero weights, as LinearEvaluator does, so the floats agree to the
last bit in practice (tests allow 1e-9 relative).

The kernel works on the field a row at a time (10-bit ints) instead of on the big int: one downward sweep keeps
the "filled above" mask (holes), bit-sliced per-column counters (hole depth: filled cells above each hole; wells:
length of the well run from each cell upwards) and the column heights. Things board_features does that the port
reproduces on purpose:
  * row transitions are counted over max(top, 20) rows, column transitions up to the empty row above the top
    (row 40 counts as empty when row 39 is filled);
  * the slot checks see 3 empty rows above the top (rows 40..42 when the stack reaches row 39).

Board input: the 10x40 field as `bits.to_bytes(50, "little")` (bit y*10+x is bit (y*10+x) % 8 of byte
(y*10+x) // 8); a row is two bytes and a shift. Passing the bytes object itself is cheaper than wrapping it in an
array (bench/eval.py measures the options); the evaluator also calls the compiled function's entry point directly,
skipping numba's argument typing, since it always passes the same types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from numba import njit, typeof
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ai.eval import BOARD_FEATURES, LinearEvaluator, WeightSet
from game.board import Bitboard

BOARD_BYTES = 50  # 400 cells, little-endian
N_FEATURES = len(BOARD_FEATURES)
_FIELD_ROWS = 20  # row transitions cover at least the visible field (as ai.eval)


def _popcounts() -> np.ndarray:
    return np.array([row.bit_count() for row in range(1024)], dtype=np.int64)


def _row_transition_table(pop: np.ndarray) -> np.ndarray:
    # Changes between neighbouring cells of the row, plus an empty end cell against its (filled) wall.
    return np.array(
        [pop[(r ^ (r >> 1)) & 511] + (r & 1 == 0) + ((r >> 9) & 1 == 0) for r in range(1024)], dtype=np.int64
    )


_POP = _popcounts()  # frozen into the compiled code as constants
_ROW_TRANS = _row_transition_table(_POP)


@njit(cache=True, nogil=True, inline="always")
def _load_rows(buf, base, rows):
    """Returns the stack height top of the 50-byte field at buf[base:] and sets rows[y] = row y for y < top + 3
    (rows top..top+2 are 0; entries above are left as they were: nothing reads them)."""
    i = base + 49
    while i >= base and buf[i] == 0:
        i -= 1
    if i < base:
        top = 0
    else:
        high_bit = 8 * (i - base) + 63 - leading_zeros(np.int64(buf[i]))
        top = high_bit // 10 + 1
    for y in range(top):
        bit = 10 * y
        j = base + (bit >> 3)
        rows[y] = ((np.int64(buf[j]) | (np.int64(buf[j + 1]) << 8)) >> (bit & 7)) & 1023
    rows[top] = 0
    rows[top + 1] = 0
    rows[top + 2] = 0
    return top


@njit(cache=True, nogil=True, inline="always")
def _sliced_sum(p0, p1, p2, p3, p4, p5, mask):
    """Sum over the columns in mask of the 6-bit counters held bit-sliced in p0..p5."""
    return (
        _POP[p0 & mask]
        + 2 * _POP[p1 & mask]
        + 4 * _POP[p2 & mask]
        + 8 * _POP[p3 & mask]
        + 16 * _POP[p4 & mask]
        + 32 * _POP[p5 & mask]
    )


@njit(cache=True, nogil=True, inline="always")
def _t_slots(rows, top):
    """ai.eval._t_slots: (TSD slots, TST slots)."""
    tsd = 0
    tst = 0
    for y in range(1, top + 1):
        below = rows[y - 1]
        empty_below = 1023 ^ below
        if empty_below == 0 or (empty_below & (empty_below - 1)) != 0:
            continue  # the lower row must have exactly one hole
        x = trailing_zeros(empty_below)
        row = rows[y]
        if 1 <= x <= 8 and row == (1023 ^ (7 << (x - 1))):
            above = rows[y + 1]
            if (((above >> (x - 1)) & 1) != 0 or ((above >> (x + 1)) & 1) != 0) and ((above >> x) & 1) == 0:
                tsd += 1
        if rows[y + 1] == below:
            for side in (-1, 1):
                sx = x + side
                if 0 <= sx <= 9 and row == (1023 ^ ((1 << x) | (1 << sx))):
                    roof = rows[y + 2]
                    ox = x - side
                    if ((roof >> x) & 1) == 0 and 0 <= ox <= 9 and ((roof >> ox) & 1) != 0:
                        tst += 1
    return tsd, tst


@njit(cache=True, nogil=True, inline="always")
def _t_shapes(rows, top):
    """ai.eval._t_shapes: T-slot shapes whose two rows would not both clear yet."""
    count = 0
    for y in range(1, top):
        row = rows[y]
        below = rows[y - 1]
        above = rows[y + 1]
        empty = 1023 ^ row
        shape = (
            empty
            & (empty << 1)
            & (empty >> 1)
            & ~below
            & (below << 1)
            & (below >> 1)
            & ((above << 1) | (above >> 1))
            & ~above
            & 0x1FE
        )
        while shape != 0:
            low = shape & -shape
            shape ^= low
            x = trailing_zeros(low)
            if not ((row | (7 << (x - 1))) == 1023 and (below | low) == 1023):
                count += 1
    return count


@njit(cache=True, nogil=True)
def _features(buf, base, rows, heights):
    """All 15 board features of the field at buf[base:base + 50], as a tuple in BOARD_FEATURES order.

    rows (int64[43]: up to 40 rows and 3 empty ones above) and heights (int64[10]) are scratch space."""
    top = _load_rows(buf, base, rows)
    row_trans = 2 * (max(top, _FIELD_ROWS) - top)  # an empty row: wall|empty and empty|wall
    # Column transitions run up to the empty row above the top (row 40 when top = 40); the floor is filled.
    col_trans = _POP[rows[top - 1]] if top > 0 else 10
    top_half = 0
    top_quarter = 0
    for x in range(10):
        heights[x] = 0
    holes = 0
    rows_with_holes = 0
    hole_depth = 0
    wells = 0
    # Bit-sliced 6-bit counters per column: a* = filled cells above the current row, w* = well run length.
    a0 = a1 = a2 = a3 = a4 = a5 = 0
    w0 = w1 = w2 = w3 = w4 = w5 = 0
    above = 0  # OR of all rows above the current one
    seen = 0  # columns whose top has been passed
    for y in range(top - 1, -1, -1):
        r = rows[y]
        row_trans += _ROW_TRANS[r]
        col_trans += _POP[r ^ (rows[y - 1] if y > 0 else 1023)]
        if y >= 10:
            n = _POP[r]
            top_half += n
            if y >= 15:
                top_quarter += n
        cover = above
        hole = cover & ~r & 1023
        if hole != 0:
            holes += _POP[hole]
            rows_with_holes += 1
            hole_depth += _sliced_sum(a0, a1, a2, a3, a4, a5, hole)
        carry = r  # add this row's filled cells to the "filled above" counters (of the rows below)
        t = a0 & carry
        a0 ^= carry
        carry = t
        t = a1 & carry
        a1 ^= carry
        carry = t
        t = a2 & carry
        a2 ^= carry
        carry = t
        t = a3 & carry
        a3 ^= carry
        carry = t
        t = a4 & carry
        a4 ^= carry
        carry = t
        a5 ^= carry
        solid = r | cover
        # Well cell: open (above its column's top) with both neighbours filled, walls counting as filled.
        well = ~solid & ((r << 1) | 1) & ((r >> 1) | 512) & 1023
        if well != 0 or (w0 | w1 | w2 | w3 | w4 | w5) != 0:
            w0 &= well
            w1 &= well
            w2 &= well
            w3 &= well
            w4 &= well
            w5 &= well
            carry = well
            t = w0 & carry
            w0 ^= carry
            carry = t
            t = w1 & carry
            w1 ^= carry
            carry = t
            t = w2 & carry
            w2 ^= carry
            carry = t
            t = w3 & carry
            w3 ^= carry
            carry = t
            t = w4 & carry
            w4 ^= carry
            carry = t
            w5 ^= carry
            wells += _sliced_sum(w0, w1, w2, w3, w4, w5, 1023)
        fresh = r & ~seen
        seen |= r
        while fresh != 0:
            x = trailing_zeros(fresh)
            fresh &= fresh - 1
            heights[x] = y + 1
        above |= r
    bumpiness = 0
    aggregate = heights[0]
    low = heights[0]
    well_x = 0
    for x in range(1, 10):
        h = heights[x]
        bumpiness += abs(h - heights[x - 1])
        aggregate += h
        if h < low:
            low = h
            well_x = x
    tsd, tst = _t_slots(rows, top)
    shapes = _t_shapes(rows, top)
    want = 1023 ^ (1 << well_x)
    well_depth = 0
    y = low
    while well_depth < 4 and y < top and rows[y] == want:
        well_depth += 1
        y += 1
    return (
        row_trans,
        col_trans,
        holes,
        wells,
        hole_depth,
        rows_with_holes,
        bumpiness,
        aggregate,
        top,
        tsd,
        tst,
        shapes,
        well_depth,
        top_half,
        top_quarter,
    )


@njit(cache=True, nogil=True, inline="always")
def _weighted(f, weights):
    # LinearEvaluator.board's sum: BOARD_FEATURES order, zero weights skipped, starting from 0.
    total = 0.0
    for k in range(15):
        w = weights[k]
        if w != 0.0:
            total += w * f[k]
    return total


@njit(cache=True, nogil=True)
def _feature_kernel(buf):
    scratch = np.empty(53, np.int64)
    f = _features(buf, np.int64(0), scratch[:43], scratch[43:])
    out = np.empty(15, np.int64)
    for k in range(15):
        out[k] = f[k]
    return out


@njit(cache=True, nogil=True)
def _value_kernel(buf, weights):
    scratch = np.empty(53, np.int64)  # one allocation: rows, then heights
    return _weighted(_features(buf, np.int64(0), scratch[:43], scratch[43:]), weights)


@njit(cache=True, nogil=True)
def _values_kernel(buf, weights):
    """Values of the len(buf) // 50 fields stored back to back in buf."""
    n = len(buf) // 50
    scratch = np.empty(53, np.int64)
    rows = scratch[:43]
    heights = scratch[43:]
    out = np.empty(n, np.float64)
    for i in range(n):
        out[i] = _weighted(_features(buf, 50 * i, rows, heights), weights)
    return out


def _field_bytes(bits: Bitboard) -> bytes:
    """The field as the kernels read it; OverflowError unless 0 <= bits < 2**400."""
    return bits.to_bytes(BOARD_BYTES, "little")


def _checked(weights: np.ndarray) -> np.ndarray:
    # The kernels do not bounds-check; dtype and layout are numba's business (another dtype compiles another
    # specialisation), so only the length is checked here, cheaply.
    if weights.shape != (N_FEATURES,):
        raise ValueError(f"weights must have shape ({N_FEATURES},) in BOARD_FEATURES order, not {weights.shape}")
    return weights


def feature_vector(bits: Bitboard) -> np.ndarray:
    """int64[15]: the board features of a field in BOARD_FEATURES order (= ai.eval.board_features)."""
    return _feature_kernel(_field_bytes(bits))


def board_value(bits: Bitboard, weights: np.ndarray) -> float:
    """Weighted sum of the field's board features; weights float64[15] in BOARD_FEATURES order (weight_vector)."""
    return _value_kernel(_field_bytes(bits), _checked(weights))


def board_values(boards: list[Bitboard], weights: np.ndarray) -> np.ndarray:
    """float64[n]: board_value of each field, in one compiled call."""
    return _values_kernel(b"".join([b.to_bytes(BOARD_BYTES, "little") for b in boards]), _checked(weights))


def weight_vector(weight_set: WeightSet) -> np.ndarray:
    """float64[15]: the set's board-feature weights in BOARD_FEATURES order (missing features weigh 0)."""
    return np.array([float(weight_set.weights.get(key, 0.0)) for key in BOARD_FEATURES], dtype=np.float64)


def _direct(dispatcher: Any, *example: Any) -> Callable[..., Any]:
    """The compiled entry point for the example's argument types (compiling or loading it first): calling it skips
    numba's per-call typing of the arguments. Only for callers that always pass exactly these types; falls back
    to the dispatcher if numba's internals differ."""
    dispatcher(*example)
    try:
        return dispatcher.overloads[tuple(typeof(a) for a in example)].entry_point
    except (AttributeError, KeyError):
        return dispatcher


_SAMPLE_FIELD = (0b1110111111 << 10) | 0b1111101111  # any field will do: two rows with holes
_entries: dict[str, Callable[..., Any]] = {}


def warm_up() -> None:
    """Compile every jitted function (or load it from numba's on-disk cache) and resolve the direct entry points."""
    if _entries:
        return
    field = _field_bytes(_SAMPLE_FIELD)
    weights = np.ones(N_FEATURES, dtype=np.float64)
    _feature_kernel(field)
    _entries["value"] = _direct(_value_kernel, field, weights)
    _entries["values"] = _direct(_values_kernel, field + field, weights)


class JitLinearEvaluator:
    """LinearEvaluator with the board half compiled: same name, board and move (move is the pure evaluator's own),
    plus board_many for a batch of fields. Construction compiles the kernels (warm_up) if that has not happened."""

    # move is LinearEvaluator.move itself, so whatever it declares about quiet locks holds here too.
    linear_moves: ClassVar[bool] = LinearEvaluator.linear_moves

    def __init__(self, weights: WeightSet) -> None:
        warm_up()
        self.weights = weights
        self.pure = LinearEvaluator(weights)
        self.name = self.pure.name
        # float64[15], C-contiguous: the direct entry points trust its type, so it stays private.
        self._vector = weight_vector(weights)
        self.move = self.pure.move  # bound once: search calls it for every placement
        self._value = _entries["value"]
        self._values = _entries["values"]

    def __repr__(self) -> str:
        return f"JitLinearEvaluator({self.name!r})"

    def board(self, bits: Bitboard) -> float:
        """Value of a field by itself (= LinearEvaluator.board); 0 <= bits < 2**400."""
        return self._value(bits.to_bytes(BOARD_BYTES, "little"), self._vector)

    def board_many(self, boards: list[Bitboard]) -> list[float]:
        """[board(b) for b in boards], in one compiled call."""
        joined = b"".join([b.to_bytes(BOARD_BYTES, "little") for b in boards])
        return self._values(joined, self._vector).tolist()
