"""Fumen v115 codec and CLI: the shared reference vectors, round-trip properties, bad input, the command line."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import main
from game.board import Board
from game.fumen import (
    FIELD_HEIGHT,
    Field,
    Flags,
    FumenError,
    Operation,
    Page,
    Quiz,
    decode,
    encode,
    js_escape,
    js_unescape,
    parse_quiz,
)
from game.fumen_cli import page_to_json, pages_from_json
from game.pieces import SHAPES, Piece, Rotation

VECTORS_PATH = Path(__file__).resolve().parents[2] / "shared" / "fumen" / "vectors.json"
VECTORS: list[dict[str, Any]] = json.loads(VECTORS_PATH.read_text("utf-8")) if VECTORS_PATH.exists() else []
needs_vectors = pytest.mark.skipif(not VECTORS, reason=f"reference vectors not found at {VECTORS_PATH}")
vector_params = pytest.mark.parametrize("vector", VECTORS or [None], ids=lambda v: v["fumen"][5:17] if v else "none")

# Page 1 of a real code: a coloured field with a garbage row, an O piece and a Japanese comment.
SAMPLE = (
    "v115@KgQpIeg0glIewhAeAtFeAtQ4Aeg0CeAtBexhAeg0Q4?BeQ4BexwAeg0wwBeQ4BeglQ4wwxhBeBtAeglQpA8Q4g0BeQ?"
    "pAtBeQ4RpA8BeQpglQ4glA8AeH8z4XZAlvs2AjxDfETIPSB?l/nzB1E88AQRA6AVAAAA"
)


# --- reference vectors -----------------------------------------------------------------------------------
@needs_vectors
@vector_params
def test_vector_decodes_exactly(vector: dict[str, Any]) -> None:
    assert [page_to_json(page) for page in decode(vector["fumen"])] == vector["pages"]


@needs_vectors
@vector_params
def test_vector_encodes_exactly(vector: dict[str, Any]) -> None:
    assert encode(pages_from_json(vector["encode_input"])) == vector["fumen"]


@needs_vectors
@vector_params
def test_decoded_pages_encode_back_to_the_same_code(vector: dict[str, Any]) -> None:
    assert encode(decode(vector["fumen"])) == vector["fumen"]


@needs_vectors
def test_operations_land_where_the_next_field_shows_them() -> None:
    """game.pieces' shapes agree with fumen: a locked piece shows up at op.cells() on the reference's next page."""
    checked = 0
    for vector in VECTORS:
        pages = decode(vector["fumen"])
        for page, following, given_next in zip(pages, pages[1:], vector["encode_input"][1:]):
            op, flags = page.operation, page.flags
            if op is None or not flags.lock or flags.mirror or flags.rise or given_next["field"] is not None:
                continue
            cells = set(op.cells())
            rows = [
                "".join(op.piece.name if (x, y) in cells else page.field.at(x, y) for x in range(10))
                for y in range(FIELD_HEIGHT)
            ]
            if any("_" not in row for row in rows):
                continue  # a line clear moves rows; those pages are covered by the exact vector tests
            assert [following.field.row_text(y) for y in range(FIELD_HEIGHT)] == rows
            checked += 1
    assert checked >= 20


def test_code_formatting_is_accepted_loosely() -> None:
    pages = decode(SAMPLE)
    bare = SAMPLE.replace("?", "")
    assert decode(bare) == pages
    assert decode(f"  {SAMPLE[:30]}\n {SAMPLE[30:]} \n") == pages
    assert decode(f"https://fumen.zui.jp/?{SAMPLE}&lang=en") == pages
    assert decode(SAMPLE.replace("v115@", "m115@")) == decode(SAMPLE.replace("v115@", "d115@")) == pages


def test_sample_page() -> None:
    (page,) = decode(SAMPLE)
    assert page.operation == Operation(Piece.O, Rotation.NORTH, 7, 4)
    assert page.comment == "テト譜 v115"
    assert page.flags == Flags(lock=True, mirror=False, colorize=True, rise=False, quiz=False)
    assert page.field.at(1, -1) == "_" and page.field.at(0, -1) == "X" and page.field.at(9, 9) == "O"


def test_v110_prefix_decodes() -> None:
    # v110 fields have 21 rows (+ garbage): 220 cells per field and per action position, not 240.
    (page,) = decode("v110@xeI3gbVeI")
    assert page.field.to_text() == "XXXXXXXXX_"
    assert page.operation == Operation(Piece.T, Rotation.NORTH, 4, 0)
    assert decode("v115@vhAVeI")[0].operation == Operation(Piece.T, Rotation.NORTH, 4, 10)


# --- Field and Board ---------------------------------------------------------------------------------------
def test_field_text_round_trip_and_board_conversion() -> None:
    text = "___T______\n__TTT_____\nIIIIOO_SSX\nXXXXXXXXX_"
    field = Field.from_text(text)
    assert field.to_text() == text
    assert field.at(3, 2) == "T" and field.at(9, -1) == "_"
    board = field.to_board()
    assert board.to_rows() == ["___T______", "__TTT_____", "IIIIOO_SSX"]
    back = Field.from_board(board)
    assert back.to_text() == "___T______\n__TTT_____\nIIIIOO_SSX\n__________"  # garbage row dropped
    assert Field.from_board(Board.from_rows(["JLSZ______"])).at(2, 0) == "S"
    assert Field.from_text("") == Field.empty() and Field.empty().to_text() == ""
    assert Field.from_text("X_XXXXXXXX").to_text() == "X_XXXXXXXX"  # a lone line is the garbage row


def test_field_rejects_bad_text_and_tall_boards() -> None:
    with pytest.raises(FumenError, match=r"row 1 .* 9 cells"):
        Field.from_text("IIIIIIIII\n__________")
    with pytest.raises(FumenError, match="bad cell 'Q'"):
        Field.from_text("IIIIIIIIIQ\n__________")
    with pytest.raises(FumenError, match="field overflow: 24 rows"):
        Field.from_text("\n".join(["X_________"] * 25))
    with pytest.raises(FumenError, match="field overflow"):
        Field.from_board(Board.from_rows(["X_________"] + ["__________"] * 23))


def test_lock_puts_clears_rises_and_mirrors() -> None:
    field = Field.from_text("IIII_IIIII\n_XXXXXXXXX")
    after = field.after(Operation(Piece.T, Rotation.SOUTH, 4, 1), Flags(rise=True, mirror=True))
    # T reverse at (4, 1) fills row 1 (3..5) and (4, 0): row 0 clears, row 1 drops; garbage rises; mirror.
    assert after.to_text() == "____TTT___\nXXXXXXXXX_\n__________"
    assert field.after(Operation(Piece.T, Rotation.SOUTH, 4, 1), Flags(lock=False)) == field


# --- comments and quiz ------------------------------------------------------------------------------------
def test_js_escape_matches_javascript() -> None:
    assert js_escape("a b&ü/テ😀") == "a%20b%26%FC/%u30C6%uD83D%uDE00"
    assert js_unescape("a%20b%26%FC/%u30C6%uD83D%uDE00") == "a b&ü/テ😀"
    assert js_unescape("100% %zz %u12") == "100% %zz %u12"  # malformed escapes stay literal


def test_quiz_parse_and_piece_use() -> None:
    assert parse_quiz("#Q=[T](I)LOSZJ") == (Piece.T, Piece.I, [Piece.L, Piece.O, Piece.S, Piece.Z, Piece.J])
    assert parse_quiz("#Q=[](Z)IL;TO") == (None, Piece.Z, [Piece.I, Piece.L])
    quiz = Quiz.parse("#Q=[](Z)ILJTOS")
    assert str(quiz.after(Piece.Z)) == "#Q=[](I)LJTOS"  # use the current piece
    assert str(quiz.after(Piece.I)) == "#Q=[Z](L)JTOS"  # hold Z, use the next
    assert str(quiz.after(Piece.T)) == "#Q=[](Z)ILJTOS"  # not allowed: unchanged
    assert str(Quiz.parse("#Q=[T](I)LOSZJ").after(Piece.T)) == "#Q=[I](L)OSZJ"  # swap with hold
    assert str(Quiz.parse("#Q=[T]()LO").format()) == "#Q=[](T)LO"
    with pytest.raises(FumenError, match="not a quiz"):
        parse_quiz("hello")
    with pytest.raises(FumenError, match="bad quiz"):
        parse_quiz("#Q=[T]IO")


def test_decoder_advances_the_quiz_on_pages_without_a_comment() -> None:
    op = Operation(Piece.Z, Rotation.NORTH, 1, 0)
    pages = [Page(Field(), op, "#Q=[](Z)ILJTOS"), Page(None, None, "#Q=[](I)LJTOS")]
    code = encode(pages)
    decoded = decode(code)
    assert [p.comment for p in decoded] == ["#Q=[](Z)ILJTOS", "#Q=[](I)LJTOS"]
    assert decoded[1].flags.quiz
    # The second comment was not stored: the decoder derives it from the first page's quiz and the Z used.
    assert len(code) < len(encode([pages[0], Page(None, None, "#Q=[](Z)ILJTOS")]))


# --- round trips ------------------------------------------------------------------------------------------
def _encodable_without_lock(op: Operation) -> bool:
    try:
        encode([Page(Field(), op, "", Flags(lock=False))])
    except FumenError:
        return False
    return True


ALL_OPS = [Operation(p, r, x, y) for (p, r) in SHAPES for x in range(-2, 12) for y in range(-2, 25)]
LOCKABLE = [op for op in ALL_OPS if all(0 <= x < 10 and 0 <= y < FIELD_HEIGHT for x, y in op.cells())]
_LOCKABLE_SET = set(LOCKABLE)
# Placements fumen can store but not lock (a cell outside the field): only near the edges, so filter those first.
UNLOCKED_ONLY = [
    op
    for op in ALL_OPS
    if op not in _LOCKABLE_SET and -1 <= op.x <= 10 and -1 <= op.y <= 23 and _encodable_without_lock(op)
]
PIECE_LETTERS = "IJLOSTZ"


@st.composite
def fields(draw: st.DrawFn) -> Field:
    rng = random.Random(draw(st.integers(0, 2**32)))  # cheap bulk cells; the seed still shrinks
    height = draw(st.integers(0, FIELD_HEIGHT))
    density = rng.random()
    cells = [0] * 240
    for index in range(10, 10 + height * 10):
        cells[index] = rng.randint(1, 8) if rng.random() < density else 0
    if draw(st.booleans()):
        cells[:10] = [rng.choice((0, 8, rng.randint(1, 8))) for _ in range(10)]
    return Field(tuple(cells))


quiz_comments = st.builds(
    lambda hold, cur, rest, tail, space: f"#Q=[{hold}]({cur}){rest}{tail}".replace("(", "(" + space, 1),
    st.sampled_from(["", *PIECE_LETTERS, "t"]),
    st.sampled_from(["", *PIECE_LETTERS]),
    st.text(PIECE_LETTERS, max_size=7),
    st.sampled_from(["", ";", ";IO", ";#Q=[", ";x"]),
    st.sampled_from(["", " "]),
)
comments = st.one_of(st.text(max_size=30), quiz_comments, st.sampled_from(["", "#Q=[](", "#Q=[]()", "#Q=[]();#Q=[]"]))


@st.composite
def page_lists(draw: st.DrawFn) -> list[Page]:
    pool = draw(st.lists(comments, min_size=1, max_size=3))  # few distinct comments: repeats are common
    pages = []
    for _ in range(draw(st.integers(1, 6))):
        flags = Flags(*(draw(st.booleans()) for _ in range(4)))
        if draw(st.integers(0, 4)) == 0:
            operation = None
        elif flags.lock or not UNLOCKED_ONLY or draw(st.booleans()):
            operation = draw(st.sampled_from(LOCKABLE))
        else:
            operation = draw(st.sampled_from(UNLOCKED_ONLY))
        field = draw(st.one_of(st.none(), fields()))
        comment = draw(st.sampled_from(pool))
        if pages and draw(st.integers(0, 3)) == 0:  # what the decoder would show anyway: the encoder skips it
            try:
                quiz: Quiz | None = Quiz.parse(pages[-1].comment)
                if quiz is not None and pages[-1].flags.lock:
                    quiz = quiz.after(pages[-1].operation.piece if pages[-1].operation else None)
                comment = quiz.format().text if quiz is not None else comment
            except FumenError:
                pass  # not a (well-formed) quiz: keep the drawn comment
        pages.append(Page(field, operation, comment, flags))
    return pages


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page_lists())
def test_encode_then_decode_gives_the_pages_back(pages: list[Page]) -> None:
    decoded = decode(encode(pages))
    assert len(decoded) == len(pages)
    previous: Page | None = None
    previous_field = Field()
    for page, got in zip(pages, decoded):
        expected_field = page.field
        if expected_field is None:
            expected_field = Field() if previous is None else previous_field.after(previous.operation, previous.flags)
        assert got.field == expected_field
        assert got.operation == page.operation
        assert got.comment == page.comment
        assert got.flags == Flags(
            page.flags.lock, page.flags.mirror, page.flags.colorize, page.flags.rise, got.flags.quiz
        )
        previous, previous_field = page, expected_field


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(fields(), st.integers(0, 140)), min_size=1, max_size=3))
def test_repeated_fields_round_trip(runs: list[tuple[Field, int]]) -> None:
    # Unchanged pages are stored as a repeat count of at most 63; longer runs need a new field record.
    pages, expected = [], []
    for field, repeats in runs:
        pages += [Page(field, None, "", Flags(lock=False))] + [Page(None, None, "", Flags(lock=False))] * repeats
        expected += [field] * (repeats + 1)
    assert [page.field for page in decode(encode(pages))] == expected


# --- bad input ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "code, message",
    [
        ("", "bad prefix"),
        ("hello", "bad prefix"),
        ("v114@vhAAgH", "bad prefix"),
        ("v115@", "empty code"),
        ("v115@vhA#AgH", r"bad character '#' at position 9"),
        ("v115@vhAAg", "truncated data: page 1 action"),
        ("v115@vh", "truncated data: page 1 repeat count"),
        ("v115@v", "truncated data: page 1 field"),
        ("v115@/////", "field overflow"),
        ("v115@AhAAgH", "field overflow"),
        ("v115@vhAAgW", "truncated data: page 1 comment length"),
    ],
)
def test_bad_codes_raise_fumen_error_with_a_reason(code: str, message: str) -> None:
    with pytest.raises(FumenError, match=message):
        decode(code)


def test_bad_pages_raise_fumen_error() -> None:
    with pytest.raises(FumenError, match="no pages"):
        encode([])
    with pytest.raises(FumenError, match="does not fit"):
        encode([Page(Field(), Operation(Piece.I, Rotation.NORTH, 0, 0))])
    with pytest.raises(FumenError, match="outside the field"):
        encode([Page(Field(), Operation(Piece.T, Rotation.NORTH, 30, 0), "", Flags(lock=False))])
    with pytest.raises(FumenError, match="comment too long"):
        encode([Page(Field(), None, "ü" * 1400)])
    with pytest.raises(FumenError, match="bad operation"):
        Operation(9, 0, 0, 0)  # type: ignore[arg-type]


def _decode_or_fumen_error(code: str) -> None:
    try:
        pages = decode(code)
    except FumenError as error:
        assert str(error) and "\n" not in str(error)
    else:
        assert pages and all(isinstance(p.field, Field) for p in pages)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=60),
        st.text(max_size=60).map(lambda s: "v115@" + s),
        st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/?", max_size=80).map(
            lambda s: "v115@" + s
        ),
    )
)
def test_random_strings_only_raise_fumen_error(code: str) -> None:
    _decode_or_fumen_error(code)


VALID_CODES = [v["fumen"] for v in VECTORS[:40]] or [SAMPLE]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(VALID_CODES), st.data())
def test_mutated_codes_only_raise_fumen_error(code: str, data: st.DataObject) -> None:
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    chars = list(code)
    for _ in range(data.draw(st.integers(1, 4))):
        kind = rng.randrange(3)
        spot = rng.randrange(5, len(chars) + 1)
        if kind == 0:
            del chars[spot:]
        elif kind == 1 and spot < len(chars):
            chars[spot] = rng.choice("ABCDwxyz019+/?%#")
        else:
            chars.insert(spot, rng.choice("AgQh/+"))
        if len(chars) <= 5:
            break
    _decode_or_fumen_error("".join(chars))


# --- command line ------------------------------------------------------------------------------------------
@needs_vectors
def test_cli_decode_json_has_the_vector_shape(capsys: pytest.CaptureFixture[str]) -> None:
    vector = VECTORS[4]
    assert main.main(["fumen", "decode", vector["fumen"], "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == vector["pages"]


def test_cli_show_and_decode_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main.main(["fumen", "show", SAMPLE]) == 0
    out = capsys.readouterr().out
    assert out.startswith("page 1/1\n") and "operation: O spawn at (7, 4)" in out and "comment: テト譜 v115" in out
    assert "S_J___ZooI\nI_JS__SooT" in out  # the piece overlaid in lower case
    assert "X_XXXXXXXX  (garbage row)" in out
    assert main.main(["fumen", "decode", SAMPLE]) == 0
    assert "page 1/1" in capsys.readouterr().out
    assert main.main(["fumen", "show", SAMPLE, "--all"]) == 0
    assert capsys.readouterr().out.count("page ") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["fumen", "show", "v115@vhA#"],
        ["fumen", "decode", "nonsense", "--json"],
        ["fumen", "show", SAMPLE, "--page", "2"],
        ["fumen", "encode", "/nonexistent/pages.json"],
    ],
)
def test_cli_bad_input_exits_2_with_one_error_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("error: ") and captured.err.count("\n") == 1 and captured.out == ""


def test_cli_encode_json_file_text_board_and_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = [page_to_json(page) for page in decode(SAMPLE)]
    source = tmp_path / "pages.json"
    source.write_text(json.dumps(pages[0]), "utf-8")  # a single page object
    assert main.main(["fumen", "encode", str(source)]) == 0
    assert capsys.readouterr().out.strip() == SAMPLE

    board = tmp_path / "board.txt"
    board.write_text("____T_____\n___TTT____\nIIII______\n", "utf-8")
    assert main.main(["fumen", "encode", str(board)]) == 0
    code = capsys.readouterr().out.strip()
    assert decode(code)[0].field.to_text() == "____T_____\n___TTT____\nIIII______\n__________"

    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(pages)))
    assert main.main(["fumen", "encode", "-"]) == 0
    assert capsys.readouterr().out.strip() == SAMPLE

    bad_operation = json.dumps([{"operation": {"type": "Q", "rotation": "spawn", "x": 1, "y": 1}}])
    for bad in ('[{"field": 3}]', "{not json", "IIII\n", bad_operation):
        monkeypatch.setattr("sys.stdin", io.StringIO(bad))
        assert main.main(["fumen", "encode", "-"]) == 2
        assert capsys.readouterr().err.startswith("error: ")


# --- regressions from the fuzzing pass ----------------------------------------------------------------------
import subprocess  # noqa: E402
import sys  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _fumen_cli(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main.main(["fumen", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _refused(result: tuple[int, str, str]) -> str:
    code, out, err = result
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1, err
    return err


def test_encode_refuses_devices_directories_and_huge_files(capsys, tmp_path) -> None:
    assert "input /dev/zero: file too large" in _refused(_fumen_cli(["encode", "/dev/zero"], capsys))
    assert "cannot read input" in _refused(_fumen_cli(["encode", str(tmp_path)], capsys))
    big = tmp_path / "big.json"
    big.write_text("[" + " " * 1_000_001 + "]")
    assert "file too large" in _refused(_fumen_cli(["encode", str(big)], capsys))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000, "nested too deeply"),
        ('[{"field": "", "comment": ' + "9" * 4301 + "}]", "bad JSON"),
        ('{"comment": -' + "1" * 5000 + "}", "bad JSON"),
    ],
)
def test_encode_reports_deep_or_huge_json(text: str, message: str, capsys, tmp_path) -> None:
    path = tmp_path / "pages.json"
    path.write_text(text)
    assert message in _refused(_fumen_cli(["encode", str(path)], capsys))


def test_codes_are_capped_and_decoded_lazily() -> None:
    from game.fumen import MAX_CODE_LENGTH

    with pytest.raises(FumenError, match="code too long"):
        decode("v115@" + "vhA" * (MAX_CODE_LENGTH // 3))
    # many repeated pages: decoding stops where asked, so a broken tail is never read
    pages = [Page(Field.from_text("X_________\n")), *[Page(None) for _ in range(300)]]
    code = encode(pages)
    assert len(decode(code)) == 301
    assert len(decode(code + "vh", max_pages=1)) == 1  # a truncated page 302 is never reached
    with pytest.raises(FumenError, match="truncated data: page 302"):
        decode(code + "vh")
    with pytest.raises(FumenError):
        decode(code, max_pages=0)
    repeated = decode(code)
    assert all(page.field is repeated[1].field for page in repeated[1:])  # unchanged fields are shared


@pytest.mark.parametrize(
    "argv",
    [["show", "--all", "v115@vhAAgH"], ["show", "v115@vhAAgH"], ["decode", "--json", "v115@vhAAgH"], ["encode", "-"]],
)
def test_output_errors_name_the_output_not_the_input(argv: list[str]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "main.py", "fumen", *argv],
            cwd=ROOT,
            input="X_________\n",
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 1
    assert done.stderr == "error: cannot write the output: No space left on device\n"
