"""Benchmark the perfect-clear solver on the shared solution-finder cases, by group.

    python bench/pc.py [--groups empty,setups,nohold,harddrop,midpc,percent,chance] [--keep-caches]
    python bench/pc.py --against REV      # the same groups for git revision REV and this tree, interleaved
    python bench/pc.py --against REV --same-questions --groups wander,follow   # REV asked what this tree asked

Groups (thread CPU ms per search, first solution; every case starts with empty caches unless --keep-caches,
so each number is a cold search in a warm interpreter, the fair match for solution-finder's warm-JVM figure):
  empty     the 100 empty-field cases (E*), 4 lines, hold, soft drop
  setups    the 52 set-up cases, hold, soft drop
  nohold    all 152 cases without hold
  harddrop  all 152 cases, hard drops only, hold
  midpc     fields after 3 and 6 placements of the shared solutions, with the rest of the case's queue
  percent   `*p7,TIJL` on the empty field (one number, thread CPU s)
  patterns  whole-pattern `percent` of the live chance's questions at a 1st PC (issue 11's examples), each in a
            fresh process: CPU seconds and peak memory
  chance    pc_chance at every position of the 7-bag PC loop (ai.pc.loop) of CHANCE_SEEDS games (7 PCs each),
            no budget, caches kept within a game; "over 200" counts the positions past the live target
  live      the same positions asked as the worker asks (ai.pc_service.exact_chance, which looks for a newer
            question as it goes), thread CPU ms until the exact chance
  opening   a 7-bag game's first position, the one after the advised placement (when it does not hold) and the
            first with hold pressed, for 100 seeded bag orders: pc_chance as the worker asks it (the opening table,
            ai.pc.opening, where the tree has one), and in the same run the search without the table ("search")
  follow    pc_chance at every position of CHANCE_SEEDS games of 7 4-line PCs played as a player who follows the
            panel plays them: the first step of the PC shown when the pieces shown make one, else the placement the
            chance advises (the loop of `chance` follows the solver's path instead); caches kept within a game
  r_hold, r_nohold, r_hard
            100 fresh 7-bag queues each (seeded; 11 pieces from a bag boundary, the shared E* cases' kind) on the
            empty field: with hold, without hold, hard drop only (the targets must hold beyond the shared cases)
  movegen   the PC search's own placement generator (ai.pc.movegen, compiled) against the project's one move
            generator (game.movegen.generate_raw, cut to the field's rows) on the mid-PC fields, per piece: the cell
            sets must be equal; the ratio is what keeping the specialised generator buys (issue 13)
  x_hard    the same hard-drop search on 30 queues of 11 independent random pieces (not bag queues: up to four of
            a piece); no target, it shows where the search is still slow
  firsts    the live chance after every first placement of a game's first piece (no hold), searched without the
            tables, for FIRSTS_SEEDS: what a player who opens their own way meets at the second piece (the `chance`
            loop plays the solver's opening only); caches kept within a game
  seconds   `firsts` under the game's default rules (SRS with 180) as the worker asks (the second-position table,
            ai.pc.seconds, where it holds the first placement), and in the same run the search without the tables
            ("search"; the two chances must be equal)
  seconds-srsplus-no180
            `seconds` under SRS+ without 180 turns (its own table after a first placement), for every first
            placement of a T, Z, L and J (seeds 4, 5, 6, 9)
  held      `seconds` with the first piece held and each placement of the second (the next bag's first piece
            shown, 120 futures): the held table (ai.pc.seconds.HELD) against the search
  holding   `seconds` with hold pressed at the second piece after each placement of the first (hold spent, the
            next bag's first piece shown, 120 futures): the hold-pressed table (ai.pc.seconds.HOLDING) against
            the search
  later-start
            a later PC's first position under the default rules (empty field, a bag's last six shown, one of them
            held), as it is and with hold pressed: the later-start table (ai.pc.later_start)
  later-start-nokicks
            `later-start` under no kicks (180 turns on): its table is made part way, the positions it lacks are
            bounded by SRS with 180's (searched, the row below, ~4 minutes)
  later-firsts, later-firsts-srs, later-firsts-srsplus, later-firsts-srsplus-no180, later-firsts-nokicks,
  later-firsts-nrs
            300 later PCs' first positions at random (any bag offset, any piece held or none, hold pressed at about
            a third), the live chance as the worker asks it, under the default rules, plain SRS, SRS+ with and
            without 180 turns, no kicks and NRS (180 turns on): the later-start tables of each kind where the rules
            have them, else the wider rules' as bounds, else searched; of those over 200 ms, how soon the panel
            would show a proved range (pc_chance's `progress` at its own cadence, thread ms; this tree only)
  wander    the live chance along 12 games under the default rules, tables on, where the player follows the
            panel half the time and otherwise plays a flat spot of their own (hold pressed or not, by the seed)
            that still makes the PC with the pieces really coming, through the PCs until the chance is 0; the
            positions right after a hold press are asked too
  wander-srs, wander-srsplus
            `wander` under plain SRS and under SRS+ (with 180), with their tables
  wander-nokicks, wander-srsplus-no180
            `wander` under two rule sets with few tables of their own: no kicks (180 turns on, the settings'
            default; its opening table, the rest bounded by SRS with 180's tables) and SRS+ without 180 turns (its
            opening table and the one after a first placement; the rest bounded by SRS+ with 180's tables:
            ai.pc.opening.wider_rules)
  wander-nrs
            `wander` under NRS (180 turns on, the settings' default): its opening table answers a game's first
            positions; no table holds or bounds the others, they are searched
  spots, spots-srs, spots-srsplus
            along `wander`'s games (PCs 2-7), every placement of a later PC's first piece (either piece, covering
            empty cells or not), then the next position's chance, asked right after the first position's: a
            player who drops at once on any spot of their own (`wander`'s own spots are flat and keep the PC)
  spots-hold, spots-hold-srs, spots-hold-srsplus
            `spots` (default rules, plain SRS, SRS+), then hold pressed at each of those positions (hold spent):
            that position's chance, asked right after the one before the press (only it is timed)
  floor     the slowest `chance` positions (FLOOR_IDS), taken apart: the live chance as in `chance`; the compiled
            trie search deciding every next placement's futures (fresh memo); and the same search asked only for
            the futures the best placement loses, for every placement (the least any placement must lose to be
            no better), with how many placements that alone rules out. What the method must at least do there.
Prints n, solvable count, median / p99 / max, and for `empty`/`setups` solution-finder's warm median.

With --against, `wander` and `follow` play each tree's own games: where two placements are equally good, the tree
names one or the other, and the games part from there (n differs). --same-questions asks REV the very questions
this tree asked in those groups, game by game with caches cleared as before, and checks the chances are equal.
"""

from __future__ import annotations

