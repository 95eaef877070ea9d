"""`rankterm stats player|h2h|game|tonight` run in-process: the same figures as the figures functions over the
group's matches read through the public wire (what the app's pages show), JSON keys as documented, names
found or refused (exit 2), and offline (exit 3)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from rankterm.cli import main, parser
from rankterm.cli.common import run_headless
from rankterm.cli.stats import player_command
from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.server.app import create_app
from rankterm.server.seed import demo_app
from rankterm.server.store import Store
from rankterm.stats import game_figures, head_to_head, player_figures
from rankterm.stats.documents import game_document, h2h_document, player_document
from rankterm.wire.models import Match, NewFaction, NewMatch

PLAYER_KEYS = {
    "player", "played", "wins", "draws", "losses", "win_rate", "current_streak", "longest_streak", "form",
    "best_game", "nemesis", "favourite_victim", "per_game", "first_date", "last_date",
}  # fmt: skip
H2H_KEYS = {
    "a",
    "b",
    "meetings",
    "a_ahead",
    "b_ahead",
    "ties",
    "together",
    "together_wins",
    "per_game",
    "last",
}
GAME_KEYS = {
    "game", "played", "players", "average_factions", "bot_matches", "bot_wins", "bot_win_rate", "top_winner",
    "longest_streak", "first_date", "last_date",
}  # fmt: skip
TONIGHT_KEYS = {"since", "matches", "players", "biggest_gain", "biggest_upset", "ree_loaded", "ree_wanted"}


@pytest.fixture(scope="module")
def wire_matches() -> list[Match]:
    """The demo group's matches as the public wire gives them (`client.all_matches()`), read once."""

    async def read() -> list[Match]:
        app, key, secret = demo_app()
        async with Group(RankingClient.in_process(app, key=key, secret=secret)) as group:
            return await group.all_matches()

    return asyncio.run(read())


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_player_h2h_and_game_print_the_figures_of_the_pages(capsys, wire_matches):
    code, out, err = run(capsys, "stats", "player", "ada", "--demo", "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert set(doc) == PLAYER_KEYS and doc["player"]["name"] == "Ada"
    assert doc == player_document(player_figures(wire_matches, doc["player"]["id"]))
    assert doc["played"] == doc["wins"] + doc["draws"] + doc["losses"] > 0

    code, out, err = run(capsys, "stats", "h2h", "Ada", "BEN", "--demo", "--format", "json")
    assert (code, err) == (0, "")
    h2h = json.loads(out)
    assert set(h2h) == H2H_KEYS and h2h["b"]["name"] == "Ben"
    assert h2h == h2h_document(head_to_head(wire_matches, h2h["a"]["id"], h2h["b"]["id"]))
    assert h2h["meetings"] == h2h["a_ahead"] + h2h["b_ahead"] + h2h["ties"] > 0

    code, out, _ = run(capsys, "stats", "h2h", "Ada", "--demo", "--format", "json")
    everyone = json.loads(out)
    assert code == 0 and everyone["b"] is None and everyone["meetings"] > h2h["meetings"]

    code, out, err = run(capsys, "stats", "game", "pandemic", "--demo", "--format", "json")
    assert (code, err) == (0, "")
    game = json.loads(out)
    assert set(game) == GAME_KEYS and game["game"]["name"] == "Pandemic"
    assert game == game_document(game_figures(wire_matches, game["game"]["id"]))
    assert game["bot_matches"] == game["played"] > 0  # co-op: the game plays as a bot


def test_tables_when_piped(capsys):
    code, out, err = run(capsys, "stats", "player", "Ada", "--demo")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[:2] == ["# Ada", "figure\tvalue"]
    assert any(line.startswith("form\t") and set(line.split("\t")[1]) <= set("WDL ") for line in lines)
    assert "# per game" in lines
    code, out, _ = run(capsys, "stats", "h2h", "Ada", "Ben", "--demo")
    assert code == 0 and out.startswith("# Ada against Ben\n") and "\nall games\t" in out


def test_tonight_reads_ree_around_the_evening(capsys, wire_matches):
    last = max(wire_matches, key=lambda m: m.number)
    since = last.date[:10] + " 00:00"
    code, out, err = run(capsys, "stats", "tonight", "--since", since, "--demo", "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert set(doc) == TONIGHT_KEYS
    evening = [m for m in wire_matches if m.date >= since]
    assert [m["match"] for m in doc["matches"]] == [m.number for m in sorted(evening, key=lambda m: m.date)]
    assert doc["ree_loaded"] == doc["ree_wanted"] == len(evening)
    assert doc["biggest_upset"] is not None and doc["biggest_gain"]["gain"] > 0
    code, out, _ = run(
        capsys, "stats", "tonight", "--since", since, "--demo", "--quota-share", "0", "--format", "json"
    )
    assert code == 0 and json.loads(out)["biggest_gain"] is None  # no ree asked for: no gain to tell


def test_an_unknown_name_or_a_bad_option_is_a_usage_error(capsys):
    code, _, err = run(capsys, "stats", "player", "Nobody", "--demo")
    assert code == 2 and "Nobody" in err
    code, _, err = run(capsys, "stats", "h2h", "Ada", "ada", "--demo")
    assert code == 2 and "two different players" in err
    code, _, err = run(capsys, "stats", "tonight", "--since", "yesterday", "--demo")
    assert code == 2 and "--since" in err


class Cuttable(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner, self.down = inner, False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.down:
            raise httpx.ConnectError("network is unreachable", request=request)
        return await self.inner.handle_async_request(request)


def test_two_players_of_one_name_exit_2_naming_both_and_offline_exits_3(tmp_path, capsys):
    store = Store(tmp_path / "service.db")
    key, secret = store.create_client(store.create_group("Twins"))
    net = Cuttable(httpx.ASGITransport(app=create_app(store)))
    base = "http://twins.test/"

    def client() -> RankingClient:
        http = httpx.AsyncClient(transport=net, base_url=base)
        made = RankingClient(base, key=key, secret=secret, http=http, retries=0, backoff=0)
        made._own_http = True
        return made

    async def seed() -> None:
        async with Group(client()) as c:
            zoe = await c.create_player("Zoë")
            zoe2 = await c.create_player("ZOE")
            game = await c.create_game(name="Go")
            duel = [NewFaction(players=[zoe.id], rank=1), NewFaction(players=[zoe2.id], rank=2)]
            await c.add_matches(NewMatch(game=game.id, weight="normal", factions=duel))

    asyncio.run(seed())

    def player(name: str) -> int:
        args = parser().parse_args(["stats", "player", name, "--format", "json"])
        return run_headless(args, player_command, client=client())

    assert player("zoe") == 2
    err = capsys.readouterr().err
    assert "Zoë" in err and "ZOE" in err  # both candidates, with their ids
    assert player("Zoë") == 0 and json.loads(capsys.readouterr().out)["wins"] == 1
    net.down = True
    assert player("Zoë") == 3
    assert "reach" in capsys.readouterr().err
    store.close()
