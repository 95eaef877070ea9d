"""`RanktermApp`: the modes (one screen stack per screen), the app-wide keys, the themes, the open service.

    RanktermApp(config=..., client=..., demo=..., demo_factory=..., client_factory=..., id_factory=...)

Starting with a client opens Home (`home`); without one, the login/profiles screen. The open service is a
`Session` (tui/session.py: the client, its outbox runner, who played last), the app's `session`; the login
screen swaps it with `open_client()`: every screen but the current one is dropped, so each reloads on the new
service. A damaged mirror file (`group.problem`) is said once, as a warning, when a client is opened.
Keys reach the widgets one at a time and in order through the app's `KeyQueue` (tui/key_queue.py). Every
binding of the current screen is also a command of the palette (ctrl+p), named with its keys ("Next page (]
or pgdn)"), as `dialogs.help` reads them; ? and F1 open the overlay of every key. Nothing repaints while
idle: no clock in the header, and text cursors do not blink.

The group changed: `group_changed()` (after `record_matches`, after the outbox sends something, when the
service answers again) marks the lists stale and bumps `group_version`; the screen shown revalidates at once,
the others when shown again (`base.RanktermScreen`). `as_of` (from `group.as_of`) is what the status line
says offline. Quitting (q, ctrl+q) with a filled match form, a send in flight or matches pending in the outbox
asks first (`ConfirmDialog`), naming how many are pending; with nothing unsent it quits at once. Leaving the
group (the profiles key, opening another group) with a match typed in the form asks too (`ask_leaving_group`).

`guest=True` (the seats of `rankterm host` and `rankterm web`, `cli/seat.py`): the app records and reads its
group and nothing else: no profiles or import screen at all, no theme saved, no screenshot, and its sentences
name no path of the host's (`base.for_seat`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.worker import Worker, WorkerCancelled, WorkerFailed, WorkerState

from rankterm.config import Config, save_config
from rankterm.tui.base import RanktermScreen, for_seat, toast
from rankterm.tui.face import ClientFactory, DemoFactory, RanktermAppFace
from rankterm.tui.key_queue import KeyQueue
from rankterm.tui.palette import WHAT_IT_DOES, RanktermCommands
from rankterm.tui.screens import SCREENS, mode_imported, screen_factory
from rankterm.tui.session import BUILT_IN_DEMO, Session
from rankterm.tui.text import error_sentence, plain_str
from rankterm.tui.textual_internals import adopt_css_count, keep_parsed_css
from rankterm.tui.themes import DEFAULT_THEME, load_themes
from rankterm.tui.timers import guard_timers
from rankterm.wire.errors import AuthError, RanktermError
from rankterm.wire.ids import new_external_id

if TYPE_CHECKING:  # the service layer is imported when a service is opened, not at start
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group
    from rankterm.outbox.outcome import BatchOutcome
    from rankterm.tui.outbox_runner import OutboxFactory, OutboxRunner
    from rankterm.wire.models import NewMatch

OPENING_DEMO = "opening the built-in demo…"
"""The title while the demo group is opened (at start, or from a screen other than the profiles)."""

MODE_NAMES: tuple[str, ...] = tuple(SCREENS)
CLIENT_MODES = frozenset(MODE_NAMES) - {"login"}
"""Modes that need an open service."""


_NOT_IN_PALETTE = frozenset({"command_palette", "help_quit"})

GUEST_CLOSED_MODES = frozenset({"login", "import"})
"""Screens a guest seat never opens: the profiles (the host's key, secret and config.toml) and the import (a
path typed on the host's disk)."""
GUEST_CLOSED_ACTIONS = frozenset({"change_theme", "toggle_dark", "screenshot"})
"""App actions a guest seat never runs: each writes to the host's config or files."""
_GUEST_CLOSED_COMMANDS = frozenset({"Theme", "Screenshot"})
"""Textual's own palette commands a guest seat does not offer (the theme is saved in config.toml, a
screenshot is a file written on the host)."""


def _client_of(service: RankingClient | Group) -> RankingClient:
    """The client of a service given as a client or as a group."""
    from rankterm.mirror import Group

    return service.client if isinstance(service, Group) else service


class RanktermApp(App):
    """The rankterm terminal app."""

    TITLE = "rankterm"
    COMMANDS = {RanktermCommands}  # found by name or by what they do (tui/palette.py)
    MODES = {mode: screen_factory(mode) for mode in MODE_NAMES}
    BINDINGS = [
        # The footer (KeyFooter) shows the screen's own keys, then the app's keys marked show=True (? and q) on
        # its right at any width; the screens' letters are in the help overlay (?) and the palette (ctrl+p).
        Binding("h", "open_mode('home')", "Home", show=False),
        Binding("d", "open_mode('service')", "Service", show=False),
        Binding("g", "open_mode('games')", "Games", show=False),
        Binding("p", "open_mode('players')", "Players", show=False),
        Binding("n", "open_mode('match')", "New match", show=False),
        Binding("r", "open_mode('rankings')", "Rankings", show=False),
        Binding("m", "open_mode('matches')", "Matches", show=False),
        Binding("o", "open_mode('outbox')", "Outbox", show=False),
        Binding("s", "open_mode('stats')", "Stats", show=False),
        Binding("l", "open_mode('login')", "Profiles", show=False),
        Binding("b", "open_mode('board')", "Scoreboard", show=False),
        Binding("e", "open_mode('seasons')", "Seasons", show=False),
        Binding("ctrl+t", "change_theme", "Theme", show=False),
        Binding("question_mark", "show_keys", "Keys"),
        Binding("f1", "show_keys", "Keys", show=False),  # "?" types in a text field; F1 works there too
        Binding("q", "quit", "Quit"),
    ]
    CSS = """
    ToastRack { margin-bottom: 2; }  /* above the status line (docked above the footer), never over it */
    RanktermApp.-built-in-demo HeaderTitle { color: $text-warning; }  /* the built-in demo, in its own colour */
    """

    outbox_counts: reactive[dict[str, int]] = reactive(dict, always_update=True)
    """Entries of the outbox by state ("pending", "sent", "rejected"), for the status line."""
    offline = reactive(False)
    """True while the service cannot be reached."""
    outbox_note = reactive("")
    """Why sending is paused, when it is."""
    as_of: reactive[datetime | None] = reactive(None)
    """When the oldest answer shown was read from the service, while one came from the mirror (offline)."""
    group_version = reactive(0)
    """Counts the changes to the group this seat knows of (a match sent, the service back): screens watch
    it and revalidate what they show (`group_changed`). The one "the group changed" signal."""

    def __init__(
        self,
        config: Config | None = None,
        client: RankingClient | Group | None = None,
        demo: bool = False,
        demo_factory: DemoFactory | None = None,
        client_factory: ClientFactory | None = None,
        id_factory: Callable[[], str] | None = None,
        outbox_factory: OutboxFactory | None = None,
        home: str = "home",
        kiosk: bool = False,
        guest: bool = False,
        **kwargs,
    ) -> None:
        guard_timers()  # a toast at the end of its life must not freeze the seat (rankterm.tui.timers)
        super().__init__(**kwargs)
        keep_parsed_css(self)  # past 64 stylesheet sources, Textual parsed them all again at each new widget
        self.keys = KeyQueue(self)
        self.outbox_factory = outbox_factory
        self.config = config if config is not None else Config()
        self.session: Session | None = None
        """The open service; None until one is opened (on mount, when the app was given a client)."""
        self._given_service = client
        self._given_client: RankingClient | None = None if client is None else _client_of(client)
        self._given_demo = demo
        """Until a session is open: the client to open on mount, and whether it (or, without one, the demo
        group opened at start) is the demo group."""
        self._opening_demo = client is None and demo and demo_factory is not None
        """The demo group is being opened, not from the profiles (`rankterm demo`): the title says so."""
        if self._given_client is not None:
            self._given_client.display_safe = (
                True  # what the service says is put on a terminal: no escape gets through
            )
        self.demo_factory = demo_factory
        self.client_factory = client_factory
        self.id_factory = id_factory or new_external_id
        self.home = home
        """The mode a service opens on (`rankterm board`: "board")."""
        self.kiosk = kiosk
        """Read-only: only the home screen is shown (`rankterm board`); nothing can be entered."""
        self.guest = guest
        """A seat of `rankterm host` or `rankterm web` (fixed when the process starts, never left): it records
        and reads the group it was given, and touches nothing else of the host's: no profiles, no import, no
        theme saved, no screenshot, no path shown or typed (`GUEST_CLOSED_MODES`, `GUEST_CLOSED_ACTIONS`)."""
        if guest:  # not only unbound: these screens do not exist in a guest's app
            for mode in GUEST_CLOSED_MODES:
                self._modes.pop(mode, None)
        self._given_profile = (
            None if demo or self._given_client is None else self._default_profile_name(self._given_client)
        )
        self._theme_ready = False
        self._problems_said: set[int] = set()
        self._asking_quit = False
        loaded = load_themes()
        self.theme_problems = loaded.problems
        for theme in loaded.themes:
            self.register_theme(theme)
        wanted = self.config.theme or DEFAULT_THEME
        if wanted not in self.available_themes:
            self.theme_problems.append(f"Theme {wanted!r} is not installed; using {DEFAULT_THEME}.")
            wanted = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else "textual-dark"
        self.theme = wanted
        self._update_sub_title()

    # ------------------------------------------------------------------ lifecycle

    def on_mount(self) -> None:
        from rankterm.tui.live import LiveProbe

        # Set before any screen watches it: Textual's first setting of the app's reactives (after the first
        # screen's mount) would call that screen's watcher, and Home would load its data a second time.
        self.group_version = 0

        self.live = LiveProbe(self)  # another seat's new match or player, noticed (rankterm/tui/live.py)
        self._theme_ready = True
        for problem in self.theme_problems:
            self.notify(
                plain_str(for_seat(self, problem)),
                title="Theme skipped",
                severity="warning",
                markup=False,
                timeout=8,
            )
        opening_demo = self.client is None and self.demo and self.demo_factory is not None
        self.switch_mode(self.home if self.client is not None or opening_demo else "login")
        if self.kiosk:  # a board nobody touches is still watched: the live probe keeps its active pace
            self.live.idle_every = self.live.every
        if self._given_service is not None:
            self._open_session(self._given_service, self._given_demo, self._given_profile)
        if opening_demo:
            # `rankterm demo`: Home shows at once (loading), the demo group follows from a thread,
            # started after the first paint so that its imports do not hold the first screen back.
            self.call_after_refresh(self.run_worker, self.open_demo(), group="app-open", exclusive=True)

    async def on_unmount(self) -> None:
        if getattr(self, "live", None) is not None:
            self.live.stop()
        if self.session is not None:
            await self.session.close()

    async def on_event(self, event: events.Event) -> None:
        """Every key and mouse event tells the live probe that someone is at this seat; each key read goes
        through the key queue (`KeyQueue.arrived`)."""
        if isinstance(event, events.InputEvent) and getattr(self, "live", None) is not None:
            self.live.touched()
        if isinstance(event, events.Key) and not event.is_forwarded and await self.keys.arrived(event):
            return
        await super().on_event(event)

    async def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """No blinking cursors: a blink is a repaint twice a second while idle, and over SSH bytes count.
        A new screen's first focus takes the keys typed before it (`KeyQueue.focus_placed`)."""
        widget = event.widget
        if getattr(widget, "cursor_blink", False):
            widget.cursor_blink = False  # type: ignore[attr-defined]
        self.keys.focus_placed()

    async def keys_done(self) -> None:
        """Return once every key read so far has gone to its widget and settled (for tests and scripts that
        type a burst and then look)."""
        await self.keys.done()

    # ------------------------------------------------------------------ the open service

    @property
    def client(self) -> RankingClient | None:
        """The open service's client (before mount: the one the app was given, opened then)."""
        return self.session.client if self.session is not None else self._given_client

    @property
    def demo(self) -> bool:
        """The open service is the demo group (before one is open: the app was started to open it)."""
        return self.session.demo if self.session is not None else self._given_demo

    @property
    def profile_name(self) -> str | None:
        """The profile the open service was opened from (None: the demo group, or no profile matched)."""
        return self.session.profile_name if self.session is not None else self._given_profile

    @property
    def outbox_runner(self) -> OutboxRunner | None:
        """The open service's outbox (`session.outbox`), for scripts and tests; screens use their session."""
        return self.session.outbox if self.session is not None else None

    def new_external_id(self) -> str:
        """A fresh external id for a new match (injectable through `id_factory` for determinism)."""
        return self.id_factory()

    @property
    def group(self) -> Group | None:
        """The open service's group (its reads through the mirror); None until a service is open."""
        return self.session.group if self.session is not None else None

    def _default_profile_name(self, client: RankingClient) -> str | None:
        """The profile the given client was made from (same base URL and key), if any."""
        for name, profile in self.config.profiles.items():
            if profile.base_url == client.base_url and profile.key == client.key:
                return name
        return None

    def _update_sub_title(self) -> None:
        if self.session is not None:
            self.sub_title = plain_str(self.session.name)
        elif self._opening_demo:
            self.sub_title = plain_str(OPENING_DEMO)
        elif self._given_client is None:
            self.sub_title = "no service open"
        elif self._given_demo:
            self.sub_title = plain_str(BUILT_IN_DEMO)
        else:
            self.sub_title = plain_str(self._given_profile or self._given_client.base_url)
        self.set_class(self.demo, "-built-in-demo")

    async def open_client(
        self, client: RankingClient | Group, *, demo: bool = False, profile_name: str | None = None
    ) -> None:
        """Make `client` (or a group) the app's service: drop every other screen (they reload on it), open the
        home screen."""
        old = self.session
        if old is None and self.current_mode == self.home:
            # The first service of a start that showed its home screen while it loaded: no screen holds data
            # from another service, so that screen just loads.
            self._open_session(client, demo, profile_name)
            self.refresh_bindings()
            if isinstance(self.screen, RanktermScreen):
                self.screen.reload_data()
            return
        if self.current_mode != "login":
            await self.switch_mode("login")
        self._open_session(client, demo, profile_name)
        for mode in CLIENT_MODES:
            await self.remove_mode(mode)
            self.add_mode(mode, screen_factory(mode))
        await self.switch_mode(self.home)
        self.refresh_bindings()
        if old is not None and old.client is not _client_of(client):
            with contextlib.suppress(Exception):
                await old.client.aclose()

    def _open_session(self, service: RankingClient | Group, demo: bool, profile_name: str | None) -> None:
        """`service` becomes the open session, with its outbox (what an earlier run left pending is sent now);
        the session it replaces stops sending. A bare client is read through a group with its mirror in memory."""
        from rankterm.mirror import Group
        from rankterm.tui.outbox_runner import OutboxRunner, memory_outbox

        group = service if isinstance(service, Group) else Group(service)
        client = group.client

        client.display_safe = True
        if self.session is not None:
            self.session.outbox.close()
        self.offline = False
        try:
            outbox = (self.outbox_factory or memory_outbox)(client, demo)
        except (OSError, RanktermError) as exc:
            why = "" if self.guest else f" ({exc})"  # a guest is not told the host's paths
            self.say(f"The outbox could not be opened{why}; matches are kept in memory only.", "error")
            outbox = memory_outbox(client, demo)
        self.session = Session(group, OutboxRunner(self, outbox, group), demo=demo, profile_name=profile_name)
        self._given_client = self._given_service = None  # the session holds it now
        self._update_sub_title()
        client.reachability_listeners.append(self._reachable)
        if getattr(self, "live", None) is not None:
            self.live.attach(group)  # its baseline now, then a probe every few seconds
        self.session.outbox.refresh_counts()
        if self.outbox_counts.get("pending"):
            self.resume_sending()
        self._say_mirror_problem(group)
        self._warm_lists(group)

    def _warm_lists(self, group: Group) -> None:
        """Read the group's games and players into the mirror once, when it has never held them, so that
        the match form offers them later with the service gone, whatever screens this seat opened."""
        missing = [name for name in ("games", "players") if group.synced_at(name) is None]
        if missing:  # after the first screen's own reads have started: they come first
            self.call_after_refresh(
                lambda: self.run_worker(self._read_lists(group, missing), group="warm-lists", exclusive=True)
            )

    async def _read_lists(self, group: Group, names: list[str]) -> None:
        # Once the screen shown has read and drawn what it loads: its data is what the person waits for,
        # and on one core these reads would only push it back.
        loading = [w for w in self.workers if w.node is self.screen and w.is_running]
        for worker in loading:
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        for name in names:
            try:
                await (group.games() if name == "games" else group.players())
            except RanktermError:
                return  # offline or refused: the form reads them itself when it opens

    def _say_mirror_problem(self, group: Group) -> None:
        """The mirror file of `group` was damaged (and replaced): say so once, as a warning."""
        problem = group.problem
        if problem and id(group.client) not in self._problems_said:
            self._problems_said.add(id(group.client))
            if self.guest:  # the sentence names the host's file
                problem = "The offline copy of the group could not be used as it was; it was started afresh."
            toast(self, problem, "warning", timeout=10)

    async def open_demo(self) -> None:
        """Open a fresh copy of the demo group (`demo_factory`, run in a thread), then the home screen."""
        if self.demo_factory is None:
            self.say("The demo group is not available here.", "error")
            return
        if self.current_mode == "login" and isinstance(self.screen, RanktermScreen):
            self.screen.say("Opening the built-in demo…")  # the profiles' own line, cleared when it is open
        else:  # not a toast: one would stay over the figures once they are painted
            self._opening_demo = True
            self._update_sub_title()
        try:
            client = await asyncio.to_thread(self.demo_factory)  # seeding takes a moment: keep the UI live
        except RanktermError as exc:
            self._opening_demo = False
            self._update_sub_title()
            self.say(error_sentence(exc), "error")
            return
        self._opening_demo = False
        await self.open_client(client, demo=True)

    # ------------------------------------------------------------------ outbox

    def _reachable(self, reachable: bool) -> None:
        was_offline = self.offline
        self.offline = not reachable
        if was_offline and reachable:
            if self.outbox_counts.get("pending"):
                self.resume_sending()
            self.group_changed()  # what is shown came from the mirror: read it again from the service

    # ------------------------------------------------------------------ the group changed

    def note_freshness(self) -> None:
        """Take the client's `as_of` (how old the answers shown are) for the status line; screens call this
        after each load."""
        self.as_of = self.session.group.as_of if self.session is not None else None

    def group_changed(self) -> None:
        """The group changed (matches sent from this seat, the service answering again): the lists a write
        touches are read from the service next time, and every screen revalidates what it shows (the one
        shown now at once, the others when they are shown again)."""
        if self.session is not None:
            self.session.group_changed()
        self.group_version += 1

    async def record_matches(self, matches: list[NewMatch]) -> BatchOutcome:
        """Put `matches` in the open session's outbox and send what is pending (`Session.record`)."""
        if self.session is None:
            raise RanktermError("No service is open: pick a profile or open the demo group (l).")
        try:
            return await self.session.record(matches)
        finally:
            self.group_changed()

    def resume_sending(self, force: bool = False) -> None:
        """Send the outbox's pending entries in a worker. Never exclusive: a send under way is not cancelled
        mid-POST by a newer one (that would count a try the service may have answered); the sender itself
        runs one send at a time, across processes too, and tells a send that waited what the one before did."""
        if self.session is not None:
            self.run_worker(self._send_pending(self.session.outbox, force), group="outbox", exclusive=False)

    async def _send_pending(self, runner: OutboxRunner, force: bool) -> None:
        report = await runner.send(force=force)
        if report.sent or report.ghosts:
            self.group_changed()

    def credentials_refused(self, exc: AuthError) -> None:
        """The key or secret no longer works: back to the profiles, with the reason; the outbox keeps all.
        A guest seat has no profiles: it says so and stays."""
        if self.guest:
            self.say(
                "The service refused the host's profile: tell the host. Matches recorded here are kept.",
                "error",
            )
            return
        self.run_worker(self._to_login(str(exc)), group="app-open", exclusive=True)

    async def _to_login(self, reason: str) -> None:
        await self.switch_mode("login")
        message = f"{reason} Unsent matches are kept in the outbox."
        if isinstance(self.screen, RanktermScreen):
            self.screen.say(message, "error")
        toast(self, message, "error", timeout=10)

    # ------------------------------------------------------------------ saying

    def say(self, text: str, kind: str = "info") -> None:
        """A toast of one sentence from the app itself (shown as typed)."""
        toast(self, text, kind)  # type: ignore[arg-type]

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one handler of an error nobody expected in a worker (`base.task`): one sentence, no traceback,
        on the current screen's line when it has one; the app keeps running."""
        if event.state != WorkerState.ERROR or event.worker.error is None:
            return
        sentence = error_sentence(event.worker.error)
        if isinstance(self.screen, RanktermScreen):
            self.screen.say(sentence, "error", to="both")
        else:
            toast(self, sentence, "error")

    # ------------------------------------------------------------------ quitting

    def _unsent_screens(self) -> list[RanktermScreen]:
        """Screens of any opened mode that hold something typed and not sent (see `has_unsent_input`)."""
        out = []
        for mode in MODE_NAMES:
            try:
                stack = self.get_screen_stack(mode)
            except KeyError:
                continue
            out += [s for s in stack if isinstance(s, RanktermScreen) and s.has_unsent_input()]
        return out

    def unsent_reason(self) -> str | None:
        """Why quitting now could lose or leave a match (a filled form, a send in flight, matches pending in
        the outbox), with how many are pending; None when nothing is unsent."""
        pending = self.outbox_counts.get("pending", 0)
        parts = []
        if self._unsent_screens():
            parts.append("The new match form holds a match not sent yet.")
        if self.session is not None and self.session.outbox.sending:
            parts.append("A match is being sent right now.")
        if pending:
            many = "1 match is" if pending == 1 else f"{pending} matches are"
            parts.append(f"{many} still pending in the outbox (kept, and sent the next time rankterm runs).")
        return " ".join(parts) or None

    async def action_quit(self) -> None:
        """Quit at once, unless something is unsent: then ask first (n keeps the app)."""
        reason = self.unsent_reason()
        if reason is None:
            self.exit()
            return
        if self._asking_quit:
            return
        from rankterm.tui.dialogs.confirm import ConfirmDialog

        self._asking_quit = True

        def answered(yes: bool | None) -> None:
            self._asking_quit = False
            if yes:
                self.exit()

        detail = "A match being sent may already be recorded: the next start asks the service first."
        sending = self.session is not None and self.session.outbox.sending
        self.push_screen(
            ConfirmDialog(f"{reason} Quit anyway?", detail if sending else "", yes="Quit (y)"), answered
        )

    def _load_screen_css(self, screen: Screen) -> None:
        """A screen new to the app is marked as styled: its widgets get the stylesheet, with the theme in force,
        as they are registered, and Textual's own first-switch restyle of the whole app would leave ~2 MB of
        parsed rules to the cyclic collector. A screen that sat out a theme change is restyled as usual."""
        super()._load_screen_css(screen)
        adopt_css_count(self, screen)

    # ------------------------------------------------------------------ actions

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.guest and (
            action in GUEST_CLOSED_ACTIONS
            or (action == "open_mode" and parameters and parameters[0] in GUEST_CLOSED_MODES)
        ):
            return False  # not shown, not run, not in the palette: a guest seat cannot leave its group
        if self.kiosk and action == "open_mode" and parameters and parameters[0] != self.home:
            return False  # kiosk (`rankterm board`): read-only, no other screen
        if action == "open_mode" and parameters and parameters[0] in CLIENT_MODES and self.client is None:
            return None  # shown dimmed: there is no service to show yet
        return True

    async def action_open_mode(self, mode: str) -> None:
        if self.guest and mode in GUEST_CLOSED_MODES:
            return
        if mode in CLIENT_MODES and self.client is None:
            self.say("Open a profile or the demo group first.", "warning")
            return
        if mode == "login" and self.current_mode != "login" and self._unsent_screens():
            self.ask_leaving_group(lambda: self.call_later(self.switch_mode, "login"), "Open the profiles")
            return
        await mode_imported(mode)
        await self.switch_mode(mode)

    def ask_leaving_group(self, go: Callable[[], object], what: str) -> None:
        """`go` once the person said yes to leaving the group while the match form holds typed text (Enter
        and Escape say no: a burst of keys never leaves the group by itself); at once when it holds none."""
        if not self._unsent_screens():
            go()
            return
        from rankterm.tui.dialogs.confirm import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                go()

        self.push_screen(
            ConfirmDialog(
                f"The new match form holds a match not sent yet. {what} anyway?",
                f"The match stays in {self.session.name if self.session else 'this group'}'s form "
                "until another group is opened; then it waits there as a draft.",
                yes="Leave (y)",
            ),
            answered,
        )

    def watch_theme(self, name: str) -> None:
        """Remember a theme picked by the user in config.toml."""
        if not self._theme_ready or name == self.config.theme or self.guest:
            return
        self.config.theme = name
        try:
            save_config(self.config)
        except (RanktermError, OSError) as exc:
            self.say(f"The theme could not be saved: {exc}", "error")

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        if not self.guest:  # a file written on the host, and a path chosen by whoever types
            super().action_screenshot(filename, path)

    def deliver_screenshot(
        self,
        filename: str | None = None,
        path: str | None = None,
        time_format: str | None = None,
    ) -> str | None:
        if self.guest:
            return None
        return super().deliver_screenshot(filename, path, time_format)

    def action_show_keys(self) -> None:
        """The help overlay: every key of the screen shown (and its focused widget) and of the app."""
        from rankterm.tui.dialogs.help import KeysScreen

        if not isinstance(self.screen, KeysScreen):
            self.push_screen(KeysScreen(self.screen))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every key of the screen, its focused widget and the app that a rankterm class declares, named with
        its keys ("Next page (] or pgdn)"), as `dialogs.help` reads them; Textual's own Theme, Quit and Keys
        give way to ours (which say their keys). Then the import screen, which has no key."""
        from rankterm.tui.dialogs.help import palette_entries

        entries = [e for e in palette_entries(screen) if e.action not in _NOT_IN_PALETTE]
        ours = {e.action for e in entries if e.node is self}
        replaced = {"Theme": "change_theme", "Quit": "quit", "Keys": "show_keys"}
        for command in super().get_system_commands(screen):
            if self.guest and str(command.title) in _GUEST_CLOSED_COMMANDS:
                continue
            if replaced.get(str(command.title)) not in ours:
                yield command
        for entry in entries:

            async def run(action: str = entry.action, node=entry.node) -> None:
                await self.run_action(action, node)

            yield SystemCommand(
                f"{entry.description} ({' or '.join(entry.keys)})", WHAT_IT_DOES.get(entry.action, ""), run
            )
        if self.client is not None and not self.kiosk and not self.guest:

            async def open_import() -> None:
                await self.action_open_mode("import")

            yield SystemCommand(
                "Import plays…",
                "BG Stats, BoardGameGeek, CSV or a rankterm export: check, then send",
                open_import,
            )


if TYPE_CHECKING:

    def _the_face(app: RanktermApp) -> RanktermAppFace:
        """Never called: mypy checks here that the app is what its screens take it for (`tui.face`)."""
        return app
