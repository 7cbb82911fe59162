"""`ai.pc.search.Searcher`'s first-solution search compiled with numba: the same depth-first search over (field,
queue position, hold buffer), the same pruning (tiling test, column walls, pieces left), the same placements in
the same order, so it finds the same first solution (tests compare the two on random problems).

Everything lives in machine words and numpy arrays:
- a search state is field | h << 60 (fields of up to 6 rows fit in 60 bits) and the remaining queue, coded as
  the pieces that can still be placed (queue[idx : idx + needed], 3 bits each after a sentinel bit), the buffer
  piece and the hold mode;
- dead states (no PC for that remaining queue) go to an open-addressing table that outlives a call, as the
  Python search's `dead` set does, so searches of queues sharing a suffix share their work;
- each field's placements per piece are generated once (`ai.pc.jit_placements`, with the order of
  `ai.pc.movegen.MoveGenerator.children`) and kept in an arena;
- the depth-first stack is in arrays the caller owns, so a search runs in slices of `max_nodes` states and the
  caller checks its clock between slices (numba code cannot read it).
"""

from __future__ import annotations

import numpy as np

import ai.pc.tiling
from ai.pc import jit_placements, jit_table, jit_tiling
from ai.pc.jit_placements import placements_into, scratch
from ai.pc.jit_table import KERNEL_LOCK, get, kernel, popcount, put, reset, reset_if_half_full
from ai.pc.jit_tiling import state_test

DEPTH = 17  # frames: at most 15 placements (60 cells) below the start state
MAX_CHILDREN = 1024  # placements of one piece in one field (the placement kernel's buffer size)
TILING_BUDGET = 3000  # steps of the tiling test per question, as ai.pc.tiling.tileable
FOUND, EXHAUSTED, PAUSED = 1, 0, 2
SLICE_NODES = 2048  # states per call when the caller has a deadline (about a millisecond)
CACHE_SLOTS = 1 << 16  # fields x pieces whose placements are kept (small tables stay in the CPU caches)
CACHE_VBITS = 24  # a cache value is an arena row (ARENA_ROWS fits)
ARENA_ROWS = 1 << 19  # placements kept (48 bytes each: 24 MB)
DEAD_SLOTS = 1 << 18  # dead states kept (4 MB; smaller loses too many, bigger misses the caches)
# control words (ctl): stack pointer, nodes so far, started?
SP, NODES, STARTED = 0, 1, 2


@kernel
def _walls_ok(bits, h, columns, left_of):
    """ai.pc.field.walls_ok: left of a full-height column, the empty cells are a whole number of pieces."""
    for x in range(1, 9):
        column = columns[h, x]
        if bits & column == column:
            if (h * x - popcount(bits & left_of[h, x])) % 4:
                return False
    return True


@kernel
def _clear_rows(bits, h):
    """ai.pc.field.clear_full_rows: (bits without full rows, rows cleared)."""
    out = 0
    out_row = 0
    cleared = 0
    for y in range(h):
        row = (bits >> (y * 10)) & 1023
        if row == 1023:
            cleared += 1
        else:
            out |= row << (out_row * 10)
            out_row += 1
    return out, cleared


@kernel
def _bit_length(x):
    n = 0
    while x:
        x >>= 1
        n += 1
    return n


@kernel
def _queue_code(queue, n, idx, held, needed, use_hold, ident):
    """The part of the state the bits and h do not give: the pieces that can still be placed, the buffer piece,
    the hold mode. Pieces past idx + needed come too late for this PC and are left out, so states that differ
    only there share an entry."""
    code = 1
    end = idx + needed
    if end > n:
        end = n
    for k in range(idx, end):
        code = code * 8 + queue[k]
    return ((code * 8 + held + 1) * 2 + use_hold) | (ident << 50)


