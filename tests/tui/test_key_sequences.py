"""README's key sequences, pressed exactly, from Home: the match the service stored is the one meant.

A 4-player free-for-all, a 2-vs-2 and a co-op against the game (a bot faction), each in the keys README
writes (counted: one key press a word, ctrl combos included). Then the same keys typed 40 ms and 80 ms apart
while the group's lists are still on their way (the embedded service behind a transport that answers late):
nothing typed is lost or lands in the wrong faction (in one burst too), and ctrl+s typed before the lists came sends once the
picks are resolved.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.tui.screens.home import HomeScreen
from rankterm.tui.screens.match_entry import MatchEntryScreen
from rankterm.wire.models import Match

from .conftest import DEMO_URL, frozen_clock
from .pilot import open_form, sequence, settle, type_at

FREE_FOR_ALL = "n C a t ⏎ E ⏎ A ⏎ B ⏎ C ⏎ ^s"
TWO_VS_TWO = "n T i ⏎ A + B ⏎ C + D ⏎ ^s"
COOP_WON = "n P a n ⏎ A + B + C ⏎ ^g ^s"
COOP_LOST = "n P a n ⏎ ^g A + B + C ⏎ ^s"

BOT = "bot"


@dataclass(frozen=True)
class Meant:
    """The match a sequence stands for: its game and, in rank order, each faction's players (or the bot)."""

    keys: str
    most: int
    game: str
    sides: tuple[tuple[int, frozenset[str] | str], ...]


MEANT = {
    "free-for-all": Meant(
        FREE_FOR_ALL,
        16,
        "Catan",
        (
            (1, frozenset({"Elena"})),
            (2, frozenset({"Ada"})),
            (3, frozenset({"Ben"})),
            (4, frozenset({"Chiara"})),
        ),
    ),
    "2-vs-2": Meant(
        TWO_VS_TWO, 14, "Tichu", ((1, frozenset({"Ada", "Ben"})), (2, frozenset({"Chiara", "Dev"})))
    ),
    "co-op won": Meant(COOP_WON, 14, "Pandemic", ((1, frozenset({"Ada", "Ben", "Chiara"})), (2, BOT))),
    "co-op lost": Meant(COOP_LOST, 14, "Pandemic", ((1, BOT), (2, frozenset({"Ada", "Ben", "Chiara"})))),
}


def stored(match: Match) -> tuple[str, tuple[tuple[int, frozenset[str] | str], ...]]:
    sides = tuple(
        (f.rank, BOT if f.bot else frozenset(p.display_name for p in f.players))
        for f in sorted(match.factions, key=lambda f: f.rank)
    )
    assert all(not f.players for f in match.factions if f.bot)
    return (match.game.name if match.game else ""), sides


async def newest(group: RankingClient | Group) -> Match:
    group = Group.of(group)  # a client: read through its group
    return (await group.matches_page(1)).data[0]


README = ("free-for-all", "2-vs-2", "co-op won")


