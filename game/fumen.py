"""Fumen v115 codec: decode and encode fumen codes (``v115@...``) exactly as knewjade's tetris-fumen 1.1.3 does.

Layout of a code: ``v115@`` then base-64 digits ("poke64": A-Z a-z 0-9 + /, little-endian groups), with a ``?``
after the first 42 digits and every 47 after that (readers ignore them). Per page: the field as run-length coded
differences to the previous page's field (23 rows plus the garbage row below y = 0, 240 cells, read from the top
left), or a repeat count when it did not change; a 3-digit action (piece, rotation, position, flags); and, when the
comment changed, its JavaScript ``escape()`` text packed four characters per 5 digits.

Positions follow the tetris-fumen API (and ``game.pieces``): (x, y) is the piece's rotation cell. Fields use fumen's
colour codes 0..8 = ``_ILOZTJSX`` (not Board's codes); ``Field.to_board``/``from_board`` translate.
Bad input of any kind raises FumenError, a ValueError with a one-line message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from game.board import Board
from game.pieces import SHAPES, Piece, Rotation


class FumenError(ValueError):
    """Bad fumen input (code, field text, page data); the message says what is wrong on one line."""


WIDTH = 10
FIELD_HEIGHT = 23  # play rows y = 0..22; the garbage row y = -1 comes on top of that
_CELLS = (FIELD_HEIGHT + 1) * WIDTH  # 240; cell (x, y) lives at index (y + 1) * 10 + x
CELL_CHARS = "_ILOZTJSX"  # fumen colour code -> letter
GRAY = 8
_BOARD_CHARS = "_IJLOSTZX"  # game.board colour code -> letter
_EMPTY_ROW = "_" * WIDTH
_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_DIGIT = {char: value for value, char in enumerate(_ALPHABET)}
_COMMENT_TABLE = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
_COMMENT_BASE = len(_COMMENT_TABLE) + 1  # 96: one value past the table is never produced by an encoder
_MAX_COMMENT = 4095  # escaped characters; the length field has two digits
# The longest code decode() reads: far above real codes (a 1,000-page replay is ~10,000 characters) and small
# enough that decoding takes well under a second.
MAX_CODE_LENGTH = 100_000
# JavaScript's whitespace (trim(), \s): the reference strips these from codes and quiz comments.
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_FUMEN_PIECES = (None, Piece.I, Piece.L, Piece.O, Piece.Z, Piece.T, Piece.J, Piece.S)  # action piece code -> Piece
_PIECE_CODE = {piece: code for code, piece in enumerate(_FUMEN_PIECES) if piece is not None}
_ROTATIONS = (Rotation.SOUTH, Rotation.EAST, Rotation.NORTH, Rotation.WEST)  # action rotation code -> Rotation
ROTATION_NAMES = {Rotation.NORTH: "spawn", Rotation.EAST: "right", Rotation.SOUTH: "reverse", Rotation.WEST: "left"}
# Fumen stores some states at another reference cell than the rotation cell; encoded = api + shift.
_SHIFT = {
    (Piece.O, Rotation.WEST): (-1, 1),
    (Piece.O, Rotation.SOUTH): (-1, 0),
    (Piece.O, Rotation.NORTH): (0, 1),
    (Piece.I, Rotation.SOUTH): (-1, 0),
    (Piece.I, Rotation.WEST): (0, 1),
    (Piece.S, Rotation.NORTH): (0, 1),
    (Piece.S, Rotation.EAST): (1, 0),
    (Piece.Z, Rotation.NORTH): (0, 1),
    (Piece.Z, Rotation.WEST): (-1, 0),
}


# --- data model -------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Operation:
    """A piece placed on a page: kind, rotation and the (x, y) of its rotation cell."""

    piece: Piece
    rotation: Rotation
    x: int
    y: int

    def __post_init__(self) -> None:
        try:  # accept plain ints, but keep the enum types so equality and names work
            object.__setattr__(self, "piece", Piece(self.piece))
            object.__setattr__(self, "rotation", Rotation(self.rotation))
        except ValueError as error:
            raise FumenError(f"bad operation: {error}") from None

    def cells(self) -> list[tuple[int, int]]:
        return [(self.x + dx, self.y + dy) for dx, dy in SHAPES[self.piece, self.rotation]]

    def __str__(self) -> str:
        return f"{self.piece.name} {ROTATION_NAMES[self.rotation]} at ({self.x}, {self.y})"


@dataclass(frozen=True, slots=True)
class Flags:
    """Page flags. `quiz` is decoder output only (a quiz comment is active); the encoder ignores it."""

    lock: bool = True  # put the piece, clear lines, rise and mirror before the next page
    mirror: bool = False
    colorize: bool = True
    rise: bool = False  # push the garbage row up into the field
    quiz: bool = False


@dataclass(frozen=True, slots=True, repr=False)
class Field:
    """23 play rows (y = 0..22) and the garbage row (y = -1) as fumen colour codes 0..8 (``_ILOZTJSX``).

    Immutable; ``cells[(y + 1) * 10 + x]``. Changes return new fields.
    """

    cells: tuple[int, ...] = (0,) * _CELLS

    def __repr__(self) -> str:
        return f"Field.from_text({self.to_text()!r})"

    def __post_init__(self) -> None:
        if len(self.cells) != _CELLS or any(type(c) is not int or not 0 <= c <= GRAY for c in self.cells):
            raise FumenError(f"a field needs {_CELLS} cells with colour codes 0..8")

    @classmethod
    def empty(cls) -> Field:
        return cls()

    def at(self, x: int, y: int) -> str:
        """The cell letter at (x, y), y = -1 being the garbage row."""
        return CELL_CHARS[self.cells[(y + 1) * WIDTH + x]]

    @classmethod
    def from_text(cls, text: str, *, garbage_row: bool = True) -> Field:
        """Parse rows of ``_ILOZTJSX``, top first, down to y = 0; with garbage_row the last line is y = -1.

        Blank lines are ignored, so "" is the empty field (the vectors' convention).
        """
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        cells = [0] * _CELLS
        if garbage_row and lines:
            cells[:WIDTH] = _parse_row(lines.pop(), "garbage row")
        if len(lines) > FIELD_HEIGHT:
            raise FumenError(f"field overflow: {len(lines)} rows, a fumen field has at most {FIELD_HEIGHT}")
        for number, line in enumerate(lines):
            y = len(lines) - 1 - number
            cells[(y + 1) * WIDTH : (y + 2) * WIDTH] = _parse_row(line, f"field row {number + 1}")
        return cls(tuple(cells))

    def to_text(self) -> str:
        """Rows from the highest non-empty one down to y = 0, then the garbage row; "" if all is empty."""
        lines = [self.row_text(y) for y in range(FIELD_HEIGHT - 1, -2, -1)]
        while lines and lines[0] == _EMPTY_ROW:
            lines.pop(0)
        return "\n".join(lines)

    def row_text(self, y: int) -> str:
        start = (y + 1) * WIDTH
        return "".join(CELL_CHARS[c] for c in self.cells[start : start + WIDTH])

    @classmethod
    def from_board(cls, board: Board) -> Field:
        """The board's rows 0..22 with their colours; the garbage row is empty. Higher blocks: FumenError."""
        if board.height() > FIELD_HEIGHT:
            raise FumenError(f"field overflow: the board is {board.height()} rows high, fumen keeps {FIELD_HEIGHT}")
        cells = [0] * _CELLS
        for y in range(board.height()):
            for x in range(WIDTH):
                cells[(y + 1) * WIDTH + x] = CELL_CHARS.index(_BOARD_CHARS[board.colour_at(x, y)])
        return cls(tuple(cells))

    def to_board(self) -> Board:
        """The play rows as a coloured Board (grey stays garbage); the garbage row is dropped."""
        rows = [self.row_text(y) for y in range(FIELD_HEIGHT - 1, -1, -1)]
        return Board.from_rows(rows)

    def after(self, operation: Operation | None, flags: Flags) -> Field:
        """The next page's field as fumen derives it: if flags.lock, put the piece, clear lines, rise, mirror."""
        cells = list(self.cells)
        _lock(cells, operation, flags)
        return Field(tuple(cells))

    def __str__(self) -> str:
        return self.to_text()


@dataclass(frozen=True, slots=True)
class Page:
    """One fumen page. For encoding, field None means "derived from the previous page" (see Field.after)."""

    field: Field | None
    operation: Operation | None = None
    comment: str = ""
    flags: Flags = Flags()


def _parse_row(line: str, what: str) -> list[int]:
    if len(line) != WIDTH:
        raise FumenError(f"{what} {line!r} has {len(line)} cells; expected {WIDTH}")
    for char in line:
        if char not in CELL_CHARS:
            raise FumenError(f"{what} {line!r}: bad cell {char!r}; expected one of {CELL_CHARS}")
    return [CELL_CHARS.index(char) for char in line]


def _lock(cells: list[int], operation: Operation | None, flags: Flags) -> None:
    """Apply a page's lock step in place, in the reference's order: put, clear lines, rise, mirror."""
    if not flags.lock:
        return
    if operation is not None:
        code = _PIECE_CODE[operation.piece]
        for x, y in operation.cells():
            if not (0 <= x < WIDTH and 0 <= y < FIELD_HEIGHT):
                raise FumenError(f"operation {operation} does not fit in the 10x{FIELD_HEIGHT} field")
            cells[(y + 1) * WIDTH + x] = code  # fumen overwrites whatever is there
    garbage = cells[:WIDTH]
    rows = [cells[(y + 1) * WIDTH : (y + 2) * WIDTH] for y in range(FIELD_HEIGHT)]
    rows = [row for row in rows if 0 in row]
    rows += [[0] * WIDTH for _ in range(FIELD_HEIGHT - len(rows))]
    if flags.rise:
        rows = [garbage] + rows[:-1]
        garbage = [0] * WIDTH
    if flags.mirror:  # the garbage row is not mirrored
        rows = [row[::-1] for row in rows]
    cells[:] = garbage + [cell for row in rows for cell in row]


# --- comments: JavaScript escape()/unescape() ------------------------------------------------------------
_ESCAPE_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@*_+-./")


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | data[i + 1] << 8 for i in range(0, len(data), 2)]


