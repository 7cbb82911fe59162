"""The reference move search, kept as the oracle that game.movegen.find_moves is tested against.

Every reachable placement of a piece, each with the shortest key sequence that reaches it (finesse).

Keys are counted as a player presses them: a tap moves one column, holding a direction (DAS) slides to the
wall and counts once, a soft drop held to the floor counts once, each rotation once, and the hard drop ends
every sequence. A breadth-first search over (rotation, x, y, spin tag) from the spawn position finds, for each
final placement (its cells and the spin it scores), a sequence with the fewest presses.

The tag is the spin the piece would score if it locked right where the last move put it: NONE unless that move
was a rotation into a grounded position. The same grounded cells can be reached without a rotation in a few
keys and, with more keys, by a rotation that scores a spin; both are distinct placements, so an arrival with a
new tag is recorded even when its (rotation, x, y) was reached before. Moves do not depend on the tag, so each
(rotation, x, y) is expanded once, from its first (shortest) arrival.
"""

from __future__ import annotations

from collections import deque

from game.board import PIECE_MASKS, Bitboard, Board
from game.movement import Spin, detect_spin, drop_y, fits, kick_offset, slide, try_rotate
from game.pieces import Piece, Rotation
from game.placement import Key, Move, Placement
from game.rules import Rules

_ROTATIONS = ((Key.CW, 1), (Key.CCW, -1), (Key.FLIP, 2))


# A field where the T reaches EAST at (5, 8) without a spin by a shift and a drop, and with a mini by a longer
# rotation: a later arrival that scores a new spin (it once broke game.movegen; the generator tests and the
# finesse tests use it).
LATER_SPIN_ROWS = [
    "____X_____",
    "__X_X_____",
    "__X_X_X___",
    "__X_X_X___",
    "__X_XXX___",
    "X_XX__X___",
    "__XXXXX___",
    "___XXXX__X",
    "X_XXXXXXXX",
    "XX_XXXXX__",
]


def find_placements(  # noqa: C901 - the reference search is kept whole, to be read against the rules as the oracle
    board: Board | Bitboard,
    piece: Piece,
    rules: Rules,
    *,
    soft_drop: bool = True,
    start: tuple[Rotation, int, int] | None = None,
    target: Bitboard | None = None,
) -> list[Move]:
    """All distinct placements (by cells and spin) reachable from the spawn position (or `start`).

    With soft_drop=False only hard drops from the spawn height are allowed (shifts and rotations happen above
    the stack). Returns an empty list if the piece cannot spawn. Order: by key count, then discovery order.
    With `target` (a cell mask) the search stops as soon as no shorter way to those cells can exist; the
    placements returned then include the target's shortest one (if reachable) but not necessarily all others.
    """
    bits = board.bits if isinstance(board, Board) else board
    rotation, x, y = start if start is not None else (Rotation.NORTH, rules.spawn_x, rules.spawn_y)
    if not fits(bits, piece, rotation, x, y):
        return []
    # First arrival per (rotation, x, y) -> its keys (expanded once); every (rotation, x, y, tag) met so far.
    first = (rotation, x, y)
    seen: dict[tuple[Rotation, int, int], tuple[Key, ...]] = {first: ()}
    tagged: set[tuple[Rotation, int, int, Spin]] = {(rotation, x, y, Spin.NONE)}
    queue: deque[tuple[Rotation, int, int, tuple[Key, ...], tuple[int, int] | None]] = deque()
    queue.append((rotation, x, y, (), None))
    best: dict[tuple[Bitboard, Spin], Move] = {}
    order: list[tuple[Bitboard, Spin]] = []

    def tag_of(rot: Rotation, px: int, py: int, kick: tuple[int, int] | None) -> Spin:
        """The spin of locking right here after arriving with `kick` (None: the move was not a rotation)."""
        if kick is None or fits(bits, piece, rot, px, py - 1):
            return Spin.NONE
        return detect_spin(bits, rules, Placement(piece=piece, rotation=rot, x=px, y=py), kick)

    def record(rot: Rotation, px: int, py: int, keys: tuple[Key, ...], kick: tuple[int, int] | None) -> None:
        landing = drop_y(bits, piece, rot, px, py)
        spin = tag_of(rot, px, py, kick) if landing == py else Spin.NONE
        if keys and keys[-1] is Key.SOFT_DROP and landing == py:
            final_keys = keys[:-1] + (Key.HARD_DROP,)  # a hard drop does what the last soft drop did
        else:
            final_keys = keys + (Key.HARD_DROP,)
        mask = PIECE_MASKS[piece, rot, px, landing]
        key = (mask, spin)
        known = best.get(key)
        if known is None:
            order.append(key)
        if known is None or len(final_keys) < len(known.keys):
            best[key] = Move(
                placement=Placement(piece=piece, rotation=rot, x=px, y=landing, spin=spin), keys=final_keys
            )

    while queue:
        rot, px, py, keys, kick = queue.popleft()
        if target is not None:
            # Every later state costs at least len(keys) keys plus the drop; nothing shorter can follow.
            found = [p for (mask, _), p in best.items() if mask == target]
            if found and min(len(p.keys) for p in found) <= len(keys):
                break
        record(rot, px, py, keys, kick)
        moves: list[tuple[Key, Rotation, int, int, tuple[int, int] | None]] = []
        for key, dx in ((Key.LEFT, -1), (Key.RIGHT, 1)):
            if fits(bits, piece, rot, px + dx, py):
                moves.append((key, rot, px + dx, py, None))
        for key, dx in ((Key.DAS_LEFT, -1), (Key.DAS_RIGHT, 1)):
            end_x = slide(bits, piece, rot, px, py, dx)
            if abs(end_x - px) > 1:
                moves.append((key, rot, end_x, py, None))
        for key, turns in _ROTATIONS:
            turned = try_rotate(bits, rules, piece, rot, px, py, turns)
            if turned is not None:
                end, nx, ny, index = turned
                moves.append((key, end, nx, ny, kick_offset(rules, piece, rot, end, index)))
        if soft_drop:
            landing = drop_y(bits, piece, rot, px, py)
            if landing != py:
                moves.append((Key.SOFT_DROP, rot, px, landing, None))
        for key, nrot, nx, ny, nkick in moves:
            state = (nrot, nx, ny)
            arrival = (nrot, nx, ny, tag_of(nrot, nx, ny, nkick))
            if arrival in tagged:
                continue  # met before with this tag, and breadth-first order makes this one no shorter
            tagged.add(arrival)
            if state in seen:
                # Reached again, locking with another spin here (e.g. a longer rotation into cells first reached
                # by a shift): a distinct placement. Recorded now; the state itself was already expanded.
                record(nrot, nx, ny, keys + (key,), nkick)
                continue
            seen[state] = keys + (key,)
            queue.append((nrot, nx, ny, keys + (key,), nkick))
    return [best[key] for key in sorted(order, key=lambda k: len(best[k].keys))]
