"""`StoryScreen`: the base of the screens that tell stories from the group's matches (the Stats mode, a
player's page, a game's page).

Each screen reads only what it tells (`read_held`: a player's matches, a game's, the pickers' roster),
narrowed by the mirror and parsed in a thread (`asyncio.to_thread`), so that a big group never freezes the
app; it is shown at once, then the mirror is synced with the service (`sync_group`: no request when the
sync is fresh, one when nothing is new) and read again only when the sync brought something. The story is
drawn again only when what was read changed (`held_key`). This happens when the screen is shown (again), and
on F5 and when the group changes (a match sent from this seat, the live probe), which never trust a fresh
sync (`max_age=0`). Offline, what the mirror holds is shown and the status line says how old it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from textual.binding import Binding

from rankterm.stats.rules import MatchLike
from rankterm.stats.source import sync_group
from rankterm.tui.base import Kind, RanktermScreen, Where, task
from rankterm.tui.held import figures_over
from rankterm.tui.text import error_sentence
from rankterm.wire.errors import Offline, RanktermError

if TYPE_CHECKING:
    from rankterm.mirror import Group


def matches_key(matches: Sequence[MatchLike]) -> tuple[int, int]:
    """What tells two lists of the group's matches apart cheaply: (count, newest number)."""
    return len(matches), max((m.number for m in matches), default=0)


class StoryScreen(RanktermScreen):
    """A screen drawn from what it reads of the group's matches: `show_held()` is called when that changes.

    By default it reads nothing; `PlayerPageScreen` reads the player's matches, `GamePageScreen` the game's
    and the Stats mode the roster of its pickers (each tab then reads its own)."""

    BINDINGS: ClassVar = [Binding("f5", "reload", "Reload")]

    NO_COPY: ClassVar[str] = (
        "Offline: no copy of the group's matches here; the stories come when the service is back."
    )
    """Said when the service cannot be reached and the mirror holds nothing yet: asked again every
    `OFFLINE_RETRY` seconds while the screen is shown (the live probe does not run on these screens), so the
    story comes by itself when the service answers."""
    OFFLINE_RETRY: ClassVar[float] = 5.0

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.matches: list[MatchLike] = []
        self.loaded = False
        """True once something was read (from the mirror or the service) and shown."""
        self._key: object = None
        self._read_at: tuple[int, int] | None = None
        self._offline = False

    # ------------------------------------------------------------------ what a screen reads and shows

    def read_held(self, group: Group) -> Any:
        """What the screen tells, from the mirror with no request; runs in a thread (no widget here)."""
        return []

    def held_key(self, held: Any) -> object:
        """What tells two reads apart cheaply (the story is drawn again only when it changes)."""
        return matches_key(held)

    def show_held(self, held: Any) -> None:
        """Draw the story from what `read_held` read (by default: matches, oldest first)."""
        self.matches = sorted(held, key=lambda m: m.number)
        self.show_matches(self.matches)

    def show_matches(self, matches: Sequence[MatchLike]) -> None:
        """Draw the story from the matches read (oldest first)."""

    # ------------------------------------------------------------------ when

    def on_mount(self) -> None:
        if self.has_client:  # started at once: the read overlaps the screen's first layout
            self.revalidate()
        self.set_interval(self.OFFLINE_RETRY, self._retry_offline)

    def _retry_offline(self) -> None:
        """Nothing shown yet because the service could not be reached: ask again (no request otherwise)."""
        if self._offline and not self.loaded and self.is_current and self.has_client and not self._reading():
            self.revalidate(max_age=0)

    def on_screen_resume(self) -> None:
        if self.has_client and not self._reading():
            self.revalidate()

    def _reading(self) -> bool:
        """Whether a revalidation of this screen is under way (the one `on_mount` started)."""
        return any(w.node is self and w.group == "story-matches" and not w.is_finished for w in self.workers)

    def reload_data(self) -> None:
        if self.has_client:
            self.revalidate(max_age=0)

    def action_reload(self) -> None:
        self.reload_data()

    @task(group="story-matches")
    async def revalidate(self, max_age: float | None = None) -> None:
        """Show what the mirror holds (first time), sync, and read again when the mirror's matches changed
        since the last read (this sync, or another screen's)."""
        group = self.group
        if not self.loaded and group.synced_at("matches") is not None:
            await self._read(group)
        try:
            await sync_group(group, max_age=max_age)
        except RanktermError as exc:
            self._offline = isinstance(exc, Offline)
            if not self.loaded and self._offline:
                self.say(self.NO_COPY, "warning")
            elif not self.loaded:
                self.say(error_sentence(exc), "error")
            else:
                self.say(error_sentence(exc), "warning", to="toast")
            return
        self._offline = False
        self.note_freshness()
        if not self.loaded or group.held_numbers() != self._read_at:
            await self._read(group)

    async def _read(self, group: Group) -> None:
        at = group.held_numbers()
        held = await asyncio.to_thread(self.read_held, group)
        self._read_at = at
        self._take(held)

    def _take(self, held: Any) -> None:
        self.loaded = True
        key = self.held_key(held)
        if key == self._key:
            return
        self._key = key
        self.show_held(held)

    def say(self, text: str, kind: Kind = "info", *, to: Where = "line") -> None:
        """As `RanktermScreen.say`; the info line takes no room while it has nothing to say (80x24), and
        while only part of the history is held it says so (`figures_over`) when it has nothing else."""
        if not text and to != "toast" and self.has_client:
            text = figures_over(self.group)
        super().say(text, kind, to=to)
        if self.INFO is not None and to != "toast":
            for line in self.query(self.INFO):
                line.display = bool(text)
