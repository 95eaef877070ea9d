"""No silent change of group while typing: with a match typed in the form, the profiles key (`l`) and opening
another group from the profiles ask first, and Enter (a burst's `⏎`) says no; the built-in demo is named so
nobody takes it for a profile."""

from __future__ import annotations

from rankterm.tui.dialogs.confirm import ConfirmDialog
from rankterm.tui.session import BUILT_IN_DEMO

from .pilot import open_form, pick_game, settle


async def test_a_burst_of_l_and_enter_after_typing_a_match_stays_in_the_group(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await open_form(pilot)
        await pick_game(pilot, "Patch")
        session = app.session
        await pilot.press("escape", "l", "enter")  # the burst that once opened another group
        await settle(pilot)
        assert app.current_mode == "match" and app.session is session
        assert not isinstance(app.screen, ConfirmDialog)  # asked, and Enter said no

        await pilot.press("escape", "l")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert "The new match form holds a match not sent yet. Open the profiles anyway?" in str(
            app.screen.question
        )
        await pilot.press("y")
        await settle(pilot)
        assert app.current_mode == "login" and app.session is session

        await pilot.press("f2")  # the built-in demo: another group, asked again
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert f"Open the {BUILT_IN_DEMO} anyway?" in app.screen.question
        await pilot.press("enter")
        await settle(pilot)
        assert app.session is session

        await pilot.press("f2", "y")
        await settle(pilot, 0.5)
        assert app.session is not session and app.current_mode == "home"


async def test_without_a_typed_match_the_profiles_open_at_once(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("l")
        await settle(pilot)
        assert app.current_mode == "login"


async def test_the_built_in_demo_is_named_and_coloured_as_no_profile_is(make_app) -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.sub_title == BUILT_IN_DEMO == "built-in demo, not saved"
        assert app.has_class("-built-in-demo")
        await pilot.press("l")
        await settle(pilot)
        listing = app.screen.query_one("#login-list")
        first = listing.get_option_at_index(0).prompt
        assert str(first) == "Built-in demo, not saved (open)"
        assert any(span.style for span in first.spans)  # in a colour of its own
