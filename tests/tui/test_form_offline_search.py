"""The match form's game field offline: a search that cannot reach the service raises no toast (the status
line already says offline), and the group's games held on this machine are still offered."""

from __future__ import annotations

from tests.tui.pilot import open_form


async def test_typing_a_game_offline_raises_no_toast(make_app, wait, demo_service) -> None:
    client, transport = demo_service.downable_client()
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        screen = await open_form(pilot)
        await wait(pilot)
        transport.down = True
        for word in ("Wingsp", "Tera"):
            await pilot.press(*word)
            await wait(pilot, 0.6)  # past the search's delay
            assert screen.form.query_one("#game").search_error is not None  # it did try, and failed
            await pilot.press(*["backspace"] * len(word))
            await wait(pilot)
        assert [n.message for n in app._notifications] == []