import argparse
import csv
import functools
import gc
import importlib
import inspect
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # (the bench imports the tree's modules when it runs: --against measures other trees)
    from ai.pc.loop import LoopPosition
    from game.pieces import Piece

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT.parent / "shared" / "pc" / "cases.tsv"
PATTERNS = ("LJSZIOT,*p4", "TOZSIJL,*p4", "IZLTSOJ,*p4", "LJSZIO,*p5", "*p7,TIJL")
# use_hold, soft drop, 7-bag queues
RANDOM_KINDS = {"r_hold": (True, True, True), "r_nohold": (False, True, True), "r_hard": (True, False, True)}
RANDOM_KINDS["x_hard"] = (True, False, False)
RANDOM_QUEUES = 100
GROUPS = (
    "empty",
    "setups",
    "nohold",
    "harddrop",
    "midpc",
    "percent",
    "patterns",
    "chance",
    "live",
    "opening",
    "follow",
    "movegen",
    *RANDOM_KINDS,
    "firsts",
    "seconds",
    "seconds-srsplus-no180",
    "held",
    "holding",
    "later-start",
    "later-start-nokicks",
    "later-firsts",
    "later-firsts-srs",
    "later-firsts-srsplus",
    "later-firsts-srsplus-no180",
    "later-firsts-nokicks",
    "later-firsts-nrs",
    "wander",
    "wander-srs",
    "wander-srsplus",
    "wander-nokicks",
    "wander-srsplus-no180",
    "wander-nrs",
    "spots",
    "spots-srs",
    "spots-srsplus",
    "spots-hold",
    "spots-hold-srs",
    "spots-hold-srsplus",
    "floor",
)


# the rule sets the groups are played under, by ai.pc.opening.RULES' names; these are built here, so that an
# older tree (--against), whose RULES lacks them, plays them too (without tables or bounds, if it knows none)
OTHER_RULES = {"none-180": ("none", True), "srsplus": ("srs+", False), "nrs-180": ("nrs", True)}


def rules_named(name: str):
    """The rules of a group's rule set name. Built here, not imported, so an older tree (--against) plays the
    same rules."""
    from ai.pc.opening import RULES
    from game.rules import Rules

    if name in OTHER_RULES:
        rotation, allow_180 = OTHER_RULES[name]
        return Rules.named(rotation, allow_180=allow_180)
    return RULES[name]


def settle() -> None:
    """Before a timed PC question, what the worker does between requests (ai.worker.freeze_survivors): collect
    the garbage, then freeze what is kept, so no full collection of the caches and tables (~100 ms) starts inside
    the question. Written out here so an older tree (--against) is measured the same way."""
    gc.collect()
    gc.freeze()


def clear_caches() -> None:
    from ai.pc import movegen, search, tiling

    movegen.for_rules.cache_clear()
    search.searcher_for.cache_clear()
    tiling.clear_memo() if hasattr(tiling, "clear_memo") else tiling._MEMO.clear()
    try:
        from ai.pc import chance

        chance.store_for.cache_clear()
    except AttributeError:  # older trees (--against) have no store
        pass
    # the trie search's memos, kept by the futures searched (and in the compiled search's shared table): a game
    # played again (bench/profile_kernels.py) must not find its own proofs
    importlib.import_module("ai.pc.percent")._MEMOS.clear()
    try:
        from ai.pc import jit_trie

        for shared in jit_trie._SHARED:  # emptied in place: new arrays would time their first page faults
            shared.forget()
    except (ImportError, AttributeError):  # without numba, or an older tree (--against) laid out otherwise
        pass


# --same-questions: the questions `wander` and `follow` ask, recorded by this tree and asked again by the other
# one. Plain data (ints), so the other tree rebuilds them with its own classes.
_RECORDED: list[list[dict]] | None = None


def _record_game() -> None:
    if _RECORDED is not None:
        _RECORDED.append([])


def _record(
    ident: str, rules_name: str, bits, current, queue, hold, state, lines: int, spent: bool, chance: float
) -> None:
    """One question as pc_chance was asked it (the bag is a 7-bag; `state` the pieces left in it)."""
    if _RECORDED is None:
        return
    _RECORDED[-1].append(
        {
            "id": ident,
            "rules": rules_name,
            "bits": bits,
            "current": int(current),
            "queue": [int(p) for p in queue],
            "hold": None if hold is None else int(hold),
            "state": [int(p) for p in state],
            "lines": lines,
            "spent": spent,
            "chance": chance,
        }
    )


def _replay_group(path: str) -> dict:
    """The recorded questions asked again in order, caches cleared per game; chances as asked."""
    from ai.pc.chance import pc_chance
    from game.pieces import Piece
    from game.randomizer import make_randomizer

    games = json.loads(Path(path).read_text())
    for rules_name in {q["rules"] for game in games for q in game}:
        _warm_up(rules_named(rules_name))
    bag = make_randomizer("7bag", 0)
    times, exact, ids, chances = [], 0, [], []
    for game in games:
        clear_caches()
        for q in game:
            hold = None if q["hold"] is None else Piece(q["hold"])
            queue = [Piece(p) for p in q["queue"]]
            state = tuple(Piece(p) for p in q["state"])
            current, rules, spent = Piece(q["current"]), rules_named(q["rules"]), q["spent"]
            settle()
            started = time.thread_time()
            result = pc_chance(q["bits"], current, queue, hold, state, bag, rules, q["lines"], hold_spent=spent)
            times.append((time.thread_time() - started) * 1000)
            exact += not result.approximate
            ids.append(q["id"])
            chances.append(result.chance)
    return {"times": times, "solvable": exact, "ids": ids, "chances": chances}


def loop_position(ident: str, rules) -> tuple[list[LoopPosition], LoopPosition]:
    """The positions of the 7-bag loop game before position `ident` (as the chance group names it: s6pc1k1), and
    that position."""
    from ai.pc.loop import loop_positions

    seed = int(ident[1 : ident.index("p")])
    before: list[LoopPosition] = []
    for pos in loop_positions(seed, rules=rules):
        if f"s{seed}pc{pos.pc}k{pos.placed}" == ident:
            return before, pos
        before.append(pos)
    raise ValueError(f"no position {ident} in the loop of seed {seed}")


def ask(pos, rules, bag):
    """pc_chance for a loop position, as the chance group asks it."""
    from ai.pc.chance import pc_chance

    return pc_chance(pos.field, pos.current, list(pos.queue), pos.hold, pos.bag_state, bag, rules, pos.lines)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _rows() -> list[dict[str, str]]:
    return list(csv.DictReader(CASES.open(encoding="utf-8"), delimiter="\t"))


def _field(row: dict[str, str]) -> int:
    from game.fumen import decode

    field = decode(row["field_fumen"])[0].field
    if field is None:  # (decode sets every page's field)
        raise ValueError(f"case {row['case_id']}: no field")
    return field.to_board().bits