@kernel
def _children(bits, h, piece, soft, ident, moves):
    """Start of this field's placements of `piece` in the arena (rows: mask, field after, h after, sid, hard,
    lines), generated and stored on first use; arena row `start - 1` holds the count."""
    tables, out_mask, out_sid, out_hard, cache, cache_fill, arena, arena_fill, work = moves
    a = bits | (h << 60)
    b = piece | (ident << 3)
    known = get(cache, a, b, CACHE_VBITS)
    if known >= 0:
        return known
    overhang = soft and h > 1 and ((bits >> 10) & ~bits & ((1 << (10 * (h - 1))) - 1)) != 0
    masks, tops, lows, xs_start, xs_count, xs, turn_start, turn_count, test_start, test_count, deltas = tables
    n = placements_into(
        bits,
        h,
        masks[piece],
        tops[piece],
        lows[piece],
        xs_start[piece],
        xs_count[piece],
        xs[piece],
        turn_start[piece],
        turn_count[piece],
        test_start[piece],
        test_count[piece],
        deltas[piece],
        overhang,
        out_mask,
        out_sid,
        out_hard,
        work,
    )
    # full: start over (frames keep their own copies of the placements they use, so nothing in use is lost)
    if arena_fill[0] + n + 1 > arena.shape[0]:
        reset(cache, cache_fill)
        arena_fill[0] = 0
    elif reset_if_half_full(cache, cache_fill):
        arena_fill[0] = 0
    start = arena_fill[0] + 1
    arena[start - 1, 0] = n
    # ai.pc.movegen's order (a stable sort): plain drops first, then the fewest holes covered, then low before high
    order = work[3]  # the placement kernel's stack and trail (16,384 entries) are free again: reused here
    rank = work[4]
    for i in range(n):
        m = out_mask[i]
        below = 0  # the cells under the piece in its columns (ai.pc.movegen.holes_under)
        shifted = m >> 10
        while shifted:
            below |= shifted
            shifted >>= 10
        r = (0 if out_hard[i] else 4096) + popcount(below & ~bits & ~m) * 64 + _bit_length(m)
        j = i
        while j > 0 and rank[j - 1] > r:
            rank[j] = rank[j - 1]
            order[j] = order[j - 1]
            j -= 1
        rank[j] = r
        order[j] = i
    for k in range(n):
        i = order[k]
        after, lines = _clear_rows(bits | out_mask[i], h)
        row = start + k
        arena[row, 0] = out_mask[i]
        arena[row, 1] = after
        arena[row, 2] = h - lines
        arena[row, 3] = out_sid[i]
        arena[row, 4] = 1 if out_hard[i] else 0
        arena[row, 5] = lines
    arena_fill[0] = start + n
    put(cache, cache_fill, a, b, CACHE_VBITS, start)
    return start


# frame columns
F_BITS, F_H, F_IDX, F_HELD, F_OPTION, F_OPTIONS, F_POS, F_COUNT, F_PIECE, F_NIDX, F_NHELD, F_CODE = range(12)
FRAME_WIDTH = 12


@kernel
def _enter(d, bits, h, idx, held, problem, frames, dead, tiles, orders):
    """Open frame d for state (bits, h, idx, held) unless it is known dead or fails the tiling test (with hard
    drops only, the one in an order of row clears too; then it is recorded dead), and count its options (as
    ai.pc.search.Searcher.solve's `options`)."""
    queue, n, use_hold, soft, suffix8, ident = problem
    dead_table, dead_fill = dead
    needed = (10 * h - popcount(bits)) // 4
    code = _queue_code(queue, n, idx, held, needed, use_hold, ident)
    a = bits | (h << 60)
    if get(dead_table, a, code, 0) >= 0:
        return False
    end = min(n, idx + needed)
    counts = suffix8[idx] - suffix8[end]
    if held >= 0:
        counts += 1 << (8 * held)
    answer = state_test(bits, h, counts, TILING_BUDGET, soft, tiles, orders)
    if answer == 0:
        reset_if_half_full(dead_table, dead_fill)
        put(dead_table, dead_fill, a, code, 0, 0)
        return False
    frames[d, F_BITS] = bits
    frames[d, F_H] = h
    frames[d, F_IDX] = idx
    frames[d, F_HELD] = held
    frames[d, F_OPTION] = 0
    frames[d, F_CODE] = code
    if not use_hold:
        frames[d, F_OPTIONS] = 1 if idx < n else 0
    elif idx >= n:
        frames[d, F_OPTIONS] = 1 if held >= 0 else 0
    elif held < 0 or held == queue[idx]:
        frames[d, F_OPTIONS] = 1
    else:
        frames[d, F_OPTIONS] = 2
    return True


