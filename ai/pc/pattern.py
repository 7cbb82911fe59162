"""Queue patterns in solution-finder's syntax.

- A piece letter is that piece: ``TIJL`` is the single queue T, I, J, L.
- ``[SZO]`` is one piece drawn from the bag; ``[SZO]p2`` draws two different ones in order (6 queues);
  ``[^TI]`` is every piece except T and I; ``*`` is ``[IJLOSTZ]``, so ``*p7`` is every order of a bag (5,040).
- ``!`` after a bag draws all of it: ``*!`` = ``*p7``, ``[SZO]!`` = ``[SZO]p3``.
- Parts follow each other, optionally separated by commas: ``T,I,*p4`` and ``*p7,TIJL``.
- ``;`` joins patterns: the queues of each, a queue given by two patterns counted once.
Bad input raises PatternError (a ValueError) saying what and where.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from game.pieces import Piece

MAX_SEQUENCES = 2_000_000
MAX_PATTERN_LENGTH = 10_000
_ALL = "IJLOSTZ"
_DIGITS = "0123456789"


class PatternError(ValueError):
    """A pattern that cannot be read; the message quotes the pattern and the offending position."""


@dataclass(frozen=True)
class Draw:
    """Draw `count` different pieces, in order, from `bag` (one piece: a fixed letter)."""

    bag: tuple[Piece, ...]
    count: int

    def sequences(self) -> Iterator[tuple[Piece, ...]]:
        """The distinct draws, each once, in the order ``itertools.permutations`` first produces them.

        Built directly (a bag with repeated letters would otherwise walk every duplicate permutation): at each
        step the candidates are the distinct pieces left, ordered by the lowest bag position still unused.
        """
        if len(set(self.bag)) == len(self.bag):
            yield from itertools.permutations(self.bag, self.count)
            return
        positions: dict[Piece, list[int]] = {}
        for index, piece in enumerate(self.bag):
            positions.setdefault(piece, []).append(index)
        used = {piece: 0 for piece in positions}
        prefix: list[Piece] = []

        def walk() -> Iterator[tuple[Piece, ...]]:
            if len(prefix) == self.count:
                yield tuple(prefix)
                return
            left = sorted((spots[used[piece]], piece) for piece, spots in positions.items() if used[piece] < len(spots))
            for _, piece in left:
                used[piece] += 1
                prefix.append(piece)
                yield from walk()
                prefix.pop()
                used[piece] -= 1

        yield from walk()

    def size(self) -> int:
        """How many distinct draws there are, counted arithmetically (never by walking them)."""
        return multiset_permutations(Counter(self.bag).values(), self.count)

    def allows(self, seq: tuple[Piece, ...]) -> bool:
        """Whether `seq` is one of this draw's sequences."""
        if len(seq) != self.count:
            return False
        have = Counter(self.bag)
        need = Counter(seq)
        return all(have[piece] >= n for piece, n in need.items())


def multiset_permutations(multiplicities, k: int) -> int:
    """The number of distinct length-k sequences drawn without replacement from a multiset with these
    multiplicities. counts[j] = sequences of length j over the letters so far; a new letter used t times goes
    into C(j + t, t) of the position sets of a longer sequence (exact integers, no enumeration)."""
    counts = [1] + [0] * k
    for m in multiplicities:
        new = [0] * (k + 1)
        for j, ways in enumerate(counts):
            if ways:
                for t in range(min(m, k - j) + 1):
                    new[j + t] += ways * math.comb(j + t, t)
        counts = new
    return counts[k]


