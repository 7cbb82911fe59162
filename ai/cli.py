"""`stackcoach moves`: list every reachable placement of one piece on a field given as a fumen code.

  moves --field CODE --piece T [--page N] [--kicks srs|srs+|none|nrs|FILE] [--180] [--drop softdrop|harddrop]
        [--json]

Positions use the TBP convention (x, y of the SRS rotation cell, y up from 0; orientation north/east/south/west).
Bad input prints one ``error: ...`` line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported lazily at run time: the command line starts fast
    from game.placement import Move


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--field", default="", help="fumen code (or URL with v115@...); empty field if omitted")
    parser.add_argument("--page", type=int, default=1, metavar="N", help="fumen page to use, from 1 (default 1)")
    parser.add_argument("--piece", required=True, help="piece letter: I J L O S T Z")
    parser.add_argument("--kicks", default="srs", help="rotation system: srs, srs+, none, nrs or a kick file")
    parser.add_argument("--180", dest="allow_180", action="store_true", help="allow 180-degree rotation")
    parser.add_argument(
        "--drop",
        choices=("softdrop", "harddrop"),
        default="softdrop",
        help="softdrop: full search (tucks, spins); harddrop: moves above the stack only",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")


def placements_as_dicts(moves: list[Move]) -> list[dict]:
    return [
        {
            "piece": p.piece.name,
            "orientation": p.rotation.tbp_name,
            "x": p.x,
            "y": p.y,
            "spin": p.spin.name.lower(),
            "inputs": [key.value for key in move.keys],
        }
        for move in moves
        for p in (move.placement,)
    ]


def run(args: argparse.Namespace) -> int:
    from game.board import Board
    from game.movegen import find_moves
    from game.pieces import Piece
    from game.rules import Rules

    try:
        piece = Piece.from_letter(args.piece)
        rules = Rules.named(args.kicks, allow_180=args.allow_180)
        board = Board()
        if args.page < 1:
            raise ValueError(f"--page must be at least 1, got {args.page}")
        if args.field:
            from game.fumen import decode

            pages = decode(args.field, max_pages=args.page)  # the pages after it are not needed
            if len(pages) < args.page:
                raise ValueError(f"page {args.page} does not exist (the code has {len(pages)})")
            field = pages[args.page - 1].field
            if field is not None:
                board = field.to_board()
    except (ValueError, KeyError, OSError) as error:
        print(f"error: {str(error).splitlines()[0] if str(error) else type(error).__name__}", file=sys.stderr)
        return 2
    placements = find_moves(board, piece, rules, soft_drop=args.drop == "softdrop")
    rows = placements_as_dicts(placements)
    if args.json:
        print(json.dumps(rows))
        return 0
    print(
        f"{len(rows)} placements of {piece.name} ({rules.rotation.name}, {args.drop}"
        f"{', 180' if args.allow_180 else ''})"
    )
    print(f"{'orientation':<12}{'x':>3}{'y':>4}  {'spin':<5} inputs")
    for row in rows:
        print(f"{row['orientation']:<12}{row['x']:>3}{row['y']:>4}  {row['spin']:<5} {' '.join(row['inputs'])}")
    return 0
