"""Keys typed while a list's table shows its loading indicator (Textual then gives them to the screen, nothing
taking them) land on the table once its rows are there: the list screens share one `on_key`
(`text_table.list_screen_key`). The app's held keys (`KeyQueue`) do not make it needless: they cover a screen
placing its focus, not a table reading its rows again (this test fails without the screen's `on_key`)."""

from __future__ import annotations

from rankterm.mirror import Group
from rankterm.tui.widgets.text_table import TextTable

from .pilot import late_client, settle, type_at


async def test_cursor_keys_typed_while_the_players_are_read_again_reach_the_rows(make_app, demo_service):
    async with Group(demo_service.client()) as reader:
        meant = (await Group.of(reader).players_page(1)).data[2].id
    client, transport = late_client(demo_service)
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await app.switch_mode("players")
        await settle(pilot)
        table = app.screen.query_one("#players-table", TextTable)
        transport.delay = 0.3  # from now on the service answers late
        await type_at(pilot, ["f5"], 0.04)
        assert table.loading  # the premise: the keys typed now reach the screen, not the table
        await type_at(pilot, ["down", "down", "enter"], 0.04)
        await settle(pilot)
        assert getattr(app.screen, "player", None) is not None, type(app.screen).__name__
        assert app.screen.player.id == meant
