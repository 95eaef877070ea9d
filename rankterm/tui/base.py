"""The base every rankterm screen builds on: typed access to the client and one way to show an error.

    class GamesScreen(RanktermScreen):
        @work(exclusive=True, group="games")
        async def load(self) -> None:
            try:
                games = await self.client.games()
            except RanktermError as exc:
                self.show_error(exc)

A screen never builds a URL or touches httpx: `self.client` is the app's `RankingClient`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

from rankterm.api.errors import AuthError, RanktermError
from rankterm.tui.text import error_sentence

if TYPE_CHECKING:
    from rankterm.api.client import RankingClient
    from rankterm.tui.app import RanktermApp


class NoClient(RanktermError):
    """Raised by `RanktermScreen.client` when no service is open yet."""

    def __init__(self) -> None:
        super().__init__("No service is open: pick a profile or open the demo group (l).")


class RanktermScreen(Screen):
    """A screen of rankterm: `self.client` is the service, `self.show_error(exc)` tells what went wrong."""

    @property
    def rankterm(self) -> RanktermApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    @property
    def client(self) -> RankingClient:
        """The app's client; raises `NoClient` (a RanktermError) when none is open."""
        client = getattr(self.app, "client", None)
        if client is None:
            raise NoClient()
        return client

    @property
    def has_client(self) -> bool:
        return getattr(self.app, "client", None) is not None

    def on_mount(self) -> None:
        """Every rankterm screen shows the status line (outbox counts, offline banner) above its footer.
        Textual calls this as well as a subclass's own `on_mount`."""
        from rankterm.tui.widgets.status_line import StatusLine

        if not self.query(StatusLine):
            self.mount(StatusLine())

    def show_error(self, exc: BaseException) -> None:
        """Notify one sentence about `exc` (severity error); a refused key or secret goes back to the profiles.
        Never a traceback."""
        if isinstance(exc, AuthError) and not exc.token_problem and hasattr(self.app, "credentials_refused"):
            self.app.credentials_refused(exc)
            return
        self.notify(error_sentence(exc), severity="error", markup=False)
