"""What a lock is worth: clear kinds, back-to-back, combo, perfect clears, guideline score and attack.

`lock_piece` is the one function that locks a piece on a board; the engine, the AI search and the PC solver
all call it, so they agree on every clear, spin and attack.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from game.board import VISIBLE_HEIGHT, WIDTH, Board
from game.movement import Spin
from game.pieces import Piece
from game.placement import Placement

CLEAR_NAMES = ("", "SINGLE", "DOUBLE", "TRIPLE", "QUAD")

# Guideline points per clear, multiplied by the level: [spin][lines].
SCORE_TABLE = {
    Spin.NONE: (0, 100, 300, 500, 800),
    Spin.MINI: (100, 200, 400, 400, 400),
    Spin.FULL: (400, 800, 1200, 1600, 1600),
}
PERFECT_CLEAR_SCORE = (0, 800, 1200, 1800, 2000)
B2B_PERFECT_TETRIS_SCORE = 3200
COMBO_SCORE = 50

# TETR.IO-like garbage lines sent: [spin][lines], +1 for back-to-back, combo multiplier, +10 for a PC.
ATTACK_TABLE = {
    Spin.NONE: (0, 0, 1, 2, 4),
    Spin.MINI: (0, 0, 1, 2, 4),
    Spin.FULL: (0, 2, 4, 6, 8),
}
B2B_ATTACK_BONUS = 1
PERFECT_CLEAR_ATTACK = 10
_VISIBLE_MASK = (1 << (VISIBLE_HEIGHT * WIDTH)) - 1


@dataclass(frozen=True, slots=True)
class LockResult:
    """The outcome of one lock. `b2b` is the back-to-back chain after it (-1: none), `combo` likewise."""

    piece: Piece
    lines: int
    spin: Spin
    b2b: int
    b2b_bonus: bool
    combo: int
    perfect_clear: bool
    attack: int
    score: int
    cleared_rows: tuple[int, ...]
    lock_out: bool

    @property
    def is_difficult(self) -> bool:
        """Quads and spins that clear lines keep back-to-back going."""
        return self.lines == 4 or (self.lines > 0 and self.spin is not Spin.NONE)

    def label(self) -> str:
        """The pop-up text a client shows, e.g. 'B2B T-SPIN DOUBLE', 'PERFECT CLEAR'."""
        parts = []
        if self.b2b_bonus:
            parts.append("B2B")
        if self.spin is not Spin.NONE:
            name = "T-SPIN" if self.piece is Piece.T else f"{self.piece.name}-SPIN"
            parts.append(("MINI " if self.spin is Spin.MINI else "") + name)
        if self.lines:
            parts.append(CLEAR_NAMES[self.lines] if self.lines < 5 else f"{self.lines} LINES")
        return " ".join(parts)


def attack_for(lines: int, spin: Spin, b2b_bonus: bool, combo: int, perfect_clear: bool) -> int:
    """Garbage lines sent by a clear (TETR.IO-like: base, +1 B2B, x(1 + combo/4), log curve for 0-base combos)."""
    if lines == 0:
        return 0
    base = ATTACK_TABLE[spin][min(lines, 4)] + (B2B_ATTACK_BONUS if b2b_bonus else 0)
    if combo > 0:
        value = base * (1 + 0.25 * combo) if base > 0 else (math.log1p(1.25 * combo) if combo >= 2 else 0.0)
    else:
        value = float(base)
    total = math.floor(value)
    if perfect_clear:
        total += PERFECT_CLEAR_ATTACK
    return total


def score_for(lines: int, spin: Spin, b2b_bonus: bool, combo: int, perfect_clear: bool, level: int) -> int:
    points = SCORE_TABLE[spin][min(lines, 4)]
    if b2b_bonus:
        points = points * 3 // 2
    points *= level
    if combo > 0:
        points += COMBO_SCORE * combo * level
    if perfect_clear:
        pc = B2B_PERFECT_TETRIS_SCORE if (lines == 4 and b2b_bonus) else PERFECT_CLEAR_SCORE[min(lines, 4)]
        points += pc * level
    return points


def lock_piece(board: Board, placement: Placement, b2b: int, combo: int, level: int = 1) -> tuple[Board, LockResult]:
    """Lock the placement (it must fit), clear full rows and score the result with the placement's spin.

    `b2b` and `combo` are the chains before the lock (-1 = none). Lock-out is reported when every cell of the
    piece is above the visible field and no line was cleared.
    """
    piece, spin = placement.piece, placement.spin
    placed = board.place(piece, placement.rotation, placement.x, placement.y)
    after, cleared = placed.clear_lines()
    lines = len(cleared)
    difficult = lines == 4 or (lines > 0 and spin is not Spin.NONE)
    if lines == 0:
        new_b2b, new_combo, b2b_bonus = b2b, -1, False
    elif difficult:
        b2b_bonus = b2b >= 0
        new_b2b, new_combo = b2b + 1, combo + 1
    else:
        new_b2b, new_combo, b2b_bonus = -1, combo + 1, False
    perfect = lines > 0 and after.is_empty()
    lock_out = lines == 0 and not (placement.mask & _VISIBLE_MASK)
    result = LockResult(
        piece=piece,
        lines=lines,
        spin=spin,
        b2b=new_b2b,
        b2b_bonus=b2b_bonus,
        combo=new_combo,
        perfect_clear=perfect,
        attack=attack_for(lines, spin, b2b_bonus, new_combo, perfect),
        score=score_for(lines, spin, b2b_bonus, new_combo, perfect, level),
        cleared_rows=tuple(cleared),
        lock_out=lock_out,
    )
    return after, result
