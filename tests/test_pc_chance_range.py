"""While the exact PC chance is searched for long (seconds under NRS or without kicks at some later PCs' first
positions), the panel shows the bounds proved so far instead of "computing…": the chance lies between them, and
the final chance is inside every range shown."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from ai.pc import chance as chance_module
from ai.pc import opening
from ai.pc.api import solve
from ai.pc.chance import futures_trie, pc_chance, queue_length
from ai.pc.percent import TrieSearch
from ai.protocol import PcAnswer, pc_panel, percent_text, range_text
from game.pieces import Piece, Rotation
from game.placement import Move, Placement
from game.randomizer import make_randomizer
from game.rules import Rules
from tests.test_pc_exactness import forget_all_the_solver_learned

NRS = Rules.named("nrs")  # no table of its own: searched (unbounded, `_long_searches` below)
# A later PC's first position under NRS (6 of the bag dealt before the piece in play, a J held): 83 of 84 futures,
# about 0.7 s of search here, decided only after the other placements are ruled out
HELD = Piece.J
SHOWN = (Piece.S, Piece.O, Piece.I, Piece.T, Piece.J, Piece.S)
BAG_LEFT = (Piece.L, Piece.Z)


# These tests are of long searches (the bounds told while one runs, the panel meanwhile). NRS with 180's six-dealt
# table holds the NRS position (83 of 84, as here): its count would bound the search, which would end as soon as a
# placement reaches it (~10 ms, no range shown). So no wider rules' table bounds a search here.
pytestmark = pytest.mark.usefixtures("no_wider_bound")


def _chance(**kwargs):
    return pc_chance(0, SHOWN[0], list(SHOWN[1:]), HELD, BAG_LEFT, make_randomizer("7bag", 0), NRS, 4, **kwargs)


def _check_ranges(ranges: list[tuple[float, float]], final: float) -> None:
    """Each range holds the final chance, and each is inside the one before (proofs only add up)."""
    assert ranges
    for lower, upper in ranges:
        assert lower <= final <= upper
    for (lower, upper), (next_lower, next_upper) in itertools.pairwise(ranges):
        assert lower <= next_lower and next_upper <= upper


def _wins_after(placement: Placement, hold: bool) -> int:
    """How many of the position's 84 futures a PC follows the placement in (placed after hold is pressed, or not):
    counted queue by queue by the single-queue solver, apart from the chance search."""
    sequences = futures_trie(SHOWN, queue_length(10, HELD, True), make_randomizer("7bag", 0), BAG_LEFT)[0].sequences
    assert len(sequences) == 84
    held = SHOWN[0] if hold else HELD
    return sum(solve(placement.mask, sequence[1:], hold=held, rules=NRS).solvable for sequence in sequences)


def test_the_bounds_told_while_searching_hold_the_chance_found() -> None:
    """The bounds hold the chance and narrow; the placement told with them (the best found so far) wins the lower
    bound, counted queue by queue."""
    told: list[tuple] = []
    result = _chance(should_stop=lambda: False, progress=lambda *report: told.append(report), progress_ms=0)
    quiet = _chance()
    assert (result.chance, result.best_placement) == (quiet.chance, quiet.best_placement)  # telling changes nothing
    assert round(result.chance * result.futures) == 83 and result.futures == 84
    ranges = [(lower, upper) for lower, upper, _ in told]
    _check_ranges(ranges, result.chance)
    shown = [r for r in ranges if range_text(*r)]
    assert any(lower < result.chance for lower, _ in shown) and any(result.chance < upper for _, upper in shown)
    assert all((lead is None) == (lower == 0) for lower, _, lead in told)
    least: dict = {}  # the most each placement told was claimed to win
    for lower, _, lead in told:
        if lead is not None:
            least[lead] = max(least.get(lead, 0.0), lower)
    assert least
    for lead, lower in least.items():
        assert _wins_after(lead.placement, lead.hold) >= round(lower * 84)
    best = result.best_placement
    assert _wins_after(best.placement, best.hold) == 83  # the count above is the chance's own


def test_the_lower_bound_never_falls_when_a_running_search_forgets(monkeypatch) -> None:
    """When the compiled search's memo fills up it starts over, and a running search's stack then holds fewer of
    the wins it had shown until it finds them again (the slowest NRS searches do this many times). Simulated here,
    every other look at the stack sees nothing: the lower bound told still never falls."""
    import ai.pc.jit_trie as jit_trie

    real = jit_trie.TrieKernel._won_so_far
    looks = itertools.count()

    def forgetful(self, *args) -> int:
        return real(self, *args) if next(looks) % 2 else 0

    monkeypatch.setattr(jit_trie.TrieKernel, "_won_so_far", forgetful)
    told: list[tuple] = []
    result = _chance(should_stop=lambda: False, progress=lambda *report: told.append(report), progress_ms=0)
    assert round(result.chance * result.futures) == 83
    assert next(looks) > 2
    _check_ranges([(lower, upper) for lower, upper, _ in told], result.chance)


@pytest.mark.parametrize("hold_pressed", [False, True])
def test_which_placement_is_refined_first_changes_no_answer(monkeypatch, hold_pressed: bool) -> None:
    """FIRST_WIN_FIRST only changes the order placements are refined in: the same chance, and the placement
    advised wins as many futures (counted queue by queue), as hold pressed or not."""

    def ask():
        if hold_pressed:  # the held J in play, the S held, hold spent
            shown = (HELD, *SHOWN[1:])
            rules, bag = NRS, make_randomizer("7bag", 0)
            return pc_chance(0, shown[0], list(shown[1:]), SHOWN[0], BAG_LEFT, bag, rules, 4, hold_spent=True)
        return _chance()

    monkeypatch.setattr(chance_module, "FIRST_WIN_FIRST", False)
    before = ask()
    monkeypatch.setattr(chance_module, "FIRST_WIN_FIRST", True)
    after = ask()
    assert after.chance == before.chance and after.futures == before.futures
    if not hold_pressed:
        assert _wins_after(after.best_placement.placement, after.best_placement.hold) == 83


def test_asking_the_searches_that_rule_out_for_more_futures_changes_no_answer(monkeypatch) -> None:
    """ADAPT_RULING only changes how many futures a trie search ruling a placement out is asked for (more, where
    fewer of those asked before turned out lost): the same chance, and here it does ask more. A later PC's first
    position under NRS with 180 turns (five of the bag dealt before the piece in play, a Z held), 34 of 42 futures,
    searched (`table=False`: NRS's five-dealt table holds it)."""
    rules = replace(NRS, allow_180=True)

    def ask(adapt: bool) -> tuple[int, int]:
        """(futures kept, futures asked of the trie searches in all)"""
        monkeypatch.setattr(chance_module, "ADAPT_RULING", adapt)
        forget_all_the_solver_learned()  # each way from scratch, so each asks its own questions
        sizes: list[int] = []
        run = TrieSearch.run

        def counted(self, bits, h, held, node, wanted=None):
            sizes.append((node.leaves if wanted is None else wanted & node.leaves).bit_count())
            return run(self, bits, h, held, node, wanted)

        monkeypatch.setattr(TrieSearch, "run", counted)
        queue = [Piece.Z, Piece.S, Piece.Z, Piece.J, Piece.L]
        bag_left = (Piece.I, Piece.O, Piece.T)
        result = pc_chance(0, Piece.S, queue, Piece.Z, bag_left, make_randomizer("7bag", 0), rules, 4, table=False)
        monkeypatch.setattr(TrieSearch, "run", run)
        assert result.futures == 42
        return round(result.chance * result.futures), sum(sizes)

    (before, asked_before), (after, asked_after) = ask(False), ask(True)
    assert after == before == 34
    assert asked_after > asked_before


NO_KICKS = opening.RULES["none-180"]
# A later PC's first position without kicks (two of the bag dealt before the S in play, hold pressed for it, the Z
# held): 348 of 360 futures; the other 12 are lost whatever the S's placement. Searched without the tables (no kicks'
# two-dealt table holds it now)
SPENT = (Piece.S, (Piece.L, Piece.I, Piece.J, Piece.S, Piece.Z), Piece.Z, tuple(Piece[p] for p in "IJLOST"))


@pytest.mark.parametrize("position", ["nrs", "nrs-hold-pressed", "no-kicks-hold-spent"])
def test_the_pass_that_finds_the_futures_no_placement_wins_changes_no_answer(monkeypatch, position: str) -> None:
    """UNION_PASS only decides futures sooner (each placement asked for those no placement before it won; those none
    won are then out of every bound): the same chance both ways, every range told on the way holds it (a future
    wrongly called lost everywhere would bring the upper bound below it), and the placement advised at the NRS
    position wins 83 futures, counted queue by queue."""

    def ask(union: bool, told: list):
        monkeypatch.setattr(chance_module, "UNION_PASS", union)
        forget_all_the_solver_learned()
        report = {"progress": lambda *bounds: told.append(bounds[:2]), "progress_ms": 0, "should_stop": lambda: False}
        if position == "nrs":
            return _chance(**report)
        if position == "nrs-hold-pressed":  # the held J in play, the S held, hold spent
            shown = (HELD, *SHOWN[1:])
            bag = make_randomizer("7bag", 0)
            return pc_chance(0, shown[0], list(shown[1:]), SHOWN[0], BAG_LEFT, bag, NRS, 4, hold_spent=True, **report)
        current, queue, held, bag_left = SPENT
        bag = make_randomizer("7bag", 0)
        return pc_chance(
            0, current, list(queue), held, bag_left, bag, NO_KICKS, 4, hold_spent=True, table=False, **report
        )

    told_before: list = []
    told_after: list = []
    before, after = ask(False, told_before), ask(True, told_after)
    assert (after.chance, after.futures) == (before.chance, before.futures)
    assert not after.approximate
    _check_ranges(told_after, after.chance)
    if position == "nrs":
        assert _wins_after(after.best_placement.placement, after.best_placement.hold) == 83
    if position == "no-kicks-hold-spent":
        assert round(after.chance * after.futures) == 348 and after.futures == 360


def test_the_panel_shows_the_proved_range_while_computing_and_where_a_search_stopped() -> None:
    def text(**kwargs) -> str:
        return pc_panel(PcAnswer(1, solvable=False, **kwargs)).chance_text

    assert text(final=False, chance_range=(0.5, 0.9)) == "PC chance 50–90% (computing…)"
    assert text(final=False, chance_range=(0.0, 1.0)) == "PC chance: computing…"  # nothing proved yet
    assert text(final=False, chance_range=(0.889, 0.911)) == "PC chance 88–92% (computing…)"  # rounded outwards
    assert text(final=False, chance_range=(0.0, 0.911)) == "PC chance at most 92% (computing…)"
    assert text(final=False, chance_range=(0.686, 0.997)) == "PC chance at least 68% (computing…)"
    assert text(final=False, chance_range=(0.5, 0.5)) == "PC chance 50% (confirming…)"
    assert text(final=False, chance_range=(0.0, 0.0)) == "PC chance 0% (confirming…)"
    assert text(final=True, chance=83 / 84) == f"PC chance {percent_text(83 / 84)}"
    # a search stopped at the time limit: what it proved still holds
    assert text(final=True, chance_range=(0.686, 0.997)) == "PC chance at least 68% (stopped: too long)"
    assert text(final=True, chance_range=(0.0, 1.0)) == "PC chance: not computed (too long)"
    assert text(final=True) == "PC chance: not computed (too long)"
    assert pc_panel(PcAnswer(1, solvable=False, final=False, chance_range=(0.5, 0.9))).chance is None


def test_while_computing_and_where_stopped_the_panel_advises_the_best_placement_found() -> None:
    """With the range comes the placement that wins its lower bound: the panel advises it, says it is the best found
    so far (not known to be the best), and marks it provisional (autoplay waits for the end)."""
    move = Move(Placement(Piece.L, Rotation.NORTH, 4, 0), keys=(), hold=True)
    computing = pc_panel(PcAnswer(1, solvable=False, final=False, chance_range=(0.686, 0.997), best_next=move))
    assert computing.advice == "Next: hold, then place the L as shown (the best found so far)"
    assert computing.first_move == move and computing.provisional and computing.status == "possible"
    assert computing.chance is None and computing.chance_text == "PC chance at least 68% (computing…)"
    stopped = pc_panel(PcAnswer(1, solvable=False, final=True, chance_range=(0.686, 0.997), best_next=move))
    assert stopped.advice == "Next: hold, then place the L as shown (the best found before the search stopped)"
    assert stopped.first_move == move and stopped.provisional
    done = pc_panel(PcAnswer(1, solvable=False, final=True, chance=0.9, best_next=move))
    assert done.advice == "Next: hold, then place the L as shown (keeps the chance highest)" and not done.provisional


@pytest.fixture
def app(app):
    """conftest's app, with the AI worker in a thread (so the reports' period can be set here)."""
    from tests.players import use_thread_worker

    return use_thread_worker(app)


def test_a_player_watching_the_panel_sees_ranges_that_hold_the_chance_then_follows_it(app, monkeypatch):
    """PC practice under NRS at that position: the player watches the panel tick by tick while the worker searches
    (reports at every clock check here, PROGRESS_MS 0), makes a mistake and takes it back, presses hold on its own
    where the advice says to hold, watches again, and plays the advice one key at a time. Every range shown holds
    the final chance of its position, and each final chance is the search's."""
    from game.board import Board
    from game.executor import KeyExecutor
    from game.handling import Button
    from settings.model import change
    from tests.players import pc_answered, pc_practice, run_until
    from ui.coach import snapshot_of
    from ui.play_state import StartPosition

    monkeypatch.setattr(chance_module, "PROGRESS_MS", 0.0)
    assert app.update_settings(change(app.settings, "rules", rotation="nrs", allow_180=False)) is None
    start = StartPosition(board=Board.empty(), queue=list(SHOWN), hold=HELD, randomizer_state=BAG_LEFT)
    keys, scene = pc_practice(app, 1, start)
    coach, game = scene.coach, scene.game

    def watch():
        """The final panel of the position in play, every panel shown before it checked against it."""
        seen: list[tuple[str, tuple[float, float] | None]] = []

        def watched() -> bool:
            shown = coach.pc_shown
            if shown is not None and not shown.final:
                seen.append((coach.pc_panel().chance_text, shown.chance_range))
                if coach.pc_panel().provisional:  # the best found so far is shown, and not played for the player
                    assert coach.pc_panel().first_move == shown.best_next and coach.advice_move() is None
            return keys.idle and pc_answered(coach) and coach.pc_panel().first_move is not None

        assert run_until(app, watched)
        panel = coach.pc_panel()
        s = snapshot_of(game)
        args = (s.board, s.current, list(s.queue), s.hold, s.randomizer_state, make_randomizer("7bag", 0), NRS, 4)
        assert panel.chance == pc_chance(*args, hold_spent=s.hold_used).chance
        assert panel.chance_text == f"PC chance {percent_text(panel.chance)}"
        for text, shown in seen:  # what was read is the range drawn from the answer, else "computing…"
            assert text == ((shown is not None and range_text(*shown)) or "PC chance: computing…")
        return panel, [shown for _, shown in seen if shown is not None and range_text(*shown)]

    try:
        assert game.rules.cache_key() == NRS.cache_key()
        panel, ranges = watch()
        assert round(panel.chance * 84) == 83
        _check_ranges(ranges, panel.chance)  # a long search here: ranges were shown
        keys.pending = [Button.HARD_DROP]  # a mistake, taken back: the same panel, every range on the way true
        assert run_until(app, lambda: game.stats.pieces == 1)
        keys.pending = [Button.UNDO]
        assert run_until(app, lambda: keys.idle and game.stats.pieces == 0 and game.board.bits == 0)
        again, more = watch()
        assert (again.chance, again.first_move) == (panel.chance, panel.first_move)
        for lower, upper in more:
            assert lower <= again.chance <= upper
        move = panel.first_move
        if move.hold:
            keys.pending = [Button.HOLD]  # on its own, then the panel is read again
            assert run_until(app, lambda: keys.idle and game.hold_used)
            after, more = watch()
            assert after.chance == panel.chance and not after.first_move.hold
            assert after.first_move.placement == move.placement
            for lower, upper in more:
                assert lower <= after.chance <= upper
            move = after.first_move
        keys.executor = KeyExecutor(move.keys)  # one key per tick
        assert run_until(app, lambda: game.stats.pieces == 1)
        assert game.board.bits == move.placement.mask
    finally:
        app.scenes.pop()


def test_a_chance_stopped_at_the_time_limit_shows_what_it_proved(app, monkeypatch):
    """The worker gives up on a chance at CHANCE_LIMIT_MS (20 s; 250 ms here, where this search takes ~0.7 s): the
    final panel then says what was proved, which holds the exact chance, instead of only "not computed", and
    advises the best placement found; a player plays it one key at a time (hold on its own first where it holds),
    and it wins at least the lower bound shown, counted queue by queue."""
    from ai import pc_service
    from game.board import Board
    from game.executor import KeyExecutor
    from game.handling import Button
    from settings.model import change
    from tests.players import pc_answered, pc_practice, run_until
    from ui.play_state import StartPosition

    monkeypatch.setattr(chance_module, "PROGRESS_MS", 0.0)
    monkeypatch.setattr(pc_service, "CHANCE_LIMIT_MS", 250.0)
    assert app.update_settings(change(app.settings, "rules", rotation="nrs", allow_180=False)) is None
    start = StartPosition(board=Board.empty(), queue=list(SHOWN), hold=HELD, randomizer_state=BAG_LEFT)
    keys, scene = pc_practice(app, 1, start)
    coach, game = scene.coach, scene.game
    try:
        assert run_until(app, lambda: pc_answered(coach))
        shown, panel = coach.pc_shown, coach.pc_panel()
        assert shown.chance is None and panel.chance is None and shown.chance_range is not None
        lower, upper = shown.chance_range
        assert lower <= _chance().chance <= upper
        assert panel.chance_text == range_text(lower, upper, "stopped: too long")
        assert panel.chance_text.endswith("(stopped: too long)")
        move = panel.first_move
        assert lower > 0 and move is not None and panel.provisional  # (~0.25 s of search wins some futures here)
        assert panel.advice.endswith("as shown (the best found before the search stopped)")
        assert coach.advice_move() == move  # stopped: nothing better will come, autoplay may play it
        assert _wins_after(move.placement, move.hold) >= round(lower * 84)
        if move.hold:
            keys.pending = [Button.HOLD]
            assert run_until(app, lambda: keys.idle and game.hold_used)
            assert game.active is not None and game.active.piece == move.placement.piece
            move = replace(move, hold=False)
        keys.executor = KeyExecutor(move.keys)  # one key per tick
        assert run_until(app, lambda: game.stats.pieces == 1)
        assert game.board.bits == move.placement.mask
    finally:
        app.scenes.pop()
