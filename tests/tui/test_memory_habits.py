"""What a seat keeps as it goes from screen to screen (memory of the app after r, p, m).

- A screen opened for the first time is styled as it mounts: the app's stylesheet is not parsed again from
  scratch and re-applied to every node for it (Textual's default for a new screen).
- The footer builds its keys again only when what it shows changes, and the keys it replaces are not kept
  alive by it (Textual's Footer data-binds each key to itself, a watcher never removed).
"""

from __future__ import annotations

import gc

from rankterm.tui.textual_internals import FooterKey
from rankterm.tui.widgets.key_footer import KeyFooter
from tests.tui.pilot import settle


async def test_a_new_screen_does_not_restyle_the_whole_app(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        reparsed = 0
        stylesheet = app.stylesheet
        real = stylesheet.reparse

        def counting() -> None:
            nonlocal reparsed
            reparsed += 1
            real()

        stylesheet.reparse = counting  # type: ignore[method-assign]
        for key in ("r", "p", "m"):
            await pilot.press(key)
            await settle(pilot)
        assert reparsed == 0
        # ...and the new screens are styled all the same: the footer's keys have the theme's colours.
        key = app.screen.query_one(KeyFooter).query(FooterKey).first()
        assert key.styles.height is not None and key.styles.height.value == 1
        assert app.screen.query_one(KeyFooter).region.y == 23

        stylesheet.reparse = real  # type: ignore[method-assign]
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await settle(pilot)
        await pilot.press("r")  # a screen that sat out a theme change is restyled as before
        await settle(pilot)
        assert app.screen._css_update_count == app._css_update_count


async def test_the_footer_keeps_no_key_it_replaced(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for key in ("r", "p", "m", "d", "r", "p", "m"):
            await pilot.press(key)
            await settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        shown = list(footer.query(FooterKey))
        built_before = {id(k) for k in shown}
        footer.bindings_changed(app.screen)  # nothing it shows changed: the same keys stay
        await settle(pilot)
        assert {id(k) for k in footer.query(FooterKey)} == built_before

        gc.collect()
        live = [o for o in gc.get_objects() if isinstance(o, FooterKey)]
        screens = [app.screen, *(s for stack in app._screen_stacks.values() for s in stack)]
        mounted = {id(k) for s in screens for k in s.query(FooterKey)}
        detached = [k for k in live if id(k) not in mounted]
        # A hidden screen's compositor may hold its last keys until it is shown again (~10 a screen); with the
        # keys data-bound to the footer every recompose added a footer's worth (100+ after r, p, m).
        assert len(detached) <= 4 * 12, len(detached)
