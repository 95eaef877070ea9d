"""The app as its screens and widgets see it: `RanktermAppFace`, a Protocol that `RanktermApp` satisfies.

A screen reaches the app through `RanktermScreen.rankterm`, typed by this face rather than by the app class,
so no module under tui/ imports tui/app.py (which imports them all) and there is no import circle, not even
one for type checking. See docs/design/tui.md.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient
    from rankterm.config import Config, Profile
    from rankterm.mirror import Group
    from rankterm.outbox.outcome import BatchOutcome
    from rankterm.tui.session import Session
    from rankterm.wire.errors import AuthError
    from rankterm.wire.models import NewMatch

__all__ = ["ClientFactory", "DemoFactory", "RanktermAppFace"]

ClientFactory = Callable[["Profile"], "RankingClient | Group"]
"""Makes the client (or the group) of a profile (the login screen's; tests hand one that needs no network)."""
DemoFactory = Callable[[], "RankingClient | Group"]
"""Makes the client (or the group) of a fresh demo group."""


class RanktermAppFace(Protocol):
    """What screens and widgets use of the app: the open service, the config, the seat's state (offline, the
    outbox's counts, how old an answer shown is) and the app's few actions on the service."""

    config: Config
    session: Session | None
    client_factory: ClientFactory | None
    guest: bool
    offline: bool
    outbox_counts: dict[str, int]
    as_of: datetime | None

    @property
    def client(self) -> RankingClient | None: ...

    @property
    def group(self) -> Group | None: ...

    @property
    def demo(self) -> bool: ...

    @property
    def profile_name(self) -> str | None: ...

    def new_external_id(self) -> str: ...

    def resume_sending(self, force: bool = False) -> None: ...

    def credentials_refused(self, exc: AuthError) -> None: ...

    def group_changed(self) -> None: ...

    def ask_leaving_group(self, go: Callable[[], object], what: str) -> None: ...

    async def open_client(
        self, client: RankingClient | Group, *, demo: bool = False, profile_name: str | None = None
    ) -> None: ...

    async def open_demo(self) -> None: ...

    async def record_matches(self, matches: list[NewMatch]) -> BatchOutcome: ...
