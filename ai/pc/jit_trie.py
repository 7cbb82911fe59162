"""`ai.pc.percent.TrieSearch`'s search compiled with numba: the same memoised search over (field, buffer piece,
trie node), the same pruning (pieces left, column walls, the state test of ai.pc.search for the node and for each
class of leaves), the same placements in the same order, so it wins the same leaves (tests compare the two).

Leaf sets are bitsets in rows of int64 words (a node's leaves in its own numbering, as in the Python search):
- the trie is flattened into arrays (`_trie_tables`, rows by Node.ident): per node its leaf count, the most of
  each piece below, its children (piece, node, offset of their leaves) and its leaf classes per number of pieces;
- the memo is an open-addressing table (ai.pc.jit_table) from the state to a row of the word arena holding the
  leaves won and the leaves decided; table and arena are shared by every search of the process, entries carry
  their memo's id (`_Memory`: one per search, or one per memo key, kept for the searches of the same trie), and
  both are started over when full;
- the depth-first walk keeps an explicit stack of frames (a recursive numba function cannot be cached: loaded
  from numba's cache it crashed); each depth has its own scratch rows and its own copy of the placements it
  walks, because deeper states may start the placement arena over;
- a call stops after a number of expanded states and reports it; nothing unfinished is stored, so calling again
  goes on from the memo (the caller checks its clock between calls, as numba code cannot read it).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ai.pc import jit_placements, jit_search, jit_table, jit_tiling
from ai.pc.jit_search import MAX_CHILDREN, TILING_BUDGET, _children, _walls_ok
from ai.pc.jit_table import KERNEL_LOCK, get, kernel, popcount, put, reset
from ai.pc.jit_tiling import state_test
from ai.pc.percent import kept, nothing_won

DEPTH = 18  # frames: at most 15 placements, plus the leaf step with hold
MEMO_SLOTS = 1 << 18
ARENA_WORDS = 1 << 22  # 32 MB of leaf sets
VBITS = 23  # a memo value is an arena offset
NODE_BITS = 22  # Node.ident below 2**22
SEARCH_BITS = 10  # memo ids (_Memory) told apart in the table before it is started over
SLICE_NODES = 1024  # expanded states per call when the caller has a deadline or a stop question (~15 ms: a newer
# question waits no longer; smaller slices cost nothing measurable, 256 to 4096 states: 5.3-5.6 s for bench/pc.py
# firsts' seed 5 with a stop question)
# control words (ctl): expanded states so far, stop after this many, the deepest frame open when a call stopped
NODES, BUDGET, TOP = 0, 1, 2
DONE, STOPPED = 0, 1


@kernel
def _shr(x, s):
    """Logical right shift of an int64 by 0..63."""
    if s == 0:
        return x
    return (x >> s) & ((1 << (64 - s)) - 1)


@kernel
def _words(count):
    return (count + 63) >> 6


@kernel
def _ones(row, count):
    n = _words(count)
    for i in range(n):
        row[i] = -1
    if count & 63:
        row[n - 1] = (1 << (count & 63)) - 1


@kernel
def _extract(src, offset, count, dst):
    """dst = the `count` bits of src starting at bit `offset`."""
    n = _words(count)
    for i in range(n):
        p = offset + 64 * i
        w = p >> 6
        s = p & 63
        v = _shr(src[w], s)
        if s:
            v |= src[w + 1] << (64 - s)
        dst[i] = v
    if count & 63:
        dst[n - 1] &= (1 << (count & 63)) - 1


@kernel
def _insert(dst, offset, src, count):
    """dst |= src's `count` bits moved up to bit `offset`."""
    for i in range(_words(count)):
        v = src[i]
        p = offset + 64 * i
        w = p >> 6
        s = p & 63
        dst[w] |= v << s
        if s:
            dst[w + 1] |= _shr(v, 64 - s)


@kernel
def _meets(pool, at, row, n):
    """pool[at : at + n] & row is not empty."""
    for i in range(n):
        if pool[at + i] & row[i]:
            return True
    return False


@kernel
def _empty(row, n):
    for i in range(n):
        if row[i]:
            return False
    return True


@kernel
def _any_left(a, b, n):
    """a & ~b is not empty (over n words)."""
    for i in range(n):
        if a[i] & ~b[i]:
            return True
    return False