def js_escape(text: str) -> str:
    """JavaScript's escape(): %XX below 256, %uXXXX for other UTF-16 code units."""
    out = []
    for unit in _utf16_units(text):
        char = chr(unit)
        out.append(char if char in _ESCAPE_SAFE else f"%{unit:02X}" if unit < 256 else f"%u{unit:04X}")
    return "".join(out)


def js_unescape(text: str) -> str:
    """JavaScript's unescape(); malformed % sequences stay as they are. Lone surrogates survive."""
    units: list[int] = []
    hexdigits = "0123456789abcdefABCDEF"
    i = 0
    while i < len(text):
        char = text[i]
        if (
            char == "%"
            and text[i + 1 : i + 2] == "u"
            and len(text) >= i + 6
            and all(c in hexdigits for c in text[i + 2 : i + 6])
        ):
            units.append(int(text[i + 2 : i + 6], 16))
            i += 6
        elif char == "%" and len(text) >= i + 3 and all(c in hexdigits for c in text[i + 1 : i + 3]):
            units.append(int(text[i + 1 : i + 3], 16))
            i += 3
        else:
            units.extend(_utf16_units(char))
            i += 1
    return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", "surrogatepass")


# --- quiz comments ---------------------------------------------------------------------------------------
class _QuizError(FumenError):
    """A quiz step the reference cannot take (it then falls back to format())."""


