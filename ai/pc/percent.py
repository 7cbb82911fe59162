"""PC odds over many queues at once: a trie over the sequences and one memoised search over (field, hold, node).

`TrieSearch` answers, for every sequence of a trie, whether a perfect clear exists (the player knowing the
whole sequence, as solution-finder's `percent` counts it). Sequences share prefixes, so the search state is
(field, h, held piece, trie node) and its value is the set of leaves below the node that succeed, kept as an int
bitset; a node stops early once every leaf below it succeeded. Identical subtrees are one node (for `*p7,TIJL`
every prefix with the same pieces left shares its node), so their states are searched once. Hold uses the same
buffer model as `ai.pc.search` (see there).

Two things keep the search close to the single-queue search's size while it shares prefixes:
- The memo keeps, per state, the leaves won and the leaves decided (won, or proved lost by an exhaustive search
  for them). A state met again only searches the wanted leaves not decided yet; a search for some leaves proves
  nothing about the others, so without the decided set a partly searched state would be searched whole again.
- Leaves whose next pieces are the same multiset form a class (`Node.classes`); at each state a class whose
  pieces (with the buffer's) cannot tile the field is dropped from the wanted leaves. Without it the tiling test
  could only use the most of each piece any leaf brings, which prunes far less than a single queue's pieces do.

`USE_KERNEL` runs the same search compiled (`ai.pc.jit_trie`); this module's search is the reference tests
compare it with.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ai.pc.field import walls_ok
from ai.pc.movegen import MoveGenerator
from ai.pc.tiling import hard_drop_tileable_counts8, tileable
from game.board import WIDTH, Bitboard
from game.pieces import Piece

USE_KERNEL = True  # the compiled search (ai.pc.jit_trie) when numba is there; tests switch it off


def nothing_won() -> int:
    """TrieSearch.won_so_far while no search of it runs."""
    return 0


@dataclass(eq=False)
class Node:
    """A node of the trie, shared by every prefix whose future looks the same (the trie is stored as a DAG).

    Leaves below a node are numbered locally in sequence order (children by piece order), so a child's leaves
    are the block starting at `offsets[piece]`; search results are bitsets in that local numbering, which makes
    them reusable by every prefix reaching the same node.
    """

    children: dict[Piece, Node]
    offsets: dict[Piece, int]
    count: int  # leaves below
    max_counts: tuple[int, ...]  # most of each piece any sequence below still brings
    ident: int
    depth: int  # pieces in each sequence below
    _classes: dict = field(default_factory=dict, repr=False)

    @property
    def leaves(self) -> int:
        return (1 << self.count) - 1

    def classes(self, k: int) -> list[tuple[tuple[int, ...], int]]:
        """The leaves grouped by the multiset of their next k pieces: [(count per Piece, leaves), ...]."""
        k = min(k, self.depth)
        found = self._classes.get(k)
        if found is None:
            if k == 0:
                found = [((0,) * 7, self.leaves)]
            else:
                merged: dict[tuple[int, ...], int] = {}
                for piece, child in self.children.items():
                    offset = self.offsets[piece]
                    for counts, leaves in child.classes(k - 1):
                        counts = counts[:piece] + (counts[piece] + 1,) + counts[piece + 1 :]
                        merged[counts] = merged.get(counts, 0) | leaves << offset
                found = list(merged.items())
            self._classes[k] = found
        return found


class Trie:
    """Distinct sequences of equal length as a shared trie; `sequences[i]` is leaf i of the root."""

    def __init__(self, sequences: list[tuple[Piece, ...]]) -> None:
        self.sequences: list[tuple[Piece, ...]] = sorted({tuple(s) for s in sequences})
        lengths = {len(s) for s in self.sequences}
        if len(lengths) > 1:
            raise ValueError("all sequences of a trie must have the same length")
        self.length = lengths.pop() if lengths else 0
        interned: dict[tuple, Node] = {}

        def build(seqs: list[tuple[Piece, ...]], depth: int) -> Node:
            groups: dict[Piece, list[tuple[Piece, ...]]] = {}
            if depth < self.length:
                for seq in seqs:
                    groups.setdefault(seq[depth], []).append(seq)
            children = {piece: build(group, depth + 1) for piece, group in sorted(groups.items())}
            signature = tuple((piece, child.ident) for piece, child in children.items())
            node = interned.get(signature)
            if node is None:
                offsets, total, best = {}, 0, [0] * 7
                for piece, child in children.items():
                    offsets[piece] = total
                    total += child.count
                    below = list(child.max_counts)
                    below[piece] += 1
                    best = [max(a, b) for a, b in zip(best, below)]
                node = Node(children, offsets, max(total, 1), tuple(best), len(interned), self.length - depth)
                interned[signature] = node
            return node

        self.root = build(self.sequences, 0)
        self.distinct_nodes = len(interned)


# memos kept for the tries searched last, by (rules and drop, hold, the trie's sequences): a question asked again
# (a live chance cut short by its budget or by a newer question) goes on where the last search stopped
KEPT_MEMOS = 4
_MEMOS: OrderedDict[tuple, dict] = OrderedDict()


def kept(store: OrderedDict, key: tuple, make: Callable[[], Any]) -> Any:
    """store[key], made when missing; only the KEPT_MEMOS most recently used entries are kept."""
    found = store.pop(key, None)
    if found is None:
        found = make()
        while len(store) >= KEPT_MEMOS:
            store.popitem(last=False)
    store[key] = found
    return found


@dataclass
class TrieSearch:
    """Memoised search over tries from any field; `budget_ms` makes it give up (marking `truncated`).

    With `trie`, every search of the same sequences (under the same rules and hold) shares one memo, so asking
    again after running out of time goes on from what was proved; without it the memo is this search's own."""

    gen: MoveGenerator
    use_hold: bool
    budget_ms: float | None = None
    trie: Trie | None = None
    should_stop: Callable[[], bool] | None = None  # asked between slices of the search as the deadline is
    nodes: int = 0
    truncated: bool = False  # the time budget ran out: every answer since is a lower bound
    memo: dict = field(default_factory=dict)
    memo_key: tuple | None = field(default=None, init=False)  # set from the trie (see __post_init__)
    _kernel: Any = None  # ai.pc.jit_trie.TrieKernel, made on first use (False: numba is not there)
    # while `run` looks at the clock (out_of_time, should_stop), the leaves of its state proved won so far (the
    # compiled search's walk; 0 otherwise): a lower bound to show before the answer
    won_so_far: Callable[[], int] = field(default=nothing_won, repr=False)

    def __post_init__(self) -> None:
        self._deadline = None if self.budget_ms is None else time.perf_counter() + self.budget_ms / 1000
        # what the memo's entries depend on besides the state: rules and drop, hold, the trie's sequences
        self.memo_key = None if self.trie is None else (self.gen.key(), self.use_hold, tuple(self.trie.sequences))
        if self.memo_key is not None:
            self.memo = kept(_MEMOS, self.memo_key, dict)

    @property
    def deadline(self) -> float | None:
        """The `time.perf_counter()` instant the search stops at (None: no limit)."""
        return self._deadline

    def set_deadline(self, deadline: float | None) -> None:
        """Stop at this `time.perf_counter()` instant instead (None: no limit)."""
        self._deadline = deadline

    def interruptible(self) -> bool:
        """Is there a deadline or a stop question to look at now and then?"""
        return self._deadline is not None or self.should_stop is not None

    def out_of_time(self) -> bool:
        """The deadline has passed or the caller asks to stop."""
        if self._deadline is not None and time.perf_counter() > self._deadline:
            return True
        return self.should_stop is not None and self.should_stop()

    def _counts(self, node: Node, held: Piece | None) -> tuple[int, ...]:
        if held is None:
            return node.max_counts
        c = node.max_counts
        return c[:held] + (c[held] + 1,) + c[held + 1 :]

    def viable(self, bits: Bitboard, h: int, node: Node, held: Piece | None) -> bool:
        needed = (WIDTH * h - bits.bit_count()) // 4
        left = sum(node.max_counts) + (held is not None)
        return needed <= left and walls_ok(bits, h) and self._tileable(bits, h, self._counts(node, held))

    def untileable(self, bits: Bitboard, h: int, node: Node, held: Piece | None, among: int | None = None) -> int:
        """The leaves of `node` (those of `among`, default all) whose pieces cannot fill the field, the state test
        per class: the buffer's piece and the next `needed` of each leaf (as ai.pc.search); lost whatever the
        order."""
        if among is None:
            among = node.leaves
        needed = (WIDTH * h - bits.bit_count()) // 4
        lost = 0
        for counts, leaves in node.classes(needed):
            if leaves & among:
                if held is not None:
                    counts = counts[:held] + (counts[held] + 1,) + counts[held + 1 :]
                if not self._tileable(bits, h, counts):
                    lost |= leaves
        return lost

    def _tileable(self, bits: Bitboard, h: int, counts: tuple[int, ...]) -> bool:
        """The state test of ai.pc.search: order-free, or with hard drops only in an order of row clears."""
        if self.gen.soft_drop:
            return tileable(bits, h, counts)
        return hard_drop_tileable_counts8(bits, h, sum(min(c, 255) << (8 * p) for p, c in enumerate(counts)))

    def run(self, bits: Bitboard, h: int, held: Piece | None, node: Node, wanted: int | None = None) -> int:
        """Leaves below `node` for which a PC exists from this state (held = the buffer piece, see module doc).

        Only the leaves in `wanted` (default: all) must be decided: the answer always has every wanted leaf
        that succeeds, and may have others."""
        if wanted is None:
            wanted = node.leaves
        kernel = self._compiled()
        if kernel is not None:
            return kernel.run(bits, h, held, node, wanted)
        return self._run(bits, h, held, node, wanted)

    def _compiled(self) -> Any:
        if not USE_KERNEL:
            return None
        if self._kernel is None:
            from ai.pc.search import searcher_for

            # the first-solution search's kernel for these rules: its placement tables and caches are shared
            searcher_kernel = searcher_for(self.gen.rules, self.gen.soft_drop).kernel()
            if searcher_kernel is None:
                self._kernel = False
            else:
                from ai.pc.jit_trie import TrieKernel

                self._kernel = TrieKernel(searcher_kernel, self)
        return self._kernel or None

    def _run(  # noqa: C901 - the memoised search's hot path, kept in one frame for speed (bench/pc.py)
        self, bits: Bitboard, h: int, held: Piece | None, node: Node, wanted: int
    ) -> int:
        """The search itself; the memo keeps (leaves won, leaves decided) per state (see the module doc)."""
        if h == 0:
            return node.leaves
        key = (bits, h, held, node.ident)
        known = self.memo.get(key)
        won = decided = 0
        if known is not None:
            won, decided = known
            if not wanted & ~decided:
                return won
            wanted &= ~decided
        elif not self.viable(bits, h, node, held):
            self.memo[key] = (0, node.leaves)
            return 0
        asked = wanted
        # the pieces that can still be placed: the buffer's and the next `needed` of each leaf (as ai.pc.search)
        wanted &= ~self.untileable(bits, h, node, held, wanted)
        if not wanted:
            self.memo[key] = (won, decided | asked)
            return won
        self.nodes += 1
        if self.nodes & 15 == 0 and self.interruptible() and self.out_of_time():
            self.truncated = True
        if self.truncated:
            return won
        gen = self.gen
        if not node.children:
            if self.use_hold and held is not None:
                for child in gen.children(bits, h, held):
                    won |= self._run(child.field, child.h, None, node, node.leaves)
                    if won:
                        break
        else:
            offsets = node.offsets
            for piece, sub in node.children.items():
                offset = offsets[piece]
                got = (won >> offset) & sub.leaves
                need = (wanted >> offset) & sub.leaves & ~got
                if not need:
                    continue
                choices: list[tuple[Piece, Piece | None]]
                if self.use_hold:
                    choices = [(held, piece)] if held is not None and held != piece else []
                    choices.append((piece, held))
                else:
                    choices = [(piece, None)]
                finished = False
                for placed, keep in choices:
                    for child in gen.children(bits, h, placed):
                        got |= self._run(child.field, child.h, keep, sub, need & ~got)
                        if not need & ~got:
                            finished = True
                            break
                    if finished:
                        break
                won |= got << offset
        if not self.truncated:
            self.memo[key] = (won, decided | asked | won)
        return won

    def from_start(self, bits: Bitboard, h: int, hold: Piece | None, root: Node) -> int:
        """Leaves of the whole trie that succeed, starting with `hold` in the hold slot (None: empty) and the
        first piece of each sequence in play."""
        if h == 0:
            return root.leaves
        if self.use_hold and hold is None:
            # empty hold: the piece in play fills the buffer
            result = 0
            for piece, sub in root.children.items():
                result |= self.run(bits, h, piece, sub) << root.offsets[piece]
            return result
        return self.run(bits, h, hold if self.use_hold else None, root)
