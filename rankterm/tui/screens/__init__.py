"""The screens of rankterm, one a file, and the table that maps each app mode to its screen.

Screens are imported lazily, when their mode is first opened, so that the first screen comes up without
loading the others.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from textual.screen import Screen

from rankterm.tui.text import plain_str
from rankterm.tui.warm import imported

# mode name -> (module under rankterm.tui.screens, class name, title): the one place titles are declared
SCREENS: dict[str, tuple[str, str, str]] = {
    "home": ("home", "HomeScreen", "Home"),
    "service": ("service", "ServiceScreen", "Service"),
    "games": ("games", "GamesScreen", "Games"),
    "players": ("players", "PlayersScreen", "Players"),
    "match": ("match_entry", "MatchEntryScreen", "New match"),
    "rankings": ("rankings", "RankingsScreen", "Rankings"),
    "matches": ("matches", "MatchesScreen", "Matches"),
    "outbox": ("outbox", "OutboxScreen", "Outbox"),
    "stats": ("stats", "StatsScreen", "Stats"),
    "board": ("board", "BoardScreen", "Scoreboard"),
    "seasons": ("seasons", "SeasonsScreen", "Seasons"),
    "import": ("import_plays", "ImportScreen", "Import plays"),
    "login": ("login", "LoginScreen", "Profiles"),
}


def screen_factory(mode: str) -> Callable[[], Screen]:
    """A callable that builds the screen of `mode`, importing its module on first use."""
    module_name, class_name, title = SCREENS[mode]

    def build() -> Screen:
        module = importlib.import_module(f"{__name__}.{module_name}")
        screen: Screen = getattr(module, class_name)()
        screen.title = plain_str(title)  # the one place a screen's title is declared
        return screen

    return build


async def mode_imported(mode: str) -> None:
    """The module of `mode`'s screen imported in a thread, when not loaded yet (`tui.warm`), before the
    screen is built on the loop: the Stats mode's module and its charts were 50-90 ms of one step of the loop.
    The match form's module is left to its build."""
    if mode in SCREENS and mode != "match":
        await imported(f"{__name__}.{SCREENS[mode][0]}")