_QUIZ_PATTERN = re.compile(r"#Q=\[[TIOSZJL]?\]\([TIOSZJL]?\)[TIOSZJL]*;?.*", re.IGNORECASE | re.ASCII | re.DOTALL)


def _at(text: str, index: int) -> str | None:
    """JavaScript ``text[index]``: None stands for undefined."""
    return text[index] if 0 <= index < len(text) else None


def _js(value: str | None) -> str:
    """How a template literal renders a value (undefined becomes the text "undefined", as in the reference)."""
    return "undefined" if value is None else value


@dataclass(frozen=True, slots=True)
class Quiz:
    """A quiz comment ``#Q=[hold](current)next...`` and its piece-use rules, string for string as tetris-fumen.

    Use Quiz.parse for a comment; ``after(piece)`` is the state after a locked page. Lower-case letters pass
    parsing but never match a used piece, as in the reference.
    """

    text: str

    @classmethod
    def _make(cls, text: str) -> Quiz:
        squeezed = "".join(c for c in text if c not in _JS_SPACE)
        if not squeezed or text == "#Q=[]()" or not text.startswith("#Q="):
            return cls(text)
        if not _QUIZ_PATTERN.fullmatch(squeezed):
            raise _QuizError(f"bad quiz comment {text!r}: expected #Q=[hold](current)next")
        return cls(squeezed)

    @classmethod
    def parse(cls, comment: str) -> Quiz:
        """The quiz of a comment starting with ``#Q=``; FumenError if it is not a well-formed quiz."""
        if not comment.startswith("#Q="):
            raise FumenError(f"not a quiz comment: {comment!r} does not start with '#Q='")
        return cls._make(comment)

    # Raw pieces of the string, as the reference reads them ('' = none, None = past the end).
    def _hold(self) -> str | None:
        name = _at(self.text, self.text.find("[") + 1)
        return "" if name == "]" else name

    def _current(self) -> str | None:
        name = _at(self.text, self.text.find("(") + 1)
        return "" if name == ")" else name

    def _next(self) -> str:
        name = _at(self.text, self.text.find(")") + 1)
        return "" if name is None or name == ";" else name

    def _least(self) -> str:
        return self.text[self.text.find(")") + 1 :]

    def _least_after_next(self) -> str:
        index = self.text.find(")")
        return self.text[index + 1 :] if _at(self.text, index + 1) == ";" else self.text[index + 2 :]

    @property
    def hold(self) -> Piece | None:
        name = self._hold()
        return Piece.from_letter(name) if name and name.upper() in "IJLOSTZ" else None

    @property
    def current(self) -> Piece | None:
        name = self._current()
        return Piece.from_letter(name) if name and name.upper() in "IJLOSTZ" else None

    @property
    def queue(self) -> list[Piece]:
        """The next pieces after the current one, up to a ';' (the rest belongs to a later bag)."""
        rest = self._least().split(";", 1)[0]
        return [Piece.from_letter(c) for c in rest if c.upper() in "IJLOSTZ"]

    def can_operate(self) -> bool:
        text = self.text.removeprefix("#Q=[]();")
        return text.startswith("#Q=") and text != "#Q=[]()"

    def _next_if_end(self) -> Quiz:
        return Quiz._make(self.text[8:]) if self.text.startswith("#Q=[]();") else self

    def format(self) -> Quiz:
        """The normal form the decoder shows as the comment of later pages."""
        quiz = self._next_if_end()
        if quiz.text == "#Q=[]()":
            return Quiz._make("")
        current, hold = quiz._current(), quiz._hold()
        if current == "" and hold != "":
            return Quiz._make(f"#Q=[]({_js(hold)}){quiz._least()}")
        if current == "":
            least = quiz._least()
            if not least:
                return Quiz._make("")
            if least[0] == ";":
                return Quiz._make(least[1:])
            return Quiz._make(f"#Q=[]({least[0]}){least[1:]}")
        return quiz

    def _use(self, name: str) -> Quiz:
        """Use piece `name`: as current (direct), from hold (swap) or after stocking current (stock)."""
        current, hold, following = self._current(), self._hold(), self._next()
        if name == current or (name != hold and hold != "" and current == "" and name == following):  # direct
            if current == "":
                least = self._least_after_next()
                return Quiz._make(f"#Q=[{_js(hold)}]({_js(_at(least, 0))}){least[1:]}")
            return Quiz._make(f"#Q=[{_js(hold)}]({following}){self._least_after_next()}")
        if name == hold:  # swap with the hold piece
            return Quiz._make(f"#Q=[{_js(current)}]({following}){self._least_after_next()}")
        if hold == "" and name == following:  # stock the current piece in hold, use the next
            least = self._least_after_next()
            return Quiz._make(f"#Q=[{_js(current)}]({least[:1]}){least[1:]}")
        raise _QuizError(f"{name} cannot be used in quiz {self.text!r}")

    def after(self, piece: Piece | None) -> Quiz | None:
        """The quiz after a locked page using `piece` (None: no piece); None once it cannot continue at all."""
        if not self.can_operate():
            return self
        try:
            if piece is not None:
                return self._next_if_end()._use(piece.name)
        except _QuizError:
            pass
        try:  # the reference keeps the quiz, normalised, when the piece does not fit its rules
            return self.format()
        except _QuizError:  # the reference crashes here; ending the quiz keeps encoder and decoder in step
            return None

    def __str__(self) -> str:
        return self.text


