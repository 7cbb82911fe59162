"""The set-up finder (ai.pc.setup) and `python main.py setup`: shapes, semantics checked against brute force,
ways that replay under the rules, cover, T-spin slots and the command's output and errors."""

from __future__ import annotations

import io
import json
import sys

import pytest

from ai.pc.field import from_rows
from ai.pc.pattern import parse_pattern
from ai.pc.setup import (
    Shape,
    ShapeError,
    build_chance,
    build_ways,
    can_build,
    cover,
    finder,
    rules_for,
    tspin_slots,
)
from game.board import WIDTH
from game.movegen import find_moves
from game.pieces import Piece

ROW = (1 << WIDTH) - 1


def brute_buildable(shape: Shape, queue, hold, use_hold: bool, drop: str) -> bool:
    """Direct enumeration: real hold (hold the piece in play, or swap with the hold slot), every placement the
    engine's movement search (game.movegen.find_moves) reaches from spawn, no block outside '*'/'+', no full row;
    a shape that saves a piece is built only when one of it is left unplaced (in hold or still in the queue)."""
    rules, soft = rules_for(drop)
    queue = list(queue)
    n = len(queue)
    cache: dict = {}

    def places(bits, piece):
        key = (bits, piece)
        if key not in cache:
            cache[key] = {m.placement.mask for m in find_moves(bits, piece, rules, soft_drop=soft)}
        return cache[key]

    def no_full_row(bits):
        return all((bits >> (y * WIDTH)) & ROW != ROW for y in range(24))

    def rec(bits, r, held):
        if not shape.must & ~bits:
            return shape.save is None or held == shape.save or shape.save in queue[r:]
        moves = []
        if r < n:
            moves.append((queue[r], r + 1, held))
        if use_hold:
            if held is None:
                if r + 1 < n:
                    moves.append((queue[r + 1], r + 2, queue[r]))
            elif r < n:
                moves.append((held, r + 1, queue[r]))
            else:
                moves.append((held, r, None))
        for piece, nr, nh in moves:
            for mask in places(bits, piece):
                if not mask & ~shape.allowed and no_full_row(bits | mask) and rec(bits | mask, nr, nh):
                    return True
        return False

    return rec(shape.base, 0, hold)


SMALL_SHAPES = {  # name -> (shape, the queues compared)
    "block 4x2": ("****______\n****______", "[IJLO],[IJLO],[IJLO]"),
    "tuck under an overhang": ("XX________\n****______", "*p2"),
    "margin": ("++**______\n++**______", "*p3"),
    "step": ("__*_______\n_***______\nX****_____", "*p3"),
    "T slot": ("XX________\nX***XXXXX_\nXX*XXXXXX_", "*p2"),  # the T's cells: only a spin gets there
    "two rows right": ("_______***\n_____*****", "[IJLOSZ],[IJLOSZ],[IJLOSZ]"),
    # an O may go wholly on the margin (it uses up a piece of the queue)
    "margin piece": ("++________\n++****____", "[OIJ],[OIJ],[OIJ]"),
    "margin beside a step": ("+++_______\n++**______\n+****_____", "[OIJLSZ],[OIJLSZ]"),
}


