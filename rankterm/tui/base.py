"""The base every rankterm screen builds on: typed access to the app and to the open service (`session`: the
client, its outbox, who played last), one way to say things, and one handler for an error nobody expected.

    class GamesScreen(RanktermScreen):
        INFO = "#games-caption"               # the line `say()` writes; without one, `say()` is a toast

        @task(group="games")
        async def load(self) -> None:
            try:
                games = await self.group.games()
            except RanktermError as exc:
                self.show_error(exc)

Fresh lists: a list screen shows what the group's mirror holds at once (`group.cached_*()`), revalidates in
a `@task` worker (`refresh=True`) when it is shown (its ScreenResume) and on F5, redraws only what changed, and
calls `note_freshness()` after a load so the status line says how old an offline answer is. When the group
changes (a match sent from this seat, the service answering again) the app bumps its `group_version`: the
screen shown calls `group_changed()` (by default `reload_data()`), the others revalidate when shown again.

A screen catches `RanktermError` and nothing broader: anything else raised in a `@task` worker reaches
`RanktermApp.on_worker_state_changed`, which says one sentence (never a traceback) and keeps the app running.
A screen never builds a URL or touches httpx: `self.client` is the open session's `RankingClient`, and
`self.session.outbox` its outbox (`OutboxRunner`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from textual import events, on, work
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Static

from rankterm.tui.text import error_sentence, plain, plain_str
from rankterm.wire.errors import AuthError, RanktermError

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group
    from rankterm.tui.face import RanktermAppFace
    from rankterm.tui.session import Session

Kind = Literal["info", "ok", "warning", "error"]
"""What a sentence is: the class of the info line ("-ok", "-warning", "-error") and the toast's severity."""

Where = Literal["line", "toast", "both"]
"""Where `say()` puts a sentence: the screen's info line (a toast when it has none), a toast, or both."""

_SEVERITY: dict[str, Literal["information", "warning", "error"]] = {
    "info": "information",
    "ok": "information",
    "warning": "warning",
    "error": "error",
}


def task(*, group: str, exclusive: bool = True) -> Callable[[Any], Any]:
    """`@work` for a screen's loading: an unexpected error is said by the app's one handler, never a crash."""
    return work(exclusive=exclusive, group=group, exit_on_error=False)


HOST_FILE = "a file of the host's"
"""What a guest seat says in place of a path on the host."""


def _host_folders() -> list[str]:
    """The folders of the host that a sentence may name: rankterm's config, data and cache folders, the user
    themes, the home folder (longest first, so that the most precise one is taken)."""
    from rankterm.config import cache_dir, config_path, data_dir, user_themes_dir

    folders = {str(config_path().parent), str(data_dir()), str(cache_dir()), str(user_themes_dir())}
    folders.add(str(Path.home()))
    return sorted((f for f in folders if len(f) > 1), key=len, reverse=True)


def hide_host_paths(text: str) -> str:
    """`text` with every path under a folder of the host's (`_host_folders`) replaced by `HOST_FILE`: what a
    guest seat shows instead of the host's paths."""
    if "/" not in text:
        return text
    for folder in _host_folders():
        text = re.sub(re.escape(folder) + r"[^\s'\"(),;]*", HOST_FILE, text)
    return text


def for_seat(node: Any, text: str) -> str:
    """`text` as the seat of `node` may show it: without the host's paths on a guest seat."""
    return hide_host_paths(text) if getattr(getattr(node, "app", node), "guest", False) else text


def toast(node: Any, text: str, kind: Kind = "info", *, timeout: float | None = None) -> None:
    """A toast of one sentence that is shown as typed (no markup, no escape); a guest seat's without the
    host's paths."""
    text = for_seat(node, text)
    if timeout is None:
        node.notify(plain_str(text), severity=_SEVERITY[kind], markup=False)
    else:
        node.notify(plain_str(text), severity=_SEVERITY[kind], markup=False, timeout=timeout)


def copy_out(node: Any, text: str, what: str) -> None:
    """`text` to the clipboard of the terminal this seat is drawn on (OSC 52: over SSH, the guest's own), and a
    toast saying `what` was copied."""
    node.app.copy_to_clipboard(text)
    toast(node, f"Copied {what} to your terminal's clipboard.", timeout=3)


