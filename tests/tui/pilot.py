"""What the app tests do with a pilot, in one place: type keys, wait for the app to settle, open and fill the
match form. Every test module imports these from here; no test module imports another's helpers."""

from __future__ import annotations

import asyncio
import contextlib
import unicodedata

import httpx
import pytest
from textual import events
from textual.app import App
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.outbox.outbox import Outbox
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.screens.match_entry import MatchEntryScreen
from rankterm.tui.screens.outbox import OutboxScreen
from rankterm.tui.screens.players import PlayersScreen
from rankterm.tui.widgets.match_form.faction_row import FactionRow
from rankterm.wire.models import NewFaction, NewMatch, Weight
from tests.support.transports import LateTransport


def keys(text: str) -> list[str]:
    """Key names that type `text` (a space is "space")."""
    return ["space" if ch == " " else ch for ch in text]


README_KEYS = {
    "⏎": "enter",
    "^s": "ctrl+s",
    "^g": "ctrl+g",
    "^f": "ctrl+f",
    "^o": "ctrl+o",
    "Tab": "tab",
    "+": "plus",
}


def sequence(text: str) -> list[str]:
    """Key names of a key sequence as README writes it: "n C a t ⏎ E ⏎ … ^s" (one key press a word)."""
    return [README_KEYS.get(word, word) for word in text.split()]


def key_event(key: str) -> events.Key:
    """The event a terminal's key press makes (as Textual's own pilot builds it)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        character: str | None = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        character = key if len(key) == 1 else None
    return events.Key(key, character)


GAPS = pytest.mark.parametrize("gap", [None, 0.01], ids=["one-burst", "10ms"])
"""For a test of typed keys: None, every key in the app's queue at once; else seconds between keys."""


def burst(pilot: Pilot, names: list[str]) -> None:
    """Hand `names` to the app as the terminal driver hands over the keys of one write: all of them in the
    app's queue before it handles the first."""
    for name in names:
        event = key_event(name)
        event.set_sender(pilot.app)
        pilot.app.post_message(event)


async def send_keys(pilot: Pilot, names: list[str] | str, gap: float | None) -> None:
    """`names` (or the keys of a text as README writes them, one key a word: `sequence`) in one write (`gap`
    None) or `gap` seconds apart, then `settle`."""
    if isinstance(names, str):
        names = sequence(names)
    if gap is None:
        burst(pilot, names)
    else:
        await type_at(pilot, names, gap)
    await settle(pilot)


async def type_at(pilot: Pilot, keys: list[str], gap: float) -> None:
    """Press `keys` `gap` seconds apart, as a person types: each key reaches the app as the terminal would
    send it, without waiting for the app to finish with the one before (unlike `pilot.press`)."""
    for key in keys:
        event = key_event(key)
        event.set_sender(pilot.app)
        pilot.app.post_message(event)
        await asyncio.sleep(gap)


async def workers_done(app: App) -> None:
    """Wait for the app's workers to end: a worker cancelled on the way (an exclusive one replaced by a
    newer read, as a screen does when shown twice quickly) has ended too; a failed one still raises."""
    for worker in list(app.workers):
        with contextlib.suppress(WorkerCancelled):
            await worker.wait()


async def settle(pilot: Pilot, delay: float = 0.0) -> None:
    """Let the keys typed reach their widgets, messages, timers (`delay` seconds) and workers finish, then
    repaint."""
    await pilot.pause(delay or None)
    await pilot.app.keys_done()
    await workers_done(pilot.app)
    await pilot.pause()
    await workers_done(pilot.app)
    await pilot.pause()


async def drain(pilot: Pilot) -> None:
    """`settle` without waiting for the process to look idle: the current screen's messages, the keys typed
    and the workers are finished, then it repaints. Textual's idle wait sleeps 20 ms at the least and keeps
    sleeping while anything of the process uses the CPU (up to a second), which a walk of many steps pays at
    each; a step that needs a timer to fire or a thread of its own to run still wants `settle`."""
    await pilot.pause(0)
    await pilot.app.keys_done()
    await workers_done(pilot.app)
    await pilot.pause(0)
    await workers_done(pilot.app)
    await pilot.pause(0)


