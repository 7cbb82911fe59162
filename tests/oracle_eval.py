"""Reference definitions of the evaluation features, kept to check ai.eval's fast versions: every board feature
computed column by column (the plain definition) and the move features as a dict. Tests only."""

from __future__ import annotations

from ai.eval import _FIELD_ROWS, _t_shapes, _t_slots
from game.board import Bitboard, filled_columns
from game.movement import Spin
from game.pieces import SHAPES, Piece, Rotation
from game.scoring import LockResult

_COL_FULL = (1 << 40) - 1


def _row_transitions(row: int) -> int:
    framed = 1 | (row << 1) | (1 << 11)  # walls on both sides
    return ((framed ^ (framed >> 1)) & 0x7FF).bit_count()


_ROW_TRANSITIONS = [_row_transitions(row) for row in range(1024)]
_EMPTY_ROWS_TRANSITIONS = _ROW_TRANSITIONS[0]  # 2: wall | empty ... empty | wall


def columns_filled(bits: Bitboard) -> list[int]:
    """The board transposed: for each column x, an int with bit y set where (x, y) is filled."""
    return filled_columns(bits)


def _runs_value(mask: int) -> int:
    """Sum over runs of consecutive set bits of k(k+1)/2 (Dellacherie's cumulative well depth)."""
    total = 0
    while mask:
        low = mask & -mask
        rest = mask & (mask + low)  # clears the lowest run
        k = (mask ^ rest).bit_count()
        total += k * (k + 1) // 2
        mask = rest
    return total


def board_features_by_columns(bits: Bitboard) -> dict[str, float]:
    """Every board feature, computed column by column: the plain definition, kept to check the fast version."""
    filled = columns_filled(bits)
    heights = [column.bit_length() for column in filled]
    top = max(heights)
    row_trans = 0
    rows = [(bits >> (10 * y)) & 1023 for y in range(top + 3)]  # 3 empty rows on top for the slot checks
    for y in range(top):
        row_trans += _ROW_TRANSITIONS[rows[y]]
    col_trans = 0
    holes = 0
    hole_depth = 0
    hole_rows = 0
    wells = 0
    bump = 0
    for x in range(10):
        column = filled[x]
        height = heights[x]
        col_trans += (column ^ ((column << 1) | 1)).bit_count()
        hole_mask = ((1 << height) - 1) & ~column
        if hole_mask:
            holes += hole_mask.bit_count()
            hole_rows |= hole_mask
            m = hole_mask
            while m:
                low = m & -m
                hole_depth += (column >> low.bit_length()).bit_count()
                m ^= low
        left = filled[x - 1] if x > 0 else _COL_FULL
        right = filled[x + 1] if x < 9 else _COL_FULL
        well = left & right & (_COL_FULL ^ ((1 << height) - 1))  # open cells above the column top
        if well:
            wells += _runs_value(well)
        if x:
            bump += abs(height - heights[x - 1])
    row_trans += _EMPTY_ROWS_TRANSITIONS * max(0, _FIELD_ROWS - top)
    tsd, tst = _t_slots(rows, top)
    well_x = heights.index(min(heights))
    want = 1023 ^ (1 << well_x)
    well_depth = 0
    y = heights[well_x]
    while well_depth < 4 and y < top and rows[y] == want:
        well_depth += 1
        y += 1
    return {
        "row_transitions": row_trans,
        "column_transitions": col_trans,
        "holes": holes,
        "wells": wells,
        "hole_depth": hole_depth,
        "rows_with_holes": hole_rows.bit_count(),
        "bumpiness": bump,
        "aggregate_height": sum(heights),
        "max_height": top,
        "tsd_slots": tsd,
        "tst_slots": tst,
        "tslot_shapes": _t_shapes(rows, top),
        "well_depth": well_depth,
        "top_half": (bits >> 100).bit_count(),
        "top_quarter": (bits >> 150).bit_count(),
    }


def move_features(
    piece: Piece, rotation: Rotation, x: int, y: int, result: LockResult, b2b_before: int
) -> dict[str, float]:
    """Features of one lock: where it landed and what it scored."""
    cells = SHAPES[piece, rotation]
    low = min(dy for _, dy in cells)
    high = max(dy for _, dy in cells)
    eroded_piece = sum(1 for _, dy in cells if y + dy in result.cleared_rows)
    lines = result.lines
    spin = result.spin
    t_spin = piece is Piece.T and spin is not Spin.NONE and lines > 0
    return {
        "landing_height": y + (low + high) / 2,
        "eroded_cells": lines * eroded_piece,
        "lines": lines,
        "clear1": 1 if lines == 1 and not t_spin else 0,
        "clear2": 1 if lines == 2 and not t_spin else 0,
        "clear3": 1 if lines == 3 and not t_spin else 0,
        "clear4": 1 if lines >= 4 else 0,
        "tspin_mini": 1 if piece is Piece.T and spin is Spin.MINI else 0,
        "tspin1": 1 if piece is Piece.T and spin is Spin.FULL and lines == 1 else 0,
        "tspin2": 1 if piece is Piece.T and spin is Spin.FULL and lines == 2 else 0,
        "tspin3": 1 if piece is Piece.T and spin is Spin.FULL and lines == 3 else 0,
        "perfect_clear": 1 if result.perfect_clear else 0,
        "attack": result.attack,
        "b2b_chain": 1 if result.b2b_bonus else 0,
        "b2b_break": 1 if (b2b_before >= 0 and result.b2b < 0) else 0,
        "combo": max(result.combo, 0),
        "wasted_t": 1 if piece is Piece.T and not t_spin else 0,
    }
