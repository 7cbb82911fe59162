"""`python main.py coach`: what the coach panel would show for a position, without a window.

The answer comes from the worker's own request handler (`ai.service.handle`, run in this process) and is read
through `ai.protocol.pc_panel`, the function the window draws from, so the two cannot disagree. Errors in the
input print one line ``error: ...`` on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported lazily at run time: the command line starts fast
    from game.placement import Move


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--field", metavar="FUMEN", help="the field as a fumen code (default: empty)")
    parser.add_argument(
        "--queue", metavar="PIECES", required=True, help="the piece in play, then the previews, e.g. TIJLSZ"
    )
    parser.add_argument("--hold", metavar="PIECE", help="the piece in the hold slot (default: empty)")
    parser.add_argument("--hold-spent", action="store_true", help="hold was already used for the piece in play")
    parser.add_argument(
        "--bag-offset",
        type=int,
        default=0,
        metavar="K",
        help="pieces of the current 7-bag dealt before the piece in play, 0..6 (default 0)",
    )
    parser.add_argument("--mode", choices=("pc", "hint"), default="pc", help="the PC panel or the engine's hint")
    parser.add_argument("--kicks", default="srs", metavar="srs|srs+|none|nrs|FILE", help="kick table (default srs)")
    parser.add_argument("--no-180", action="store_true", help="no 180° rotation (the app allows it by default)")
    parser.add_argument("--lines", type=int, default=4, help="preferred PC height when several fit (default 4)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


class CoachInputError(ValueError):
    """A position the coach cannot be asked about; the message is the one line shown."""


def bag_state(queue: list, offset: int) -> tuple:
    """What is left in the 7-bag after the piece in play and the previews were dealt, `offset` pieces of the
    piece in play's bag having been dealt before it (the randomizer's state, a sorted tuple; () at a boundary)."""
    from game.pieces import Piece

    if not 0 <= offset <= 6:
        raise CoachInputError(f"--bag-offset must be 0..6, got {offset}")
    first = 7 - offset  # queue pieces that belong to the piece in play's bag
    chunks = [queue[:first]] + [queue[i : i + 7] for i in range(first, len(queue), 7)]
    for number, chunk in enumerate(chunks):
        if len(set(chunk)) != len(chunk):
            letters = "".join(p.name for p in chunk)
            raise CoachInputError(f"pieces {letters} cannot come from one 7-bag (bag {number + 1} of the queue)")
    if len(queue) <= first:  # the queue ends inside the piece in play's bag
        if len(queue) == first:
            return ()
        if offset > 0:
            raise CoachInputError(
                f"the queue ends before its bag does and {offset} earlier pieces of that bag are "
                "unknown: give more previews or --bag-offset 0"
            )
        return tuple(sorted(set(Piece) - set(queue)))
    last = chunks[-1]
    return () if len(last) == 7 else tuple(sorted(set(Piece) - set(last)))


def build_snapshot(args: argparse.Namespace):
    from ai.protocol import Snapshot
    from game.board import Board
    from game.fumen import FumenError, decode
    from game.pieces import Piece, parse_queue
    from game.rotation import KickTableError
    from game.rules import Rules

    try:
        field = decode(args.field, max_pages=1)[0].field if args.field else None
        board = field.to_board() if field is not None else Board.empty()
    except FumenError as error:
        raise CoachInputError(f"bad fumen: {error}") from None
    try:
        queue = parse_queue(args.queue)
        hold = Piece.from_letter(args.hold) if args.hold else None
    except ValueError as error:
        raise CoachInputError(str(error)) from None
    if not queue:
        raise CoachInputError("--queue needs at least the piece in play")
    if args.hold_spent and hold is None:
        raise CoachInputError("--hold-spent needs --hold: pressing hold always leaves a piece in the hold slot")
    try:
        rules = Rules.named(args.kicks, allow_180=not args.no_180)
    except KickTableError as error:
        raise CoachInputError(str(error)) from None
    if not 1 <= args.lines <= 6:
        raise CoachInputError(f"--lines must be 1..6, got {args.lines}")
    return Snapshot(
        board=board,
        current=queue[0],
        queue=tuple(queue[1:]),
        hold=hold,
        hold_used=args.hold_spent,
        b2b=0,
        combo=0,
        rules=rules,
        randomizer="7bag",
        randomizer_state=bag_state(queue, args.bag_offset),
    )


def ask(request) -> list:
    """Every answer the worker's handler sends for `request`, in order (run here, to the end)."""
    from ai.service import handle

    answers: list = []
    handle(request, lambda: False, answers.append)
    return answers


def _move_json(move: Move | None) -> dict | None:
    from ai.protocol import key_labels

    if move is None:
        return None
    p = move.placement
    return {
        "piece": p.piece.name,
        "orientation": p.rotation.tbp_name,
        "x": p.x,
        "y": p.y,
        "hold": move.hold,
        "spin": p.spin.name.lower(),
        "keys": [k.name.lower() for k in move.keys],
        "key_labels": key_labels(move, glyphs=False),
    }


def pc_report(snapshot, lines: int) -> dict:
    from ai.protocol import PcRequest, pc_panel
    from game.pieces import Piece

    answers = ask(PcRequest(1, snapshot, lines=lines, budget_ms=300.0))
    answer = answers[-1] if answers else None
    panel = pc_panel(answer)
    return {
        "mode": "pc",
        "status": panel.status,
        "possible": panel.possible,
        "chance": panel.chance,
        "chance_text": panel.chance_text,
        "headline": panel.headline,
        "advice": panel.advice,
        "first_move": _move_json(panel.first_move),
        "overlay": [
            {"number": i + 1, "piece": Piece(piece).name, "cells": [list(c) for c in cells]}
            for i, (piece, cells) in enumerate(panel.overlay)
        ],
        "lines": answer.lines if answer is not None else None,
    }


def hint_report(snapshot) -> dict:
    from ai.protocol import SuggestRequest, move_advice

    answers = [a for a in ask(SuggestRequest(1, snapshot, budget_ms=50.0)) if getattr(a, "final", False)]
    move = answers[-1].move if answers else None
    return {
        "mode": "hint",
        "placement": _move_json(move),
        "hold": bool(move and move.hold),
        "advice": move_advice(move) if move is not None else "no legal placement (top-out)",
    }


def _text(report: dict) -> str:
    if report["mode"] == "hint":
        p = report["placement"]
        if p is None:
            return report["advice"]
        return f"{report['advice']}: {p['orientation']} at x={p['x']}, y={p['y']}\nkeys: {' '.join(p['key_labels'])}"
    lines = [report["headline"]]
    if report["advice"]:
        lines.append(report["advice"])
    first = report["first_move"]
    if first is not None:
        lines.append(
            f"  {first['piece']} {first['orientation']} at x={first['x']}, y={first['y']}; "
            f"keys: {' '.join(first['key_labels'])}"
        )
    lines.append(report["chance_text"])
    for piece in report["overlay"]:
        cells = " ".join(f"({x},{y})" for x, y in piece["cells"])
        lines.append(f"  {piece['number']}. {piece['piece']}: {cells}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        snapshot = build_snapshot(args)
    except CoachInputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = pc_report(snapshot, args.lines) if args.mode == "pc" else hint_report(snapshot)
    try:
        print(json.dumps(report, ensure_ascii=False) if args.json else _text(report))
    except BrokenPipeError:
        return 0
    return 0
