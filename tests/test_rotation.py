"""Kick tables: the shipped systems, user tables (TOML and solution-finder .properties) and their validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from game.board import Board
from game.movement import try_rotate
from game.pieces import Piece, Rotation, cells_of
from game.rotation import KickTableError, builtin_system, load_kick_file
from game.rules import Rules

DATA = Path(__file__).parent / "data"
N, E, S, W = Rotation


def piece_at(rows: list[str], letter: str) -> set[tuple[int, int]]:
    """Cells marked with `letter` in text rows (top first, last row is y = 0)."""
    return {(x, len(rows) - 1 - i) for i, row in enumerate(rows) for x, c in enumerate(row) if c == letter}


def board_of(rows: list[str]) -> Board:
    return Board.from_rows(["".join("X" if c == "X" else "_" for c in row) for row in rows])


def locate(piece: Piece, cells: set[tuple[int, int]]) -> tuple[Rotation, int, int]:
    for rotation in Rotation:
        for x in range(-2, 12):
            for y in range(-2, 42):
                if set(cells_of(piece, rotation, x, y)) == cells:
                    return rotation, x, y
    raise AssertionError(f"no {piece.name} placement covers {sorted(cells)}")


def rotate_fixture(rows: list[str], piece: Piece, turns: int, rules: Rules) -> tuple[set, int] | None:
    """Rotate the piece drawn as 'a' in the rows; return the cells it ends on and the kick index."""
    rotation, x, y = locate(piece, piece_at(rows, "a"))
    result = try_rotate(board_of(rows).bits, rules, piece, rotation, x, y, turns)
    if result is None:
        return None
    end, nx, ny, index = result
    return set(cells_of(piece, end, nx, ny)), index


class TestShippedTables:
    def test_srs_matches_the_cell_centred_publication(self) -> None:
        # Two independent writings of SRS: ours in true-centre form + I/O offsets, and the cell-centred one.
        ours = builtin_system("srs")
        theirs = load_kick_file(DATA / "srs_cell_centred.properties")
        for piece in Piece:
            for start in Rotation:
                for turns in (1, -1):
                    end = start.turned(turns)
                    assert ours.kicks(piece, start, end) == theirs.kicks(piece, start, end), (piece, start, end)

    def test_srs_plus_differs_from_srs_only_in_i_kicks_and_180(self) -> None:
        srs, plus = builtin_system("srs"), builtin_system("srs+")
        differing = set()
        for piece in Piece:
            for start in Rotation:
                for turns in (1, -1):
                    end = start.turned(turns)
                    if srs.kicks(piece, start, end) != plus.kicks(piece, start, end):
                        differing.add((piece, start.srs_name + end.srs_name))
        assert {piece for piece, _ in differing} == {Piece.I}
        assert {t for _, t in differing} == {"0R", "R0", "0L", "2R", "L2"}
        assert plus.has_180_kicks and not srs.has_180_kicks

    def test_srs_plus_i_kicks_are_mirror_symmetric(self) -> None:
        # TETR.IO's change: 0->R mirrors 0->L, R->0 mirrors L->0 and so on (x negated), in true-centre form.
        table = builtin_system("srs+").table
        for a, b in (("0R", "0L"), ("R0", "L0"), ("2R", "2L"), ("R2", "L2")):
            mirrored = tuple((-dx, dy) for dx, dy in table[Piece.I, a])
            assert mirrored == table[Piece.I, b], (a, b)

    def test_o_never_moves_when_it_turns(self) -> None:
        for key in ("srs", "srs+", "none", "nrs"):
            rules = Rules.named(key, allow_180=True)
            for start in Rotation:
                for turns in (1, -1, 2):
                    end, x, y, _ = try_rotate(0, rules, Piece.O, start, 4, 10, turns)
                    assert set(cells_of(Piece.O, end, x, y)) == set(cells_of(Piece.O, start, 4, 10))

    def test_nrs_i_s_z_have_two_shapes(self) -> None:
        rules = Rules.named("nrs")
        for piece in (Piece.I, Piece.S, Piece.Z):
            shapes = {N: None}
            rotation, x, y = N, 4, 10
            seen = []
            for _ in range(4):
                seen.append(frozenset(cells_of(piece, rotation, x, y)))
                rotation, x, y, _ = try_rotate(0, rules, piece, rotation, x, y, 1)
            assert seen[0] == seen[2] and seen[1] == seen[3] and seen[0] != seen[1], (piece, shapes)
            assert frozenset(cells_of(piece, rotation, x, y)) == seen[0]  # back where it started


class TestKickFixtures:
    """ASCII fixtures: 'a' is the piece before turning, 'b' where it must end, X blocks."""

    @pytest.mark.parametrize(
        ("before", "after", "turns", "kick"),
        [
            # T turning clockwise; the X blocks the turn in place, so test 2 (-1, 0) is used.
            (["......a...", ".....aaa..", "......X..."], [".....b....", ".....bb...", ".....bX..."], 1, 1),
            # T turning counter-clockwise against the left wall: test 2 (+1, 0) pushes it off the wall.
            (["a.........", "aa........", "a........."], [".b........", "bbb.......", ".........."], -1, 1),
            # T-spin triple entry: the 5th test (-1, -2) drops it into the slot under the overhang.
            (
                ["XXa.......", ".aaa......", "X.XXXXXXXX", "X..XXXXXXX", "X.XXXXXXXX"],
                ["XX........", "..........", "XbXXXXXXXX", "XbbXXXXXXX", "XbXXXXXXXX"],
                1,
                4,
            ),
        ],
    )
    def test_srs_fixture(self, before: list[str], after: list[str], turns: int, kick: int) -> None:
        cells, index = rotate_fixture(before, Piece.T, turns, Rules.named("srs"))
        assert cells == piece_at(after, "b")
        assert index == kick

    def test_every_srs_kick_index_is_reachable(self) -> None:
        # For each 90 degree transition and kick test k, block exactly the positions of tests < k.
        rules = Rules.named("srs")
        for piece in (Piece.T, Piece.I, Piece.L):
            for start in Rotation:
                for turns in (1, -1):
                    end = start.turned(turns)
                    tests = rules.rotation.kicks(piece, start, end)
                    for k, (dx, dy) in enumerate(tests):
                        x, y = 4, 10
                        own = set(cells_of(piece, start, x, y))
                        target = set(cells_of(piece, end, x + dx, y + dy))
                        earlier_fit = any(
                            set(cells_of(piece, end, x + ex, y + ey)) <= own | target for ex, ey in tests[:k]
                        )
                        blocked = Board.from_bits(
                            sum(
                                1 << (cy * 10 + cx)
                                for cx in range(10)
                                for cy in range(40)
                                if (cx, cy) not in own | target
                            )
                        )
                        result = try_rotate(blocked.bits, rules, piece, start, x, y, turns)
                        assert result is not None
                        if not earlier_fit:
                            assert result[3] == k and (result[1], result[2]) == (x + dx, y + dy)

    def test_180_needs_the_switch(self) -> None:
        off = Rules.named("srs+", allow_180=False)
        on = Rules.named("srs+", allow_180=True)
        assert try_rotate(0, off, Piece.T, N, 4, 10, 2) is None
        assert try_rotate(0, on, Piece.T, N, 4, 10, 2) == (S, 4, 10, 0)

    def test_srs_plus_180_kick_up_from_the_floor(self) -> None:
        # A T lying flat on the floor cannot turn to 2 in place (its stem would go below the floor);
        # SRS+ kicks it up one row, plain SRS with 180 enabled has no kicks.
        rules_plus = Rules.named("srs+", allow_180=True)
        rules_srs = Rules.named("srs", allow_180=True)
        assert try_rotate(0, rules_plus, Piece.T, N, 4, 0, 2) == (S, 4, 1, 1)
        assert try_rotate(0, rules_srs, Piece.T, N, 4, 0, 2) is None

    def test_srs_and_srs_plus_i_kick_differently(self) -> None:
        # I in spawn state against the left wall turning clockwise: both fit at test 1 in open space, but
        # with the in-place position blocked SRS tries (-2, 0) first and SRS+ tries (+1, 0) first.
        own = set(cells_of(Piece.I, N, 4, 10))
        srs_target = set(cells_of(Piece.I, E, 4 + 1 - 2, 10))
        plus_target = set(cells_of(Piece.I, E, 4 + 1 + 1, 10))
        free = own | srs_target | plus_target
        bits = sum(1 << (y * 10 + x) for x in range(10) for y in range(40) if (x, y) not in free)
        srs = try_rotate(bits, Rules.named("srs"), Piece.I, N, 4, 10, 1)
        plus = try_rotate(bits, Rules.named("srs+"), Piece.I, N, 4, 10, 1)
        assert srs is not None and plus is not None
        assert set(cells_of(Piece.I, srs[0], srs[1], srs[2])) == srs_target
        assert set(cells_of(Piece.I, plus[0], plus[1], plus[2])) == plus_target


class TestUserTables:
    def write(self, tmp_path: Path, text: str, name: str = "mine.toml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    def test_a_valid_user_table_is_used(self, tmp_path: Path) -> None:
        path = self.write(tmp_path, 'name = "Up first"\n[kicks.JLSTZ]\n0R = [[0, 0], [0, 1]]\n')
        rules = Rules.named(str(path))
        assert rules.rotation.name == "Up first"
        assert rules.rotation.kicks(Piece.T, N, E) == ((0, 0), (0, 1))
        assert rules.rotation.kicks(Piece.T, E, S) == ((0, 0),)  # unlisted: plain rotation

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("name = 3\n", "'name' must be a non-empty string"),
            ("colour = 'red'\n", "unknown key 'colour'"),
            ("[kicks.JLQ]\n0R = [[0, 0]]\n", "kicks.JLQ"),
            ("[kicks.T]\n0X = [[0, 0]]\n", "kicks.T.0X: unknown transition"),
            ("[kicks.T]\n0R = [[0, 0, 1]]\n", "kicks.T.0R[0]: expected a pair of integers"),
            ("[kicks.T]\n0R = [[0, 9]]\n", "too far"),
            ("[kicks.T]\n0R = []\n", "expected a list of 1 to 16 kick tests"),
            ("[kicks.T]\n0R = [[0, 0]]\n[kicks.JT]\n0R = [[0, 0]]\n", "already has this transition"),
            ("[offsets.I]\n0 = [0, 0]\n", "expected exactly the states 0, R, 2 and L"),
            ("kicks = [1,\n", "not valid TOML"),
        ],
    )
    def test_bad_tables_name_the_problem(self, tmp_path: Path, text: str, message: str) -> None:
        path = self.write(tmp_path, text)
        with pytest.raises(KickTableError) as caught:
            load_kick_file(path)
        assert message in str(caught.value)
        assert str(path) in str(caught.value)

    def test_missing_and_binary_files(self, tmp_path: Path) -> None:
        with pytest.raises(KickTableError, match="cannot read"):
            load_kick_file(tmp_path / "nope.toml")
        path = tmp_path / "bin.toml"
        path.write_bytes(b"\xff\xfe\x00")
        with pytest.raises(KickTableError, match="not UTF-8"):
            load_kick_file(path)

    @pytest.mark.parametrize(
        ("text", "message"),
        [
            ("T.NE=(0,0\n", "cannot read kick tests"),
            ("T.NN=(0,0)\n", "must change the state"),
            ("J.NE=L.NE\n", "not defined"),
            ("T.XE=(0,0)\n", "expected e.g."),
            ("T.NE=T.EN\nT.EN=T.NE\n", "circular"),
        ],
    )
    def test_bad_properties(self, tmp_path: Path, text: str, message: str) -> None:
        path = self.write(tmp_path, text, "bad.properties")
        with pytest.raises(KickTableError, match=message):
            load_kick_file(path)

    def test_unknown_builtin_name(self) -> None:
        with pytest.raises(KickTableError, match="cannot read"):
            Rules.named("ars")


def test_per_rules_shares_one_value_per_rules_key() -> None:
    from game.rules import Rules, per_rules

    built = []

    @per_rules(limit=2)
    def thing(rules: Rules, soft_drop: bool = True) -> object:
        built.append((rules.rotation.name, soft_drop))
        return object()

    srs = thing(Rules.named("srs"))
    assert thing(Rules.named("srs"), True) is srs and thing(Rules.named("srs"), soft_drop=True) is srs
    assert thing(Rules.named("srs"), False) is not srs
    srs_plus = thing(Rules.named("srs+"))
    assert srs_plus is not srs
    assert len(built) == 3  # the third distinct key went past the limit of 2: the least recently used went
    assert thing(Rules.named("srs")) is not srs and len(built) == 4  # (srs, True) was that one
    assert thing(Rules.named("srs+")) is srs_plus and len(built) == 4  # kept: used more recently than (srs, False)
    assert thing.cache_info().currsize == 2
    thing.cache_clear()
    thing(Rules.named("srs"))
    assert len(built) == 5


def test_per_rules_takes_positional_parameters_only() -> None:
    from game.rules import per_rules

    def keyword_only(rules: object, *, soft_drop: bool = True) -> None:
        return None

    with pytest.raises(TypeError, match="positional parameters only"):
        per_rules()(keyword_only)


# --- regressions from the fuzzing pass ----------------------------------------------------------------------
class TestHostileKickFiles:
    @pytest.mark.parametrize(
        ("name", "content", "message"),
        [
            ("empty.toml", "", "no kick table found"),
            ("names-only.toml", 'name = "x"\n', "no kick table found"),
            ("empty.properties", "# nothing\n", "no kick table found"),
            ("deep.toml", "a = " + "[" * 50_000, "nested too deeply"),
            ("deep-tables.toml", "x = " + "{a = " * 3000 + "1" + "}" * 3000, "nested too deeply"),
            ("huge.toml", "[kicks.T]\n0R = [[" + "9" * 5000 + ", 0]]\n", "a number too long to read"),
            ("huge.properties", "T.NE=(0,0)(" + "9" * 5000 + ",0)\n", "more than 6 digits"),
            ("arabic.properties", "T.NE=(\u0663,0)\n", "cannot read kick tests"),
            ("fullwidth.properties", "T.NE=(\uff17,0)\n", "cannot read kick tests"),
        ],
    )
    def test_one_line_errors_naming_the_file(self, tmp_path: Path, name: str, content: str, message: str) -> None:
        path = tmp_path / name
        path.write_text(content, encoding="utf-8")
        with pytest.raises(KickTableError) as caught:
            load_kick_file(path)
        text = str(caught.value)
        assert message in text and str(path) in text and "\n" not in text and len(text) < 300

    @pytest.mark.parametrize("device", ["/dev/zero", "/dev/null"])
    def test_devices(self, device: str) -> None:
        with pytest.raises(KickTableError, match=r"file too large|no kick table found"):
            load_kick_file(device)

    def test_an_explicit_empty_table_still_means_no_kicks(self, tmp_path: Path) -> None:
        path = tmp_path / "plain.toml"
        path.write_text('name = "plain"\n[kicks]\n', encoding="utf-8")
        assert load_kick_file(path).kicks(Piece.T, N, E) == ((0, 0),)
