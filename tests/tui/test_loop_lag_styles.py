"""What keeps the event loop free when a screen is met for the first time: the app's stylesheet parses each
source of CSS once. Textual parses its sources again whenever a widget class new to the app brings its own, from
a cache of 64; rankterm's app has more, so each first mount of a new widget class parsed them all (100-130 ms
of the loop each, several times on opening the scoreboard)."""

from __future__ import annotations

import collections

from textual.css import stylesheet

from tests.tui.pilot import settle


async def test_opening_every_screen_parses_no_stylesheet_source_twice(
    make_app, monkeypatch, own_css_parsing
) -> None:
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


async def test_a_screen_shown_the_first_time_styles_each_widget_once(make_app, monkeypatch) -> None:
    """Textual restyles the whole screen at each resume (twice for a new mode's screen), though its widgets
    were styled as they mounted; a screen left and shown again is restyled as usual."""
    from textual.css.stylesheet import Stylesheet
    from textual.widget import Widget

    styled: collections.Counter[int] = collections.Counter()
    real = Stylesheet.apply

    def counted(self, node, *args, **kwargs):
        if isinstance(node, Widget):  # not the nodes Textual makes for a widget's component classes
            styled[id(node)] += 1
        return real(self, node, *args, **kwargs)

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(Stylesheet, "apply", counted)
        await pilot.press("n")
        await settle(pilot)
        form = app.screen
        widgets = {id(w) for w in form.walk_children(Widget, with_self=True)}
        plain = {
            id(w) for w in form.walk_children(Widget) if type(w).__name__ in ("Label", "Static", "Horizontal")
        }
        assert len(plain) > 20
        assert {styled[w] for w in plain} == {1}  # those no class or focus change restyles: styled as mounted
        styled.clear()
        await pilot.press("escape", "r")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert app.screen is form
        now = {id(w) for w in form.walk_children(Widget)} & widgets
        assert now and all(styled[w] >= 1 for w in now)  # shown again: restyled as Textual does
