"""Names full of markup, SQL and terminal escape sequences are shown as text, never interpreted."""

from __future__ import annotations

from textual.widgets import DataTable

from .conftest import settle

NAMES = ["[bold red]Evil[/]", "\x1b[2JWipe\x1b[0m", "Robert'); DROP TABLE players;--"]


def screen_text(pilot) -> str:
    """What the players table shows on screen, line by line, as plain text."""
    table = pilot.app.screen.query_one(DataTable)
    return "\n".join(table.render_line(y).text for y in range(table.size.height))


async def test_players_screen_shows_hostile_names_literally(make_app, demo_client):
    for name in NAMES:
        await demo_client.create_player(name)
    async with make_app().run_test(size=(120, 40)) as pilot:
        await pilot.press("p")
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#players-filter").value = "evil"
        await settle(pilot, 0.5)
        text = screen_text(pilot)
        assert "*[bold red]Evil[/]" in text  # the brackets are shown, not taken as style
        screen.query_one("#players-filter").value = "wipe"
        await settle(pilot, 0.5)
        text = screen_text(pilot)
        assert "*␛[2JWipe␛[0m" in text and "\x1b" not in text  # the escape is shown, never sent
        screen.query_one("#players-filter").value = "robert"
        await settle(pilot, 0.5)
        assert "*Robert'); DROP TABLE players;--" in screen_text(pilot)


async def test_every_text_the_app_reads_is_display_safe(make_app, demo_client):
    await demo_client.create_player("\x1b]0;pwned\x07Zed")
    async with make_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        players = await pilot.app.client.players(refresh=True)
        assert "*␛]0;pwned␇Zed" in [p.display_name for p in players]
        assert not any("\x1b" in p.display_name for p in players)
