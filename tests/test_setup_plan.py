"""The guided-practice answer (ai.setup_service.plan) against brute force: the finder of the rest of a shape once
a first placement is made (Finder.after, which reuses the parent's arrangements) answers as a finder built from
scratch for that rest, and the advised placement is one with the highest exact share of continuations."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ai.pc.setup import Shape, build_chance, clear_finders, finder, load_library
from ai.setup_service import _after, _futures, plan, remaining_shape

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_setups", ROOT / "bench" / "setups.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("key", "mirror", "seed"),
    [
        ("pco_with_I", False, 0),
        ("dt_cannon_1", True, 1),
        ("tki", False, 2),
        ("pc2_tub_save_i", False, 14),  # set-ups that save a piece: the rest of the shape saves it too
        ("pc4_no_il", True, 0),
    ],
)
def test_the_advised_first_placement_has_the_best_exact_share(key, mirror, seed):
    entry = next(e for e in load_library() if e.key == key)
    snapshot, cells = next(_bench().guided_positions(entry, mirror, seed))
    shape = remaining_shape(snapshot, cells.must | cells.base, cells.may, entry.saved(mirror=mirror))
    clear_finders()
    way, share = plan(snapshot, shape, True)
    queue = (snapshot.current, *snapshot.queue)
    futures = _futures(snapshot, shape)
    search = finder(shape, queues=[queue + f for f in futures], hold=snapshot.hold)
    shares = {}
    for head in search.firsts(queue, snapshot.hold):
        after_queue, after_hold = _after(snapshot, head)
        rest = Shape(shape.base | head.mask, shape.must & ~head.mask, shape.may & ~head.mask, shape.save)
        fresh = build_chance(rest, [after_queue + f for f in futures], hold=after_hold)  # a new finder
        shares[head] = fresh.rate
        child = search.after(head.piece, head.mask)
        assert child is not None
        assert sum(child.buildable(after_queue + f, after_hold) for f in futures) == fresh.success
    assert shares, "some placement can start the build"
    assert share == pytest.approx(max(shares.values()))
    if share > 0:
        assert way is not None and shares[way.placements[0]] == pytest.approx(share)
        assert way.cells & ~shape.allowed == 0 and shape.must & ~way.cells == 0  # the way builds the shape


def test_guided_practice_keeps_the_saved_piece():
    """Tub (save I) with I, J, O, T left in the bag (the 2nd PC): those pieces make the shape only by placing the
    I, so the coach offers no way and a build chance of 0; with J, S, T, I the advice builds it and keeps the I."""
    from ai.protocol import Snapshot
    from game.board import Board
    from game.pieces import Piece
    from game.rules import Rules

    entry = next(e for e in load_library() if e.key == "pc2_tub_save_i")
    cells = entry.cells()

    def position(bag: str) -> Snapshot:
        pieces = [Piece[c] for c in bag]
        return Snapshot(
            board=Board.empty(),
            current=pieces[0],
            queue=tuple(pieces[1:]) + (Piece.Z, Piece.L),  # the next bag's first two in the previews
            hold=None,
            hold_used=False,
            b2b=0,
            combo=0,
            rules=Rules.named("srs"),
            randomizer="7bag",
            randomizer_state=tuple(sorted(set(Piece) - {Piece.Z, Piece.L})),
        )

    clear_finders()
    snapshot = position("IJOT")
    assert plan(snapshot, remaining_shape(snapshot, cells.must, cells.may), True)[1] > 0  # the shape alone: yes
    assert plan(snapshot, remaining_shape(snapshot, cells.must, cells.may, Piece.I), True) == (None, 0.0)
    snapshot = position("JSTI")
    way, share = plan(snapshot, remaining_shape(snapshot, cells.must, cells.may, Piece.I), True)
    assert share == 1.0 and way is not None
    assert Piece.I not in [p.piece for p in way.placements] and way.leftover is Piece.I
