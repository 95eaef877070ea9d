"""The evening's recap to share: short Markdown, the evening's figures, names that cannot make Markdown."""

from __future__ import annotations

from datetime import datetime

from rankterm.stats.changes import Event
from rankterm.stats.recap import markdown_text, tonight_recap
from rankterm.stats.results import Gain, Tally, Tonight, TonightMatch, Upset


def evening() -> Tonight:
    return Tonight(
        since=datetime(2026, 11, 27, 18, 0),
        matches=(
            TonightMatch(7, "2026-11-27 19:00:00", 1, "Catan", ("a",), ("[Ada](http://x)",), False, False),
            TonightMatch(8, "2026-11-27 20:00:00", 2, "Pandemic", (), (), False, True),
        ),
        tallies=(Tally("a", "[Ada](http://x)", 1, 2),),
        biggest_gain=Gain("a", "[Ada](http://x)", 2000.0, 2031.4),
        biggest_upset=Upset(7, "Catan", "a", "[Ada](http://x)", 1900.0),
    )


def test_the_recap_says_the_evening_and_what_changed_with_names_that_make_no_markdown() -> None:
    events = [Event("champion", 7, "2026-11-27 19:00:00", "a", "*Ada*", "New Catan champion: *Ada*")]
    text = tonight_recap(evening(), events, datetime(2026, 11, 27, 19, 0), "Paris")
    lines = text.splitlines()
    assert lines[0] == "## Tonight: 2 matches since Fri 27 Nov 19:00 (Paris)"
    assert "- 7 Catan: \\[Ada\\]\\(http://x\\)" in lines
    assert "- 8 Pandemic: the game (bot)" in lines
    assert any(line.startswith("- **Biggest gain**: \\[Ada\\]") and "+31" in line for line in lines)
    assert "- **What changed**: New Catan champion: \\*Ada\\*" in lines
    assert "](http" not in text.replace("\\]\\(", "")  # no link survives


def test_an_evening_without_matches_is_one_line() -> None:
    quiet = Tonight(since=datetime(2026, 1, 1), matches=(), tallies=(), biggest_gain=None, biggest_upset=None)
    assert tonight_recap(quiet, [], datetime(2026, 1, 1, 18, 0), "UTC").count("\n") == 1


def test_markdown_text_is_one_line() -> None:
    assert markdown_text("a\nb  c") == "a b c"