class TestAgainstBruteForce:
    @pytest.mark.parametrize("name", sorted(SMALL_SHAPES))
    @pytest.mark.parametrize("use_hold", [True, False])
    @pytest.mark.parametrize("drop", ["softdrop", "harddrop"])
    def test_every_queue_agrees(self, name, use_hold, drop):
        text, pattern = SMALL_SHAPES[name]
        shape = Shape.from_text(text)
        sequences = parse_pattern(pattern).sequences()
        search = finder(shape, use_hold=use_hold, drop=drop, queues=sequences)
        lazy = finder(shape, use_hold=use_hold, drop=drop, queues=sequences, lazy=True)
        agree = [(search.buildable(seq), brute_buildable(shape, seq, None, use_hold, drop)) for seq in sequences]
        assert [lazy.buildable(seq) for seq in sequences] == [got for got, _ in agree]
        mismatches = [
            ("".join(p.name for p in seq), got, want) for seq, (got, want) in zip(sequences, agree) if got != want
        ]
        assert not mismatches, mismatches[:5]
        if not (name in ("T slot", "tuck under an overhang") and drop == "harddrop"):
            assert any(got for got, _ in agree)  # the test shapes are buildable by some queue

    def test_hold_piece_given(self):
        shape = Shape.from_text(SMALL_SHAPES["block 4x2"][0])
        for seq in parse_pattern("*p2").sequences()[:20]:
            for held in (Piece.O, Piece.I, Piece.L):
                got = can_build(shape, seq, hold=held)
                assert got == brute_buildable(shape, seq, held, True, "softdrop")

    def test_a_piece_wholly_on_the_margin(self):
        shape = Shape.from_text("++________\n++****____")
        assert can_build(shape, [Piece.O, Piece.I], use_hold=False)  # the O goes on the margin first
        assert not can_build(Shape.from_text("__________\n__****____"), [Piece.O, Piece.I], use_hold=False)

    def test_soft_drop_matters_for_the_tuck(self):
        shape = Shape.from_text(SMALL_SHAPES["tuck under an overhang"][0])
        assert can_build(shape, [Piece.I], use_hold=False, drop="softdrop")
        assert not can_build(shape, [Piece.I], use_hold=False, drop="harddrop")

    def test_t_spin_slot_needs_a_spin(self):
        shape = Shape.from_text(SMALL_SHAPES["T slot"][0])
        assert can_build(shape, [Piece.T], use_hold=False)
        assert not can_build(shape, [Piece.T], use_hold=False, drop="harddrop")


class TestSavedPiece:
    """A shape that saves a piece (a library entry's `save`): every build leaves one of it unplaced."""

    @pytest.mark.parametrize("use_hold", [True, False])
    @pytest.mark.parametrize(
        ("text", "pattern", "save"),
        [
            ("****______\n****______", "[IJLO],[IJLO],[IJLO]", Piece.O),  # no O, one O, two O
            ("_______***\n_____*****", "[IJLOSZ],[IJLOSZ],[IJLOSZ]", Piece.L),
        ],
    )
    def test_every_queue_agrees_with_brute_force(self, text, pattern, save, use_hold):
        shape = Shape.from_text(text).saving(save)
        sequences = parse_pattern(pattern).sequences()
        search = finder(shape, use_hold=use_hold, queues=sequences)
        lazy = finder(shape, use_hold=use_hold, queues=sequences, lazy=True)
        got = [search.buildable(seq) for seq in sequences]
        assert got == [brute_buildable(shape, seq, None, use_hold, "softdrop") for seq in sequences]
        assert got == [lazy.buildable(seq) for seq in sequences]
        plain = [can_build(shape.saving(None), seq, use_hold=use_hold) for seq in sequences]
        assert any(got) and sum(got) < sum(plain)  # the rule takes builds away, never adds any
        assert not any(g and not p for g, p in zip(got, plain))
        for seq, ok in zip(sequences, got):
            for way in search.ways(seq, None, 3) if ok else ():
                placed = [p.piece for p in way.placements]
                assert placed.count(save) <= seq.count(save) - 1

    def test_a_bag_that_needs_the_saved_piece_does_not_build_it(self):
        """Tub (save I) from the 2nd PC's four pieces I, J, O, T: the shape is built from them only by placing
        the I (which the PC after it counts on), so the bag does not build the set-up."""
        from ai.pc.setup import load_library

        entry = next(e for e in load_library() if e.key == "pc2_tub_save_i")
        shape = entry.shape()
        assert shape.save is Piece.I and entry.shape(mirror=True).save is Piece.I
        queue = [Piece.I, Piece.J, Piece.O, Piece.T]
        ways = build_ways(shape.saving(None), queue, limit=20)
        assert ways and all(Piece.I in [p.piece for p in way.placements] for way in ways)  # the shape alone: yes
        assert not can_build(shape, queue) and build_ways(shape, queue) == []
        assert tuple(queue) in build_chance(shape, [queue]).failed
        keep = [Piece.J, Piece.S, Piece.T, Piece.I]  # J, S, T build it and the I stays
        (way,) = build_ways(shape, keep)
        assert Piece.I not in [p.piece for p in way.placements] and way.leftover is Piece.I
        assert not can_build(shape, [Piece.J, Piece.S, Piece.T, Piece.O])  # no I in the bag: nothing to save

    def test_mirror_saves_the_mirrored_piece(self):
        shape = Shape.from_text("_______***\n_____*****").saving(Piece.J)
        assert shape.mirrored().save is Piece.L and shape.mirrored().mirrored() == shape


