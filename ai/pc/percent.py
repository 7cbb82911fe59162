"""PC odds over many queues at once: a trie over the sequences and one memoised search over (field, hold, node).

`TrieSearch` answers, for every sequence of a trie, whether a perfect clear exists (the player knowing the
whole sequence, as solution-finder's `percent` counts it). Sequences share prefixes, so the search state is
(field, h, held piece, trie node) and its value is the set of leaves below the node that succeed, kept as an int
bitset; a node stops early once every leaf below it succeeded. Identical subtrees are one node (for `*p7,TIJL`
every prefix with the same pieces left shares its node), so their states are searched once. Hold uses the same
buffer model as `ai.pc.search` (see there).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ai.pc.field import walls_ok
from ai.pc.movegen import MoveGenerator
from ai.pc.tiling import tileable
from game.board import WIDTH, Bitboard
from game.pieces import Piece


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

    @property
    def leaves(self) -> int:
        return (1 << self.count) - 1


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
                node = Node(children, offsets, max(total, 1), tuple(best), len(interned))
                interned[signature] = node
            return node

        self.root = build(self.sequences, 0)
        self.distinct_nodes = len(interned)


@dataclass
class TrieSearch:
    """Memoised search over one trie from one field; `budget_ms` makes it give up (marking `truncated`)."""

    gen: MoveGenerator
    use_hold: bool
    budget_ms: float | None = None
    nodes: int = 0
    truncated: bool = False  # the time budget ran out: every answer since is a lower bound
    memo: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._deadline = None if self.budget_ms is None else time.perf_counter() + self.budget_ms / 1000

    @property
    def deadline(self) -> float | None:
        """The `time.perf_counter()` instant the search stops at (None: no limit)."""
        return self._deadline

    def set_deadline(self, deadline: float | None) -> None:
        """Stop at this `time.perf_counter()` instant instead (None: no limit)."""
        self._deadline = deadline

    def _counts(self, node: Node, held: Piece | None) -> tuple[int, ...]:
        if held is None:
            return node.max_counts
        c = node.max_counts
        return c[:held] + (c[held] + 1,) + c[held + 1 :]

    def viable(self, bits: Bitboard, h: int, node: Node, held: Piece | None) -> bool:
        needed = (WIDTH * h - bits.bit_count()) // 4
        left = sum(node.max_counts) + (held is not None)
        return needed <= left and walls_ok(bits, h) and tileable(bits, h, self._counts(node, held))

    def run(  # noqa: C901 - the memoised search's hot path, kept in one frame for speed (bench/pc.py)
        self, bits: Bitboard, h: int, held: Piece | None, node: Node, wanted: int | None = None
    ) -> int:
        """Leaves below `node` for which a PC exists from this state (held = the buffer piece, see module doc).

        Only the leaves in `wanted` (default: all) must be decided: the answer always has every wanted leaf
        that succeeds, and may have others. The memo keeps (leaves known to succeed, complete?) per state;
        complete means every leaf below was decided, which a search for a partial `wanted` does not do."""
        if h == 0:
            return node.leaves
        if wanted is None:
            wanted = node.leaves
        key = (bits, h, held, node.ident)
        known = self.memo.get(key)
        won = 0
        if known is not None:
            won, complete = known
            if complete or not wanted & ~won:
                return won
        else:
            if not self.viable(bits, h, node, held):
                self.memo[key] = (0, True)
                return 0
        self.nodes += 1
        if self._deadline is not None and self.nodes & 15 == 0 and time.perf_counter() > self._deadline:
            self.truncated = True
        if self.truncated:
            return won
        gen = self.gen
        complete = True
        if not node.children:
            if self.use_hold and held is not None:
                for child in gen.children(bits, h, held):
                    won |= self.run(child.field, child.h, None, node)
                    if won:
                        break
        else:
            offsets = node.offsets
            for piece, sub in node.children.items():
                offset = offsets[piece]
                got = (won >> offset) & sub.leaves
                need = (wanted >> offset) & sub.leaves & ~got
                # Leaves of this child neither known won nor wanted stay undecided by what follows (the calls
                # below decide only `need`), so the state's answer is then incomplete.
                if sub.leaves & ~got & ~need:
                    complete = False
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
                    if placed is None:
                        continue
                    for child in gen.children(bits, h, placed):
                        got |= self.run(child.field, child.h, keep, sub, need & ~got)
                        if not need & ~got:
                            finished = True
                            break
                    if finished:
                        break
                won |= got << offset
        if not self.truncated:
            self.memo[key] = (won, complete)
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