def _quiz_of(comment: str) -> Quiz | None:
    try:
        return Quiz.parse(comment)
    except FumenError:
        return None


def _formatted(quiz: Quiz) -> str | None:
    try:
        return quiz.format().text
    except _QuizError:
        return None


def parse_quiz(comment: str) -> tuple[Piece | None, Piece | None, list[Piece]]:
    """``#Q=[H](C)NEXT`` -> (hold, current, next queue); FumenError if the comment is not a quiz."""
    quiz = Quiz.parse(comment)
    return quiz.hold, quiz.current, quiz.queue


# --- decoding --------------------------------------------------------------------------------------------
_PREFIX = re.compile(r"[vmd](115|110)@")


class _Reader:
    """The code's base-64 digits, read in little-endian groups; knows the page for error messages."""

    def __init__(self, digits: list[int], length: int) -> None:
        self.digits, self.index, self.length, self.page = digits, 0, length, 1

    def empty(self) -> bool:
        return self.index >= len(self.digits)

    def poll(self, count: int, what: str) -> int:
        if self.index + count > len(self.digits):
            left = len(self.digits) - self.index
            raise FumenError(
                f"truncated data: page {self.page} {what} needs {count} characters but only "
                f"{left} remain at the end of the code (length {self.length})"
            )
        group = self.digits[self.index : self.index + count]
        self.index += count
        return sum(digit << (6 * shift) for shift, digit in enumerate(group))