def _mid_pc(rows: list[dict[str, str]]) -> list[tuple[str, int, int, list[Piece], Piece | None]]:
    """(id, field, lines, queue, hold) after 3 and 6 placements of each shared solution: the case's queue with
    the pieces placed so far taken out (first occurrences), hold empty."""
    from ai.pc.field import clear_full_rows
    from game.board import PIECE_MASKS
    from game.pieces import Piece, Rotation, parse_queue

    out: list[tuple[str, int, int, list[Piece], Piece | None]] = []
    for row in rows:
        if row["solution_ops"] == "NA":
            continue
        ops = [op.split(",") for op in row["solution_ops"].split(";")]
        for k in (3, 6):
            if k >= len(ops) - 1:
                continue
            bits, h = _field(row), int(row["clear_lines"])
            queue = parse_queue(row["queue"])
            for name, rot, x, y in ops[:k]:
                mask = PIECE_MASKS[Piece[name], Rotation.parse(rot), int(x), int(y)]
                bits, cleared = clear_full_rows(bits | mask, h)
                h -= cleared
                queue.remove(Piece[name])
            out.append((f"{row['case_id']}@{k}", bits, h, queue, None))
    return out


def _warm_up(rules) -> None:
    """Imports, tables and every kernel loaded before the clock runs (or compiled: a tree extracted for --against
    has no numba cache; without this the first trie search of the chance groups timed ~10 s of compiling)."""
    from ai.pc.api import solve
    from game.pieces import parse_queue

    solve(0, parse_queue("IJLOSTZIJL"), rules=rules, verify=False)
    api = importlib.import_module("ai.pc.api")
    if hasattr(api, "warm_up"):  # every kernel, the trie search's too
        api.warm_up()
    seconds = importlib.import_module("ai.pc.seconds")
    if hasattr(seconds, "first_placement_worth"):  # read whole in the worker's warm-up, as the rules' tables
        seconds.first_placement_worth(rules)
    try:
        importlib.import_module("ai.pc.later_start").load(rules)
    except ImportError:  # an older tree (--against) has no such table
        pass


def run_group(name: str, keep_caches: bool) -> dict:
    """Times of one group in this tree: {'times': [...], 'solvable': n, 'ids': [...]}."""
    from ai.pc.api import percent, solve
    from game.pieces import parse_queue
    from game.rules import Rules

    rules = Rules.named("srs")
    _warm_up(rules)
    rows = _rows()
    if name == "percent":
        clear_caches()
        started = time.thread_time()
        counted = percent(0, "*p7,TIJL", rules=rules)
        return {"times": [(time.thread_time() - started) * 1000], "solvable": counted.success, "ids": ["*p7,TIJL"]}
    whole = {
        "opening": _opening_group,
        "follow": _follow_group,
        "patterns": _patterns_group,
        "firsts": _firsts_group,
        "seconds": _seconds_group,
        # every first placement of a T, Z, L and J (the first pieces of these seeds) under SRS+ without 180 turns
        "seconds-srsplus-no180": lambda: _firsts_group(seeds=(4, 5, 6, 9), rules_name="srsplus", both=True),
        "held": lambda: _seconds_group("held"),
        "holding": lambda: _seconds_group("holding"),
        "later-start": _later_start_group,
        "later-start-nokicks": lambda: _later_start_group("none-180"),
        "later-firsts": _later_firsts_group,
        "later-firsts-srs": lambda: _later_firsts_group("srs"),
        "later-firsts-srsplus": lambda: _later_firsts_group("srsplus-180"),
        "later-firsts-srsplus-no180": lambda: _later_firsts_group("srsplus"),  # SRS+ with 180's tables as bounds
        "later-firsts-nokicks": lambda: _later_firsts_group("none-180"),
        "later-firsts-nrs": lambda: _later_firsts_group("nrs-180"),
        "wander": _wander_group,
        "wander-srs": lambda: _wander_group(rules_name="srs"),
        "wander-srsplus": lambda: _wander_group(rules_name="srsplus-180"),
        "wander-nokicks": lambda: _wander_group(rules_name="none-180"),
        "wander-srsplus-no180": lambda: _wander_group(rules_name="srsplus"),
        "wander-nrs": lambda: _wander_group(rules_name="nrs-180"),
        "spots": _spots_group,
        "spots-srs": lambda: _spots_group(rules_name="srs"),
        "spots-srsplus": lambda: _spots_group(rules_name="srsplus-180"),
        "spots-hold": lambda: _spots_group(press_hold=True),
        "spots-hold-srs": lambda: _spots_group(rules_name="srs", press_hold=True),
        "spots-hold-srsplus": lambda: _spots_group(rules_name="srsplus-180", press_hold=True),
        "floor": _floor_group,
    }
    if name in ("chance", "live"):
        return _chance_group(live=name == "live")
    if name in whole:
        return whole[name]()
    if name in RANDOM_KINDS:
        return _random_group(name, keep_caches)
    if name == "movegen":
        return _movegen_group(rows)
    # (id, field, lines, queue, hold, use_hold, soft_drop)
    problems: list[tuple[str, int, int, list[Piece], Piece | None, bool, bool]] = []
    for row in rows:
        base = (row["case_id"], _field(row), int(row["clear_lines"]), parse_queue(row["queue"]), None)
        if (name == "empty" and row["setup"] == "empty") or (name == "setups" and row["setup"] != "empty"):
            problems.append((*base, True, True))
        elif name == "nohold":
            problems.append((*base, False, True))
        elif name == "harddrop":
            problems.append((*base, True, False))
    if name == "midpc":
        problems = [(*p, True, True) for p in _mid_pc(rows)]
    times, solvable, ids = [], 0, []
    for ident, bits, lines, queue, hold, use_hold, soft in problems:
        if not keep_caches:
            clear_caches()
        started = time.thread_time()
        result = solve(
            bits, queue, hold=hold, use_hold=use_hold, soft_drop=soft, rules=rules, lines=lines, verify=False
        )
        times.append((time.thread_time() - started) * 1000)
        solvable += result.solvable
        ids.append(ident)
    return {"times": times, "solvable": solvable, "ids": ids}


CHANCE_SEEDS = (1, 2, 3, 4, 5, 6, 7, 8)  # 560 positions: the 1st PC's are the slow ones, and few games have them slow


def _chance_group(seeds: tuple[int, ...] = CHANCE_SEEDS, live: bool = False) -> dict:
    from ai.pc.loop import loop_positions
    from ai.pc_service import exact_chance
    from game.randomizer import make_randomizer
    from game.rules import Rules

    rules = Rules.named("srs")
    rng = make_randomizer("7bag", 0)
    # trees before 659ed35 searched the worker's chance in rounds, the first within the PC request's budget
    rounds: dict[str, Any] = (
        {"first_budget_ms": 150.0} if "first_budget_ms" in inspect.signature(exact_chance).parameters else {}
    )
    positions = []
    for seed in seeds:
        positions += [(seed, p) for p in loop_positions(seed, rules=rules)]
    times, exact, ids = [], 0, []
    last_seed = None
    for seed, pos in positions:
        if seed != last_seed:
            clear_caches()  # a new game: what a fresh worker knows
            last_seed = seed
        started = time.thread_time()
        if live:
            result = exact_chance(pos.snapshot(rules), pos.lines, soft_drop=True, **rounds)
        else:
            result = ask(pos, rules, rng)
        times.append((time.thread_time() - started) * 1000)
        exact += result is not None and not result.approximate
        ids.append(f"s{seed}pc{pos.pc}k{pos.placed}")
    return {"times": times, "solvable": exact, "ids": ids}


