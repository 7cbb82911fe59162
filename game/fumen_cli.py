"""``stackcoach fumen``: show, decode and encode fumen codes.

  fumen show CODE [--page N | --all]   the board(s) as text, with operation and comment
  fumen decode CODE [--json]           every page; --json gives the reference vectors' ``pages`` shape
  fumen encode FILE                    JSON pages (``encode_input`` shape) or a text board, FILE or - for stdin

Bad input prints one ``error: ...`` line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the codec (and game.board's tables) load in run(), keeping parser construction fast
    from game.fumen import Page

_FLAG_NAMES = ("lock", "mirror", "colorize", "rise")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="fumen_command", metavar="ACTION", required=True)
    show = sub.add_parser("show", help="print the board of a page (piece cells in lower case)")
    show.add_argument("code", help="fumen code or URL containing v115@...")
    which = show.add_mutually_exclusive_group()
    which.add_argument("--page", type=int, default=1, metavar="N", help="page to show, from 1 (default 1)")
    which.add_argument("--all", action="store_true", help="show every page")
    decode = sub.add_parser("decode", help="print all pages of a code")
    decode.add_argument("code", help="fumen code or URL containing v115@...")
    decode.add_argument("--json", action="store_true", help="JSON list of pages (field, operation, comment, flags)")
    encode = sub.add_parser("encode", help="encode JSON pages or a text board")
    encode.add_argument("file", help="JSON pages (a list or one page object) or text board rows; - for stdin")


MAX_INPUT_BYTES = 1_000_000  # `fumen encode` input: JSON pages or a board; real inputs are a few kB


def run(args: argparse.Namespace) -> int:
    """Errors in the input: one ``error:`` line and status 2. Writing the output is main.py's to guard."""
    from game.fumen import FumenError, decode, encode
    from game.textfile import InputFileError, read_text

    try:
        if args.fumen_command == "encode":
            output = encode(pages_from_text(read_text(args.file, MAX_INPUT_BYTES, what="input")))
        else:
            pages = decode(args.code)
            if args.fumen_command == "decode" and args.json:
                output = json.dumps([page_to_json(page) for page in pages], ensure_ascii=False, indent=2)
            elif args.fumen_command == "show" and not args.all:
                if not 1 <= args.page <= len(pages):
                    raise FumenError(f"no page {args.page}: the code has {len(pages)} page(s)")
                output = format_page(pages[args.page - 1], args.page, len(pages))
            else:
                output = "\n\n".join(format_page(page, number, len(pages)) for number, page in enumerate(pages, 1))
    except (FumenError, InputFileError) as error:  # bad JSON is reported as a FumenError too
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"error: {message}", file=sys.stderr)
        return 2
    _print(output)
    return 0


def _print(text: str) -> None:
    # Decoded comments may hold lone surrogates (fumen allows them); show them as \udXXX rather than crash.
    print(text.encode("utf-8", "backslashreplace").decode("utf-8"))


# --- JSON shape of the reference vectors -----------------------------------------------------------------
def page_to_json(page: Page) -> dict[str, Any]:
    """A decoded page as ``{field, operation, comment, flags}``, the vectors' ``pages`` entries."""
    from game.fumen import ROTATION_NAMES

    operation = page.operation
    flags = page.flags
    return {
        "field": page.field.to_text() if page.field is not None else None,
        "operation": None
        if operation is None
        else {
            "type": operation.piece.name,
            "rotation": ROTATION_NAMES[operation.rotation],
            "x": operation.x,
            "y": operation.y,
        },
        "comment": page.comment,
        "flags": {
            "quiz": flags.quiz,
            "lock": flags.lock,
            "mirror": flags.mirror,
            "colorize": flags.colorize,
            "rise": flags.rise,
        },
    }


