"""Read a user's input file with a size limit, so a device (/dev/zero), a pipe or a huge file cannot exhaust memory.

`read_text(path, limit)` returns the file's text (UTF-8); "-" reads stdin. Any problem raises InputFileError, a
ValueError whose one-line message names the file: cannot read (the system's reason), file too large, not UTF-8.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


class InputFileError(ValueError):
    """An input file that cannot be used; the message names it and says why, on one line."""


def _size_text(limit: int) -> str:
    return (
        f"{limit // 1_000_000} MB"
        if limit >= 1_000_000 and limit % 1_000_000 == 0
        else f"{limit // 1000} kB"
        if limit >= 1000 and limit % 1000 == 0
        else f"{limit} bytes"
    )


def read_bytes(path: str | os.PathLike[str], limit: int, *, what: str = "file") -> bytes:
    """At most `limit` bytes of the file (InputFileError "file too large" if it holds more); "-" is stdin."""
    name = "standard input" if str(path) == "-" else str(path)
    try:
        if str(path) == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is not None:
                data = stream.read(limit + 1)
            else:  # a text stream standing in for stdin (tests)
                data = sys.stdin.read(limit + 1).encode("utf-8", "surrogateescape")
        else:
            with open(Path(path), "rb") as handle:
                data = handle.read(limit + 1)
    except OSError as error:
        raise InputFileError(f"cannot read {what} {name}: {error.strerror or error}") from None
    except (ValueError, AttributeError) as error:  # stdin closed or replaced by something without a buffer
        raise InputFileError(f"cannot read {what} {name}: {error}") from None
    if len(data) > limit:
        raise InputFileError(f"{what} {name}: file too large (more than {_size_text(limit)})")
    return data


def read_text(path: str | os.PathLike[str], limit: int, *, what: str = "file") -> str:
    """The file as UTF-8 text, at most `limit` bytes; InputFileError otherwise."""
    data = read_bytes(path, limit, what=what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        name = "standard input" if str(path) == "-" else str(path)
        raise InputFileError(f"{what} {name}: not UTF-8 text (byte {error.start})") from None