def _advance(stream: list, r: int, hold, bits: int, h: int, pc: int, placed: int, step) -> tuple:
    """A loop game's state (r, hold, bits, h, pc, placed) after `step`; a PC starts the next one on an empty
    field."""
    from ai.pc.field import clear_full_rows
    from ai.pc.loop import play

    _, r, hold = play(stream, r, hold, step.hold)
    bits, cleared = clear_full_rows(bits | step.mask, h)
    h, placed = h - cleared, placed + 1
    if h == 0:
        pc, placed, bits, h = pc + 1, 0, 0, 4
    return r, hold, bits, h, pc, placed


def _follow_group(seeds: tuple[int, ...] = CHANCE_SEEDS, pcs: int = 7) -> dict:
    from ai.pc.api import solve
    from ai.pc.chance import pc_chance
    from ai.pc.loop import PREVIEWS, bag_state, bag_stream
    from game.randomizer import make_randomizer
    from game.rules import Rules

    rules = Rules.named("srs")
    bag = make_randomizer("7bag", 0)
    times, exact, ids = [], 0, []
    for seed in seeds:
        clear_caches()  # a new game: what a fresh worker knows
        _record_game()
        stream = bag_stream(seed, pcs * 2 + 3)
        r, hold, pc, placed, bits, h = 0, None, 1, 0, 0, 4
        while pc <= pcs:
            current, queue = stream[r], tuple(stream[r + 1 : r + 1 + PREVIEWS])
            state = bag_state(stream, r + 1 + PREVIEWS)
            shown = solve(bits, (current, *queue), hold=hold, rules=rules, lines=h, verify=False)
            settle()
            started = time.thread_time()
            result = pc_chance(bits, current, list(queue), hold, state, bag, rules, h)
            times.append((time.thread_time() - started) * 1000)
            exact += not result.approximate
            ids.append(f"s{seed}pc{pc}k{placed}")
            _record(ids[-1], "srs", bits, current, queue, hold, state, h, False, result.chance)
            step = shown.solutions[0].steps[0] if shown.solutions else result.best_placement
            if step is None:
                break  # no PC any more: this game ends here
            r, hold, bits, h, pc, placed = _advance(stream, r, hold, bits, h, pc, placed, step)
    return {"times": times, "solvable": exact, "ids": ids}


FIRSTS_SEEDS = (5, 6)


def _firsts_group(
    seeds: tuple[int, ...] = FIRSTS_SEEDS, rules_name: str = "srs", both: bool = False, hold: str = ""
) -> dict:
    """The live chance at the first PC's second position, after each placement of the first piece (no hold),
    searched (no tables: what the search costs there). `both`: asked with the tables (as the worker asks) and, in
    `search`, without them (a game played again from empty caches, so that neither finds the other's proofs).
    `hold` "held": the first piece held and each placement of the second instead (the next bag's first piece
    shown); "holding": each placement of the first, then hold pressed at the second (hold spent)."""
    from ai.pc.chance import pc_chance
    from ai.pc.loop import PREVIEWS, bag_state, bag_stream
    from ai.pc.search import searcher_for
    from game.randomizer import make_randomizer

    rules = rules_named(rules_name)
    _warm_up(rules)  # api.warm_up reads the tables too
    bag = make_randomizer("7bag", 0)
    times: dict[bool, list[float]] = {True: [], False: []}
    chances: dict[bool, list[float]] = {True: [], False: []}
    exact, ids = 0, []
    for seed in seeds:
        stream = bag_stream(seed, 2)
        # pieces out of the queue: the first placed; or the first held and the second placed, or the other way round
        out = 1 + bool(hold)
        state = bag_state(stream, out + 1 + PREVIEWS)
        held = {"": None, "held": stream[0], "holding": stream[1]}[hold]
        placed = stream[1] if hold == "held" else stream[0]
        children = list(searcher_for(rules, True).gen.children(0, 4, placed))
        for table in (True, False) if both else (False,):
            clear_caches()  # a new game: what a fresh worker knows
            for child in children:
                queue = list(stream[out + 1 : out + 1 + PREVIEWS])
                args = (child.field, stream[out], queue, held, state, bag, rules, 4)
                settle()
                started = time.thread_time()
                result = pc_chance(*args, hold_spent=hold == "holding", table=table)
                times[table].append((time.thread_time() - started) * 1000)
                chances[table].append(result.chance)
                if table or not both:
                    exact += not result.approximate
                    ids.append(f"s{seed}{'' if held is None else held.name + '>'}{placed.name}@{child.mask}")
    if both and chances[True] != chances[False]:
        raise RuntimeError("the tables and the search gave different chances")
    return {"times": times[both], "solvable": exact, "ids": ids, "search": times[False]}


def _seconds_group(hold: str = "") -> dict:
    """`firsts` under the game's default rules (SRS with 180), with the second-position tables (ai.pc.seconds);
    `hold`: see _firsts_group."""
    return _firsts_group(rules_name="srs-180", both=True, hold=hold)


WANDER_SEEDS = tuple(range(1, 13))
GROUP_WIDTH = 27  # the table's group column: the longest group name (later-firsts-srsplus-no180) and a space


def _head(tree: str, group: str) -> str:
    """The start of a row of the table: the tree's label and the group, in their columns."""
    return f"{tree:<8}{group:<{GROUP_WIDTH}}"


# the same games under each rule set with whole tables, and under three without (no kicks with 180 turns and NRS have
# an opening table only, SRS+ without 180 turns a few)
WANDERS = ("wander", "wander-srs", "wander-srsplus", "wander-nokicks", "wander-srsplus-no180", "wander-nrs")
# the live-chance groups: each answer's time against the 200 ms target, and "solvable" counts exact answers, which
# two trees' own games need not share
CHANCE_GROUPS = (
    "chance",
    "live",
    "opening",
    "follow",
    "firsts",
    "seconds",
    "seconds-srsplus-no180",
    "held",
    "holding",
    "later-start",
    "later-start-nokicks",
    "later-firsts",
    "later-firsts-srs",
    "later-firsts-srsplus",
    "later-firsts-srsplus-no180",
    "later-firsts-nokicks",
    "later-firsts-nrs",
    *WANDERS,
    "spots",
    "spots-srs",
    "spots-srsplus",
    "spots-hold",
    "spots-hold-srs",
    "spots-hold-srsplus",
)


