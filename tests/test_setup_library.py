"""The set-up library (assets/setups): it loads, covers what issue 15 asks for, its figures are the ones the
regenerating script computes (a fast sample recomputed here; bench/setups.py recomputes all of them)."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
from pathlib import Path

import pytest

from ai.pc.setup import LibraryError, Shape, library_shapes, load_library

ROOT = Path(__file__).resolve().parents[1]
# cheap entries whose every figure (build, mirror, either, PC, T-spin) is recomputed in the test run
SAMPLE = ("tki", "dt_cannon_2", "grace", "pc2_tub_save_i", "pc6_six")


def _script():
    spec = importlib.util.spec_from_file_location("regenerate_setups", ROOT / "scripts" / "regenerate_setups.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def library():
    return load_library()


@pytest.fixture(scope="module")
def by_key(library):
    return {entry.key: entry for entry in library}


class TestContents:
    def test_families_and_loop(self, library):
        pcs = {entry.pc for entry in library if entry.family == "pc"}
        assert set(range(1, 8)) <= pcs  # every PC of the 7-bag loop has a set-up
        first = [e for e in library if e.family == "pc" and e.pc == 1]
        old = {"pco_with_I", "pco_no_I", "grace", "box4x4"}  # the four of assets/pc_setups.toml
        assert old <= {e.key for e in first} and len({e.key for e in first} - old) >= 1

    def test_a_title_says_what_the_set_up_is_for_once(self, library):
        titles = {entry.key: entry.title() for entry in library}
        assert titles["pc4_no_io"] == "4th PC: No IO (save T)"
        for entry in library:
            what = f"{entry.pc}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(entry.pc, 'th') } PC"
            said = titles[entry.key].count(what) if entry.family == "pc" else titles[entry.key].count("(opener)")
            assert said == 1, titles[entry.key]

    def test_eight_openers(self, library):
        openers = {entry.opener for entry in library if entry.opener}
        assert len(openers) >= 8, openers
        assert {"TKI", "DT Cannon", "MKO", "Albatross", "PCO", "Hachispin"} <= openers

    def test_every_entry_is_complete(self, library):
        for entry in library:
            assert entry.name and entry.notes and entry.source and entry.bags and entry.finishes, entry.key
            shape = entry.shape()
            assert shape.must and shape.pieces_min >= 1
            if not shape.may:
                assert shape.must.bit_count() % 4 == 0, entry.key
            if entry.mirror:
                assert entry.shape(mirror=True) == shape.mirrored()

    def test_reference_build_matches_the_shape(self, library):
        """The coloured fumen is one build: its cells cover every must cell and stay inside the shape."""
        for entry in library:
            shape = entry.shape()
            rows = entry.colours()
            cells = 0
            for index, row in enumerate(rows):
                y = len(rows) - 1 - index
                for x, char in enumerate(row):
                    if char != "_":
                        cells |= 1 << (y * 10 + x)
            assert not (shape.built & ~cells) and not (cells & ~(shape.built | shape.may)), entry.key
            mirrored = entry.colours(mirror=True)
            assert [r[::-1] for r in mirrored] == [r.translate(str.maketrans("JLSZ", "LJZS")) for r in rows]

    def test_a_saved_piece_is_not_in_the_reference_build(self, library):
        """An entry that saves a piece: its PC figure starts with that piece, its reference build (the cells the
        PC figure is computed from) does not use it, and its mirror saves the mirrored piece."""
        saving = [entry for entry in library if entry.save]
        assert {"pc2_tub_save_i", "pco_i_saved", "grace", "pc4_no_il"} <= {entry.key for entry in saving}
        for entry in saving:
            assert entry.pc_pattern.split(",")[0] == entry.save, entry.key
            assert not any(entry.save in row for row in entry.colours()), entry.key
            assert entry.shape().save.name == entry.save
            if entry.mirror:
                assert entry.shape(mirror=True).save == entry.shape().mirrored().save

    def test_a_save_that_does_not_start_the_pc_pattern_is_refused(self, tmp_path):
        text = (ROOT / "assets" / "setups" / "pc_loop.toml").read_text(encoding="utf-8")
        (tmp_path / "pc_loop.toml").write_text(text.replace('save = "I"', 'save = "O"', 1), encoding="utf-8")
        with pytest.raises(LibraryError, match="saves O needs a pc_pattern that starts with O"):
            load_library(tmp_path)

    def test_shapes_in_the_library_work_as_cover_names(self, library):
        shapes = library_shapes(library)
        assert all(isinstance(s, Shape) for s in shapes.values())
        assert sum(1 for name in shapes if name.endswith("/mirror")) == sum(1 for e in library if e.mirror)


class TestFigures:
    def test_every_entry_has_figures(self, library):
        for entry in library:
            f = entry.figures
            assert {"rules", "build_success", "build_total", "build_rate", "tspin", "tspin_placements"} <= set(f)
            assert f["build_rate"] == pytest.approx(f["build_success"] / f["build_total"], abs=1e-6)
            assert 0 < f["build_success"] <= f["build_total"], entry.key  # every shape can be built
            if "either_build_success" in f:
                assert f["build_success"] <= f["either_build_success"] <= f["build_total"]
            if entry.pc_pattern:
                assert "pc_rate" in f or str(f.get("pc", "")).startswith("not computed")
            if "T" in "".join(entry.finishes) and entry.family == "opener" and entry.key in ("tki", "albatross"):
                assert f["tspin"] == "TSD"

    @pytest.mark.parametrize("key", SAMPLE)
    def test_sample_recomputed(self, by_key, key):
        entry = by_key[key]
        assert _script().compute_figures(entry) == entry.figures

    @pytest.mark.parametrize("key", ["hachispin", "dt_cannon_2"])
    def test_library_shapes_against_brute_force(self, by_key, key):
        """A sample of queues: the finder's verdict equals direct enumeration with the reference movement search
        and real hold (the brute force of tests/test_setup_finder.py)."""
        import random

        from test_setup_finder import brute_buildable

        from ai.pc.pattern import parse_pattern
        from ai.pc.setup import finder

        shape = by_key[key].shape()
        queues = random.Random(key).sample(parse_pattern("*p7").sequences(), 8)
        search = finder(shape, queues=queues)
        verdicts = [search.buildable(q) for q in queues]
        assert verdicts == [brute_buildable(shape, q, None, True, "softdrop") for q in queues]

    def test_script_check_mode(self, capsys):
        assert _script().main(["--check", "--only", "tki", "pco_i_saved"]) == 0
        assert "2/2 entries match" in capsys.readouterr().out

    def test_script_check_finds_a_changed_figure(self, by_key, monkeypatch, capsys):
        script = _script()
        real = script.compute_figures

        def off_by_one(entry, **kwargs):
            figures = real(entry, **kwargs)
            figures["build_success"] += 1
            return figures

        monkeypatch.setattr(script, "compute_figures", off_by_one)
        assert script.main(["--check", "--only", "tki"]) == 1
        assert "tki: stored" in capsys.readouterr().out

    def test_readme_table_is_current(self, library):
        script = _script()
        text = (ROOT / "assets" / "setups" / "README.md").read_text(encoding="utf-8")
        table = script.readme_table(library, {e.key: e.figures for e in library})
        assert table in text


class TestLoading:
    def _write(self, folder: Path, body: str) -> Path:
        (folder / "x.toml").write_text(body, encoding="utf-8")
        return folder

    @staticmethod
    def entry(rows: str) -> str:
        from game.fumen import Field, Page, encode

        code = encode([Page(Field.from_text(rows, garbage_row=False))])
        return f'[[setup]]\nkey = "a"\nname = "A"\nfamily = "pc"\npc = 2\nfumen = "{code}"\nbags = "*p6"\nnotes = "n"\n'

    @property
    def GOOD(self) -> str:
        return self.entry("IIII______\nXXXX______")

    def test_grey_only_fumen_is_refused(self, tmp_path):
        with pytest.raises(LibraryError, match="no cell to fill"):
            load_library(self._write(tmp_path, self.entry("XXXX______")))

    @pytest.mark.parametrize(
        "change, words",
        [
            (('family = "pc"', 'family = "misc"'), "family"),
            (("pc = 2", "pc = 9"), "pc = 1..7"),
            (('bags = "*p6"', 'bags = "*p9"'), "cannot draw"),
            (('notes = "n"', 'notes = "n"\ncolour = "red"'), "unknown field"),
            (('name = "A"\n', ""), "missing field 'name'"),
        ],
    )
    def test_bad_entries(self, tmp_path, change, words):
        body = self.GOOD.replace(*change)
        with pytest.raises(LibraryError, match=words):
            load_library(self._write(tmp_path, body))

    def test_duplicate_key_and_broken_toml(self, tmp_path):
        good = self.GOOD
        assert len(load_library(self._write(tmp_path, good))) == 1
        with pytest.raises(LibraryError, match="used twice"):
            load_library(self._write(tmp_path, good + "\n" + good))
        with pytest.raises(LibraryError, match=r"x\.toml"):
            load_library(self._write(tmp_path, "[[setup]\n"))


class TestCommandWithLibrary:
    def run(self, argv):
        import main

        out, err = io.StringIO(), io.StringIO()
        old = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = out, err
        try:
            try:
                code = main.main(argv)
            except SystemExit as exit_:
                code = exit_.code
        finally:
            sys.stdout, sys.stderr = old
        return code, out.getvalue(), err.getvalue()

    def test_key_as_field(self, by_key):
        code, out, err = self.run(["setup", "--field", "tki", "--pattern", "*p7", "--json"])
        assert code == 0, err
        data = json.loads(out)
        assert (data["success"], data["total"]) == (by_key["tki"].figures["build_success"], 5040)

    def test_cover_with_mirror_is_the_either_figure(self, by_key):
        code, out, err = self.run(["setup", "--cover", "tki", "tki/mirror", "--pattern", "*p7", "--json"])
        assert code == 0, err
        data = json.loads(out)
        assert data["any"]["success"] == by_key["tki"].figures["either_build_success"]
        assert [s["success"] for s in data["setups"]] == [
            by_key["tki"].figures["build_success"],
            by_key["tki"].figures["mirror_build_success"],
        ]

    def test_bad_variant(self):
        code, _out, err = self.run(["setup", "--field", "tki/upside-down", "--pattern", "*p7"])
        assert code == 2 and err.startswith("error:") and "/mirror" in err