@kernel
def _store(a, b, won, decided, n, memo, memo_fill, arena, arena_fill):
    """Memo entry (won, decided) for state (a, b), in place if the state has one."""
    at = get(memo, a, b, VBITS)
    if at < 0:
        if arena_fill[0] + 2 * n > arena.shape[0] or memo_fill[0] * 4 > memo.shape[0]:
            reset(memo, memo_fill)
            arena_fill[0] = 0
        at = arena_fill[0]
        arena_fill[0] += 2 * n
        put(memo, memo_fill, a, b, VBITS, at)
    for i in range(n):
        arena[at + i] = won[i]
        arena[at + n + i] = decided[i]


@kernel
def _tileable(bits, h, counts8, soft, tiles):
    """The searches' state test (ai.pc.jit_tiling.state_test); tiles = (order-free tables, hard-drop tables)."""
    return state_test(bits, h, counts8, TILING_BUDGET, soft, tiles[0], tiles[1]) != 0  # 2: unknown, may be


@kernel
def _copy_kids(start, arena, out):
    """Copy the (field after, h after) of the placements stored at `start` of the placement arena into out."""
    total = arena[start - 1, 0]
    for j in range(total):
        out[j, 0] = arena[start + j, 1]
        out[j, 1] = arena[start + j, 2]
    return total


# frame columns: the state, its memo key, where its walk is (trie child, hold option, placement), and the child
# state it opens next
F_BITS, F_H, F_HELD, F_NODE, F_A, F_B, F_LEAF, F_CHILD, F_OPTION, F_POS, F_COUNT, F_KEEP = range(12)
F_NEXT_BITS, F_NEXT_H, F_NEXT_HELD, F_NEXT_NODE = range(12, 16)
FRAME_WIDTH = 16
FINISHED, EXPAND = 2, 3  # _open: the state's answer is in won[d] / the state must be searched (frame d is set)


@kernel
def _open(d, bits, h, held, node, frames, trie, config, memory, scratch, moves, tiles, walls):  # noqa: C901
    """Enter state (bits, h, held, node) wanting the leaves in want[d] (ai.pc.percent.TrieSearch._run up to its
    walk over placements): FINISHED with the answer in won[d], EXPAND with frame d ready, or STOPPED."""
    counts, words, max8, max_sum, depth, c_start, c_num, _, _, _, k_start, k_num, k8, k_at, k_pool = trie
    use_hold, soft, search_id, ident = config
    memo, memo_fill, arena, arena_fill, ctl = memory
    want, won, decided, asked, _, _, kids = scratch
    n = words[node]
    count = counts[node]
    if h == 0:
        _ones(won[d], count)
        return FINISHED
    a = bits | (h << 60)
    b = (((search_id << NODE_BITS) | node) << 4) | (held + 1)
    for i in range(n):
        won[d, i] = 0
        decided[d, i] = 0
    # the dead-state tests before the memo: dead states are never stored (the tests answer again at about the cost
    # of a memo lookup, their tiling memo keeping the verdict, and stored they pushed the searched states out of the
    # memo), so their lookup always missed, and they are ~70% of the states entered (no kicks' o2Z/h:LSJILI: 3.0 of
    # 4.3 million)
    needed = (10 * h - popcount(bits)) // 4
    pieces8 = max8[node]
    if held >= 0:
        pieces8 += 1 << (8 * held)
    if not (
        needed <= max_sum[node] + (1 if held >= 0 else 0)
        and _walls_ok(bits, h, walls[0], walls[1])
        and _tileable(bits, h, pieces8, soft, tiles)
    ):
        return FINISHED
    at = get(memo, a, b, VBITS)
    if at >= 0:
        for i in range(n):
            won[d, i] = arena[at + i]
            decided[d, i] = arena[at + n + i]
        if not _any_left(want[d], decided[d], n):
            return FINISHED
        for i in range(n):
            want[d, i] &= ~decided[d, i]
    for i in range(n):
        asked[d, i] = want[d, i]
    # classes of leaves whose pieces cannot tile the field are wanted no more
    row = node * 16 + min(needed, depth[node])
    for c in range(k_start[row], k_start[row] + k_num[row]):
        if _meets(k_pool, k_at[c], want[d], n):
            pieces8 = k8[c]
            if held >= 0:
                pieces8 += 1 << (8 * held)
            if not _tileable(bits, h, pieces8, soft, tiles):
                at = k_at[c]
                for i in range(n):
                    want[d, i] &= ~k_pool[at + i]
    if _empty(want[d], n):
        for i in range(n):
            decided[d, i] |= asked[d, i]
        _store(a, b, won[d], decided[d], n, memo, memo_fill, arena, arena_fill)
        return FINISHED
    ctl[NODES] += 1
    if ctl[NODES] > ctl[BUDGET]:
        return STOPPED
    frames[d, F_BITS] = bits
    frames[d, F_H] = h
    frames[d, F_HELD] = held
    frames[d, F_NODE] = node
    frames[d, F_A] = a
    frames[d, F_B] = b
    frames[d, F_POS] = 0
    frames[d, F_COUNT] = 0
    frames[d, F_LEAF] = c_num[node] == 0  # a leaf node's state only plays the buffer's piece
    if c_num[node] == 0:
        if use_hold and held >= 0:
            frames[d, F_COUNT] = _copy_kids(_children(bits, h, held, soft, ident, moves), moves[6], kids[d])
    else:
        frames[d, F_CHILD] = c_start[node] - 1  # _advance moves on to the first trie child
        frames[d, F_OPTION] = 2
    return EXPAND