def guest_seat(make_app, path, seat: str = "mine") -> App:  # type: ignore[no-untyped-def]
    """A guest seat's app (`make_app`'s) whose outbox is the file at `path`, which other seats share, its
    entries marked `seat`."""
    return make_app(
        demo=False, guest=True, outbox_factory=lambda client, demo: Outbox(path, client.scope, seat=seat)
    )


async def open_outbox(pilot: Pilot) -> OutboxScreen:
    await pilot.press("o")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, OutboxScreen)
    return screen


async def open_form(pilot: Pilot) -> MatchEntryScreen:
    await pilot.press("n")
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MatchEntryScreen)
    return screen


async def game_field(pilot: Pilot):
    """Open the match form with the cursor in its game field; the game's picker."""
    screen = await open_form(pilot)
    picker = screen.form.game_picker
    picker.focus_input()
    await settle(pilot)
    return picker


async def pick_game(pilot: Pilot, text: str) -> None:
    """Focus the game field, type `text`, Enter (picks the highlighted suggestion)."""
    screen = pilot.app.screen
    assert isinstance(screen, MatchEntryScreen)
    picker = screen.form.game_picker
    picker.set_text("")
    picker.focus_input()
    await pilot.press(*keys(text))
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


async def add_players(pilot: Pilot, row: FactionRow, names: list[str]) -> None:
    """Type each name in the row's players field and pick it with `+` (which keeps the focus in the row;
    Enter would pick and move on to the next faction)."""
    row.picker.focus_input()
    for name in names:
        await pilot.press(*keys(name))
        await pilot.pause()
        await pilot.press("+")
        await pilot.pause()


async def fill_row(
    pilot: Pilot, row: FactionRow, players: list[str], rank: int, points: str = "", name: str = ""
) -> None:
    """Players, then Tab to rank (typed only when not the row's own), points and faction name.

    A field reached with Tab has its text selected, so typing replaces it.
    """
    await add_players(pilot, row, players)
    await pilot.press("tab")
    if row.rank_input.value != str(rank):
        await pilot.press(*keys(str(rank)))
    if points or name:
        await pilot.press("tab", *keys(points))
    if name:
        await pilot.press("tab", *keys(name))
    await pilot.pause()


async def quick_fill(
    pilot: Pilot, game: str, rows: list[tuple[list[str], int, str]], *, bot_row: tuple[int, str] | None = None
) -> None:
    """Fill the form from code (no typing), for tests about something else than typing.

    `rows`: (player labels, rank, points) per faction row (rows are added as needed); `bot_row`: a bot
    faction (rank, points) added at the end.
    """
    screen = pilot.app.screen
    assert isinstance(screen, MatchEntryScreen)
    form = screen.form
    form.game_picker.choose(next(g for g in form.game_picker.games if g.name == game))
    by_label = {p.label: p for p in form.players}
    wanted = len(rows) + (1 if bot_row else 0)
    while len(form.rows) < wanted:
        await form.add_row()
    for row, (labels, rank, points) in zip(form.rows, rows, strict=False):
        row.fill(players=[by_label[label] for label in labels], rank=rank, points=points)
    if bot_row:
        form.rows[len(rows)].fill(bot=True, rank=bot_row[0], points=bot_row[1])
    await settle(pilot)


async def date_refused(pilot: Pilot, screen: MatchEntryScreen, text: str) -> str:
    """`text` put in the Date field of the filled form on `screen`, then ctrl+s: the form asks nothing of the
    service. The form's problem line."""
    screen.form.field("date").value = text
    calls = pilot.app.client.calls
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert pilot.app.client.calls == calls
    return str(screen.form.query_one("#form-problem").render())


