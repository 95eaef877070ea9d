"""Games: the group's games, debounced search, popular games, new game by name or BGG id."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Input, Static

from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.screens.games import GamesScreen, parse_game_request


def names(app) -> list[str]:
    table = app.screen.query_one("#games-table", DataTable)
    return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]


def caption(app) -> str:
    return str(app.screen.query_one("#games-caption", Static).render())


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("Catan", {"name": "Catan"}),
        (" 13 ", {"bgg_id": 13}),
        ("bgg:822", {"bgg_id": 822}),
        ('"1830"', {"name": "1830"}),
    ],
)
def test_what_was_typed_becomes_a_name_or_a_bgg_id(typed, expected):
    assert parse_game_request(typed) == expected


@pytest.mark.parametrize("typed", ["", "   ", "bgg:x", "0", '""'])
def test_nothing_usable_is_refused_in_a_sentence(typed):
    with pytest.raises(ValueError, match=r"\.$"):
        parse_game_request(typed)


async def open_games(app, pilot, wait):
    await wait(pilot)
    await pilot.press("g")
    await wait(pilot)
    assert isinstance(app.screen, GamesScreen)


async def test_the_group_games_are_listed(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_games(app, pilot, wait)
        assert len(names(app)) == 8
        assert names(app) == sorted(names(app), key=str.casefold)
        assert caption(app) == "The group's games: 8 games."


async def test_search_waits_for_a_pause_and_two_characters(make_app, wait, demo_client, monkeypatch):
    searched: list[str] = []
    real = demo_client.search_games

    async def spy(name: str):
        searched.append(name)
        return await real(name)

    monkeypatch.setattr(demo_client, "search_games", spy)
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_games(app, pilot, wait)
        await pilot.press("slash", "c")
        await wait(pilot, 0.5)
        assert searched == []  # one character: no search
        assert "at least 2" in caption(app)
        await pilot.press("a", "t", "a")
        await wait(pilot, 0.5)
        assert searched == ["cata"]  # one search after typing stopped, not one per key
        assert names(app)[0] == "Catan"
        assert caption(app).startswith("Search “cata”:")
        await pilot.press("escape")
        await wait(pilot)
        assert len(names(app)) == 8


async def test_popular_games_toggle(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_games(app, pilot, wait)
        await pilot.press("f4")
        await wait(pilot)
        assert caption(app).startswith("Popular games:")
        assert len(names(app)) > 8
        await pilot.press("f4")
        await wait(pilot)
        assert len(names(app)) == 8


async def test_create_a_game_by_name_and_by_bgg_id(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_games(app, pilot, wait)
        await pilot.press("ctrl+n")
        await wait(pilot)
        assert isinstance(app.screen, AskDialog)
        await pilot.press(*"Kitchen Rush", "enter")
        await wait(pilot)
        assert isinstance(app.screen, GamesScreen)
        assert "Kitchen Rush  (new)" in names(app)
        assert "1 new without a match yet" in caption(app)
        await pilot.press("ctrl+n")
        await wait(pilot)
        await pilot.press(*"bgg:13", "enter")
        await wait(pilot)
        said = [n.message for n in app._notifications]
        assert any(m.startswith("Kitchen Rush is ready") and "after its first match" in m for m in said)
        # Catan has matches: it is in the group's list already, and is not promised for "after its first match"
        assert any(m.startswith("Catan (id") and "already in the group's list" in m for m in said)
        assert not any(m.startswith("Catan") and "first match" in m for m in said)


async def test_an_unknown_bgg_id_says_what_the_dialog_lets_you_do(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_games(app, pilot, wait)
        await pilot.press("ctrl+n")
        await wait(pilot)
        await pilot.press(*"bgg:987654", "enter")
        await wait(pilot)
        dialog = app.screen
        assert isinstance(dialog, AskDialog)
        assert "name too" not in dialog.error_text  # the dialog has one field: it cannot take both
        assert "987654" in dialog.error_text and "type the game's name instead" in dialog.error_text


async def test_a_refused_game_keeps_the_dialog_open_with_the_error(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_games(app, pilot, wait)
        await pilot.press("ctrl+n")
        await wait(pilot)
        await pilot.press("enter")
        await wait(pilot)
        dialog = app.screen
        assert isinstance(dialog, AskDialog)
        assert dialog.error_text == "Type a game's name or its BGG id."
        dialog.query_one("#ask-input", Input).value = "x" * 120
        await pilot.press("enter")
        await wait(pilot)
        assert isinstance(app.screen, AskDialog)
        assert dialog.error_text.startswith("game: ") and "R003" in dialog.error_text
        await pilot.press("escape")
        await wait(pilot)
        assert isinstance(app.screen, GamesScreen)


async def test_offline_a_search_looks_among_the_groups_games_without_a_toast(make_app, wait, demo_service):
    client, transport = demo_service.downable_client()
    app = make_app(client=client)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await pilot.press("g")
        await wait(pilot)
        transport.down = True
        for word in ("cat", "ti"):
            await pilot.press("slash", *word)
            await wait(pilot, 0.5)  # past the search timer
            assert caption(app).startswith("Offline: ") and f"match “{word}”" in caption(app)
            assert names(app) and all(word in n.casefold() for n in names(app))
            await pilot.press("escape")
            await wait(pilot)
        assert [n.message for n in app._notifications] == []
        assert "Catan" in names(app)  # the group's games again