@kernel
def _advance(d, frames, trie, config, scratch, moves):
    """Set frame d's next child state (F_NEXT_*, its wanted leaves in want[d + 1]) and return True, or return
    False when frame d's walk is over. The walk: per trie child, the buffer's piece then the next piece (as the
    Python search's choices), per piece its placements in the generator's order."""
    counts, words, _, _, _, c_start, c_num, c_piece, c_node, c_offset, _, _, _, _, _ = trie
    use_hold, soft, _, ident = config
    want, won, _, _, got, need, kids = scratch
    node = frames[d, F_NODE]
    while True:
        pos = frames[d, F_POS]
        if frames[d, F_LEAF]:
            if pos >= frames[d, F_COUNT] or won[d, 0]:
                return False
            frames[d, F_POS] = pos + 1
            _ones(want[d + 1], 1)
            frames[d, F_NEXT_BITS] = kids[d, pos, 0]
            frames[d, F_NEXT_H] = kids[d, pos, 1]
            frames[d, F_NEXT_HELD] = -1
            frames[d, F_NEXT_NODE] = node
            return True
        c = frames[d, F_CHILD]
        if pos < frames[d, F_COUNT]:
            frames[d, F_POS] = pos + 1
            sub = c_node[c]
            for i in range(words[sub]):
                want[d + 1, i] = need[d, i] & ~got[d, i]
            frames[d, F_NEXT_BITS] = kids[d, pos, 0]
            frames[d, F_NEXT_H] = kids[d, pos, 1]
            frames[d, F_NEXT_HELD] = frames[d, F_KEEP]
            frames[d, F_NEXT_NODE] = sub
            return True
        option = frames[d, F_OPTION]
        if option < 2:  # the next way to play this trie child's piece
            frames[d, F_OPTION] = option + 1
            piece = c_piece[c]
            held = frames[d, F_HELD]
            if not use_hold:
                if option == 0:
                    continue
                placed, keep = piece, -1
            elif option == 0:
                if held < 0 or held == piece:
                    continue
                placed, keep = held, piece
            else:
                placed, keep = piece, held
            start = _children(frames[d, F_BITS], frames[d, F_H], placed, soft, ident, moves)
            frames[d, F_COUNT] = _copy_kids(start, moves[6], kids[d])
            frames[d, F_POS] = 0
            frames[d, F_KEEP] = keep
            continue
        if c >= c_start[node]:  # this trie child is done: its leaves won go into the state's
            _insert(won[d], c_offset[c], got[d], counts[c_node[c]])
        c += 1
        if c >= c_start[node] + c_num[node]:
            return False
        frames[d, F_CHILD] = c
        sub = c_node[c]
        _extract(won[d], c_offset[c], counts[sub], got[d])
        _extract(want[d], c_offset[c], counts[sub], need[d])
        frames[d, F_COUNT] = 0
        frames[d, F_POS] = 0
        frames[d, F_OPTION] = 0 if _any_left(need[d], got[d], words[sub]) else 2


