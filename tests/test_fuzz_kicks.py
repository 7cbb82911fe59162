"""Fuzz harness: kick-table files (our TOML and solution-finder .properties). Every file loads as a rotation
system or raises a one-line KickTableError naming the file."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.pieces import Piece, Rotation
from game.rotation import MAX_KICK_DISTANCE, KickTableError, build_rotation_system, load_kick_file

SCALE = int(os.environ.get("STACKCOACH_FUZZ_SCALE", "1"))  # e.g. 20 for a deeper run
FUZZ = settings(max_examples=150 * SCALE, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TRANSITIONS = ["0R", "R0", "R2", "2R", "2L", "L2", "L0", "0L", "02", "20", "RL", "LR", "0X", "00"]
numbers = st.one_of(st.integers(-6, 6), st.sampled_from([10**30, -(10**30), 2**63]))
cells = st.one_of(
    st.lists(numbers, min_size=2, max_size=2),
    st.lists(numbers, max_size=3),
    st.just([True, 0]),
    st.just(["0", 0]),
    st.just([0.5, 0]),
)
toml_text = st.one_of(
    st.builds(
        lambda group, transition, tests: f"[kicks.{group}]\n{transition} = {tests!r}\n".replace("'", '"'),
        st.sampled_from(["T", "JLSTZ", "I", "O", "Q", "tt", "JT"]),
        st.sampled_from(TRANSITIONS),
        st.lists(cells, max_size=18),
    ),
    st.text(alphabet="[]{}=,.\"'\n #0123456789-abcdeknsTIJLOSZ", max_size=60),
    st.builds(lambda depth: "a = " + "[" * depth + "]" * depth, st.integers(0, 3000)),
)
properties_text = st.one_of(
    st.lists(
        st.builds(
            lambda piece, a, b, tests: f"{piece}.{a}{b}=" + "".join(f"({x},{y})" for x, y in tests),
            st.sampled_from("TIJLOSZQ"),
            st.sampled_from("NESWX"),
            st.sampled_from("NESW"),
            st.lists(st.tuples(numbers, numbers), max_size=5),
        ),
        max_size=6,
    ).map("\n".join),
    st.text(alphabet="TIJL.NESW=()@,+-0123456789#!\n ٣７", max_size=60),
)


@FUZZ
@given(st.one_of(toml_text.map(lambda t: ("k.toml", t)), properties_text.map(lambda t: ("k.properties", t))))
def test_kick_files_load_or_raise_one_line_naming_the_file(tmp_path_factory, named) -> None:
    name, text = named
    path = tmp_path_factory.mktemp("kicks") / name
    path.write_text(text, encoding="utf-8")
    try:
        system = load_kick_file(path)
    except KickTableError as error:
        message = str(error)
        assert str(path) in message and "\n" not in message and len(message) < 400, message
        return
    for piece in Piece:
        for start in Rotation:
            for end in Rotation:
                if start != end:
                    tests = system.kicks(piece, start, end)
                    assert tests and all(
                        abs(dx) <= MAX_KICK_DISTANCE + 1 and abs(dy) <= MAX_KICK_DISTANCE + 1 for dx, dy in tests
                    )


documents = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["name", "description", "kicks", "offsets", "T", "I", "0R", "0", "R", "2", "L", "x"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=16,
)


@FUZZ
@given(documents)
def test_documents_build_or_raise_a_kick_table_error(document) -> None:
    try:
        build_rotation_system(document, "<fuzz>")
    except KickTableError as error:
        assert "<fuzz>" in str(error) and "\n" not in str(error)
