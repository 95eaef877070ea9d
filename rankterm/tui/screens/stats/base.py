"""`StoryScreen`: the base of the screens that tell stories from the group's matches (the Stats mode, a
player's page, a game's page).

The matches come from the client's mirror at once (`held_matches`, no request) and are then
revalidated in a worker (`group_matches`: only what is new is read); the story is drawn again only when the
matches changed (their count or newest number). The same happens when the screen is shown again, on F5, and
when the group changes (a match sent from this seat). Offline, what the mirror holds is shown and the status
line says how old it is.
"""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding

from rankterm.api.errors import RanktermError
from rankterm.api.models import Match
from rankterm.api.stats.source import group_matches, held_matches
from rankterm.tui.base import Kind, RanktermScreen, Where, task
from rankterm.tui.text import error_sentence


def matches_key(matches: list[Match]) -> tuple[int, int]:
    """What tells two lists of the group's matches apart cheaply: (count, newest number)."""
    return len(matches), max((m.number for m in matches), default=0)


class StoryScreen(RanktermScreen):
    """A screen drawn from all the group's matches: `show_matches()` is called with them when they change."""

    BINDINGS: ClassVar = [Binding("f5", "reload", "Reload")]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.matches: list[Match] = []
        self._key: tuple[int, int] | None = None

    def on_mount(self) -> None:
        if self.has_client:
            held = held_matches(self.client)
            if held:
                self._take(held)

    def on_screen_resume(self) -> None:
        if self.has_client:
            self.revalidate()

    def reload_data(self) -> None:
        if self.has_client:
            self.revalidate()

    def action_reload(self) -> None:
        self.reload_data()

    @task(group="story-matches")
    async def revalidate(self) -> None:
        try:
            matches = await group_matches(self.client)
        except RanktermError as exc:
            if not self.matches:
                self.say(error_sentence(exc), "error")
            else:
                self.say(error_sentence(exc), "warning", to="toast")
            return
        self.note_freshness()
        self._take(matches)

    def _take(self, matches: list[Match]) -> None:
        key = matches_key(matches)
        if key == self._key:
            return
        self._key = key
        self.matches = sorted(matches, key=lambda m: m.number)
        self.show_matches(self.matches)

    def say(self, text: str, kind: Kind = "info", *, to: Where = "line") -> None:
        """As `RanktermScreen.say`; the info line takes no room while it has nothing to say (80x24)."""
        super().say(text, kind, to=to)
        if self.INFO is not None and to != "toast":
            for line in self.query(self.INFO):
                line.display = bool(text)

    def show_matches(self, matches: list[Match]) -> None:
        """Draw the story from the group's matches (oldest first)."""
