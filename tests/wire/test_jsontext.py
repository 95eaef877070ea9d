"""`wire.jsontext` gives the standard library's JSON, bytes for bytes and value for value, or its error."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from rankterm.wire import jsontext

VALUES: list[Any] = [
    {"success": {"page": 2, "totalPages": 80, "data": [{"ree": 31.07, "name": "Zoë \u2028 <b>&</b>"}]}},
    [0.1 + 0.2, 1e16, 1.5e300, 5e-324, -0.0, 2**70, -(2**63), True, False, None],
    {"1": [], "": {}, "esc": '"\\/\b\f\n\r\t\x00\x1f\x7f', "emoji": "\U0001f3b2", "ctl": "\x9b[2J"},
    {"text that looks like a number": ["NaN", "Infinity", "-Infinity"]},
    (1, "tuple"),
]


def _stdlib(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


@pytest.mark.parametrize("value", VALUES)
def test_dumps_writes_the_standard_librarys_bytes(value: Any) -> None:
    assert jsontext.dumps(value) == _stdlib(value)


@pytest.mark.parametrize("value", [math.nan, {"ree": math.inf}, [-math.inf]])
def test_dumps_refuses_a_non_finite_number_as_the_standard_library_does(value: Any) -> None:
    with pytest.raises(ValueError, match="not JSON compliant"):
        jsontext.dumps(value)


def test_dumps_refuses_a_lone_surrogate_as_the_standard_library_does() -> None:
    with pytest.raises(UnicodeEncodeError):
        jsontext.dumps({"name": "a\ud800b"})


def test_dumps_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError):
        jsontext.dumps({"when": object()})


@pytest.mark.parametrize(
    "text",
    [
        b'{"a":1,"a":2}',
        b"1e2",
        b"-0",
        b"123456789012345678901234567890",
        b"1e400",
        b"NaN",
        b'"\\ud800"',  # a lone surrogate escape: the standard library's value
        b" [1, 2 ] ",
        b'{"x":[true,false,null],"y":"\\u00e9\xc3\xa9"}',
        b"2.2250738585072014e-308",
        '"caf\u00e9"',
    ],
)
def test_loads_gives_the_standard_librarys_value(text: bytes | str) -> None:
    mine, theirs = jsontext.loads(text), json.loads(text)
    assert repr(mine) == repr(theirs)
    assert type(mine) is type(theirs)


@pytest.mark.parametrize("text", [b"", b"{", b"\xff", b"[1,]", b"01", b"<html>"])
def test_loads_refuses_what_the_standard_library_refuses(text: bytes) -> None:
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        jsontext.loads(text)
