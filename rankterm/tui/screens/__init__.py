"""The screens of rankterm, one a file, and the table that maps each app mode to its screen.

Screens are imported lazily, when their mode is first opened: startup stays fast, and a screen whose module
is not written yet shows a "coming" placeholder instead of stopping the app.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

# mode name -> (module under rankterm.tui.screens, class name, title)
SCREENS: dict[str, tuple[str, str, str]] = {
    "dashboard": ("dashboard", "DashboardScreen", "Dashboard"),
    "games": ("games", "GamesScreen", "Games"),
    "players": ("players", "PlayersScreen", "Players"),
    "match": ("match_entry", "MatchEntryScreen", "New match"),
    "rankings": ("rankings", "RankingsScreen", "Rankings"),
    "matches": ("matches", "MatchesScreen", "Matches"),
    "outbox": ("outbox", "OutboxScreen", "Outbox"),
    "login": ("login", "LoginScreen", "Profiles"),
}


class ComingScreen(Screen):
    """Stands in for a screen whose module does not exist yet."""

    DEFAULT_CSS = """
    ComingScreen Static { width: 1fr; height: 1fr; content-align: center middle; color: $text-muted; }
    """

    def __init__(self, title: str = "This screen") -> None:
        super().__init__()
        self.title = title

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(f"{self.title}: coming.")
        yield Footer()


def screen_factory(mode: str) -> Callable[[], Screen]:
    """A callable that builds the screen of `mode`, importing its module on first use."""
    module_name, class_name, title = SCREENS[mode]
    qualified = f"{__name__}.{module_name}"

    def build() -> Screen:
        try:
            module = importlib.import_module(qualified)
        except ModuleNotFoundError as exc:
            if exc.name != qualified:
                raise
            return ComingScreen(title)
        return getattr(module, class_name)()

    return build
