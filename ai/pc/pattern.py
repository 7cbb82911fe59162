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
from collections.abc import Iterator
from dataclasses import dataclass

from game.pieces import Piece

MAX_SEQUENCES = 2_000_000
_ALL = "IJLOSTZ"


class PatternError(ValueError):
    """A pattern that cannot be read; the message quotes the pattern and the offending position."""


@dataclass(frozen=True)
class Draw:
    """Draw `count` different pieces, in order, from `bag` (one piece: a fixed letter)."""

    bag: tuple[Piece, ...]
    count: int

    def sequences(self) -> Iterator[tuple[Piece, ...]]:
        seen = set()
        for seq in itertools.permutations(self.bag, self.count):
            if seq not in seen:
                seen.add(seq)
                yield seq

    def size(self) -> int:
        return sum(1 for _ in self.sequences()) if len(set(self.bag)) != len(self.bag) else _perm(len(self.bag), self.count)


def _perm(n: int, k: int) -> int:
    out = 1
    for i in range(k):
        out *= n - i
    return out


@dataclass(frozen=True)
class Pattern:
    text: str
    alternatives: tuple[tuple[Draw, ...], ...]

    def sequences(self) -> list[tuple[Piece, ...]]:
        """Every queue the pattern stands for, each once, in pattern order."""
        total = sum(_product_size(alt) for alt in self.alternatives)
        if total > MAX_SEQUENCES:
            raise PatternError(f"pattern {self.text!r} stands for {total:,} queues; at most {MAX_SEQUENCES:,} are supported")
        seen: dict[tuple[Piece, ...], None] = {}
        for alt in self.alternatives:
            for parts in itertools.product(*(list(d.sequences()) for d in alt)):
                seen.setdefault(tuple(p for part in parts for p in part), None)
        return list(seen)


def _product_size(alt: tuple[Draw, ...]) -> int:
    total = 1
    for draw in alt:
        total *= draw.size()
    return total


def parse_pattern(text: str) -> Pattern:
    """Read a pattern (see the module docstring); PatternError on any mistake."""
    if not text or not text.strip():
        raise PatternError("empty pattern")
    alternatives = []
    for part in text.split(";"):
        if not part.strip():
            raise PatternError(f"empty pattern between ';' in {text!r}")
        alternatives.append(_parse_alternative(part, text))
    return Pattern(text, tuple(alternatives))


def _parse_alternative(part: str, whole: str) -> tuple[Draw, ...]:
    draws: list[Draw] = []
    i = 0
    n = len(part)

    def fail(message: str, at: int) -> PatternError:
        return PatternError(f"bad pattern {whole!r}: {message} at {part[at:at + 6]!r}" if at < n
                            else f"bad pattern {whole!r}: {message} at the end")

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
            inside = part[i + 1:close].replace(" ", "")
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
            while j < n and part[j].isdigit():
                j += 1
            if j == i + 1:
                raise fail("'p' must be followed by a number", i)
            count = int(part[i + 1:j])
            if not 1 <= count <= len(bag):
                raise fail(f"cannot draw {count} pieces from a bag of {len(bag)}", i)
            i = j
        draws.append(Draw(bag, count))
    if not draws:
        raise PatternError(f"bad pattern {whole!r}: no pieces")
    return tuple(draws)
