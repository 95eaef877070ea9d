"""`Session`: one open service and what this seat holds of it: the client, the group read through it (its
mirror: `rankterm.mirror.Group`), the outbox runner that sends through it, and who played last. The app opens one per service (`RanktermApp.open_client`) and drops it whole when
another is opened, so nothing of one group's service outlives it.

    session = self.session                       # on a screen (`RanktermScreen.session`; NoClient when none)
    games = await session.group.games()
    ghosts = session.outbox.ghosts()             # the outbox of this service (`OutboxRunner`)
    recent = await session.player_recency()      # {player id: Recent}: one request per service

What happens on screen when the group changes (`group_changed`), a send and its retries (`resume_sending`)
and the status line stay the app's: a session holds no timer and no reactive state.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:  # the service layer is imported when a service is opened, not at start
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group
    from rankterm.outbox.outcome import BatchOutcome
    from rankterm.tui.outbox_runner import OutboxRunner
    from rankterm.tui.recency import Recent
    from rankterm.wire.models import NewMatch


BUILT_IN_DEMO = "built-in demo, not saved"
"""What the in-process demo group is called wherever a group is named (the title, the profiles list): nobody
takes it for a profile, nor what is recorded there for kept."""


class Session:
    """The open service: its `group` (and the group's `client`), its `outbox`, whether it is the demo group, the
    profile it came from."""

    def __init__(self, group: Group, outbox: OutboxRunner, *, demo: bool, profile_name: str | None) -> None:
        self.group = group
        self.client: RankingClient = group.client
        self.outbox = outbox
        self.demo = demo
        self.profile_name = profile_name
        """The profile the client was made from (None: the demo group, or a client given without one)."""
        self._recency: dict[str, Recent] | None = None
        self._recency_lock = asyncio.Lock()

    @property
    def name(self) -> str:
        """What the app's sub title calls the service: `BUILT_IN_DEMO`, the profile's name, else its address."""
        return BUILT_IN_DEMO if self.demo else self.profile_name or self.client.base_url

    async def player_recency(self) -> dict[str, Recent]:
        """Each player's last match among the newest page of matches: read once (one request), again after
        the group changed; empty when it cannot be read (the pickers then order by name)."""
        from rankterm.tui.recency import recent_play

        async with self._recency_lock:
            if self._recency is None:
                try:
                    page = await self.group.matches_page(1)
                except RanktermError:
                    return {}
                self._recency = recent_play(page.data)
            return self._recency

    def forget_recency(self) -> None:
        """Who played last is read again by the next picker (a match was recorded, the group changed)."""
        self._recency = None

    def group_changed(self) -> None:
        """The lists a write touches are read from the service next time, and who played last too."""
        self.group.invalidate("games", "subsets", "players")
        self._recency = None

    async def record(self, matches: list[NewMatch]) -> BatchOutcome:
        """Put `matches` in the outbox and send what is pending (`OutboxRunner.record`)."""
        self._recency = None  # the next picker reads who played last again
        return await self.outbox.record(matches)

    async def close(self) -> None:
        """Stop the outbox's timers and close the client; closing on the way out never raises."""
        self.outbox.close()
        with contextlib.suppress(Exception):
            await self.client.aclose()