class TestShape:
    def test_text_roles(self):
        shape = Shape.from_text("X*+_______\nXX**______")
        assert shape.base == (1 << 10) | 1 | (1 << 1)
        assert shape.must == (1 << 11) | (1 << 2) | (1 << 3)
        assert shape.may == 1 << 12
        assert shape.height == 2 and shape.pieces_min == 1 and shape.pieces_max == 1
        assert shape.to_text() == "X*+_______\nXX**______"

    def test_fumen_colours(self):
        from game.fumen import Field, Page, encode

        code = encode([Page(Field.from_text("IIOO______\nXXIIIO____", garbage_row=False))])
        shape = Shape.from_fumen(code)
        assert shape.must.bit_count() == 5 and shape.may.bit_count() == 3 and shape.base.bit_count() == 2
        swapped = Shape.from_fumen(code, fill="O", margin="I")
        assert swapped.must == shape.may and swapped.may == shape.must
        no_margin = Shape.from_fumen(code, margin=None)
        assert no_margin.may == 0 and no_margin.base.bit_count() == 5

    def test_mirror_round_trip(self):
        shape = Shape.from_text(SMALL_SHAPES["step"][0])
        assert shape.mirrored() != shape
        assert shape.mirrored().mirrored() == shape
        assert shape.mirrored().to_text().splitlines()[0] == "_______*__"

    @pytest.mark.parametrize(
        "text, words",
        [
            ("", "empty"),
            ("XXXX______", "no cell to fill"),
            ("**_____", "cells"),
            ("**Q_______", "unknown cell"),
            ("**********", "line clears"),
            ("XXXXX*****", "line clears"),
        ],
    )
    def test_bad_shapes(self, text, words):
        with pytest.raises(ShapeError, match=words):
            Shape.from_text(text)

    def test_bad_fumen(self):
        with pytest.raises(ShapeError, match="bad fumen"):
            Shape.from_fumen("v115@garbage!!")
        with pytest.raises(ShapeError, match="colour"):
            Shape.from_fumen("v115@vhAAgH", fill="Q")


def _replays(shape: Shape, queue, way, use_hold=True, drop="softdrop") -> None:
    """Each placement of the way is reachable with game.movegen.find_moves in the field as it is then, the cells end up
    covering every '*' and nothing outside '*'/'+', and the hold flags are a real hold sequence of the queue."""
    rules, soft = rules_for(drop)
    bits = shape.base
    for step in way.placements:  # (a step's cells are worked out from its pose: the two cannot disagree)
        reach = {m.placement.mask for m in find_moves(bits, step.piece, rules, soft_drop=soft)}
        assert step.mask in reach
        assert not step.mask & bits
        bits |= step.mask
    assert not shape.must & ~bits and not (bits & ~shape.base) & ~shape.allowed
    # replay the hold presses: the piece in play is queue[r]; hold swaps it with the hold slot
    queue = list(queue)
    held, r = None, 0
    for placement in way.placements:
        current = queue[r] if r < len(queue) else None
        if placement.hold:
            assert use_hold
            if held is None:
                held, r = current, r + 1
                current = queue[r]
            else:
                held, current = current, held
        assert placement.piece == current
        r += 1


class TestLazy:
    def test_big_shape_is_searched_queue_by_queue(self):
        """Eight pieces over two bags: the lazy walk (the default above LAZY_PIECES) agrees with the order sets."""
        shape = Shape.from_text("********__\n********__\n********__\n********__")
        assert shape.pieces_max == 8
        queues = parse_pattern("IJLOSZTI,*p1").sequences()[:3] + parse_pattern("*p7,I").sequences()[:40:7]
        lazy = finder(shape, queues=queues)
        eager = finder(shape, queues=queues, lazy=False)
        assert lazy.lazy and not eager.lazy
        verdicts = [lazy.buildable(q) for q in queues]
        assert verdicts == [eager.buildable(q) for q in queues] and any(verdicts)
        for q in queues:
            for way in lazy.ways(q, None, 2):
                _replays(shape, q, way)