async def test_readme_sequences_record_the_matches_meant(make_app):
    """README's three, from Home, one after the other (Escape h between: back to Home;
    "n" after a recorded match opens a blank form). Each key is pressed as Textual's pilot presses keys."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for name in README:
            meant = MEANT[name]
            keys = sequence(meant.keys)
            assert len(keys) <= meant.most, name
            assert isinstance(app.screen, HomeScreen)
            before = await newest(app.group)
            await pilot.press(*keys)
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, MatchEntryScreen)
            answer = screen.last_answer
            assert answer is not None and answer.accepted_count == 1, (name, screen.form.answer.text)
            match = await newest(app.group)
            assert match.number == before.number + 1, name
            assert stored(match) == (meant.game, meant.sides), name
            await pilot.press("escape", "h")
            await settle(pilot)


LISTS = re.compile(r"/(games|players)(/\d+)?/?$")


class LateTransport(httpx.AsyncBaseTransport):
    """The embedded service (a real ASGI app) whose answers to the group's lists (games, players) come
    `delay` seconds after `typed` is set (at once if it never is: `typed` starts set); notes when each request
    for the players was asked and answered."""

    def __init__(self, inner: httpx.AsyncBaseTransport, delay: float) -> None:
        self.inner = inner
        self.delay = delay
        self.typed = asyncio.Event()
        self.typed.set()
        self.players_asked: list[tuple[float, float]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        asked = time.monotonic()
        listed = LISTS.search(request.url.path)
        if listed:
            await self.typed.wait()
            await asyncio.sleep(self.delay)
        response = await self.inner.handle_async_request(request)
        if listed and listed.group(1) == "players":
            self.players_asked.append((asked, time.monotonic()))
        return response

    def answered_after(self, moment: float) -> float:
        """When the first request for the players asked after `moment` was answered."""
        return next(answered for asked, answered in self.players_asked if asked > moment)


@pytest.mark.parametrize(
    ("gap", "names"),
    [(0.0, ["free-for-all"]), (0.04, ["free-for-all"]), (0.08, ["co-op lost"])],
    ids=["one-burst", "40ms", "80ms"],
)
async def test_keys_typed_faster_than_the_lists_load_make_the_same_matches(
    make_app, demo_service, gap, names
):
    """A sequence typed while the group's lists are on their way (the premise is checked): the 4-player one
    in one burst (a paste, tmux send-keys: every key before the app handled the first; `n` used to leave the
    rest with the first screen) and 40 ms apart, the co-op with the game first (ctrl+g right after the game's
    Enter) 80 ms apart."""
    transport = LateTransport(httpx.ASGITransport(app=demo_service.asgi), delay=1.0)
    http = httpx.AsyncClient(transport=transport, base_url=DEMO_URL)
    group = Group(
        RankingClient(
            DEMO_URL, key=demo_service.key, secret=demo_service.secret, http=http, clock=frozen_clock
        )
    )
    async with demo_service.client() as reader:
        app = make_app(client=group)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            for round, name in enumerate(names):
                meant = MEANT[name]
                before = await newest(reader)
                keys = sequence(meant.keys)
                first_enter = keys.index("enter")
                typing = time.monotonic()
                transport.typed.clear()  # the lists wait for the game's Enter, however slow the machine
                await type_at(pilot, keys[: first_enter + 1], gap)
                entered = time.monotonic()
                transport.typed.set()
                await type_at(pilot, keys[first_enter + 1 :], gap)
                await settle(pilot)
                if round == 0:  # the form's players came after the game was picked with Enter
                    assert transport.answered_after(typing) > entered
                screen = app.screen
                assert isinstance(screen, MatchEntryScreen)
                answer = screen.last_answer
                assert answer is not None and answer.accepted_count == 1, (name, screen.form.answer.text)
                match = await newest(reader)
                assert match.number == before.number + 1, name
                assert stored(match) == (meant.game, meant.sides), name
                await type_at(pilot, ["escape", "h"], gap)
                await settle(pilot)


async def test_a_typo_mended_in_a_burst_after_the_games_enter_is_mended_in_order(make_app):
    """Found at the table: `C a t ⏎ M a l l ⌫⌫⌫⌫ A d` typed in one burst left "Ma" in the players field: the
    keys held by the game field reached the players field in order, but the backspaces ran after the letters
    behind them."""
    async with make_app().run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await settle(pilot)
        await type_at(pilot, [*"Cat", "enter", *"Mall", *["backspace"] * 4, *"Ad"], 0)
        await settle(pilot)
        assert screen.form.game_picker.input.value == "Catan"
        assert screen.form.rows[0].picker.input.value == "Ad"


def test_readme_writes_these_sequences():
    readme = (Path(__file__).parents[2] / "README.md").read_text(encoding="utf-8")
    for name in README:
        assert f"`{MEANT[name].keys}`" in readme, name
