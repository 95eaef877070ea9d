"""The palette (ctrl+p) finds a command by what it does: "standings" opens the rankings, "tonight" the stats
(and Tonight's tab on the stats screen), "keys" the keys overlay even on the form, where a line about the
screen keys also mentions keys."""

from __future__ import annotations

import pytest

from rankterm.tui.dialogs.help import KeysScreen
from rankterm.tui.palette import help_hit

from .pilot import keys, settle


async def palette(pilot, query: str) -> None:
    await pilot.press("ctrl+p")
    await settle(pilot)
    await pilot.press(*keys(query))
    await pilot.pause(0.6)  # the palette searches after a short pause in the typing
    await settle(pilot)
    await pilot.press("enter")
    await settle(pilot, 0.2)


@pytest.mark.parametrize(
    ("start", "query", "opens"),
    [
        ("service", "standings", "rankings"),
        ("service", "tonight", "stats"),
        ("matches", "standings", "rankings"),
        ("matches", "glance", "home"),
        ("home", "quota", "service"),
    ],
)
async def test_a_word_for_what_a_screen_shows_opens_it(make_app, start: str, query: str, opens: str) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.switch_mode(start)
        await settle(pilot)
        await palette(pilot, query)
        assert app.current_mode == opens


async def test_tonight_on_the_stats_screen_opens_its_tab(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.switch_mode("stats")
        await settle(pilot)
        await palette(pilot, "tonight")
        assert app.current_mode == "stats"
        assert str(app.screen.query_one("TabbedContent").active) == "tonight"


async def test_keys_on_the_form_opens_the_keys_overlay(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.switch_mode("match")
        await settle(pilot)
        await palette(pilot, "keys")
        assert isinstance(app.screen, KeysScreen)


def test_a_help_word_is_found_by_its_beginning_and_a_stray_letter_is_not() -> None:
    assert help_hit("stand", "the standings: each player's ree")
    assert not help_hit("st", "the standings")  # too short to mean a word
    assert not help_hit("tonite", "tonight's matches")