@dataclass(frozen=True)
class Pattern:
    text: str
    alternatives: tuple[tuple[Draw, ...], ...]

    def size(self) -> int:
        """How many queues the pattern stands for, counted without listing them (a queue that two ';'
        alternatives both give counts twice here, once in sequences())."""
        return sum(_product_size(alt) for alt in self.alternatives)

    def check_size(self, limit: int = MAX_SEQUENCES) -> int:
        """size(), or PatternError if it is above `limit`; nothing is enumerated."""
        total = self.size()
        if total > limit:
            raise PatternError(f"pattern {self.text!r} stands for {total:,} queues; at most {limit:,} are supported")
        return total

    def iter_sequences(self) -> Iterator[tuple[Piece, ...]]:
        """Every queue the pattern stands for, each once, in pattern order, one at a time (memory stays small:
        a queue an earlier alternative also gives is recognised by matching, not remembered)."""
        self.check_size()
        for number, alt in enumerate(self.alternatives):
            earlier = self.alternatives[:number]
            for parts in itertools.product(*(list(d.sequences()) for d in alt)):
                seq = tuple(p for part in parts for p in part)
                if not any(_alternative_allows(other, seq) for other in earlier):
                    yield seq

    def sequences(self) -> list[tuple[Piece, ...]]:
        """Every queue the pattern stands for, each once, in pattern order."""
        return list(self.iter_sequences())


def _alternative_allows(alt: tuple[Draw, ...], seq: tuple[Piece, ...]) -> bool:
    if sum(d.count for d in alt) != len(seq):
        return False
    start = 0
    for draw in alt:
        if not draw.allows(seq[start : start + draw.count]):
            return False
        start += draw.count
    return True


def _product_size(alt: tuple[Draw, ...]) -> int:
    total = 1
    for draw in alt:
        total *= draw.size()
    return total


def parse_pattern(text: str) -> Pattern:
    """Read a pattern (see the module docstring); PatternError on any mistake."""
    if not text or not text.strip():
        raise PatternError("empty pattern")
    if len(text) > MAX_PATTERN_LENGTH:
        raise PatternError(f"pattern too long: {len(text):,} characters (at most {MAX_PATTERN_LENGTH:,})")
    alternatives = []
    for part in text.split(";"):
        if not part.strip():
            raise PatternError(f"empty pattern between ';' in {text!r}")
        alternatives.append(_parse_alternative(part, text))
    return Pattern(text, tuple(alternatives))


def _parse_alternative(part: str, whole: str) -> tuple[Draw, ...]:  # noqa: C901 - one branch per form of the syntax, each with its own error message
    draws: list[Draw] = []
    i = 0
    n = len(part)

    def fail(message: str, at: int) -> PatternError:
        return PatternError(
            f"bad pattern {whole!r}: {message} at {part[at : at + 6]!r}"
            if at < n
            else f"bad pattern {whole!r}: {message} at the end"
        )

    while i < n:
        char = part[i]
        if char in " ,\t":
            i += 1
            continue
        if char.upper() in _ALL:
            draws.append(Draw((Piece[char.upper()],), 1))
            i += 1
            continue
        if char == "*":
            bag = tuple(Piece[c] for c in _ALL)
            i += 1
        elif char == "[":
            close = part.find("]", i)
            if close < 0:
                raise fail("'[' without ']'", i)
            inside = part[i + 1 : close].replace(" ", "")
            exclude = inside.startswith("^")
            letters = inside[1:] if exclude else inside
            for c in letters:
                if c.upper() not in _ALL:
                    raise fail(f"{c!r} is not a piece (I J L O S T Z)", i)
            if exclude:
                bag = tuple(Piece[c] for c in _ALL if c not in letters.upper())
            else:
                bag = tuple(Piece[c.upper()] for c in letters)
            if not bag:
                raise fail("empty bag", i)
            i = close + 1
        else:
            raise fail(f"unexpected {char!r}", i)
        # optional suffix: pN or !
        count = 1
        if i < n and part[i] == "!":
            count = len(bag)
            i += 1
        elif i < n and part[i] in "pP":
            j = i + 1
            while j < n and part[j] in _DIGITS:  # ASCII only: str.isdigit() also takes '³', '７' and '٣'
                j += 1
            if j == i + 1:
                raise fail("'p' must be followed by a number (digits 0-9)", i)
            if j - i - 1 > 3:
                raise fail(f"cannot draw {part[i + 1 : j]} pieces from a bag of {len(bag)}", i)
            count = int(part[i + 1 : j])
            if not 1 <= count <= len(bag):
                raise fail(f"cannot draw {count} pieces from a bag of {len(bag)}", i)
            i = j
        draws.append(Draw(bag, count))
    if not draws:
        raise PatternError(f"bad pattern {whole!r}: no pieces")
    return tuple(draws)
