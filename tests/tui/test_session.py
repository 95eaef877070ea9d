"""The open service is one `Session`: screens reach its client and its outbox through `RanktermScreen.session`,
and opening another service replaces it whole, so nothing read from the old one (who played last) is kept."""

from rankterm.tui.base import RanktermScreen
from rankterm.tui.screens.home import HomeScreen
from rankterm.tui.session import Session


async def test_screens_reach_the_client_and_the_outbox_through_the_one_session(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        session = app.session
        assert isinstance(session, Session) and isinstance(app.screen, RanktermScreen)
        assert app.screen.session is session and app.screen.client is session.client is app.client
        assert app.outbox_runner is session.outbox
        assert session.demo and app.sub_title == "built-in demo, not saved" == session.name


async def test_opening_another_service_replaces_the_session_whole(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        old = app.session
        assert old is not None
        await old.player_recency()
        await pilot.press("l")
        await wait(pilot)
        await pilot.press("f2")  # the demo group, opened afresh
        await wait(pilot)
        new = app.session
        assert new is not None and new is not old and new.client is not old.client
        assert isinstance(app.screen, HomeScreen) and app.screen.session is new
        assert new.outbox is not old.outbox and not old.outbox.sending


async def test_who_played_last_is_read_once_and_again_after_the_group_changed(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        session = app.session
        assert session is not None
        first = await session.player_recency()
        assert first and await session.player_recency() is first  # kept: no second request
        app.group_changed()
        again = await session.player_recency()
        assert again is not first and again == first  # read again from the service