class TestWays:
    PCO = "v115@9gwhi0DeR4whg0RpCeR4wwwhglRpBeBtxwwhilCeBtwwJeAgWBAUAAAA"

    def pco(self) -> Shape:
        from game.fumen import decode

        return Shape.from_built(decode(self.PCO)[0].field.to_board().bits)

    @pytest.mark.parametrize("letters", ["TIJLSZO", "OZSLJIT", "IJLOSTZ", "SZOTLJI"])
    def test_ways_replay(self, letters):
        shape = self.pco()
        queue = [Piece[c] for c in letters]
        ways = build_ways(shape, queue, limit=5)
        assert ways and len(ways) <= 5
        assert len({tuple((p.piece, p.mask) for p in w.placements) for w in ways}) == len(ways)
        for way in ways:
            _replays(shape, queue, way)
        assert [w.soft_count for w in ways] == sorted(w.soft_count for w in ways)

    def test_ways_without_hold_keep_the_order(self):
        shape = self.pco()
        queue = [Piece[c] for c in "TIJLSZO"]
        for way in build_ways(shape, queue, use_hold=False, limit=3):
            assert [p.piece for p in way.placements] == queue[: len(way.placements)]
            assert not any(p.hold for p in way.placements)
            _replays(shape, queue, way, use_hold=False)

    def test_finder_knows_which_queues_it_answers(self):
        shape = Shape.from_text("****______\n****______")
        bag_finder = finder(shape, queues=parse_pattern("*p3").sequences())
        assert bag_finder.covers([Piece.I, Piece.O, Piece.T])
        assert not bag_finder.covers([Piece.O, Piece.O, Piece.T])  # two O: no queue of *p3 has them
        assert not bag_finder.buildable([Piece.O, Piece.O])  # so its answer would not count the O+O tiling
        assert finder(shape, queues=[(Piece.O, Piece.O)]).buildable([Piece.O, Piece.O])

    def test_no_way(self):
        shape = Shape.from_text("****______\n****______")
        assert build_ways(shape, [Piece.S, Piece.Z], use_hold=False) == []
        assert not can_build(shape, [Piece.S, Piece.Z], use_hold=False)

    def test_chance_counts_and_ways(self):
        shape = Shape.from_text("****______\n****______")
        result = build_chance(shape, "*p3", with_ways=True)
        assert result.total == 210 and result.success + len(result.failed) == 210
        assert result.rate == result.success / 210
        for seq, way in result.ways.items():
            assert (way is not None) == (seq not in result.failed)
            if way is not None:
                _replays(shape, seq, way)

    def test_mirror_rate_matches_mirrored_queues(self):
        shape = self.pco()
        swap = {Piece.J: Piece.L, Piece.L: Piece.J, Piece.S: Piece.Z, Piece.Z: Piece.S}
        sequences = parse_pattern("*p7").sequences()[::37]
        mirrored = [tuple(swap.get(p, p) for p in seq) for seq in sequences]
        a = build_chance(shape, sequences)
        b = build_chance(shape.mirrored(), mirrored)
        assert a.success == b.success and a.success > 0


class TestCover:
    def test_cover_is_the_union(self):
        shapes = {"box": Shape.from_text("****______\n****______"), "right": Shape.from_text("______****\n______****")}
        result = cover("*p3", shapes)
        assert result.total == 210
        for seq, names in result.per_queue:
            for name, shape in shapes.items():
                assert (name in names) == can_build(shape, seq)
        assert result.any_count == sum(1 for _, names in result.per_queue if names)
        assert result.counts()["box"] == result.counts()["right"]  # the two are mirror images of one another


class TestTSpinSlots:
    def test_tsd_slot(self):
        bits = from_rows(["XX________", "X___XXXXXX", "XX_XXXXXXX"])
        slots = tspin_slots(bits)
        assert slots and slots[0].name == "TSD" and slots[0].lines == 2

    def test_flat_field_has_none(self):
        assert tspin_slots(from_rows(["XXXXXX____"])) == []


