"""The later-start tables' test helpers, shared by tests/test_pc_later_start.py (the held kinds) and
tests/test_pc_later_start_empty.py (the hold-empty kinds): the tables shipped, loaded once a process; the positions
they are checked at; the search they are checked against, each position once a process; and a PC-practice game
played from the panel one key at a time."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache

import pytest

from ai.pc import later_start, opening
from ai.pc.api import solve
from ai.pc.chance import pc_chance
from game.pieces import Piece
from game.randomizer import make_randomizer
from game.rules import Rules

SEVEN_BAG = make_randomizer("7bag", 0)
RULES = opening.RULES["srs-180"]  # the game's default rules: the table shipped
NO_TABLES = Rules.named("nrs")  # NRS without 180 turns: no table of its own (NRS with 180's bound it, not answer it)


def fewest_kept(
    table: dict, keys: Iterable[later_start.Key], acceptable: Callable[[later_start.Key], bool]
) -> later_start.Key:
    """Of `keys`, the first `acceptable` position whose best placement keeps the fewest futures (table order)."""
    found = next((key for key in sorted(keys, key=lambda k: (table[k][0].count, k)) if acceptable(key)), None)
    assert found is not None, "no such position is acceptable"
    return found


# every table shipped, of any kind: (rule set, kind) for each ai/pc/<kind>_<rules>.txt.gz
SHIPPED_TABLES = [
    (name, kind) for kind in later_start.KINDS for name in opening.RULES if later_start.path(name, kind).exists()
]


@cache
def load_shipped(name: str, kind: later_start.Kind) -> dict:
    return later_start.load_table(later_start.path(name, kind), opening.RULES[name], kind)


@cache
def kind_keys(kind: later_start.Kind) -> tuple:
    """The kind's positions in its order, listed once for its tables under every rule set: listing a big kind takes
    up to ~1.2 s, which each table's bisection test paid (those tests: 132 -> 57 s on one core)."""
    return tuple(kind.keys())


def shipped_params(kinds: tuple) -> list:
    """The shipped tables of these kinds, as pytest parameters named kind-rules."""
    return [pytest.param(name, kind, id=f"{kind.name}-{name}") for name, kind in SHIPPED_TABLES if kind in kinds]


# tables made part way, by (rules, kind) (`make_later_start_table.py --update` goes on from the positions a table
# holds; no kicks' later-start table was made so over four sessions): their lines are checked as the others', the
# positions they lack are searched (bounded by the wider rules' table, where there is one: NRS has none). Once whole,
# a table leaves this set (the table tests fail until it does). No kicks' two-dealt table was made so over five
# sessions (18,624 positions one by one, then groups in the kind's order, with their mirror images), NRS's held
# six-dealt table over three and plain SRS's three-dealt one over two; all three are whole.
PART_MADE: set[tuple[str, str]] = set()


@cache
def _every_key(kind: later_start.Kind) -> frozenset:
    return frozenset(kind_keys(kind))


def assert_whole(name: str, kind: later_start.Kind, table: dict) -> None:
    """Every position of the kind, or, made part way (and known to be so), some of them and no other."""
    if (name, kind.name) in PART_MADE:
        assert table and table.keys() < _every_key(kind)
    else:
        assert table.keys() == _every_key(kind)
        assert len(table) == kind.size


def position_of(
    key: later_start.Key, spent: bool, kind: later_start.Kind = later_start.LATER_START, rules=RULES
) -> tuple:
    """pc_chance's arguments at a table's position, as it is or with hold pressed there."""
    held, shown = key
    state = kind.state(shown)
    if spent:  # hold pressed: the held piece in play, the one that was in play held
        return (0, held, list(shown[1:]), shown[0], state, SEVEN_BAG, rules, 4)
    return (0, shown[0], list(shown[1:]), held, state, SEVEN_BAG, rules, 4)


_SEARCHED: dict[tuple, float] = {}


def searched_chance(board, current, queue, hold, state, bag, rules, lines, hold_spent: bool = False) -> float:
    """pc_chance's chance searched (no table), each position once a process: the tests comparing a table's
    entries with the search and the player tests reading the panel at those same positions ask for the same
    searches (each up to seconds; ~2 minutes of the tests' CPU time were such repeats)."""
    bits = board if isinstance(board, int) else board.bits
    key = (bits, current, tuple(queue), hold, tuple(state), id(bag), rules.cache_key(), lines, hold_spent)
    if key not in _SEARCHED:
        args = (board, current, list(queue), hold, state, bag, rules, lines)
        _SEARCHED[key] = pc_chance(*args, hold_spent=hold_spent, table=False).chance
    return _SEARCHED[key]