@kernel
def _load(d, problem, frames, kids, moves):
    """Copy the placements of frame d's current option into kids[d] and start at the first one."""
    queue, n, use_hold, soft, _, ident = problem
    idx = frames[d, F_IDX]
    held = frames[d, F_HELD]
    option = frames[d, F_OPTION]
    frames[d, F_POS] = 0
    if option >= frames[d, F_OPTIONS]:
        frames[d, F_COUNT] = 0
        return
    # the piece that goes down, and what the buffer keeps (see ai.pc.search's module docstring)
    if not use_hold:
        piece, nidx, nheld = queue[idx], idx + 1, -1
    elif idx >= n:
        piece, nidx, nheld = held, n, -1
    elif held < 0 or held == queue[idx]:
        piece, nidx, nheld = queue[idx], idx + 1, held
    elif option == 0:
        piece, nidx, nheld = held, idx + 1, queue[idx]
    else:
        piece, nidx, nheld = queue[idx], idx + 1, held
    frames[d, F_PIECE] = piece
    frames[d, F_NIDX] = nidx
    frames[d, F_NHELD] = nheld
    start = _children(frames[d, F_BITS], frames[d, F_H], piece, soft, ident, moves)
    arena = moves[6]
    count = arena[start - 1, 0]
    for k in range(count):
        for c in range(6):
            kids[d, k, c] = arena[start + k, c]
    frames[d, F_COUNT] = count


@kernel
def search(ctl, max_nodes, start, problem, frames, kids, moves, dead, tiles, orders, walls):
    """Run until a PC is found (FOUND: frames 0..ctl[SP] hold the path, each at its position), the search space
    is exhausted (EXHAUSTED), or max_nodes more states were expanded (PAUSED: call again with the same arrays to
    go on). start = (bits, h, idx, held) of the buffer model; held -1: none."""
    n = problem[1]
    columns, left_of = walls
    dead_table, dead_fill = dead
    budget = ctl[NODES] + max_nodes
    sp = ctl[SP]
    if ctl[STARTED] == 0:
        ctl[STARTED] = 1
        bits0, h0, idx0, held0 = start
        if not _enter(0, bits0, h0, idx0, held0, problem, frames, dead, tiles, orders):
            ctl[SP] = -1
            return EXHAUSTED
        sp = 0
        ctl[NODES] += 1
        _load(0, problem, frames, kids, moves)
    while sp >= 0:
        if ctl[NODES] >= budget:
            ctl[SP] = sp
            return PAUSED
        pos = frames[sp, F_POS]
        if pos >= frames[sp, F_COUNT]:
            if frames[sp, F_OPTION] + 1 < frames[sp, F_OPTIONS]:  # the buffer's other piece
                frames[sp, F_OPTION] += 1
                _load(sp, problem, frames, kids, moves)
                continue
            a = frames[sp, F_BITS] | (frames[sp, F_H] << 60)
            reset_if_half_full(dead_table, dead_fill)
            put(dead_table, dead_fill, a, frames[sp, F_CODE], 0, 0)
            sp -= 1
            if sp >= 0:
                frames[sp, F_POS] += 1
            continue
        child_bits = kids[sp, pos, 1]
        child_h = kids[sp, pos, 2]
        if child_h == 0:
            ctl[SP] = sp
            return FOUND
        nidx = frames[sp, F_NIDX]
        nheld = frames[sp, F_NHELD]
        left = n - nidx + (1 if nheld >= 0 else 0)
        needed = (10 * child_h - popcount(child_bits)) // 4
        if (
            needed <= left
            and _walls_ok(child_bits, child_h, columns, left_of)
            and _enter(sp + 1, child_bits, child_h, nidx, nheld, problem, frames, dead, tiles, orders)
        ):
            sp += 1
            ctl[NODES] += 1
            _load(sp, problem, frames, kids, moves)
            continue
        frames[sp, F_POS] += 1
    ctl[SP] = -1
    return EXHAUSTED