# --- the command --------------------------------------------------------------------------------------------
def run_cli(argv, stdin: str | None = None):
    import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdout, sys.stderr, sys.stdin
    sys.stdout, sys.stderr = out, err
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)
    try:
        try:
            code = main.main(argv)
        except SystemExit as exit_:
            code = exit_.code
    finally:
        sys.stdout, sys.stderr, sys.stdin = old
    return code, out.getvalue(), err.getvalue()


class TestCommand:
    def test_json_counts(self, tmp_path):
        path = tmp_path / "box.txt"
        path.write_text("****______\n****______\n")
        code, out, err = run_cli(["setup", "--field-file", str(path), "--pattern", "*p3", "--json"])
        assert code == 0, err
        data = json.loads(out)
        expected = build_chance(Shape.from_text(path.read_text()), "*p3")
        assert (data["success"], data["total"]) == (expected.success, 210)
        assert data["rate"] == pytest.approx(expected.rate)

    def test_stdin_and_placements(self):
        code, out, err = run_cli(
            ["setup", "--field-file", "-", "--pattern", "OO", "--json", "--placements", "--hold", "avoid"],
            stdin="****______\n****______\n",
        )
        assert code == 0, err
        data = json.loads(out)
        assert data["success"] == 1
        (queue,) = data["queues"]
        assert queue["queue"] == "OO" and queue["buildable"]
        cells = {(p["x"], p["y"]) for p in queue["ways"][0]["placements"]}
        assert len(cells) == 2 and all(p["piece"] == "O" for p in queue["ways"][0]["placements"])

    def test_fumen_field(self):
        code, out, _err = run_cli(["setup", "--field", TestWays.PCO, "--pattern", "*p7"])
        assert code == 0 and "build chance:" in out

    def test_cover(self, tmp_path):
        left, right = tmp_path / "l.txt", tmp_path / "r.txt"
        left.write_text("****______\n****______")
        right.write_text("______****\n______****")
        code, out, err = run_cli(["setup", "--cover", str(left), str(right), "--pattern", "*p3", "--json"])
        assert code == 0, err
        data = json.loads(out)
        assert data["total"] == 210 and len(data["queues"]) == 210
        assert data["any"]["success"] == sum(1 for q in data["queues"] if q["builds"])

    @pytest.mark.parametrize(
        "argv, words",
        [
            (["setup", "--field-file", "-", "--pattern", "*p9"], "cannot draw"),
            (["setup", "--field-file", "/nonexistent/shape", "--pattern", "*p3"], "cannot read"),
            (["setup", "--field", "nope", "--pattern", "*p3"], "neither a library key"),
            (["setup", "--field", "v115@vhAAgH", "--pattern", "*p3"], "no cell to fill"),
            (["setup", "--pattern", "*p3"], "--field"),
            (["setup", "--field-file", "-", "--pattern", "*p3", "--limit", "0"], "--limit"),
            (["setup", "--field-file", "-", "--pattern", "*p7,*p7", "--max-queues", "10"], "--max-queues"),
            (["setup", "--field-file", "-", "--pattern", "*p3", "--held", "Q"], "unknown piece"),
            (["setup", "--field-file", "-", "--pattern", "*p3", "--hold", "nope"], "invalid choice"),
            (["setup", "--cover", "-", "--pattern", "*p3", "--mirror"], "KEY/mirror"),
            (["setup", "--cover", "-", "--pattern", "*p3", "--field", "x"], "leave out --field"),
        ],
    )
    def test_bad_input_is_one_line(self, argv, words):
        code, out, err = run_cli(argv, stdin="**X*______\n****______\n")
        assert code == 2
        assert err.startswith("error:") and err.count("\n") == 1 and words in err
        assert out == ""

    def test_bad_shape_text_on_stdin(self):
        code, _out, err = run_cli(["setup", "--field-file", "-", "--pattern", "*p3"], stdin="**?*______\n")
        assert code == 2 and "unknown cell" in err and err.count("\n") == 1