@kernel
def _merge(d, frames, trie, scratch):
    """Take the answer of frame d's child state (won[d + 1]) into frame d."""
    words = trie[1]
    c_node = trie[8]
    _, won, _, _, got, need, _ = scratch
    if frames[d, F_LEAF]:
        if won[d + 1, 0]:
            won[d, 0] = 1
        return
    n = words[c_node[frames[d, F_CHILD]]]
    for i in range(n):
        got[d, i] |= won[d + 1, i]
    if not _any_left(need[d], got[d], n):  # every leaf wanted of this trie child is won
        frames[d, F_POS] = frames[d, F_COUNT]
        frames[d, F_OPTION] = 2


@kernel
def walk(bits, h, held, node, frames, trie, config, memory, scratch, moves, tiles, walls):
    """The leaves of `node` won from (bits, h, held) among those in want[0], into won[0]: DONE, or STOPPED when
    the state budget (ctl[BUDGET]) ran out first (nothing unfinished is stored; call again to go on)."""
    memo, memo_fill, arena, arena_fill, _ = memory
    _, won, decided, asked, _, _, _ = scratch
    words = trie[1]
    ctl = memory[4]
    ctl[TOP] = -1
    status = _open(0, bits, h, held, node, frames, trie, config, memory, scratch, moves, tiles, walls)
    if status != EXPAND:
        return STOPPED if status == STOPPED else DONE
    d = 0
    while True:
        if _advance(d, frames, trie, config, scratch, moves):
            status = _open(
                d + 1,
                frames[d, F_NEXT_BITS],
                frames[d, F_NEXT_H],
                frames[d, F_NEXT_HELD],
                frames[d, F_NEXT_NODE],
                frames,
                trie,
                config,
                memory,
                scratch,
                moves,
                tiles,
                walls,
            )
            if status == STOPPED:
                ctl[TOP] = d  # frames 0..d are the path to the state the call stopped at (won_so_far)
                return STOPPED
            if status == EXPAND:
                d += 1
            else:
                _merge(d, frames, trie, scratch)
            continue
        # frame d's walk is over: its leaves are decided
        n = words[frames[d, F_NODE]]
        for i in range(n):
            decided[d, i] |= asked[d, i] | won[d, i]
        _store(frames[d, F_A], frames[d, F_B], won[d], decided[d], n, memo, memo_fill, arena, arena_fill)
        if d == 0:
            return DONE
        d -= 1
        _merge(d, frames, trie, scratch)


class _Shared:
    """The memo, its arena, the placement copies and the scratch rows, allocated once per process."""

    def __init__(self) -> None:
        if ARENA_WORDS > 1 << VBITS:
            # an offset past VBITS bits would be stored cut short and read back as another state's leaves: wrong
            # answers, not an error (seen: 1 << 25 words gave a no-kick position 840 futures won, not 769)
            raise ValueError(f"ARENA_WORDS {ARENA_WORDS} needs memo values wider than VBITS = {VBITS} bits")
        self.memo = jit_table.make(MEMO_SLOTS)
        self.memo_fill = np.zeros(1, np.int64)
        self.arena = np.zeros(ARENA_WORDS, np.int64)
        self.arena_fill = np.zeros(1, np.int64)
        self.kids = np.zeros((DEPTH, MAX_CHILDREN, 2), np.int64)
        self.frames = np.zeros((DEPTH, FRAME_WIDTH), np.int64)
        self.rows = np.zeros((6, DEPTH, 2), np.int64)  # want, won, decided, asked, got, need (grown on demand)
        self.memories: OrderedDict[tuple, _Memory] = OrderedDict()  # by ai.pc.percent.TrieSearch.memo_key
        self.next_id = 1
        self.generation = 0  # ids given before the last start-over are stale

    def forget(self) -> None:
        """Empty the memo and its arena (in place: the arrays stay allocated)."""
        reset(self.memo, self.memo_fill)
        self.arena_fill[0] = 0

    def new_id(self) -> int:
        if self.next_id >= 1 << SEARCH_BITS:  # ids run out: forget every entry, then ids start over
            self.forget()
            self.next_id = 1
            self.generation += 1
        self.next_id += 1
        return self.next_id - 1

    def scratch(self, words: int) -> tuple:
        """Scratch rows of at least `words` words, plus one word of slack for the shifts."""
        if self.rows.shape[2] < words + 1:
            self.rows = np.zeros((6, DEPTH, words + 1), np.int64)
        return (*self.rows, self.kids)


