"""Guided set-up practice in the worker: how to build a library shape from the position as the player has it.

The finder (ai.pc.setup) is asked about every continuation of the known pieces (the piece in play, the previews
and the hold) that the randomizer allows; the advice is the first placement that keeps the most continuations
buildable, and the chance is that share, computed exactly for it. When hold was already pressed for the piece in
play, no way starting with a hold is offered.
"""

from __future__ import annotations

from collections.abc import Callable

from ai.pc.setup import Placement as SetupPlacement
from ai.pc.setup import Shape, ShapeError, Way, build_chance, finder
from ai.pc_service import hold_spent, overlay_cells, step_move
from ai.protocol import Answer, BuildAnswer, BuildRequest, Snapshot
from game.board import WIDTH
from game.pieces import Piece
from game.randomizer import make_randomizer

_ROW = (1 << WIDTH) - 1


def remaining_shape(snapshot: Snapshot, must: int, may: int) -> Shape | None:
    """The part of the shape still to build (None when it is complete); ShapeError when the board has a block
    outside the shape (a piece was put elsewhere: the set-up cannot be built from here)."""
    bits = snapshot.board.bits
    if bits & ~(must | may):
        raise ShapeError("a block lies outside the set-up's shape")
    left = must & ~bits
    if not left:
        return None
    return Shape(bits, left, may & ~bits)


MAX_FUTURES = 5040


def _futures(snapshot: Snapshot, shape: Shape) -> list[tuple[Piece, ...]]:
    """Every continuation of the known pieces long enough to build the shape (from the randomizer's state)."""
    known = 1 + len(snapshot.queue) + (snapshot.hold is not None)
    unknown = max(0, shape.pieces_max + int(snapshot.rules.hold) - known)
    if unknown == 0:
        return [()]
    randomizer = make_randomizer(snapshot.randomizer, 0)
    out = []
    for sequence, probability in randomizer.sequences(unknown, snapshot.randomizer_state):
        if probability > 0:
            out.append(tuple(sequence))
            if len(out) >= MAX_FUTURES:
                break
    return out


def _after(snapshot: Snapshot, first: SetupPlacement) -> tuple[tuple[Piece, ...], Piece | None]:
    """(queue from the next piece in play on, hold) once `first` was placed (after a hold if it says so)."""
    queue = (snapshot.current, *snapshot.queue)
    if not first.hold:
        return queue[1:], snapshot.hold
    if snapshot.hold is None:  # the piece in play went to hold and the next one was placed
        return queue[2:], snapshot.current
    return queue[1:], snapshot.current


def plan(snapshot: Snapshot, shape: Shape, soft_drop: bool) -> tuple[Way | None, float]:
    """The way to build whose first placement keeps the most continuations buildable, and that share (over
    the continuations the randomizer allows; 1.0 when the known pieces are enough)."""
    rules = snapshot.rules
    drop = "softdrop" if soft_drop else "harddrop"
    queue = (snapshot.current, *snapshot.queue)
    futures = _futures(snapshot, shape)
    spent = hold_spent(snapshot)
    search = finder(
        shape, use_hold=rules.hold, rules=rules, drop=drop, queues=[queue + f for f in futures], hold=snapshot.hold
    )
    firsts: dict[tuple, Way] = {}
    for future in futures:
        for way in search.ways(queue + future, snapshot.hold, 8):
            head = way.placements[0]
            if spent and head.hold:
                continue
            firsts.setdefault((head.piece, head.mask, head.hold), way)
            break
    best: tuple[Way | None, float] = (None, 0.0)
    for (_, mask, _), way in firsts.items():
        head = way.placements[0]
        left = shape.must & ~mask
        if not left:
            return way, 1.0
        rest = Shape(shape.base | mask, left, shape.may & ~mask)
        after_queue, after_hold = _after(snapshot, head)
        sequences = [after_queue + f for f in futures]
        ok = sum(
            build_chance(rest, [seq], hold=after_hold, use_hold=rules.hold, rules=rules, drop=drop).success
            for seq in sequences
        )
        share = ok / len(sequences)
        if share > best[1]:
            best = (way, share)
    return best


def solve_build(request: BuildRequest, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> None:
    send(BuildAnswer(request.generation, buildable=False, final=False, working=True))  # on it (see pc_service)
    snapshot = request.snapshot
    soft_drop = request.drop != "harddrop"
    try:
        shape = remaining_shape(snapshot, request.must, request.may)
    except ShapeError as error:
        send(BuildAnswer(request.generation, buildable=False, note=str(error)))
        return
    if shape is None:
        send(BuildAnswer(request.generation, buildable=False, complete=True, note="the set-up is built"))
        return
    try:
        way, share = plan(snapshot, shape, soft_drop)
    except ShapeError as error:
        send(BuildAnswer(request.generation, buildable=False, note=str(error)))
        return
    if way is None:
        send(
            BuildAnswer(request.generation, buildable=False, chance=0.0, note="no way to build it, whatever comes next")
        )
        return
    # Only the pieces already seen are drawn: later ones depend on what comes.
    seen = 1 + len(snapshot.queue) + (snapshot.hold is not None)
    overlay = overlay_cells(snapshot.board, way.placements[:seen])  # builds clear no line: board cells
    first = step_move(snapshot.board, way.placements[0], snapshot.rules, soft_drop)
    send(BuildAnswer(request.generation, buildable=True, solution=(first,), overlay=overlay, chance=share))
