"""`tests.support.terminal.ShownText`, the text the pty tests read from a seat's bytes: it is the same however
the reads cut the bytes, a cut inside a character or an escape sequence included. The pty tests wait for text
that spans styled pieces ("— table demo, not saved"); a read that cut an escape sequence between two of them
once left its start in the text, and the wait ran out."""

from __future__ import annotations

import itertools

import pytest

from tests.support.terminal import ShownText

DRAWN = [
    (
        "ab\x1b[38;5;12mHo\x1b[0mme — é\x1b[1m table demo,\x1b[0m not saved\x1b]52;c;YWJj\x07 end\x1b[?25l",
        "abHome — é table demo, not saved end",
    ),
    ("x\x1b]52;c;abc\x1b\\ after\x1b7y\x1bM", "x after\x1b7y"),  # ESC 7 is no escape sequence of ESCAPES
]


@pytest.mark.parametrize(("drawn", "text"), DRAWN)
def test_the_text_is_the_same_however_three_reads_cut_the_bytes(drawn: str, text: str) -> None:
    raw = drawn.encode()
    for first, second in itertools.combinations_with_replacement(range(len(raw) + 1), 2):
        shown = ShownText()
        for piece in (raw[:first], raw[first:second], raw[second:]):
            shown.add(piece)
        assert shown.text == text, (first, second)


def test_an_escape_sequence_never_ended_holds_back_no_more_than_a_few_thousand_characters() -> None:
    shown = ShownText()
    shown.add(b"before \x1b]52;c;" + b"A" * 5000)
    assert shown.text.startswith("before ") and shown.text.endswith("A" * 5000)
