"""Positions of the 7-bag perfect-clear loop, for benchmarks and tests of the live chance.

`loop_positions(seed)` plays 4-line PCs back to back on a seeded 7-bag stream, each with a solution the solver
finds knowing the whole stream, and yields the position before every placement as the player sees it: the
field, the piece in play, five previews, the hold piece and the bag state after the previews were dealt. The
first position of each PC has an empty field; the others are mid-PC fields on a real path to the PC.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from ai.pc.api import solve
from ai.pc.field import clear_full_rows
from ai.protocol import Snapshot
from game.board import Bitboard, Board
from game.pieces import ALL_PIECES, Piece
from game.rules import Rules

PREVIEWS = 5


@dataclass(frozen=True)
class LoopPosition:
    pc: int  # 1..7: which PC of the loop (bag offset)
    placed: int  # placements already made in this PC
    field: Bitboard
    lines: int  # rows left to clear
    current: Piece
    queue: tuple[Piece, ...]  # previews
    hold: Piece | None
    bag_state: tuple[Piece, ...]  # 7-bag randomizer state after the previews were dealt

    def snapshot(self, rules: Rules) -> Snapshot:
        """The position as the worker is asked about it (hold not pressed yet for the piece in play)."""
        return Snapshot(
            board=Board.from_bits(self.field),
            current=self.current,
            queue=self.queue,
            hold=self.hold,
            hold_used=False,
            b2b=0,
            combo=0,
            rules=rules,
            randomizer="7bag",
            randomizer_state=self.bag_state,
        )


def bag_stream(seed: int, bags: int) -> list[Piece]:
    rng = random.Random(seed)
    out: list[Piece] = []
    for _ in range(bags):
        bag = list(ALL_PIECES)
        rng.shuffle(bag)
        out.extend(bag)
    return out


def bag_state(stream: list[Piece], dealt: int) -> tuple[Piece, ...]:
    """Pieces left in the current bag after `dealt` pieces of the stream ((): at a bag boundary)."""
    start = (dealt // 7) * 7
    return tuple(sorted(stream[dealt : start + 7])) if dealt % 7 else ()


def play(stream: list[Piece], r: int, hold: Piece | None, press_hold: bool) -> tuple[Piece, int, Piece | None]:
    """One placement from the stream (r: index of the piece in play): (piece placed, next r, hold after)."""
    if not press_hold:
        return stream[r], r + 1, hold
    if hold is None:
        return stream[r + 1], r + 2, stream[r]
    return hold, r + 1, stream[r]


def loop_positions(seed: int, pcs: int = 7, rules: Rules | None = None) -> Iterator[LoopPosition]:
    rules = rules or Rules.named("srs")
    stream = bag_stream(seed, pcs * 2 + 3)
    r = 0  # index of the piece in play
    hold: Piece | None = None
    for pc in range(1, pcs + 1):
        queue = stream[r : r + 11 - (hold is not None)]
        result = solve(0, queue, hold=hold, rules=rules, verify=False)
        if not result.solutions:
            return
        bits, h = 0, 4
        for placed, step in enumerate(result.solutions[0].steps):
            yield LoopPosition(
                pc,
                placed,
                bits,
                h,
                stream[r],
                tuple(stream[r + 1 : r + 1 + PREVIEWS]),
                hold,
                bag_state(stream, r + 1 + PREVIEWS),
            )
            piece, r, hold = play(stream, r, hold, step.hold)
            assert piece == step.piece
            bits, cleared = clear_full_rows(bits | step.mask, h)
            h -= cleared