async def make_ghost(pilot: Pilot, name: str) -> None:
    """From any screen: the Players screen, ctrl+n, `name` typed, Enter (back on the Players screen)."""
    await pilot.press("escape", "p")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PlayersScreen)
    await pilot.press("ctrl+n")
    await settle(pilot)
    assert isinstance(pilot.app.screen, AskDialog)
    await pilot.press(*keys(name), "enter")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PlayersScreen)


async def record_waiting(pilot: Pilot, winner: str, loser: str) -> str:
    """A Catan match, `winner` (9 points) beating `loser` (7), sent with ctrl+s while the service cannot be
    reached: it waits in the outbox. Its external id."""
    screen = await open_form(pilot)
    await quick_fill(pilot, "Catan", [([winner], 1, "9"), ([loser], 2, "7")])
    await pilot.press("ctrl+s")
    await settle(pilot)
    assert screen.last_answer is not None and screen.last_answer[0].waiting
    return screen.last_answer[0].external_id


async def e_in_the_outbox(pilot: Pilot) -> None:
    """Escape from the form, then `e` on the outbox's selected entry (the newest): it opens in the form, or
    the form first asks about what it holds."""
    await pilot.press("escape")
    await open_outbox(pilot)
    await pilot.press("e")
    await settle(pilot)


async def fix_from_the_outbox(pilot: Pilot) -> MatchEntryScreen:
    """`e_in_the_outbox` on a form with nothing typed: the form the entry is loaded in."""
    await e_in_the_outbox(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, MatchEntryScreen)
    return screen


async def match_count(pilot: Pilot) -> int:
    return (await pilot.app.group.matches_page(1)).total


GUESTS = 20


async def crowd_catan(group: RankingClient | Group) -> int:
    """Twenty ghosts and one Catan match between them; the new match's number."""
    group = Group.of(group)  # a client: read through its group
    guests = [await group.create_player(f"Guest {i:02d}") for i in range(1, GUESTS + 1)]
    catan = next(g for g in await group.games() if g.name == "Catan")
    match = NewMatch(
        game=catan.id,
        weight=Weight.NORMAL,
        external_id="crowd-1",
        factions=[NewFaction(players=[g.id], rank=i + 1, points=str(40 - i)) for i, g in enumerate(guests)],
    )
    answer = await group.add_matches(match)
    assert answer.accepted_count == 1
    return (await group.matches_page(1)).data[0].number


async def catan_duel(
    group: RankingClient | Group, external_id: str, winner: str = "Ada", loser: str = "Ben"
) -> NewMatch:
    """A two-player Catan match between two of the group's players (by display name), not yet sent."""
    group = Group.of(group)  # a client: read through its group
    players = {p.display_name: p.id for p in await group.players()}
    catan = next(g for g in await group.games() if g.name == "Catan")
    return NewMatch(
        game=catan.id,
        weight=Weight.NORMAL,
        external_id=external_id,
        factions=[
            NewFaction(players=[players[winner]], rank=1),
            NewFaction(players=[players[loser]], rank=2),
        ],
    )


def late_client(demo_service, delay: float = 0.0) -> tuple[RankingClient, LateTransport]:
    """A client on the demo service whose every answer comes `delay` seconds late, and its transport (set
    `delay` on it to make the service late later)."""
    from .conftest import DEMO_URL, frozen_clock  # here: the conftest imports this module

    transport = LateTransport(httpx.ASGITransport(app=demo_service.asgi), delay)
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    group = Group(
        RankingClient(
            DEMO_URL,
            key=demo_service.key,
            secret=demo_service.secret,
            http=http,
            clock=frozen_clock,
            retries=0,
        )
    )
    return group, transport


def count_frames(app, *, empty_too: bool = True) -> list[int]:
    """A list that gets one item each time the app hands the terminal a frame from now on (with `empty_too`
    False, only frames that draw something)."""
    frames: list[int] = []
    display = app._display

    def counting(screen, renderable):
        if empty_too or renderable is not None:
            frames.append(1)
        return display(screen, renderable)

    app._display = counting
    return frames
