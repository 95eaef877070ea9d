"""The app shell: the starting screen, the mode keys, the command palette, the external-id factory."""

from __future__ import annotations

import re

from rankterm.mirror import Group
from rankterm.tui.app import CLIENT_MODES, MODE_NAMES, RanktermApp
from rankterm.tui.screens.games import GamesScreen
from rankterm.tui.screens.home import HomeScreen
from rankterm.tui.screens.login import LoginScreen
from rankterm.tui.screens.players import PlayersScreen
from rankterm.tui.screens.service import ServiceScreen


def test_the_modes_are_declared():
    assert set(MODE_NAMES) == {
        "board",
        "import",
        "stats",
        "home",
        "seasons",
        "service",
        "games",
        "players",
        "match",
        "rankings",
        "matches",
        "outbox",
        "login",
    }
    assert set(RanktermApp.MODES) == set(MODE_NAMES)
    assert "login" not in CLIENT_MODES


async def test_without_a_client_it_starts_on_login_and_service_keys_are_off(make_app, wait):
    app = make_app(client=None, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        assert isinstance(app.screen, LoginScreen)
        assert app.check_action("open_mode", ("games",)) is None
        await pilot.press("g")
        await wait(pilot)
        assert app.current_mode == "login"


async def test_with_a_client_it_starts_on_home_and_keys_switch_modes(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert app.sub_title == "built-in demo, not saved"
        for key, screen_type in (
            ("d", ServiceScreen),
            ("g", GamesScreen),
            ("p", PlayersScreen),
            ("l", LoginScreen),
            ("h", HomeScreen),
        ):
            await pilot.press(key)
            await wait(pilot)
            assert isinstance(app.screen, screen_type)


async def test_every_binding_of_the_screen_is_a_palette_command(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Games (g)" in titles and "Service (d)" in titles
        assert "Reload (f5)" in titles  # Home's own key
        await pilot.press("d")
        await wait(pilot)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Refresh (f5 or ^r)" in titles  # every key of a binding is named
        assert "Theme (^t)" in titles
        assert not any(title.startswith("Scroll") for title in titles)
        await pilot.press("ctrl+p")
        await wait(pilot)
        await pilot.press(*"games (g)", "enter")
        await wait(pilot)
        assert isinstance(app.screen, GamesScreen)


def test_external_ids_come_from_the_factory(make_app):
    assert make_app().new_external_id() == "rt-test-0001"
    default = RanktermApp()
    assert re.fullmatch(r"rt-[0-9a-f]{12}", default.new_external_id())
    assert default.new_external_id() != default.new_external_id()


async def test_opening_the_demo_replaces_the_client_and_drops_old_screens(make_app, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await pilot.press("g")
        await wait(pilot)
        old_games = app.screen
        old_client = app.client
        await pilot.press("l")
        await wait(pilot)
        await pilot.press("f2")
        await wait(pilot)
        assert app.client is not old_client
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("g")
        await wait(pilot)
        assert isinstance(app.screen, GamesScreen) and app.screen is not old_games


async def test_text_cursors_do_not_blink(make_app, wait):
    from textual.widgets import Input

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        await pilot.press("g", "slash")
        await wait(pilot)
        search = app.screen.query_one("#games-search", Input)
        assert search.has_focus and search.cursor_blink is False


async def test_demo_without_a_client_opens_it_after_the_first_screen(make_app, wait):
    app = make_app(client=None, demo=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        assert isinstance(app.screen, HomeScreen)
        assert app.client is not None and app.demo


async def test_the_sub_title_names_the_profile_the_client_was_made_from(make_app, demo_service, wait):
    from rankterm.config import Config, Profile

    config = Config(
        default_profile="home",
        profiles={
            "home": Profile(base_url="http://home.example/", key="demo"),
            "club": Profile(base_url="http://demo.rankterm/", key="demo"),
        },
    )
    app = make_app(config=config, demo=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        assert app.sub_title == "club"


async def test_a_damaged_mirror_is_said_once_when_the_client_is_opened(make_app, demo_service, wait):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await wait(pilot)
        group = Group(demo_service.client())
        group.mirror.file.problem = "The group's mirror file was damaged; it was replaced by an empty one."
        await app.open_client(group)
        await wait(pilot)
        await app.open_client(group)  # the same client again: not said twice
        await wait(pilot)
        said = [n for n in app._notifications if "mirror file was damaged" in str(n.message)]
        assert len(said) == 1 and said[0].severity == "warning"
