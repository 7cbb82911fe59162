"""Piece randomizers. Each owns a seeded `random.Random` and is also an exact model of its own future.

A randomizer is a Markov process over a small hashable *state* (what is left in the bag, the last piece, the
history...). `draw()` samples the next piece with the private generator; `outcomes(state)` lists, exactly, every
piece that can come next from a state with its probability and the state after it. The perfect-clear solver
and the search use `outcomes` to reason over futures the player cannot see yet.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from game.pieces import ALL_PIECES, Piece

State = Any  # hashable; each randomizer defines its own shape (what is left in the bag, the history...)
Outcome = tuple[Piece, float, State]


class Randomizer:
    """Base class. Subclasses define `initial_state`, `outcomes` and `_draw`."""

    key = "base"
    name = "Randomizer"

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self.state: State = self.initial_state()

    def initial_state(self) -> State:
        raise NotImplementedError

    def outcomes(self, state: State) -> list[Outcome]:
        """Every possible next piece from `state`: (piece, probability, next state). Probabilities sum to 1."""
        raise NotImplementedError

    def _draw(self) -> Piece:
        raise NotImplementedError

    def draw(self) -> Piece:
        """Take the next piece and advance the state."""
        piece = self._draw()
        self.state = self.after(self.state, piece)
        return piece

    def after(self, state: State, piece: Piece) -> State:
        """The state after `piece` was drawn from `state` (ValueError if it could not have been)."""
        for candidate, _, next_state in self.outcomes(state):
            if candidate == piece:
                return next_state
        raise ValueError(f"{self.name}: piece {piece.name} cannot follow in this state")

    def sequences(self, length: int, state: State | None = None) -> Iterator[tuple[tuple[Piece, ...], float]]:
        """Every sequence of `length` next pieces with its probability (exact; may be large for long lengths)."""
        start = self.state if state is None else state

        def walk(current: State, depth: int, prefix: tuple[Piece, ...], prob: float):
            if depth == length:
                yield prefix, prob
                return
            for piece, p, following in self.outcomes(current):
                yield from walk(following, depth + 1, prefix + (piece,), prob * p)

        yield from walk(start, 0, (), 1.0)


class BagRandomizer(Randomizer):
    """Deal every piece `copies` times per bag, in a shuffled order. State: the pieces left, as a sorted tuple."""

    key = "7bag"
    name = "7-bag"
    copies = 1

    def __init__(self, seed: int) -> None:
        self._dealing: list[Piece] = []
        super().__init__(seed)

    def initial_state(self) -> State:
        return ()

    def _full_bag(self) -> tuple[Piece, ...]:
        return tuple(piece for piece in ALL_PIECES for _ in range(self.copies))

    def outcomes(self, state: State) -> list[Outcome]:
        left: tuple[Piece, ...] = state or self._full_bag()
        result: list[Outcome] = []
        for piece in dict.fromkeys(left):
            index = left.index(piece)
            rest = left[:index] + left[index + 1 :]
            result.append((piece, left.count(piece) / len(left), rest))
        return result

    def _draw(self) -> Piece:
        left = list(self.state) if self.state else list(self._full_bag())
        if sorted(self._dealing) != left:
            # A new bag, or a state set from outside (a game started mid-bag): shuffle what is left.
            self._rng.shuffle(left)
            self._dealing = left[::-1]  # pop() from the end deals the shuffled bag front to back
        return self._dealing.pop()

    def bag_position(self, state: State | None = None) -> int:
        """How many pieces of the current bag were dealt (0 at a bag boundary)."""
        left = self.state if state is None else state
        return (len(self._full_bag()) - len(left)) % len(self._full_bag())


class FourteenBagRandomizer(BagRandomizer):
    key = "14bag"
    name = "14-bag"
    copies = 2


class PureRandomizer(Randomizer):
    """Each piece uniformly at random, independent of the past."""

    key = "random"
    name = "Pure random"

    def initial_state(self) -> State:
        return None

    def outcomes(self, state: State) -> list[Outcome]:
        return [(piece, 1 / 7, None) for piece in ALL_PIECES]

    def _draw(self) -> Piece:
        return self._rng.choice(ALL_PIECES)


class NesRandomizer(Randomizer):
    """The NES game's rule: roll one of 8 (7 pieces + a dummy); on the dummy or a repeat, roll once more (of 7)."""

    key = "nes"
    name = "Classic NES (one reroll)"

    def initial_state(self) -> State:
        return None  # the previous piece

    def outcomes(self, state: State) -> list[Outcome]:
        reroll = 2 / 8 if state is not None else 1 / 8
        result: list[Outcome] = []
        for piece in ALL_PIECES:
            first_roll = 0.0 if piece == state else 1 / 8
            result.append((piece, first_roll + reroll / 7, piece))
        return result

    def _draw(self) -> Piece:
        roll = self._rng.randrange(8)
        if roll == 7 or ALL_PIECES[roll] == self.state:
            return ALL_PIECES[self._rng.randrange(7)]
        return ALL_PIECES[roll]


class TgmRandomizer(Randomizer):
    """TGM2-style history: keep the last 4 pieces; roll up to 6 times for one not among them, else keep the last
    roll. The history starts as Z S S Z and the first piece is never S, Z or O."""

    key = "tgm"
    name = "TGM history (4 pieces, 6 rolls)"
    rolls = 6
    first_pieces = (Piece.I, Piece.J, Piece.L, Piece.T)

    def initial_state(self) -> State:
        return ("first", (Piece.Z, Piece.S, Piece.S, Piece.Z))

    def outcomes(self, state: State) -> list[Outcome]:
        phase, history = state
        if phase == "first":
            return [(piece, 1 / len(self.first_pieces), ("run", history[1:] + (piece,))) for piece in self.first_pieces]
        in_history = len(set(history)) / 7
        result: list[Outcome] = []
        for piece in ALL_PIECES:
            if piece in history:
                p = in_history ** (self.rolls - 1) / 7
            else:
                p = sum(in_history**i for i in range(self.rolls)) / 7
            result.append((piece, p, ("run", history[1:] + (piece,))))
        return result

    def _draw(self) -> Piece:
        phase, history = self.state
        if phase == "first":
            return self._rng.choice(self.first_pieces)
        piece = Piece.I
        for _ in range(self.rolls):
            piece = self._rng.choice(ALL_PIECES)
            if piece not in history:
                break
        return piece


RANDOMIZERS: dict[str, type[Randomizer]] = {
    cls.key: cls for cls in (BagRandomizer, FourteenBagRandomizer, PureRandomizer, NesRandomizer, TgmRandomizer)
}


def make_randomizer(key: str, seed: int) -> Randomizer:
    """A randomizer by key: 7bag, 14bag, random, nes, tgm."""
    try:
        return RANDOMIZERS[key](seed)
    except KeyError:
        raise ValueError(f"unknown randomizer {key!r} (choose from {', '.join(RANDOMIZERS)})") from None