class NoClient(RanktermError):
    """Raised by `RanktermScreen.session` (and `client`) when no service is open yet."""

    def __init__(self) -> None:
        super().__init__("No service is open: pick a profile or open the demo group (l).")


class RanktermScreen(Screen):
    """A screen of rankterm: `self.client` is the service, `self.say(text, kind)` tells the user."""

    INFO: ClassVar[str | None] = None
    """The selector of the screen's one-line info (a Static) that `say()` writes; None: `say()` toasts."""

    @property
    def rankterm(self) -> RanktermAppFace:
        """The app, typed by what screens use of it (`tui.face`)."""
        return self.app  # type: ignore[return-value]

    @property
    def session(self) -> Session:
        """The open service; raises `NoClient` (a RanktermError) when none is open."""
        session = self.rankterm.session
        if session is None:
            raise NoClient()
        return session

    @property
    def client(self) -> RankingClient:
        """The open session's client; raises `NoClient` (a RanktermError) when none is open."""
        return self.session.client

    @property
    def group(self) -> Group:
        """The open session's group (its reads through the mirror); raises `NoClient` when none is open."""
        return self.session.group

    @property
    def has_client(self) -> bool:
        return self.rankterm.session is not None

    _shown_before = False

    @on(events.ScreenSuspend)
    def _left(self) -> None:
        self._shown_before = True

    @on(events.ScreenResume)
    def _styled_as_mounted(self, event: events.ScreenResume) -> None:
        """Until a screen is first left, its widgets have the styles they were given as they mounted (a theme
        changed meanwhile restyles it anyway): Textual's restyle of the whole screen at each resume (twice for a
        new mode's screen) would style each of them again, half the loop's work on opening the match form. Once
        it was left, each resume restyles it as usual."""
        if not self._shown_before:
            event.refresh_styles = False

    def on_mount(self) -> None:
        """Every rankterm screen shows the status line (outbox counts, offline banner) above its footer.
        Textual calls this as well as a subclass's own `on_mount`."""
        from rankterm.tui.widgets.status_line import StatusLine

        if not self.query(StatusLine):
            self.mount(StatusLine())
        self.watch(self.app, "group_version", self._group_version_changed, init=False)

    def _group_version_changed(self, _version: int) -> None:
        if self.is_current:  # the others revalidate when they are shown again (their ScreenResume)
            self.group_changed()

    def group_changed(self) -> None:
        """The group changed (the app's `group_version`) while this screen is shown: revalidate what it
        shows. The default reloads (`reload_data`)."""
        self.reload_data()

    def reload_data(self) -> None:
        """Load again what the screen shows (the app calls this when a service is opened under it)."""

    def note_freshness(self) -> None:
        """Tell the status line how old the answers just shown are (`group.as_of`); call after a load."""
        note = getattr(self.app, "note_freshness", None)
        if note is not None:
            note()

    def has_unsent_input(self) -> bool:
        """Whether leaving the app now would lose something typed on this screen (the match form says yes
        when it holds a match not sent yet); quitting asks first when any open screen says so."""
        return False

    def say(self, text: str, kind: Kind = "info", *, to: Where = "line") -> None:
        """Tell the user one sentence, shown as typed (never markup): on the screen's info line (coloured by
        `kind`), as a toast, or both. A screen without an info line toasts."""
        text = for_seat(self, text)
        line: Static | None = None
        if self.INFO is not None and to != "toast":
            try:
                line = self.query_one(self.INFO, Static)
            except NoMatches:  # not composed yet
                line = None
        if line is not None:
            line.update(plain(text))
            for name in ("ok", "warning", "error"):
                line.set_class(kind == name, f"-{name}")
        if (line is None or to == "both") and text:
            toast(self, text, kind)

    def show_error(self, exc: BaseException) -> None:
        """Say one sentence about `exc` (an error, also as a toast); a refused key or secret goes back to the
        profiles. Never a traceback."""
        if isinstance(exc, AuthError) and not exc.token_problem:
            self.rankterm.credentials_refused(exc)
            return
        self.say(error_sentence(exc), "error", to="both")