class _Tables:
    """The arrays every Kernel shares (allocated once per process: a fresh Kernel must not pay for megabytes of
    memory): the placement cache and arena, the dead-state table, the depth-first stack. Entries carry their
    kernel's id, so kernels for other rules never see each other's entries."""

    def __init__(self) -> None:
        self.out = (
            np.zeros(MAX_CHILDREN, np.int64),
            np.zeros(MAX_CHILDREN, np.int64),
            np.zeros(MAX_CHILDREN, np.bool_),
        )
        self.cache = jit_table.make(CACHE_SLOTS)
        self.cache_fill = np.zeros(1, np.int64)
        self.arena = np.zeros((ARENA_ROWS, 6), np.int64)
        self.arena_fill = np.zeros(1, np.int64)
        self.dead = jit_table.make(DEAD_SLOTS)
        self.dead_fill = np.zeros(1, np.int64)
        self.work = scratch()
        self.frames = np.zeros((DEPTH, FRAME_WIDTH), np.int64)
        self.kids = np.zeros((DEPTH, MAX_CHILDREN, 6), np.int64)
        self.next_id = 1

    def new_id(self) -> int:
        if self.next_id >= MAX_KERNELS:  # ids run out: forget everything, then ids start over
            self.clear()
            self.next_id = 1
        self.next_id += 1
        return self.next_id - 1

    def clear(self) -> None:
        with KERNEL_LOCK:
            reset(self.dead, self.dead_fill)
            reset(self.cache, self.cache_fill)
            self.arena_fill[0] = 0


MAX_KERNELS = 1 << 12  # ids fit above the 50 bits of a dead-state code
_SHARED: list[_Tables] = []


class Kernel:
    """The compiled search for one move generator (rules and drop mode). Its dead states and placements live in
    the shared tables under its id and are kept between calls, as the Python searcher keeps its `dead` set."""

    def __init__(self, gen) -> None:
        from ai.pc.tiling import _kernel as tiling_kernel

        tiling = tiling_kernel()
        if tiling is None:
            raise ImportError("the compiled tiling test is off")
        if not _SHARED:
            _SHARED.append(_Tables())
        self.shared = _SHARED[0]
        self.ident = self.shared.new_id()
        self.p_tables = _placement_tables(gen)
        self.tiles_tables, self.walls = _field_tables(tiling)
        self.order_tables = _order_tables(tiling)
        self._tiling = tiling

    def run(self, bits: int, h: int, queue: list[int], idx: int, held: int, use_hold: bool, soft: bool, clock):
        """Search from the buffer-model state; `clock()` is asked between slices and returns False to stop.
        Returns (status, path, nodes): FOUND with [(piece, mask, field, h, sid, hard, lines), ...], else []."""
        with KERNEL_LOCK:  # the shared tables, stack and placement arena are this call's until it returns
            return self._run(bits, h, queue, idx, held, use_hold, soft, clock)

    def arrays(self) -> tuple[tuple, tuple]:
        """(moves, (tiles, orders)): the placement generator's tables, cache and arena, and the two tiling
        tests' tables and memos, as the kernels take them (jit_tiling.state_test; this search and jit_trie's)."""
        shared = self.shared
        tiling = self._tiling
        moves = (self.p_tables, *shared.out, shared.cache, shared.cache_fill, shared.arena, shared.arena_fill)
        tiles = (*self.tiles_tables, tiling.memo, tiling.fill, tiling.stack)
        orders = (*self.order_tables, tiling.hard_memo_for(TILING_BUDGET), tiling.hard_stamp, tiling.hard_stack)
        return (*moves, shared.work), (tiles, orders)

    def _run(self, bits: int, h: int, queue: list[int], idx: int, held: int, use_hold: bool, soft: bool, clock):
        n = len(queue)
        suffix8 = np.zeros(n + 1, np.int64)
        for i in range(n - 1, -1, -1):
            suffix8[i] = suffix8[i + 1] + (1 << (8 * queue[i]))
        problem = (np.array(queue or [0], np.int64), n, use_hold, soft, suffix8, self.ident)
        shared = self.shared
        moves, (tiles, orders) = self.arrays()
        dead = (shared.dead, shared.dead_fill)
        ctl = np.zeros(3, np.int64)
        slice_nodes = SLICE_NODES if clock is not None else 1 << 62
        while True:  # one slice at least, as the Python search expands a few states before it looks at the clock
            status = search(
                ctl,
                slice_nodes,
                (bits, h, idx, held),
                problem,
                shared.frames,
                shared.kids,
                moves,
                dead,
                tiles,
                orders,
                self.walls,
            )
            if status != PAUSED:
                break
            if clock is not None and not clock():
                return PAUSED, [], int(ctl[NODES])
        path = []
        if status == FOUND:
            for d in range(int(ctl[SP]) + 1):
                kid = shared.kids[d, shared.frames[d, F_POS]]
                path.append((int(shared.frames[d, F_PIECE]), *(int(v) for v in kid)))
        return status, path, int(ctl[NODES])