def own_spot(stream: list, r: int, hold, bits: int, h: int, rules, rng: random.Random, hold_spent: bool = False):
    """A spot of the player's own (the wander group's, and bench/worker.py's part 9): a placement a hard drop
    reaches that covers no empty cell, of the piece in play stream[r] or (hold pressed, unless `hold_spent`) of the
    other one, from which the pieces really coming still make the PC (a spot a player might pick, with the game
    going on; the player cannot know those pieces); chosen by `rng`. None: no such spot."""
    from ai.pc.api import solve
    from ai.pc.field import clear_full_rows
    from ai.pc.loop import play
    from ai.pc.movegen import holes_under
    from ai.pc.search import searcher_for, step_of

    other = stream[r + 1] if hold is None else hold  # (Piece.I is 0: not `hold or ...`)
    pieces = [stream[r]] if hold_spent else list(dict.fromkeys((stream[r], other)))
    own = [
        step_of(piece, child, hold=piece != stream[r])
        for piece in pieces
        for child in searcher_for(rules, True).gen.children(bits, h, piece)
        if child.hard and not holes_under(bits, child.mask)
    ]
    rng.shuffle(own)
    for step in own:
        _, after_r, after_hold = play(stream, r, hold, step.hold)
        after, cleared = clear_full_rows(bits | step.mask, h)
        if cleared == h:
            return step
        need = (10 * (h - cleared) - after.bit_count()) // 4
        queue = stream[after_r : after_r + need + (after_hold is None)]
        if solve(after, queue, hold=after_hold, rules=rules, lines=h - cleared, verify=False).solutions:
            return step
    return None


def _wander_group(seeds: tuple[int, ...] = WANDER_SEEDS, rules_name: str = "srs-180") -> dict:
    """The live chance as the worker is asked it, under `rules_name` (the default rules unless told), tables on,
    along games where the player follows the panel's advice half the time and otherwise plays a spot of their own:
    a placement a hard drop reaches that covers no empty cell, of the piece in play or, hold pressed, of the other
    one, from which the pieces really coming still make the PC (chosen by the seed). Both the position before each
    placement and, when hold is pressed, the one right after the press are asked. A game goes on through its PCs
    until the chance is 0."""
    from ai.pc.chance import pc_chance
    from ai.pc.loop import PREVIEWS, bag_state, bag_stream
    from game.randomizer import make_randomizer

    rules = rules_named(rules_name)
    _warm_up(rules)
    bag = make_randomizer("7bag", 0)
    times, exact, ids = [], 0, []

    def ask_timed(ident: str, stream: list, bits, current, shown_from: int, hold, h: int, spent: bool):
        """The position with `current` in play and the previews from stream[shown_from] on."""
        queue = list(stream[shown_from : shown_from + PREVIEWS])
        state = bag_state(stream, shown_from + PREVIEWS)
        settle()
        started = time.thread_time()
        result = pc_chance(bits, current, queue, hold, state, bag, rules, h, hold_spent=spent)
        times.append((time.thread_time() - started) * 1000)
        ids.append(ident)
        _record(ident, rules_name, bits, current, queue, hold, state, h, spent, result.chance)
        return result

    for seed in seeds:
        clear_caches()  # a new game: what a fresh worker knows
        _record_game()
        rng = random.Random(seed)
        stream = bag_stream(seed, 40)
        r, hold, bits, h, pc, placed = 0, None, 0, 4, 1, 0
        while r + 2 + PREVIEWS < len(stream):
            ident = f"s{seed}pc{pc}k{placed}"
            result = ask_timed(ident, stream, bits, stream[r], r + 1, hold, h, False)
            exact += not result.approximate
            if result.chance == 0 or result.best_placement is None:
                break
            step = result.best_placement
            if rng.random() < 0.5:
                step = own_spot(stream, r, hold, bits, h, rules, rng) or step
            if step.hold:  # the position right after hold is pressed, as the worker is asked it
                if hold is None:  # the piece in play goes to hold, the next one comes into play
                    result = ask_timed(ident + "h", stream, bits, stream[r + 1], r + 2, stream[r], h, True)
                else:  # the held piece comes into play; the queue does not move
                    result = ask_timed(ident + "h", stream, bits, hold, r + 1, stream[r], h, True)
                exact += not result.approximate
            r, hold, bits, h, pc, placed = _advance(stream, r, hold, bits, h, pc, placed, step)
    return {"times": times, "solvable": exact, "ids": ids}


def _spots_group(
    seeds: tuple[int, ...] = WANDER_SEEDS, rules_name: str = "srs-180", last_pc: int = 7, press_hold: bool = False
) -> dict:
    """Every spot for a later PC's first piece: along the `wander` games (PCs 2 to `last_pc`), at each PC's first
    position every placement of the piece in play and of the other one (hold pressed), covering empty cells or not,
    a PC left or not, then the next position's chance, asked right after the first position's is asked again (what
    the worker knows when a player drops the piece at once on a spot of their own, not thinking ahead). Only these
    are timed (`press_hold`: the position after hold is pressed there, asked right after it, is timed instead).
    `firsts` and `seconds` time the 1st PC's."""
    from ai.pc.chance import pc_chance
    from ai.pc.field import clear_full_rows
    from ai.pc.loop import PREVIEWS, bag_state, bag_stream, play
    from ai.pc.search import searcher_for, step_of
    from game.randomizer import make_randomizer

    rules = rules_named(rules_name)
    _warm_up(rules)
    bag = make_randomizer("7bag", 0)
    gen = searcher_for(rules, True).gen
    times, exact, ids = [], 0, []

    def ask(stream: list, r: int, hold, bits, h: int, hold_spent: bool = False):
        queue = list(stream[r + 1 : r + 1 + PREVIEWS])
        state = bag_state(stream, r + 1 + PREVIEWS)
        return pc_chance(bits, stream[r], queue, hold, state, bag, rules, h, hold_spent=hold_spent)

    def ask_pressed(stream: list, r: int, hold, bits, h: int):
        """The chance once hold is pressed at the position (stream[r] in play): into an empty hold, the next
        piece comes into play; else the two swap (the queue stays)."""
        if hold is None:
            return ask(stream, r + 1, stream[r], bits, h, hold_spent=True)
        queue = list(stream[r + 1 : r + 1 + PREVIEWS])
        state = bag_state(stream, r + 1 + PREVIEWS)
        return pc_chance(bits, hold, queue, stream[r], state, bag, rules, h, hold_spent=True)

    for seed in seeds:
        clear_caches()
        rng = random.Random(seed)
        stream = bag_stream(seed, 40)
        r, hold, bits, h, pc, placed = 0, None, 0, 4, 1, 0
        while r + 2 + PREVIEWS < len(stream) and pc <= last_pc:
            result = ask(stream, r, hold, bits, h)
            if result.chance == 0 or result.best_placement is None:
                break
            if placed == 0 and pc >= 2:
                other = stream[r + 1] if hold is None else hold  # (Piece.I is 0: not `hold or ...`)
                for piece in dict.fromkeys((stream[r], other)):
                    for child in gen.children(bits, h, piece):
                        step = step_of(piece, child, hold=piece != stream[r])
                        _, after_r, after_hold = play(stream, r, hold, step.hold)
                        after, cleared = clear_full_rows(bits | step.mask, h)
                        if cleared == h:
                            continue
                        ask(stream, r, hold, bits, h)
                        if press_hold:
                            ask(stream, after_r, after_hold, after, h - cleared)
                        settle()
                        started = time.thread_time()
                        if press_hold:
                            spot = ask_pressed(stream, after_r, after_hold, after, h - cleared)
                        else:
                            spot = ask(stream, after_r, after_hold, after, h - cleared)
                        times.append((time.thread_time() - started) * 1000)
                        exact += not spot.approximate
                        ids.append(f"s{seed}pc{pc}:{piece.name}@{step.mask}")
            step = result.best_placement  # the game goes on as `wander`'s
            if rng.random() < 0.5:
                step = own_spot(stream, r, hold, bits, h, rules, rng) or step
            r, hold, bits, h, pc, placed = _advance(stream, r, hold, bits, h, pc, placed, step)
    return {"times": times, "solvable": exact, "ids": ids}