def _extract(code: str) -> tuple[int, _Reader]:
    if not isinstance(code, str):
        raise FumenError(f"a fumen code is text, not {type(code).__name__}")
    if len(code) > MAX_CODE_LENGTH:
        raise FumenError(f"code too long: {len(code):,} characters (at most {MAX_CODE_LENGTH:,})")
    match = _PREFIX.search(code)
    if match is None:
        raise FumenError("bad prefix: no 'v115@' (or m115@, d115@, v110@) in the code")
    end = code.find("&", match.end())  # URL parameters follow an '&'
    digits = []
    for position in range(match.end(), len(code) if end < 0 else end):
        char = code[position]
        if char in _DIGIT:
            digits.append(_DIGIT[char])
        elif char != "?" and char not in _JS_SPACE:  # '?' separators and whitespace are layout only
            raise FumenError(f"bad character {char!r} at position {position + 1}: fumen data uses A-Z a-z 0-9 + /")
    if not digits:
        raise FumenError(f"empty code: no page data after {match.group()!r}")
    return int(match.group(1)), _Reader(digits, len(code))


def _read_field(reader: _Reader, cells: list[int], top: int) -> bool:
    """Apply one field record to `cells`; True unless it is a single run (then a repeat count follows)."""
    blocks = (top + 1) * WIDTH
    index, changed = 0, False
    while index < blocks:
        value = reader.poll(2, "field")
        diff, run = divmod(value, blocks)
        changed |= run != blocks - 1
        if index + run + 1 > blocks:
            raise FumenError(
                f"field overflow: page {reader.page} field data runs {index + run + 1 - blocks} "
                f"cells past the end of the field"
            )
        for i in range(index, index + run + 1):
            x, y = i % WIDTH, top - i // WIDTH - 1
            new = cells[(y + 1) * WIDTH + x] + diff - 8
            if not 0 <= new <= GRAY:
                raise FumenError(
                    f"field overflow: page {reader.page} sets cell ({x}, {y}) to colour {new}, outside 0..8"
                )
            cells[(y + 1) * WIDTH + x] = new
        index += run + 1
    return changed


