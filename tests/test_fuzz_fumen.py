"""Fuzz harness: fumen codes, fumen JSON pages and the fumen command. Bounded: a few seconds in all."""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import main
from game.fumen import Field, FumenError, Page, decode, encode
from game.fumen_cli import pages_from_text

SCALE = int(os.environ.get("STACKCOACH_FUZZ_SCALE", "1"))  # e.g. 20 for a deeper run
FUZZ = settings(max_examples=150 * SCALE, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _mutated(draw: st.DrawFn) -> str:
    """A real code (random pages encoded) with a few characters replaced, dropped or added."""
    rows = st.text(alphabet="_ILOZTJSX", min_size=10, max_size=10)
    pages = draw(
        st.lists(
            st.builds(
                lambda field, comment: Page(
                    Field.from_text("\n".join(field)) if field is not None else None, None, comment
                ),
                st.none() | st.lists(rows, max_size=4),
                st.text(max_size=12),
            ),
            min_size=1,
            max_size=4,
        )
    )
    code = list(encode(pages))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(5, len(code)))
        what = draw(st.sampled_from(["replace", "drop", "add"]))
        char = draw(st.sampled_from(DIGITS))
        if what == "add":
            code.insert(at, char)
        elif at < len(code):
            code[at : at + 1] = [] if what == "drop" else [char]
    return "".join(code)


codes = st.one_of(
    st.composite(_mutated)(),
    st.composite(_mutated)(),
    st.builds(
        lambda p, body: p + body,
        st.sampled_from(["v115@", "m115@", "d115@", "v110@", "v115@?", ""]),
        st.text(alphabet=DIGITS + "?&% \n", max_size=80),
    ),
    st.text(max_size=40),
    st.sampled_from(["v115@vhAAgH", "v115@9gE8EeF8DeG8CeF8NeAgWBAUAAAA", "v115@vhGRQYHAvLQ6eAAAAAA"]).flatmap(
        lambda code: st.integers(0, len(code)).map(lambda cut: code[:cut])
    ),  # truncated real codes
)


@FUZZ
@given(codes)
def test_decode_gives_pages_or_a_one_line_fumen_error(code: str) -> None:
    try:
        pages = decode(code)
    except FumenError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert pages and all(page.field is not None for page in pages)
    assert decode(encode(pages)) == pages  # whatever decodes, encodes back to the same pages


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(alphabet="_ILOZTJSX\n#Q=[]()", max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "field",
                    "operation",
                    "comment",
                    "flags",
                    "type",
                    "rotation",
                    "x",
                    "y",
                    "lock",
                    "mirror",
                    "colorize",
                    "rise",
                    "quiz",
                    "other",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=20,
)


@FUZZ
@given(json_values)
def test_json_pages_encode_or_raise_a_fumen_error(value) -> None:
    text = json.dumps(value)
    try:
        pages = pages_from_text(text)
        code = encode(pages)
    except FumenError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert code.startswith("v115@") and len(decode(code)) == len(pages)


@FUZZ
@given(
    st.sampled_from(["show", "decode", "encode"]),
    codes,
    st.sampled_from([[], ["--all"], ["--json"], ["--page"], ["--page", "0"], ["--page", "2"]]),
)
def test_the_fumen_command_exits_0_or_one_error_line(tmp_path_factory, capsys, action, code, flags) -> None:
    if action == "encode":
        path = tmp_path_factory.mktemp("fumen") / "in.txt"
        path.write_text(code, encoding="utf-8")
        argv = ["fumen", "encode", str(path)]
    else:
        argv = ["fumen", action, code, *flags]
    try:
        status = main.main(argv)
    except SystemExit as leaving:  # argparse
        status = leaving.code
    out = capsys.readouterr()
    assert status in (0, 2)
    if status == 2:
        assert out.out == "" and out.err.startswith("error: ") and out.err.count("\n") == 1, out.err
    else:
        assert out.out and out.err == ""


@pytest.mark.parametrize("junk", ["[" * 50_000, "{" * 50_000, '{"comment": ' + "1" * 5000 + "}"])
def test_hostile_json_is_a_fumen_error(junk: str) -> None:
    with pytest.raises(FumenError):
        pages_from_text(junk)
