"""Thinking ahead: while the player decides, the worker answers the PC questions of the positions the panel
points to, so that the answer is there the moment the player gets there.

After a PC answer the worker plans the positions one step away: after the panel's move (the first placement of
the PC drawn, else the advised placement), with hold pressed, and after the advised placement when the panel
shows another. A placement reveals one more preview (two when hold is pressed with an empty hold), so each is
planned once per piece the randomizer can deal, likeliest first, with the rows the window will ask about (see
`lines_after`). In its idle time the worker answers them one by one and keeps the answers. Any request
interrupts it at once (the searches look for one every few milliseconds); what an interrupted search proved
stays in the solver's caches, so the same question asked for real goes on from there.

The window also says where the piece in play would land now, once its ghost rests on a new spot (`PcAim`): the
positions after that placement are thought about first, before the plan, so that a player who plays their own
move (a first placement of their own opener, say) finds its answer there too when they rested long enough.
A newer aim replaces it, and the next answer's plan drops it (the player has moved on).

An answer is kept by the question it answers: everything `ai.pc_service` reads from a request (field, piece in
play, previews, hold and whether it was pressed, rules, randomizer and its state, preferred lines, drop, whether
a chance is wanted) and nothing else (combo, back-to-back and the piece count do not change a PC answer). Only
answers a search finished are kept: one cut short by its budget could be better with more time.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from ai.pc.search import Step
from ai.protocol import PcAnswer, PcRequest, Snapshot
from game.board import Bitboard, Board
from game.placement import Placement
from game.randomizer import make_randomizer

MAX_PLANNED = 24  # positions planned after one answer (those after the panel's move come first)
MAX_KEPT = 64  # answers kept; the oldest goes first
# A planned question's search of the pieces shown is not cut at the window's budget (PcRequest.budget_ms, 150 ms):
# it runs in idle time and any request interrupts it, while an answer cut short is not kept (the player's
# question is then searched again). Once in CI, on a loaded machine, the position after hold at PC practice's
# first position was not kept; a search overrunning 150 ms is the likely cause (not reproduced).
PLANNED_BUDGET_MS = 5_000.0
NEW_PC_LINES = 4  # what the window asks on an empty field (ui.coach.PC_LINES)


def question(request: PcRequest) -> tuple:
    """What a PC answer depends on (see the module docstring)."""
    return (*request.snapshot.pieces_key(), request.lines, request.drop, request.want_chance)


def _reveals(snapshot: Snapshot, count: int) -> list[tuple[tuple, float, object]]:
    """Every way the randomizer can deal `count` more pieces after the previews: (pieces, probability, state)."""
    randomizer = make_randomizer(snapshot.randomizer, 0)
    ways: list[tuple[tuple, float, object]] = [((), 1.0, snapshot.randomizer_state)]
    for _ in range(count):
        ways = [
            (pieces + (piece,), prob * p, after)
            for pieces, prob, state in ways
            for piece, p, after in randomizer.outcomes(state)
            if p > 0
        ]
    ways.sort(key=lambda way: -way[1])
    return ways


def _dealt(snapshot: Snapshot, used: int, **changes) -> list[Snapshot]:
    """The positions after `used` pieces of the shown ones (piece in play first) left the queue: the rest move up
    and as many new previews are dealt, one position per way they can come."""
    shown = (snapshot.current, *snapshot.queue)
    out = []
    for pieces, _, state in _reveals(snapshot, used):
        rest = shown[used:] + pieces
        out.append(replace(snapshot, current=rest[0], queue=rest[1:], randomizer_state=state, **changes))
    return out


def after_cells(snapshot: Snapshot, mask: Bitboard, hold: bool) -> tuple[list[Snapshot], int]:
    """The positions the player can see after placing the piece on the cells `mask` (hold pressed first or not),
    likeliest first, and the rows it clears."""
    board, cleared = Board.from_bits(snapshot.board.bits | mask).clear_lines()
    if hold and not snapshot.hold_used:
        # hold pressed: the piece in play goes to hold; an empty hold takes the next piece from the queue too
        used = 2 if snapshot.hold is None else 1
        return _dealt(snapshot, used, board=board, hold=snapshot.current, hold_used=False), len(cleared)
    return _dealt(snapshot, 1, board=board, hold_used=False), len(cleared)


def lines_after(request: PcRequest, cleared: int, empty: bool) -> int:
    """The rows the window asks about next (ui.coach.pc_lines): those still to clear, and a new 4-line PC once
    the field is empty. Elsewhere the window may ask for another height; that question is then searched."""
    return NEW_PC_LINES if empty else max(1, request.lines - cleared)


def _asked_after(request: PcRequest, mask: Bitboard, hold: bool) -> list[tuple[Snapshot, int]]:
    """The positions after a piece on the cells `mask` (hold pressed first or not) in `request`'s position, each
    with the rows the window will ask about there."""
    after, cleared = after_cells(request.snapshot, mask, hold)
    return [(p, lines_after(request, cleared, not p.board.bits)) for p in after]


def after_hold(snapshot: Snapshot) -> list[Snapshot]:
    """The positions after the hold key alone (none when it cannot be pressed now)."""
    if not snapshot.rules.hold or snapshot.hold_used:
        return []
    if snapshot.hold is not None:
        return [replace(snapshot, current=snapshot.hold, hold=snapshot.current, hold_used=True)]
    return _dealt(snapshot, 1, hold=snapshot.current, hold_used=True)


@dataclass(frozen=True)
class Kept:
    answer: PcAnswer  # the final answer (its generation is the request it was made for)
    steps: tuple[Step, ...]  # next placements it points to, the panel's move first (ai.protocol.pc_panel)


# answer(request, should_stop) -> the finished answer, or None when it was cut short or stopped
Answerer = Callable[[PcRequest, Callable[[], bool]], Kept | None]


class ThinkingAhead:
    """The planned questions and the answers kept (one per worker process)."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple, Kept] = OrderedDict()
        self._planned: deque[PcRequest] = deque()
        self._aimed: deque[PcRequest] = deque()  # the positions after the window's last aim, thought about first
        self.hits = 0  # questions answered from what was kept
        self.plans = 0  # answers planned from
        self.aims = 0  # aims planned from
        self.thinking = False  # a planned question is being answered

    def kept(self, request: PcRequest) -> Kept | None:
        key = question(request)
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
            self.hits += 1
        return found

    def keep(self, request: PcRequest, kept: Kept) -> None:
        key = question(request)
        self._kept[key] = kept
        self._kept.move_to_end(key)
        while len(self._kept) > MAX_KEPT:
            self._kept.popitem(last=False)

    def plan(self, request: PcRequest, steps: tuple[Step, ...]) -> None:
        """Plan the positions the answer to `request` leads to (replacing any earlier plan: the player is here
        now): after the first step (the panel's move), then with hold pressed, then after the other steps."""
        snapshot = request.snapshot
        positions: list[tuple[Snapshot, int]] = []  # (position, lines)
        for i, step in enumerate(steps):
            positions += _asked_after(request, step.mask, step.hold)
            if i == 0:
                positions += [(p, request.lines) for p in after_hold(snapshot)]
        if not steps:
            positions += [(p, request.lines) for p in after_hold(snapshot)]
        self.plans += 1
        self._aimed.clear()
        self._planned = self._questions(request, positions)

    def aim(self, request: PcRequest, placement: Placement) -> None:
        """The piece in play of `request`'s position would land on `placement` now: plan the positions after it,
        to be answered before the rest of the plan (replacing the last aim's)."""
        self.aims += 1
        self._aimed = self._questions(request, _asked_after(request, placement.mask, False))

    def _questions(self, request: PcRequest, positions: list[tuple[Snapshot, int]]) -> deque[PcRequest]:
        """The requests for these (position, lines), in order, not kept already and each once, MAX_PLANNED at
        most."""
        out: deque[PcRequest] = deque()
        seen = set()
        for position, lines in positions:
            ahead = replace(
                request,
                generation=-1,
                snapshot=position,
                lines=lines,
                budget_ms=max(request.budget_ms, PLANNED_BUDGET_MS),
            )
            key = question(ahead)
            if key not in seen and key not in self._kept:
                seen.add(key)
                out.append(ahead)
            if len(out) >= MAX_PLANNED:
                break
        return out

    def planned(self) -> list[PcRequest]:
        """The questions still to answer, in the order they will be: the last aim's, then the plan's."""
        return [*self._aimed, *self._planned]

    def think(self, answer: Answerer, should_stop: Callable[[], bool]) -> bool:
        """Answer the next planned question unless it is kept already. True while more are planned. A question cut
        short by a request goes back to the front (asked again when the worker is idle, if still planned; it goes
        on from what was proved); one that failed or could not finish is dropped."""
        queue = self._aimed or self._planned
        if not queue:
            return False
        self.thinking = True
        try:
            request = queue.popleft()
            if question(request) not in self._kept:
                kept = answer(request, should_stop)
                if kept is not None:
                    self.keep(request, kept)
                elif should_stop():
                    queue.appendleft(request)
        finally:
            self.thinking = False
        return bool(self._aimed or self._planned)

    def idle(self) -> bool:
        """Nothing planned is left to answer (tests wait for it, as a player who thinks long enough)."""
        return not self._aimed and not self._planned and not self.thinking
