"""Guided set-up practice in the worker: how to build a library shape from the position as the player has it.

The finder (ai.pc.setup) is asked about every continuation of the known pieces (the piece in play, the previews
and the hold) that the randomizer allows; the advice is the first placement that keeps the most continuations
buildable, and the chance is that share, computed exactly for it. When hold was already pressed for the piece in
play, no way starting with a hold is offered. A set-up that saves a piece (BuildRequest.save, and `saves` for the
choices) is built without it, as ai.pc.setup defines: a continuation that could only build it by placing that
piece does not count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ai.pc.search import Step
from ai.pc.setup import Shape, ShapeError, Way, finder, window
from ai.pc_service import hold_spent, overlay_cells, step_move
from ai.protocol import Answer, BuildAnswer, BuildRequest, Snapshot
from game.board import WIDTH
from game.pieces import Piece
from game.randomizer import make_randomizer

_ROW = (1 << WIDTH) - 1


def remaining_shape(snapshot: Snapshot, must: int, may: int, save: Piece | None = None) -> Shape | None:
    """The part of the shape still to build, saving `save` (None when it is complete); ShapeError when the board
    has a block outside the shape (a piece was put elsewhere: the set-up cannot be built from here)."""
    bits = snapshot.board.bits
    if bits & ~(must | may):
        raise ShapeError("a block lies outside the set-up's shape")
    left = must & ~bits
    if not left:
        return None
    return Shape(bits, left, may & ~bits, save)


MAX_FUTURES = 5040
LAZY_FUTURES = 64  # up to this many continuations, finders follow each queue (no table of every build order)


def _futures(snapshot: Snapshot, shape: Shape) -> list[tuple[Piece, ...]]:
    """Every continuation of the known pieces long enough to build the shape (from the randomizer's state)."""
    known = 1 + len(snapshot.queue) + (snapshot.hold is not None)
    unknown = max(0, window(shape, snapshot.rules.hold) - known)
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


def _after(snapshot: Snapshot, first: Step) -> tuple[tuple[Piece, ...], Piece | None]:
    """(queue from the next piece in play on, hold) once `first` was placed (after a hold if it says so)."""
    queue = (snapshot.current, *snapshot.queue)
    if not first.hold:
        return queue[1:], snapshot.hold
    if snapshot.hold is None:  # the piece in play went to hold and the next one was placed
        return queue[2:], snapshot.current
    return queue[1:], snapshot.current


def plan(snapshot: Snapshot, shape: Shape, soft_drop: bool) -> tuple[Way | None, float]:
    """The way to build whose first placement keeps the most continuations buildable, and that share (over
    the continuations the randomizer allows; 1.0 when the known pieces are enough).

    Every placement that can start a build now is tried (`Finder.firsts`); for each, the finder of the rest
    (`Finder.after`: the arrangements holding it, no new tiling search) is asked about every continuation, so
    the share is exact for each and the best one is chosen. Up to LAZY_FUTURES continuations the finders follow
    each queue instead of tabling every build order first (a table costs far more than a few dozen queues)."""
    rules = snapshot.rules
    drop = "softdrop" if soft_drop else "harddrop"
    queue = (snapshot.current, *snapshot.queue)
    futures = _futures(snapshot, shape)
    lazy = True if len(futures) <= LAZY_FUTURES else None
    search = finder(
        shape,
        use_hold=rules.hold,
        rules=rules,
        drop=drop,
        queues=[queue + f for f in futures],
        hold=snapshot.hold,
        lazy=lazy,
    )
    best: tuple[Step | None, float, list] = (None, 0.0, [])
    for head in search.firsts(queue, snapshot.hold, hold_spent(snapshot)):
        rest = search.after(head.piece, head.mask, lazy=lazy)
        after_queue, after_hold = _after(snapshot, head)
        if rest is None:  # this piece finishes the shape (and keeps the saved piece, or it does not count)
            won = [f for f in futures if _keeps_saved(shape.save, head.piece, queue + f, snapshot.hold, search.keep)]
        else:
            won = [f for f in futures if rest.buildable(after_queue + f, after_hold)]
        share = len(won) / len(futures)
        if share > best[1] or (share == best[1] and share > 0 and best[0] is not None and _simpler(head, best[0])):
            best = (head, share, won)
    chosen, share, won = best
    if chosen is None:
        return None, 0.0
    rest = search.after(chosen.piece, chosen.mask, lazy=lazy)
    after_queue, after_hold = _after(snapshot, chosen)
    if rest is None:
        leftover = after_hold if after_hold is not None else next(iter(after_queue), None)
        return Way(placements=(chosen,), leftover=leftover), share
    (tail,) = rest.ways(after_queue + won[0], after_hold, 1)
    return Way(placements=(chosen, *tail.placements), leftover=tail.leftover), share


def _keeps_saved(save: Piece | None, last: Piece, queue: tuple[Piece, ...], hold: Piece | None, keep: int) -> bool:
    """When placing `last` finishes the shape: whether the saved piece (if any) is still unplaced among the pieces
    the build looks at (the hold piece and the first `keep` of the queue, less the one placed)."""
    if save is None:
        return True
    pool = [hold, *queue[:keep]]
    pool.remove(last)
    return save in pool


def _piece(value: object) -> Piece | None:
    """A saved piece from a request: a Piece, anything else none (a request is checked, never trusted)."""
    return value if isinstance(value, Piece) else None


def _simpler(a: Step, b: Step) -> bool:
    """Between two placements with the same share: no hold before hold, a plain hard drop before a tuck."""
    return (a.hold, not a.hard) < (b.hold, not b.hard)


def solve_build(request: BuildRequest, should_stop: Callable[[], bool], send: Callable[[Answer], None]) -> None:
    send(BuildAnswer(request.generation, buildable=False, final=False, working=True))  # on it (see pc_service)
    snapshot = request.snapshot
    soft_drop = request.drop != "harddrop"
    try:
        shape = remaining_shape(snapshot, request.must, request.may, _piece(request.save))
    except ShapeError as error:
        _send_with_choices(
            request, BuildAnswer(request.generation, buildable=False, note=str(error)), should_stop, send
        )
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
        answer = BuildAnswer(
            request.generation, buildable=False, chance=0.0, note="no way to build it, whatever comes next"
        )
        _send_with_choices(request, answer, should_stop, send)
        return
    # Only the pieces already seen are drawn: later ones depend on what comes.
    seen = 1 + len(snapshot.queue) + (snapshot.hold is not None)
    overlay = overlay_cells(snapshot.board, way.placements[:seen])  # builds clear no line: board cells
    first = step_move(snapshot.board, way.placements[0], snapshot.rules, soft_drop)
    answer = BuildAnswer(request.generation, buildable=True, solution=(first,), overlay=overlay, chance=share)
    _send_with_choices(request, answer, should_stop, send)


def choice_chances(
    snapshot: Snapshot,
    choices: tuple[tuple[str, int, int], ...],
    soft_drop: bool,
    should_stop: Callable[[], bool],
    saves: tuple[tuple[str, Piece], ...] = (),
) -> tuple[tuple[str, float], ...] | None:
    """Each choice (name, must, may; saving the piece `saves` gives for its name) with the build chance the panel
    shows once it is picked: the share of the continuations after its advised placement (plan); 0 when the board
    already has a block outside it. None when a newer request came first."""
    saved = dict(saves)
    out = []
    for name, must, may in choices:
        if should_stop():
            return None
        try:
            shape = remaining_shape(snapshot, must, may, saved.get(name))
            chance = 1.0 if shape is None else plan(snapshot, shape, soft_drop)[1]
        except ShapeError:
            chance = 0.0
        out.append((name, chance))
    return tuple(out)


def _send_with_choices(
    request: BuildRequest, answer: BuildAnswer, should_stop: Callable[[], bool], send: Callable[[Answer], None]
) -> None:
    """Send the answer; with choices asked for, first without them (the overlay does not wait), then with them."""
    if not request.choices:
        send(answer)
        return
    send(replace(answer, final=False))
    saves = tuple((name, piece) for name, piece in request.saves if _piece(piece) is not None)
    chances = choice_chances(request.snapshot, request.choices, request.drop != "harddrop", should_stop, saves)
    if chances is not None:
        send(replace(answer, choices=chances))
