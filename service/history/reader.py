"""A JSON file read a piece at a time: the elements of a top-level array one by one, so a 15 MB
history file never sits in memory as one list. The stdlib's C scanner decodes each element
(``raw_decode``) from a buffer refilled in chunks; a top-level object (a Last.fm page) is small
and decoded whole."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, TextIO

CHUNK = 1 << 20  # characters read at a time
_BLANK = re.compile(r"[ \t\n\r]*")


class MalformedJson(ValueError):
    pass


def elements(text: TextIO, on_read: Callable[[int], None] | None = None) -> Iterator[Any]:
    """The elements of the top-level array of ``text``; a top-level object is its one element.
    ``on_read(n)``: ``n`` more characters were read (for progress)."""
    reader = _Buffer(text, on_read)
    if not reader.skip_blanks():
        return
    if reader.peek() == "{":
        value, end = reader.decode()
        reader.pos = end
        yield value
        return
    if reader.peek() != "[":
        raise MalformedJson("the file is neither a JSON array nor a JSON object")
    reader.pos += 1
    first = True
    while True:
        if not reader.skip_blanks():
            raise MalformedJson("the file ends inside its array")
        if reader.peek() == "]":
            return
        if not first:
            if reader.peek() != ",":
                raise MalformedJson(f"expected ',' between elements near character {reader.offset()}")
            reader.pos += 1
            if not reader.skip_blanks():
                raise MalformedJson("the file ends inside its array")
        value, end = reader.decode()
        reader.pos = end
        first = False
        yield value


class _Buffer:
    def __init__(self, text: TextIO, on_read: Callable[[int], None] | None) -> None:
        self._text = text
        self._on_read = on_read
        self._decoder = json.JSONDecoder()
        self._consumed = 0  # characters dropped from the buffer's front so far
        self.buffer = ""
        self.pos = 0
        self.eof = False

    def offset(self) -> int:
        return self._consumed + self.pos

    def peek(self) -> str:
        return self.buffer[self.pos]

    def _refill(self) -> bool:
        if self.eof:
            return False
        chunk = self._text.read(CHUNK)
        if not chunk:
            self.eof = True
            return False
        if self._on_read is not None:
            self._on_read(len(chunk))
        self._consumed += self.pos
        self.buffer = self.buffer[self.pos :] + chunk
        self.pos = 0
        return True

    def skip_blanks(self) -> bool:
        """Move past blanks; False at the end of the text."""
        while True:
            self.pos = _BLANK.match(self.buffer, self.pos).end()  # type: ignore[union-attr]  # always matches
            if self.pos < len(self.buffer):
                return True
            if not self._refill():
                return False

    def decode(self) -> tuple[Any, int]:
        """The value starting at ``pos`` and where it ends, reading on while it is cut off."""
        while True:
            try:
                value, end = self._decoder.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as exc:
                if self._refill():
                    continue
                raise MalformedJson(f"{exc.msg} near character {self._consumed + exc.pos}") from None
            # A number at the very end may go on in the next chunk; objects and strings cannot.
            if end == len(self.buffer) and not isinstance(value, dict | list | str) and self._refill():
                continue
            return value, end
