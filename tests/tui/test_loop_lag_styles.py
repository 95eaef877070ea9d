"""What keeps the event loop free when a screen is met for the first time: the app's stylesheet parses each
source of CSS once. Textual parses its sources again whenever a widget class new to the app brings its own, from
a cache of 64; rankterm's app has more, so each first mount of a new widget class parsed them all (100-130 ms
of the loop each, several times on opening the scoreboard)."""

from __future__ import annotations

import collections

from textual.css import stylesheet

from tests.tui.pilot import settle


async def test_opening_every_screen_parses_no_stylesheet_source_twice(make_app, monkeypatch) -> None:
    parsed: collections.Counter[object] = collections.Counter()
    real = stylesheet.parse

    def counted(*args, **kwargs):
        parsed[args[2], kwargs.get("tie_breaker"), args[0]] += (
            1  # where from ("Class.DEFAULT_CSS"), rank, scope
        )
        return real(*args, **kwargs)

    monkeypatch.setattr(stylesheet, "parse", counted)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        parsed.clear()  # the app's start parses its sheet afresh once it has its theme
        for key in "rpgmndesob":
            await pilot.press("escape", key)
            await settle(pilot)
        sources = len(app.stylesheet.source)
        assert app.screen.id == "board" or app.current_mode == "board"
    assert sources > 64  # more than Textual keeps by itself
    assert parsed  # the screens brought sources of their own
    assert {source: n for source, n in parsed.items() if n > 1} == {}