def _read_comment(reader: _Reader) -> str:
    length = reader.poll(2, "comment length")
    chars = []
    for _ in range((length + 3) // 4):
        value = reader.poll(5, "comment")
        for _ in range(4):
            value, index = divmod(value, _COMMENT_BASE)
            chars.append(_COMMENT_TABLE[index] if index < len(_COMMENT_TABLE) else None)
    if None in chars[:length]:
        raise FumenError(f"bad comment data on page {reader.page}: a character code outside the comment table")
    return js_unescape("".join(c or " " for c in chars[:length]))


def decode(code: str, *, max_pages: int | None = None) -> list[Page]:
    """Decode a fumen code or URL (``v115@``/``m115@``/``d115@``/``v110@``; '?' and whitespace ignored).

    Returns at least one page; every page's field is set. With `max_pages`, decoding stops after that many pages
    (the rest of the code is not read, so errors there go unnoticed). Codes longer than MAX_CODE_LENGTH and any
    other bad input raise FumenError.
    """
    if max_pages is not None and max_pages < 1:
        raise FumenError(f"max_pages must be at least 1, got {max_pages}")
    version, reader = _extract(code)
    top = FIELD_HEIGHT if version == 115 else 21
    prev = [0] * _CELLS
    repeat = -1
    quiz: Quiz | None = None
    last_comment = ""
    pages: list[Page] = []
    last_cells, last_field = prev, Field()
    while not reader.empty() and (max_pages is None or len(pages) < max_pages):
        reader.page = len(pages) + 1
        cells = prev.copy()
        if repeat > 0:
            repeat -= 1
        elif not _read_field(reader, cells, top):
            repeat = reader.poll(1, "repeat count")
        value = reader.poll(3, "action")
        value, piece_code = divmod(value, 8)
        value, rotation_code = divmod(value, 4)
        value, position = divmod(value, (top + 1) * WIDTH)
        rise, mirror, colorize, has_comment, unlocked = ((value >> bit) & 1 == 1 for bit in range(5))
        if has_comment:
            comment = last_comment = _read_comment(reader)
            quiz = _quiz_of(comment)
        elif not pages:
            comment = ""
        else:
            shown = _formatted(quiz) if quiz is not None else None
            comment = shown if shown is not None else last_comment
        flags = Flags(lock=not unlocked, mirror=mirror, colorize=colorize, rise=rise, quiz=quiz is not None)
        operation = None
        piece = _FUMEN_PIECES[piece_code]
        if piece is not None:
            rotation = _ROTATIONS[rotation_code]
            dx, dy = _SHIFT.get((piece, rotation), (0, 0))
            operation = Operation(piece, rotation, position % WIDTH - dx, top - position // WIDTH - 1 - dy)
        if quiz is not None and flags.lock:
            quiz = quiz.after(piece)
        if cells != last_cells:  # unchanged fields (repeat runs) share one Field
            last_cells, last_field = cells.copy(), Field(tuple(cells))
        pages.append(Page(last_field, operation, comment, flags))
        try:
            _lock(cells, operation, flags)
        except FumenError as error:
            raise FumenError(f"page {reader.page}: {error}") from None
        prev = cells
    return pages


# --- encoding --------------------------------------------------------------------------------------------
def _field_record(prev: list[int], cells: list[int]) -> tuple[list[int], bool]:
    """Run-length code the difference, top-left first; True unless it is a single run."""
    out: list[int] = []
    runs = 0
    previous_diff, count = -1, 0
    for i in range(_CELLS):
        index = (FIELD_HEIGHT - i // WIDTH) * WIDTH + i % WIDTH
        diff = cells[index] - prev[index] + 8
        if diff != previous_diff and count:
            out += _digits(previous_diff * _CELLS + count - 1, 2)
            runs, count = runs + 1, 0
        previous_diff, count = diff, count + 1
    out += _digits(previous_diff * _CELLS + count - 1, 2)
    return out, runs > 0


def _digits(value: int, count: int) -> list[int]:
    return [(value >> (6 * i)) & 63 for i in range(count)]


def _position(operation: Operation, page: int) -> int:
    dx, dy = _SHIFT.get((operation.piece, operation.rotation), (0, 0))
    x, y = operation.x + dx, operation.y + dy
    if not (0 <= x < WIDTH and -1 <= y < FIELD_HEIGHT):
        raise FumenError(f"page {page}: operation {operation} is outside the field")
    return (FIELD_HEIGHT - 1 - y) * WIDTH + x


def _action_digits(page: Page, number: int, has_comment: bool) -> list[int]:
    """The 3 digits of a page's flags and operation."""
    flags = page.flags
    value = 0
    for bit in (not flags.lock, has_comment, flags.colorize, flags.mirror, flags.rise):
        value = value * 2 + bool(bit)
    if page.operation is None:
        value = value * _CELLS * 32  # no piece: position, rotation and kind all 0, as the reference
    else:
        value = value * _CELLS + _position(page.operation, number)
        value = value * 4 + _ROTATIONS.index(page.operation.rotation)
        value = value * 8 + _PIECE_CODE[page.operation.piece]
    return _digits(value, 3)


def _comment_digits(comment: str, number: int) -> list[int]:
    """The digits of a stored comment: its escaped length, then 4 characters per 5 digits."""
    escaped = js_escape(comment)
    if len(escaped) > _MAX_COMMENT:
        raise FumenError(f"page {number}: comment too long ({len(escaped)} escaped characters, at most {_MAX_COMMENT})")
    out = _digits(len(escaped), 2)
    for start in range(0, len(escaped), 4):
        chunk = sum(_COMMENT_TABLE.index(c) * _COMMENT_BASE**i for i, c in enumerate(escaped[start : start + 4]))
        out += _digits(chunk, 5)
    return out


def encode(pages: Sequence[Page]) -> str:
    """Encode pages as a ``v115@`` code, byte for byte as tetris-fumen 1.1.3.

    A page whose field is None continues from the previous page (Field.after); the first page then starts empty.
    Flags.quiz is ignored. Raises FumenError for pages that cannot be encoded (piece outside the field when
    locking, comment longer than 4095 escaped characters).
    """
    if not pages:
        raise FumenError("nothing to encode: no pages")
    out: list[int] = []
    last_repeat = -1
    prev = [0] * _CELLS
    prev_comment = ""
    prev_quiz: Quiz | None = None
    for index, page in enumerate(pages):
        number = index + 1
        cells = list(page.field.cells) if page.field is not None else prev.copy()
        record, changed = _field_record(prev, cells)
        if changed:
            out += record
            last_repeat = -1
        elif last_repeat < 0 or out[last_repeat] == 63:
            out += record + [0]
            last_repeat = len(out) - 1
        else:  # same field again: count it in the open repeat
            out[last_repeat] += 1

        # Whether to store the comment, following the reference's bookkeeping so the decoder shows page.comment.
        comment = page.comment
        shown = _formatted(prev_quiz) if prev_quiz is not None else None
        new_comment: str | None = None
        if index == 0 and comment == "":
            prev_quiz = None
        elif comment.startswith("#Q=") and _quiz_of(comment) is not None:
            if shown != comment:
                new_comment = prev_comment = comment
                prev_quiz = _quiz_of(comment)
        else:
            if shown != comment and prev_comment != comment:
                new_comment = comment
            prev_comment, prev_quiz = comment, None
        piece = page.operation.piece if page.operation is not None else None
        if prev_quiz is not None and page.flags.lock:
            prev_quiz = prev_quiz.after(piece)

        out += _action_digits(page, number, new_comment is not None)
        if new_comment is not None:
            out += _comment_digits(new_comment, number)
        try:
            _lock(cells, page.operation, page.flags)
        except FumenError as error:
            raise FumenError(f"page {number}: {error}") from None
        prev = cells

    data = "".join(_ALPHABET[v] for v in out)
    # A '?' after 42 digits (47 minus the prefix) and then every 47, as the reference writes it.
    chunks = [data[:42]] + [data[i : i + 47] for i in range(42, len(data), 47)] if len(data) >= 41 else [data]
    return "v115@" + "?".join(chunks)