_SHARED: list[_Shared] = []
# the table generators' memo (size_memo): a group of positions searched at once (ai.pc.later_start.solve_group) fills
# the default one and starts it over, losing what the positions share; 8 times the slots and twice the arena (VBITS
# allows no more) made no kicks' two-dealt positions with J held, IJLSZ left and L in play 157 -> 94 CPU s (168
# positions, one run each); 16 times the slots, 90 s
GENERATOR_MEMO = (1 << 21, 1 << 23)


def size_memo(slots: int, words: int) -> None:
    """Give this process's trie searches a memo of `slots` slots and an arena of `words` words (a table generator's
    worker, before its first search: the searches made so far keep the memo they have)."""
    global MEMO_SLOTS, ARENA_WORDS
    if _SHARED:
        raise RuntimeError("size_memo comes before the process's first trie search")
    MEMO_SLOTS, ARENA_WORDS = slots, words


def forget() -> None:
    """Empty the shared memo of every compiled trie search in the process (a test that must see a search whose memo
    does not start over part way: earlier searches may have left it nearly full)."""
    for shared in _SHARED:
        shared.forget()


def _to_words(leaves: int, words: int) -> np.ndarray:
    return np.frombuffer(leaves.to_bytes(8 * words, "little"), "<i8")


def _from_words(row: np.ndarray, words: int) -> int:
    return int.from_bytes(row[:words].tobytes(), "little")


class TrieKernel:
    """The compiled search behind one `ai.pc.percent.TrieSearch` (its counters, deadline and memo key), with the
    placement tables and caches of the first-solution search's kernel for the same rules. Nodes are numbered by
    `Node.ident`, which the same sequences always give the same, so searches sharing a memo key share the memo
    entries and the tables too."""

    def __init__(self, searcher_kernel, search) -> None:
        if not _SHARED:
            _SHARED.append(_Shared())
        self.shared = _SHARED[0]
        self.search = search
        self.searcher_kernel = searcher_kernel
        key = search.memo_key
        self.memory = _Memory() if key is None else kept(self.shared.memories, key, _Memory)
        if search.trie is not None:
            self.memory.add(search.trie.root)

    def run(self, bits: int, h: int, held, node, wanted: int) -> int:
        """ai.pc.percent.TrieSearch.run, compiled."""
        with KERNEL_LOCK:  # the memo, arena, stack and scratch rows are the process's until it returns
            return self._run(bits, h, held, node, wanted)

    def _run(self, bits: int, h: int, held, node, wanted: int) -> int:
        memory = self.memory
        memory.add(node)
        if memory.generation != self.shared.generation:  # the ids started over: this id may be another's now
            memory.search_id = self.shared.new_id()
            memory.generation = self.shared.generation
        trie = memory.tables()
        words = _words(node.count)
        search = self.search
        k = self.searcher_kernel
        shared = self.shared
        scratch = shared.scratch(int(trie[1].max()))
        moves, tiles = k.arrays()
        config = (search.use_hold, search.gen.soft_drop, memory.search_id, k.ident)
        state = (shared.memo, shared.memo_fill, shared.arena, shared.arena_fill, np.zeros(3, np.int64))
        ctl = state[4]
        sliced = search.interruptible()
        want = _to_words(wanted & node.leaves, words)
        held_code = -1 if held is None else int(held)
        while True:
            scratch[0][0, :words] = want
            ctl[BUDGET] = ctl[NODES] + (SLICE_NODES if sliced else 1 << 62)
            status = walk(
                bits, h, held_code, node.ident, shared.frames, trie, config, state, scratch, moves, tiles, k.walls
            )
            if status == DONE:
                break
            # between calls (the caller's clock check) the stack still holds what the walk has won so far
            search.won_so_far = lambda: self._won_so_far(trie, scratch, int(ctl[TOP])) & node.leaves
            stop = search.out_of_time()
            search.won_so_far = nothing_won
            if stop:
                search.truncated = True
                search.nodes += int(ctl[NODES])
                return 0  # nothing proved for this state: a lower bound, as the Python search's answer
        search.nodes += int(ctl[NODES])
        return _from_words(scratch[1][0], words)

    def _won_so_far(self, trie: tuple, scratch: tuple, top: int) -> int:
        """The leaves of the stopped call's state proved won so far (its node's numbering): per frame of the
        path, deepest first, the leaves its state had won (memo and trie children finished) and those of the
        trie child being walked (its placements finished, and the frame below it)."""
        counts, words, c_start, c_num, c_node, c_offset = trie[0], trie[1], trie[5], trie[6], trie[8], trie[9]
        won, got = scratch[1], scratch[4]
        frames = self.shared.frames
        below = 0  # the frame below's leaves won, in its node's numbering
        for d in range(top, -1, -1):
            node = frames[d, F_NODE]
            mine = _from_words(won[d], int(words[node]))
            child = frames[d, F_CHILD]
            if frames[d, F_LEAF]:  # the leaf step's state has the same single leaf
                mine |= below
            elif c_start[node] <= child < c_start[node] + c_num[node]:
                sub = c_node[child]
                mine |= (_from_words(got[d], int(words[sub])) | below) << int(c_offset[child])
            below = mine & ((1 << int(counts[node])) - 1)
        return below