# the loop positions over 200 ms in `chance` (bench/pc.py --groups chance, 2026-11-26)
FLOOR_IDS = ("s6pc1k1", "s5pc1k1", "s7pc1k1", "s4pc1k1", "s2pc3k1", "s1pc3k1")


def _decide_each(gen, placements: list, wanted: list[int]) -> tuple[float, list[int]]:
    """Thread CPU ms of the compiled trie search deciding `wanted[i]` after each placement (keep, node, child),
    with a memo of its own (nothing proved before), and the futures each wins."""
    from ai.pc.percent import TrieSearch

    search = TrieSearch(gen, True)
    started = time.thread_time()
    won = [
        search.run(child.field, child.h, keep, sub, want) if child.h else sub.leaves
        for (keep, sub, child), want in zip(placements, wanted)
    ]
    return (time.thread_time() - started) * 1000, won


def _floor_group(ids: tuple[str, ...] = FLOOR_IDS) -> dict:
    """Per position: the live chance; every placement decided by the trie search; the best placement's lost
    futures asked of every placement. Thread CPU ms; `rows` has the detail printed."""
    from ai.pc.chance import futures_trie, next_options, queue_length
    from ai.pc.search import searcher_for
    from game.randomizer import make_randomizer
    from game.rules import Rules

    rules = Rules.named("srs")
    bag = make_randomizer("7bag", 0)
    gen = searcher_for(rules, True).gen
    times, rows = [], []
    for ident in ids:
        before, pos = loop_position(ident, rules)
        clear_caches()  # a new game, played up to the position as in `chance`
        for earlier in before:
            ask(earlier, rules, bag)
        started = time.thread_time()
        result = ask(pos, rules, bag)
        live = (time.thread_time() - started) * 1000
        known = (pos.current, *pos.queue)
        length = queue_length((10 * pos.lines - pos.field.bit_count()) // 4, pos.hold, True)
        trie, _, _ = futures_trie(known, length, bag, pos.bag_state)
        options = next_options(trie, known[0], pos.hold, True)
        assert len({sub.ident for _, _, sub, _, _ in options}) == 1  # one numbering of the futures for all
        placements = [
            (keep, sub, child)
            for placed, keep, sub, _, _ in options
            for child in gen.children(pos.field, pos.lines, placed)
        ]
        every_ms, won = _decide_each(gen, placements, [sub.leaves for _, sub, _ in placements])
        best = max(range(len(won)), key=lambda i: won[i].bit_count())
        lost = placements[best][1].leaves & ~won[best]
        lost_ms, got = _decide_each(gen, placements, [lost] * len(placements))
        ruled_out = sum((lost & ~g).bit_count() >= lost.bit_count() for g in got)
        times.append(live)
        rows.append((ident, live, len(placements), every_ms, lost.bit_count(), lost_ms, ruled_out, result.futures))
    return {"times": times, "solvable": len(rows), "ids": list(ids), "rows": rows}


OPENING_ORDERS = 100


def _opening_group() -> dict:
    import itertools
    import random

    from ai.pc.chance import pc_chance
    from game.pieces import ALL_PIECES
    from game.randomizer import make_randomizer
    from game.rules import Rules

    rules = Rules.named("srs")
    bag = make_randomizer("7bag", 0)
    has_table = "table" in inspect.signature(pc_chance).parameters
    orders = random.Random(11).sample(list(itertools.permutations(ALL_PIECES)), OPENING_ORDERS)
    times: list[float] = []
    search: list[float] = []
    ids: list[str] = []

    def timed(*args, **kwargs):
        clear_caches()
        settle()
        started = time.thread_time()
        result = pc_chance(*args, **kwargs)
        return result, (time.thread_time() - started) * 1000

    def measure(ident: str, *args, **kwargs):
        result, ms = timed(*args, **kwargs)
        times.append(ms)
        ids.append(ident)
        search.append(timed(*args, **kwargs, table=False)[1] if has_table else ms)
        return result

    for order in orders:
        name = "".join(p.name for p in order)
        first = measure(name + "/1", 0, order[0], list(order[1:6]), None, (order[6],), bag, rules, 4)
        best = first.best_placement
        if best is not None and not best.hold and best.lines == 0:  # the advice followed: the second position
            measure(name + "/2", best.mask, order[1], list(order[2:7]), None, (), bag, rules, 4)
        # hold pressed at the first position, whatever the advice
        measure(name + "/h", 0, order[1], list(order[2:7]), order[0], (), bag, rules, 4, hold_spent=True)
    exact = len(times)  # every answer here is exact (no budget)
    return {"times": times, "solvable": exact, "ids": ids, "search": search}


LATER_STARTS = 100  # later PCs' first positions with a piece held from the bag before (ai.pc.later_start)


def _later_start_group(rules_name: str = "srs-180") -> dict:
    """A later PC's first position under the default rules (or `rules_name`): empty field, a bag's last six shown,
    one of them held from the bag before (seeded sample), asked as it is and with hold pressed, looked up and
    searched (caches cleared before each)."""
    import itertools

    from ai.pc.chance import pc_chance
    from game.pieces import ALL_PIECES
    from game.randomizer import make_randomizer

    rules = rules_named(rules_name)
    _warm_up(rules)
    bag = make_randomizer("7bag", 0)
    keys = [(held, order[1:]) for order in itertools.permutations(ALL_PIECES) for held in order[1:]]
    times: list[float] = []
    search: list[float] = []
    ids: list[str] = []

    def timed(*args, **kwargs) -> float:
        clear_caches()
        settle()
        started = time.thread_time()
        pc_chance(*args, **kwargs)
        return (time.thread_time() - started) * 1000

    for held, shown in random.Random(12).sample(keys, LATER_STARTS):
        name = held.name + "".join(p.name for p in shown)
        for ident, args in (
            (name, (0, shown[0], list(shown[1:]), held, (), bag, rules, 4)),
            (name + "/h", (0, held, list(shown[1:]), shown[0], (), bag, rules, 4)),
        ):
            spent = ident.endswith("/h")
            times.append(timed(*args, hold_spent=spent))
            search.append(timed(*args, hold_spent=spent, table=False))
            ids.append(ident)
    return {"times": times, "solvable": len(times), "ids": ids, "search": search}


LATER_FIRSTS = 300  # random later PCs' first positions: any bag offset, any piece held or none


def _note_first_range(
    shows: Callable[[float, float], str], first: list[float], started: float, lower: float, upper: float, *_: object
) -> None:
    """Keep the thread time (ms since `started`) of the first bounds the panel shows (`shows`: the tree's
    ai.protocol.range_text, "" for bounds it does not show)."""
    if not first and shows(lower, upper):
        first.append((time.thread_time() - started) * 1000)


def _later_firsts_group(rules_name: str = "srs-180") -> dict:
    """Later PCs' first positions at random (seeded): empty field, the piece in play at any place in its bag, any
    piece in hold or none, and, with a piece held, hold pressed there for about a third; the live chance as the
    worker asks it (tables on, caches cleared before each). Ids: bag offset (pieces of the bag dealt before the
    piece in play), hold (`-`: none), `/h` where hold is pressed, then the piece in play and the previews."""
    from ai.pc.chance import pc_chance
    from ai.pc.loop import PREVIEWS, bag_state, bag_stream
    from game.pieces import ALL_PIECES
    from game.randomizer import make_randomizer

    rules = rules_named(rules_name)
    _warm_up(rules)
    bag = make_randomizer("7bag", 0)
    rng = random.Random(55)
    times: list[float] = []
    ids: list[str] = []
    # when the panel would first show a proved range ("PC chance at least 42%"): the first report, at pc_chance's own
    # cadence, that the tree's panel text shows; older trees tell none
    tells = "progress" in inspect.signature(pc_chance).parameters
    if tells:
        from ai.protocol import range_text
    shown: list[float | None] = []
    for _ in range(LATER_FIRSTS):
        stream = bag_stream(rng.randrange(1 << 30), 4)
        offset = rng.randrange(7)
        at = 7 + offset  # the piece in play: the second bag's, `offset` of it dealt before
        hold = rng.choice([None, *ALL_PIECES])
        spent = hold is not None and rng.random() < 1 / 3
        current, queue = stream[at], list(stream[at + 1 : at + 1 + PREVIEWS])
        if spent and hold is not None:  # hold pressed: the held piece in play, the one that was in play held
            current, hold = hold, current
        clear_caches()
        settle()
        first: list[float] = []
        started = time.thread_time()
        told: dict[str, Any] = {}
        if tells:
            told["progress"] = functools.partial(_note_first_range, range_text, first, started)
        pc_chance(
            0, current, queue, hold, bag_state(stream, at + 1 + PREVIEWS), bag, rules, 4, hold_spent=spent, **told
        )
        times.append((time.thread_time() - started) * 1000)
        shown.append(first[0] if first else None)
        held = "-" if hold is None else hold.name
        ids.append(f"o{offset}{held}{'/h' if spent else ''}:{current.name}{''.join(p.name for p in queue)}")
    return {"times": times, "solvable": len(times), "ids": ids, **({"shown": shown} if tells else {})}


def _patterns_group() -> dict:
    """Each pattern's `percent` in a fresh interpreter (its peak memory is the process's): CPU s and MB."""
    rows = []
    for pattern in PATTERNS:
        code = (
            "import json, resource, sys, time\n"
            f"sys.path.insert(0, {str(ROOT)!r})\n"
            "from ai.pc.api import percent\n"
            "from game.rules import Rules\n"
            "percent(0, 'IJLOSTZ,*p1', rules=Rules.named('srs'))  # loads the kernels: not part of the figure\n"
            "started = time.process_time()\n"
            f"result = percent(0, {pattern!r}, rules=Rules.named('srs'))\n"
            "cpu = time.process_time() - started\n"
            # VmHWM, this process's own peak: ru_maxrss keeps the bench process's size at the fork across the exec
            "status = open('/proc/self/status').read() if sys.platform == 'linux' else ''\n"
            "peak = int(status.split('VmHWM:')[1].split()[0]) / 1024 if 'VmHWM:' in status else "
            "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
            "print(json.dumps([result.success, result.total, cpu, peak]))\n"
        )
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
        rows.append([pattern, *json.loads(out.stdout.strip().splitlines()[-1])])
    return {"times": [row[3] * 1000 for row in rows], "solvable": sum(row[1] for row in rows), "rows": rows}


def _random_group(name: str, keep_caches: bool) -> dict:
    """Fresh random 11-piece queues (seeded by the group's name) on the empty field: RANDOM_QUEUES 7-bag queues,
    or 30 of independent pieces."""
    import random

    from ai.pc.api import solve
    from game.pieces import ALL_PIECES, Piece
    from game.rules import Rules

    use_hold, soft, bags = RANDOM_KINDS[name]
    rules = Rules.named("srs")
    rng = random.Random(name)
    times, solvable, ids = [], 0, []
    for _ in range(RANDOM_QUEUES if bags else 30):
        if bags:
            first, second = list(ALL_PIECES), list(ALL_PIECES)
            rng.shuffle(first)
            rng.shuffle(second)
            queue = (first + second)[:11]
        else:
            queue = [rng.choice(list(Piece)) for _ in range(11)]
        if not keep_caches:
            clear_caches()
        started = time.thread_time()
        result = solve(0, queue, use_hold=use_hold, soft_drop=soft, rules=rules, verify=False)
        times.append((time.thread_time() - started) * 1000)
        solvable += result.solvable
        ids.append("".join(p.name for p in queue))
    return {"times": times, "solvable": solvable, "ids": ids}


def _movegen_group(rows: list[dict[str, str]]) -> dict:
    """Per (mid-PC field, piece): microseconds of each generator (best of 3, fresh memo), cell sets compared."""
    from ai.pc.movegen import MoveGenerator
    from game.board import PIECE_MASKS
    from game.movegen import generate_raw
    from game.pieces import Piece, Rotation
    from game.rules import Rules

    rules = Rules.named("srs")
    pc_times, game_times, placements = [], [], 0
    for _, bits, h, _, _ in _mid_pc(rows):
        for piece in Piece:
            best_pc = best_game = float("inf")
            for _ in range(3):
                gen = MoveGenerator(rules)  # no memo: every call generates
                started = time.perf_counter()
                ours = gen.placements(bits, h, piece)
                best_pc = min(best_pc, time.perf_counter() - started)
                started = time.perf_counter()
                raw = generate_raw(bits, piece, rules)
                best_game = min(best_game, time.perf_counter() - started)
            region = (1 << (10 * h)) - 1
            theirs = {PIECE_MASKS[piece, Rotation(p.rotation), p.x, p.y] for p in raw}
            theirs = {mask for mask in theirs if mask & region == mask}
            if set(ours) != theirs:
                raise AssertionError(f"the generators disagree on field {bits} h={h} piece {piece.name}")
            pc_times.append(best_pc * 1e6)
            game_times.append(best_game * 1e6)
            placements += len(ours)
    return {"times": pc_times, "game": game_times, "solvable": placements}


def _line(label: str, name: str, data: dict, theirs: list[float] | None = None) -> str:
    times = data["times"]
    if name == "percent":
        return _head(label, name) + f"{'':>5}{data['solvable']:>9}   total {times[0] / 1000:.2f} s thread CPU"
    if name == "movegen":
        ours, game = statistics.median(data["times"]), statistics.median(data["game"])
        return (
            _head(label, "movegen") + f"{len(data['times']):>5}{data['solvable']:>9}   median per piece (us): "
            f"ai.pc.movegen {ours:.1f}, game.movegen {game:.1f} ({game / ours:.1f}x); same cells"
        )
    if name == "floor":
        return "\n".join(
            _head(label, ident) + f" live {live:6.1f} ms; {n} placements of {futures} futures: every one decided "
            f"{every:6.1f} ms; the best's {lost} lost futures asked of each {lost_ms:5.1f} ms, which rules out "
            f"{out - 1} of the other {n - 1}"
            for ident, live, n, every, lost, lost_ms, out, futures in data["rows"]
        )
    if name == "patterns":
        return "\n".join(
            _head(label, "pattern") + f"{pattern:>14}  {success:>5}/{total:<5}  {cpu:6.2f} s CPU  {peak:5.0f} MB peak"
            for pattern, success, total, cpu, peak in data["rows"]
        )
    text = (
        _head(label, name) + f"{len(times):>5}{data['solvable']:>9}{statistics.median(times):>10.1f}"
        f"{pct(times, 0.99):>10.1f}{max(times):>10.1f}   slowest {data['ids'][times.index(max(times))]}"
    )
    if theirs:
        text += f"   sfinder warm median {statistics.median(theirs):.1f}"
    if name in CHANCE_GROUPS:
        text += f"   over 200 ms: {sum(t > 200 for t in times)}"
        slow = sorted(((t, ident) for t, ident in zip(times, data["ids"]) if t > 200), reverse=True)
        if slow:  # which positions, slowest first: where a closer look starts
            text += "\n" + " " * 8 + "over 200 ms: " + ", ".join(f"{ident} {t:.0f}" for t, ident in slow[:12])
        if slow and "shown" in data:  # what the panel shows meanwhile (ai.pc.chance.PROGRESS_MS)
            waits = [at for t, at in zip(times, data["shown"]) if t > 200 and at is not None]
            text += "\n" + " " * 8 + f"of those, a proved range shown in {len(waits)}"
            if waits:
                text += f" ({sum(at <= 200 for at in waits)} within 200 ms), after median"
                text += f" {statistics.median(waits):.0f} ms, max {max(waits):.0f} ms"
    if name in ("opening", "seconds", "held", "holding", "later-start", "later-start-nokicks"):
        search = data["search"]
        text += (
            "\n" + _head(label, "search") + f"{len(search):>5}{'':>9}{statistics.median(search):>10.1f}"
            f"{pct(search, 0.99):>10.1f}{max(search):>10.1f}   the same positions without the table"
            f"   over 200 ms: {sum(t > 200 for t in search)}"
        )
    return text


def _json_group(args: argparse.Namespace) -> dict:
    """One group's numbers in this tree (a subprocess of --against): played, recorded as played, or replayed."""
    global _RECORDED
    if args.replay:
        return _replay_group(args.replay)
    _RECORDED = [] if args.record else None
    data = run_group(args.json_group, args.keep_caches)
    if _RECORDED is not None:
        Path(args.record).write_text(json.dumps(_RECORDED))
        data["chances"] = [q["chance"] for game in _RECORDED for q in game]
    return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default=",".join(GROUPS))
    parser.add_argument("--keep-caches", action="store_true")
    parser.add_argument("--against", metavar="REV", help="also time git revision REV, group by group")
    parser.add_argument(
        "--same-questions", action="store_true", help="with --against: REV is asked this tree's wander/follow questions"
    )
    parser.add_argument("--json-group", help=argparse.SUPPRESS)  # internal: one group, JSON out
    parser.add_argument("--record", help=argparse.SUPPRESS)  # internal: with --json-group, write the questions here
    parser.add_argument("--replay", help=argparse.SUPPRESS)  # internal: with --json-group, ask these questions
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if not CASES.exists():
        print(f"no cases at {CASES}")
        return 1
    if args.json_group:
        print(json.dumps(_json_group(args)))
        return 0
    groups = [g for g in args.groups.split(",") if g]
    trees = [("this", ROOT)]
    tmp = None
    if args.against:
        tmp = tempfile.TemporaryDirectory()
        scratch = Path(tmp.name)  # REV's tree, and the questions recorded for --same-questions
        old = scratch / "tree"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.against], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive.stdout, check=True)
        (scratch / "shared").symlink_to(ROOT.parent / "shared")
        # this bench (and the loop positions it uses) run against the old package
        (old / "bench" / "pc.py").write_text(Path(__file__).read_text())
        (old / "ai" / "pc" / "loop.py").write_text((ROOT / "ai" / "pc" / "loop.py").read_text())
        trees = [(args.against[:7], old), ("this", ROOT)]
        if args.same_questions:  # this tree asks first, REV is asked the same
            trees.reverse()
    rows = _rows()
    warm = {
        "empty": [float(r["harness_ms_warm"]) for r in rows if r["setup"] == "empty"],
        "setups": [float(r["harness_ms_warm"]) for r in rows if r["setup"] != "empty"],
    }
    print(_head("tree", "group") + f"{'n':>5}{'solvable':>9}{'median':>10}{'p99':>10}{'max':>10}   (thread CPU ms)")
    for name in groups:
        results = {}
        for label, tree in trees:
            if name == "floor" and tree != ROOT:
                print(_head(label, "floor") + "(this tree only: it takes apart this tree's chance search)")
                continue
            if len(trees) == 1:
                data = run_group(name, args.keep_caches)
            else:
                command = [sys.executable, str(tree / "bench" / "pc.py"), "--json-group", name]
                if args.keep_caches:
                    command.append("--keep-caches")
                if args.same_questions and name in (*WANDERS, "follow"):
                    asked = str(scratch / f"{name}.json")
                    command += ["--record", asked] if tree == ROOT else ["--replay", asked]
                out = subprocess.run(command, cwd=tree, check=True, capture_output=True, text=True)
                data = json.loads(out.stdout.strip().splitlines()[-1])
            results[label] = data
            print(_line(label, name, data, warm.get(name)), flush=True)
        if len(results) == 2:
            old_data, new_data = results.values()
            if "chances" in old_data and "chances" in new_data:
                differ = sum(a != b for a, b in zip(old_data["chances"], new_data["chances"]))
                print(f"        same {len(new_data['chances'])} questions; chances differ at {differ}")
            if old_data["solvable"] != new_data["solvable"] and name not in CHANCE_GROUPS:
                print(f"        !! solvable counts differ: {old_data['solvable']} vs {new_data['solvable']}")
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