jit_table.forget_stale_cache(
    __name__, [__file__, jit_table.__file__, jit_tiling.__file__, ai.pc.tiling.__file__, jit_placements.__file__]
)

_PLACEMENT_TABLES: dict[tuple, tuple] = {}
_FIELD_TABLES: list[tuple] = []
_ORDER_TABLES: list[tuple] = []


def _placement_tables(gen) -> tuple:
    """The placement kernel's tables of the 7 pieces under the generator's rules, one 2-D array per table."""
    key = gen.key()
    found = _PLACEMENT_TABLES.get(key)
    if found is None:
        per_piece = [gen._kernel_tables(piece) for piece in range(7)]
        if any(entry is None for entry in per_piece):
            raise ImportError("the compiled placement generator is off")
        found = tuple(_stack([per_piece[piece][1][k] for piece in range(7)]) for k in range(11))
        _PLACEMENT_TABLES[key] = found
    return found


def _field_tables(tiling) -> tuple[tuple, tuple]:
    """(the tiling test's tables, the column tables of walls_ok)."""
    if not _FIELD_TABLES:
        from ai.pc.field import COLUMN, LEFT_OF, MAX_LINES

        tiles = (tiling.in_one(),)  # one array: each array more to pass costs the searches (jit_tiling)
        walls = (
            np.array([list(row) for row in COLUMN[: MAX_LINES + 1]], np.int64),
            np.array([list(row) for row in LEFT_OF[: MAX_LINES + 1]], np.int64),
        )
        _FIELD_TABLES.append((tiles, walls))
    return _FIELD_TABLES[0]


def _order_tables(tiling) -> tuple:
    """The hard-drop tiling test's tables (ai.pc.jit_tiling.Kernel.order_tables) for h = 1..6 as 2-D arrays
    indexed by h."""
    if not _ORDER_TABLES:
        from ai.pc.field import MAX_LINES

        per_h = [tiling.order_tables(h) for h in range(1, MAX_LINES + 1)]
        pad = np.zeros(1, np.int64)
        _ORDER_TABLES.append(tuple(_stack([pad, *(table[k] for table in per_h)]) for k in range(len(per_h[0]))))
    return _ORDER_TABLES[0]


def _stack(rows: list) -> np.ndarray:
    """Rows of different lengths as one zero-padded 2-D int array (a row of it is a contiguous 1-D view)."""
    width = max(1, *(len(row) for row in rows))
    dtype: type = np.int64 if all(np.asarray(row).dtype != np.bool_ for row in rows) else np.bool_
    out: np.ndarray = np.zeros((len(rows), width), dtype)
    for i, row in enumerate(rows):
        out[i, : len(row)] = row
    return out
