"""T-spin detection and the classic spin setups, checked through the placement search and the engine."""

from __future__ import annotations

from dataclasses import replace

from game.board import Board
from game.finesse import Key
from game.movegen import Move, find_moves
from game.movement import Spin, detect_spin
from game.pieces import Piece, Rotation
from game.placement import Placement
from game.rules import Rules, SpinRule
from game.scoring import lock_piece

N, E, S, W = Rotation


def placements_at(rows: list[str], piece: Piece, rotation: Rotation, x: int, y: int, rules: Rules) -> list[Move]:
    """The moves that lock the piece at (rotation, x, y), one per spin."""
    moves = find_moves(Board.from_rows(rows), piece, rules)
    return [m for m in moves if (m.placement.rotation, m.placement.x, m.placement.y) == (rotation, x, y)]


TSD = [
    "XX........",
    "X...XXXXXX",
    "XX.XXXXXXX",
]

TST = [
    "XX........",
    "..........",
    "X.XXXXXXXX",
    "X..XXXXXXX",
    "X.XXXXXXXX",
]

# T-spin mini: a T turned into a notch on the floor with only one front corner filled.
MINI = [
    "..........",
    "X.........",
]


class TestSetups:
    def test_tsd_is_found_and_clears_two_as_a_full_spin(self) -> None:
        rules = Rules.named("srs")
        found = placements_at(TSD, Piece.T, S, 2, 1, rules)
        spins = {m.placement.spin for m in found}
        assert Spin.FULL in spins
        full = next(m for m in found if m.placement.spin is Spin.FULL)
        assert full.keys[-2] in (Key.CW, Key.CCW, Key.FLIP)  # it ends with a rotation into the slot
        _, result = lock_piece(
            Board.from_rows(TSD), Placement(piece=Piece.T, rotation=S, x=2, y=1, spin=Spin.FULL), -1, -1
        )
        assert result.lines == 2 and result.label() == "T-SPIN DOUBLE"

    def test_tst_needs_the_fifth_kick_and_no_kicks_cannot_do_it(self) -> None:
        found = placements_at(TST, Piece.T, E, 1, 1, Rules.named("srs"))
        assert [m.placement.spin for m in found] == [Spin.FULL]
        assert placements_at(TST, Piece.T, E, 1, 1, Rules.named("none")) == []
        _, result = lock_piece(
            Board.from_rows(TST), Placement(piece=Piece.T, rotation=E, x=1, y=1, spin=Spin.FULL), -1, -1
        )
        assert result.lines == 3 and result.label() == "T-SPIN TRIPLE"

    def test_mini_and_the_fin_kick_upgrade(self) -> None:
        # T pointing left at (1, 1): corners (2,2), (0,0), (2,0) filled, front corner (0,2) empty.
        board = Board.from_rows(["..X.......", "..........", "X.X......."])
        t_west = Placement(piece=Piece.T, rotation=W, x=1, y=1)
        assert detect_spin(board, Rules(), t_west, (0, 0)) is Spin.MINI
        # The same spot reached with the TST/fin kick (+-1, +-2) counts as a full spin.
        assert detect_spin(board, Rules(), t_west, (1, -2)) is Spin.FULL
        # Not a rotation last: no spin at all.
        assert detect_spin(board, Rules(), t_west, None) is Spin.NONE
        # The placement's own spin is not read: detect_spin works it out.
        assert detect_spin(board, Rules(), replace(t_west, spin=Spin.FULL), (0, 0)) is Spin.MINI
        # Two filled corners are not enough.
        two = Board.from_rows(["..........", "..........", "X.X......."])
        assert detect_spin(two, Rules(), t_west, (0, 0)) is Spin.NONE
        _, result = lock_piece(board, replace(t_west, spin=Spin.MINI), -1, -1)
        assert result.lines == 0 and result.label() == "MINI T-SPIN"

    def test_walls_count_as_corners(self) -> None:
        t_east = Placement(piece=Piece.T, rotation=E, x=0, y=1)
        board = Board.from_rows(["X.........", ".........."])
        # T EAST at (0, 1): left corners are outside the field, (1, 0) empty, (1, 2) empty -> 2 filled + 0.
        assert detect_spin(board, Rules(), t_east, (0, 0)) is Spin.NONE
        board = Board.from_rows(["XX........", "..........", ".X........"])
        # corners of (0,1): (-1,2) wall, (1,2) X, (-1,0) wall, (1,0) X -> 4 filled, front (east) both filled.
        assert detect_spin(board, Rules(), t_east, (0, 0)) is Spin.FULL

    def test_spin_after_soft_drop_does_not_count(self) -> None:
        # Rotating in the air and then falling into place is a drop, not a spin.
        rules = Rules.named("srs")
        for move in find_moves(Board.from_rows(TSD), Piece.T, rules):
            if move.placement.spin is not Spin.NONE:
                assert move.keys[-2] in (Key.CW, Key.CCW, Key.FLIP)

    def test_all_spin_rule_gives_other_pieces_minis(self) -> None:
        # A Z stood up in a pocket where it cannot move left, right or up.
        pocket = Board.from_rows(["XX.XXXXXXX", "X..XXXXXXX", "X.XXXXXXXX"])
        assert pocket.fits(Piece.Z, E, 1, 1)
        z_east = Placement(piece=Piece.Z, rotation=E, x=1, y=1)
        all_spin, t_spin = Rules(spin_rule=SpinRule.ALL_SPIN), Rules(spin_rule=SpinRule.T_SPIN)
        assert detect_spin(pocket, all_spin, z_east, (0, 0)) is Spin.MINI
        assert detect_spin(pocket, t_spin, z_east, (0, 0)) is Spin.NONE
        # In the open it can move, so no spin even under all-spin.
        assert detect_spin(Board(), all_spin, replace(z_east, x=4), (0, 0)) is Spin.NONE
