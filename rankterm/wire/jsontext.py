"""JSON text of the wire, made and read by pydantic's compiled core, exactly as the standard library would.

A page of standings is ~10 KB of JSON: `json.dumps` took ~0.3 ms a page on the service and `json.loads`
~0.12 ms on the client; pydantic_core does each in about a third of that, and both ends import it anyway.
Where the two could differ, the standard library decides: `dumps` hands a value with a non-finite float (or
any text that looks like one), a lone surrogate or anything else pydantic_core refuses to `json.dumps`, and
`loads` hands the text pydantic_core refuses (a lone surrogate escape) to `json.loads`. So each gives the
same bytes and values as before, or the same error, for every value made of JSON's own types (what the
service's answers are made of). One difference is left: a value of a type JSON has not but pydantic writes
(a date, a set, a plain Enum, a dataclass) is written as pydantic writes it where `json.dumps` raised
TypeError; an object of any other type is refused as before.
"""

from __future__ import annotations

import json
from typing import Any

import pydantic_core

__all__ = ["dumps", "loads"]

_NOT_FINITE = (b"NaN", b"Infinity")
"""What pydantic_core writes for a non-finite float, which JSON has not (the standard library refuses it)."""


def dumps(value: Any) -> bytes:
    """`value` as compact UTF-8 JSON, non-ASCII kept (``json.dumps(value, ensure_ascii=False,
    allow_nan=False, separators=(",", ":")).encode()``, and its errors: ValueError, TypeError,
    UnicodeEncodeError)."""
    try:
        text = pydantic_core.to_json(value)
    except (pydantic_core.PydanticSerializationError, ValueError, TypeError):
        text = None
    if text is None or any(word in text for word in _NOT_FINITE):
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    return text


def loads(data: bytes | str) -> Any:
    """The value of JSON `data` (``json.loads``, and its errors: ValueError, UnicodeDecodeError)."""
    try:
        return pydantic_core.from_json(data)
    except ValueError:
        return json.loads(data)