def pages_from_json(data: Any) -> list[Page]:
    """Pages from the vectors' ``encode_input`` shape (a list of page objects, or one object).

    Missing keys take tetris-fumen's defaults: field null (derive from the previous page), no operation,
    lock true, colorize only on the first page; a missing or null comment repeats the previous page's.
    """
    from game.fumen import Field, Flags, FumenError, Operation, Page
    from game.pieces import Piece, Rotation

    items = [data] if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise FumenError("JSON input must be a page object or a non-empty list of them")
    pages: list[Page] = []
    for number, item in enumerate(items, 1):
        where = f"page {number}"
        if not isinstance(item, dict):
            raise FumenError(f"{where}: expected an object with field, operation, comment, flags")
        unknown = set(item) - {"field", "operation", "comment", "flags"}
        if unknown:
            raise FumenError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        text = item.get("field")
        if text is not None and not isinstance(text, str):
            raise FumenError(f"{where}: field must be text rows (last line the garbage row) or null")
        try:
            field = Field.from_text(text) if text is not None else None
        except FumenError as error:
            raise FumenError(f"{where}: {error}") from None
        op = item.get("operation")
        operation = None
        if op is not None:
            if (
                not isinstance(op, dict)
                or not all(isinstance(op.get(k), str) for k in ("type", "rotation"))
                or not all(type(op.get(k)) is int for k in ("x", "y"))
            ):
                raise FumenError(f"{where}: operation must be {{type, rotation, x, y}} with integer x and y")
            try:
                operation = Operation(Piece.from_letter(op["type"]), Rotation.parse(op["rotation"]), op["x"], op["y"])
            except ValueError as error:
                raise FumenError(f"{where}: {error}") from None
        comment = item.get("comment")
        if comment is None:
            comment = pages[-1].comment if pages else ""
        if not isinstance(comment, str):
            raise FumenError(f"{where}: comment must be a string")
        raw_flags = item.get("flags") or {}
        if (
            not isinstance(raw_flags, dict)
            or set(raw_flags) - {*_FLAG_NAMES, "quiz"}
            or not all(isinstance(v, bool) for v in raw_flags.values())
        ):
            raise FumenError(f"{where}: flags must be an object of booleans: lock, mirror, colorize, rise")
        flags = Flags(
            lock=raw_flags.get("lock", True),
            mirror=raw_flags.get("mirror", False),
            colorize=raw_flags.get("colorize", number == 1),
            rise=raw_flags.get("rise", False),
        )
        pages.append(Page(field, operation, comment, flags))
    return pages


def pages_from_text(text: str) -> list[Page]:
    """JSON pages if the text starts with '[' or '{', else one page holding a plain board (rows, top first)."""
    from game.fumen import Field, FumenError, Page

    stripped = text.strip()
    if stripped[:1] in ("[", "{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as error:
            raise FumenError(f"bad JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
        except RecursionError:
            raise FumenError("bad JSON: nested too deeply (pages are objects in a list)") from None
        except ValueError as error:  # e.g. an integer of thousands of digits
            raise FumenError(f"bad JSON: {str(error).splitlines()[0]}") from None
        return pages_from_json(data)
    if not stripped:
        raise FumenError("empty input: expected JSON pages or board rows of _ILOZTJSX")
    return [Page(Field.from_text(stripped, garbage_row=False))]


# --- text output -----------------------------------------------------------------------------------------
def format_page(page: Page, number: int, total: int) -> str:
    """The page as text: a header, the rows top first (the piece in lower case), operation, comment, flags."""
    from game.fumen import FIELD_HEIGHT, Field

    field = page.field if page.field is not None else Field.empty()
    piece_cells = {}
    if page.operation is not None:
        piece_cells = {cell: page.operation.piece.name.lower() for cell in page.operation.cells()}
    top = max([y for y in range(FIELD_HEIGHT) if field.row_text(y) != "_" * 10] + [y for _, y in piece_cells] + [0])
    lines = [f"page {number}/{total}"]
    for y in range(min(top, FIELD_HEIGHT - 1), -1, -1):
        lines.append("".join(piece_cells.get((x, y), field.at(x, y)) for x in range(10)))
    if field.row_text(-1) != "_" * 10:
        lines += ["-" * 10, field.row_text(-1) + "  (garbage row)"]
    lines.append(f"operation: {page.operation if page.operation is not None else 'none'}")
    if page.comment:
        lines.append(f"comment: {page.comment}")
    on = [name for name in (*_FLAG_NAMES, "quiz") if getattr(page.flags, name)]
    lines.append(f"flags: {', '.join(on) if on else 'none'}")
    return "\n".join(lines)