class _Memory:
    """A memo's id in the shared table and the tables of the trie nodes met so far (by Node.ident)."""

    def __init__(self) -> None:
        shared = _SHARED[0]
        self.search_id = shared.new_id()
        self.generation = shared.generation
        self.nodes: dict[int, object] = {}
        self._tables: tuple | None = None

    def add(self, node) -> None:
        """Take in the node and the nodes below it."""
        if node.ident in self.nodes:
            return
        stack = [node]
        while stack:
            item = stack.pop()
            if item.ident not in self.nodes:
                if item.ident >= 1 << NODE_BITS:
                    raise ValueError("trie too large for the compiled search")
                self.nodes[item.ident] = item
                stack.extend(item.children.values())
        self._tables = None

    def tables(self) -> tuple:
        if self._tables is None:
            self._tables = _trie_tables(self.nodes)
        return self._tables


def _trie_tables(by_ident: dict) -> tuple:
    """The trie as the kernel's arrays (see _open's unpacking): per node (row Node.ident; rows of nodes not met
    are never read), per child, per class of leaves."""
    size = max(by_ident) + 1
    counts, max8, max_sum, depth = (np.zeros(size, np.int64) for _ in range(4))
    nodes = [by_ident[ident] for ident in sorted(by_ident)]
    for node in nodes:
        counts[node.ident] = node.count
        max8[node.ident] = sum(c << (8 * p) for p, c in enumerate(node.max_counts))
        max_sum[node.ident] = sum(node.max_counts)
        depth[node.ident] = node.depth
    words = (counts + 63) >> 6
    c_start, c_num = np.zeros(size, np.int64), np.zeros(size, np.int64)
    c_piece: list[int] = []
    c_node: list[int] = []
    c_offset: list[int] = []
    k_start, k_num = np.zeros(size * 16, np.int64), np.zeros(size * 16, np.int64)
    k8: list[int] = []
    k_at: list[int] = []
    pool: list[np.ndarray] = []
    pool_len = 0
    for node in nodes:
        i = node.ident
        c_start[i] = len(c_piece)
        c_num[i] = len(node.children)
        for piece, child in node.children.items():
            c_piece.append(int(piece))
            c_node.append(child.ident)
            c_offset.append(node.offsets[piece])
        n = int(words[i])
        for k in range(min(node.depth, 15) + 1):
            k_start[i * 16 + k] = len(k8)
            classes = node.classes(k)
            k_num[i * 16 + k] = len(classes)
            for pieces, leaves in classes:
                k8.append(sum(c << (8 * p) for p, c in enumerate(pieces)))
                k_at.append(pool_len)
                pool.append(_to_words(leaves, n))
                pool_len += n
    return (
        counts,
        words,
        max8,
        max_sum,
        depth,
        c_start,
        c_num,
        np.array(c_piece or [0], np.int64),
        np.array(c_node or [0], np.int64),
        np.array(c_offset or [0], np.int64),
        k_start,
        k_num,
        np.array(k8 or [0], np.int64),
        np.array(k_at or [0], np.int64),
        np.concatenate(pool) if pool else np.zeros(1, np.int64),
    )


jit_table.forget_stale_cache(
    __name__, [__file__, jit_table.__file__, jit_tiling.__file__, jit_placements.__file__, jit_search.__file__]
)