def doubled(kind: later_start.Kind, shown: tuple[Piece, ...]) -> tuple[Piece, ...]:
    """The pieces shown with one twice in one bag, which no position has: the first two shown the same, or with six
    dealt (the bag's last is the piece in play alone, and the next bag may begin with it) the next two."""
    at = 2 if kind.dealt == 6 else 1
    return (*shown[:at], shown[at - 1], *shown[at + 1 :])


def no_2_line_pc_shown(rules: Rules) -> Callable[[later_start.Key], bool]:
    """Do the pieces shown make no 2-line PC? Where they make one, the panel shows that PC and its chance (the lowest
    PC the known pieces finish, ai.pc_service), not the table's 4-line chance (with five dealt, six pieces shown
    often make one)."""
    return lambda key: not solve(0, key[1], hold=key[0], rules=rules, lines=2, verify=False).solvable


# the rule sets a player plays the tables under here, as the settings name them (rotation, 180 turns)
PLAYED = {
    "srs-180": ("srs", True),
    "srs": ("srs", False),
    "srsplus-180": ("srs+", True),
    "srsplus": ("srs+", False),
    "none-180": ("none", True),
    "nrs-180": ("nrs", True),
}


def played_params(kinds: tuple) -> list:
    return [param for param in shipped_params(kinds) if param.values[0] in PLAYED]


class Practice:
    """A PC-practice game started at a later PC's first position (empty field) under the rule set `name`, played as
    a player does: from what the panel says, one key at a time."""

    def __init__(self, app, name: str, held: Piece | None, shown: tuple[Piece, ...], state: tuple) -> None:
        from game.board import Board
        from settings.model import change
        from tests.players import pc_practice, use_thread_worker
        from ui.play_state import StartPosition

        use_thread_worker(app)  # (conftest's app; before anything asks for its worker)
        rotation, allow_180 = PLAYED[name]
        assert app.update_settings(change(app.settings, "rules", rotation=rotation, allow_180=allow_180)) is None
        start = StartPosition(board=Board.empty(), queue=list(shown), hold=held, randomizer_state=state)
        self.app = app
        self.keys, scene = pc_practice(app, 1, start)
        self.coach, self.game = scene.coach, scene.game
        assert self.game.rules.cache_key() == opening.RULES[name].cache_key()  # the settings' rules are the game's

    def panel(self):
        """The panel once it names a move."""
        from tests.players import pc_answered, run_until

        assert run_until(self.app, lambda: pc_answered(self.coach) and self.coach.pc_panel().first_move is not None)
        return self.coach.pc_panel()

    def searched(self) -> float:
        """The chance at the game's position as it is, searched (no table)."""
        from ui.coach import snapshot_of

        s = snapshot_of(self.game)
        args = (s.board, s.current, list(s.queue), s.hold, s.randomizer_state, SEVEN_BAG, s.rules, 4)
        return searched_chance(*args, hold_spent=s.hold_used)

    def press(self, button, done) -> None:
        from tests.players import run_until

        self.keys.pending = [button]
        assert run_until(self.app, done)

    def make_a_mistake_and_take_it_back(self, panel) -> None:
        """The piece in play dropped where it is, then undone: the same panel again."""
        from game.handling import Button

        self.press(Button.HARD_DROP, lambda: self.game.stats.pieces == 1)
        game = self.game
        self.press(Button.UNDO, lambda: self.keys.idle and game.stats.pieces == 0 and game.board.bits == 0)
        again = self.panel()
        assert again.chance == panel.chance and again.advice == panel.advice

    def play(self, move) -> None:
        """The move's keys, one per tick, until it is placed."""
        from game.executor import KeyExecutor
        from tests.players import pc_answered, run_until

        self.keys.executor = KeyExecutor(move.keys)
        assert run_until(self.app, lambda: self.game.stats.pieces == 1)
        assert self.game.board.bits == move.placement.mask
        assert run_until(self.app, lambda: pc_answered(self.coach))
