"""`rankterm export`: the whole group as one JSON document (matches oldest first) or CSV one row per faction
player, streamed a page at a time, written through a temporary file; run through `main([...])` against
`--demo`, and against a real `rankterm serve` process for the offline exit code."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import os
import re
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankterm.cli import main, make_demo_client
from rankterm.client.client import RankingClient
from rankterm.importing import export as export_module
from rankterm.importing.export import CSV_COLUMNS, GroupChanging, matches_oldest_first
from rankterm.mirror import Group
from rankterm.wire.errors import Offline
from rankterm.wire.models import MatchesPage, NewFaction, NewMatch
from tests.support.examples import examples
from tests.support.live import start_serve


@pytest.fixture
async def demo() -> AsyncIterator[RankingClient]:
    client = make_demo_client()
    yield client
    await client.aclose()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_export_is_the_group_in_match_order(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    target = tmp_path / "league.json"
    code, out, err = run(capsys, "export", str(target), "--demo")
    assert (code, out) == (0, "")
    assert err == f"rankterm: exported 8 games, 10 players, 300 matches to {target}.\n"
    doc = json.loads(target.read_text(encoding="utf-8"))
    assert list(doc) == [
        "format",
        "version",
        "exported",
        "generator",
        "group",
        "games",
        "players",
        "matches",
        "counts",
    ]
    assert (doc["format"], doc["version"]) == ("rankterm-export", 1)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", doc["exported"])
    assert doc["group"] == {"name": "demo", "service": "http://demo.rankterm/"}
    assert doc["counts"] == {"games": 8, "players": 10, "matches": 300}
    assert [m["number"] for m in doc["matches"]] == list(range(1, 301))
    # The same wire shapes as the reads give (a fresh demo group is the same group).
    _, games, _ = run(capsys, "games", "--demo", "--format", "json")
    _, players, _ = run(capsys, "players", "--demo", "--format", "json")
    _, matches, _ = run(capsys, "matches", "--demo", "--format", "json")
    assert [g["name"] for g in doc["games"]] == [g["name"] for g in json.loads(games)]
    assert [p["displayName"] for p in doc["players"]] == [p["displayName"] for p in json.loads(players)]
    read = json.loads(matches)[::-1]
    assert [(m["externalId"], m["date"], m["summary"]) for m in doc["matches"]] == [
        (m["externalId"], m["date"], m["summary"]) for m in read
    ]
    assert set(doc["matches"][0]) == set(read[0]) and set(doc["matches"][0]["factions"][0]) == set(
        read[0]["factions"][0]
    )


def test_csv_export_one_row_per_faction_player(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "export", "-", "--demo", "--format", "csv")
    assert (code, err) == (0, "")  # to stdout: nothing but the CSV
    rows = list(csv.reader(io.StringIO(out)))
    assert tuple(rows[0]) == CSV_COLUMNS
    _, matches, _ = run(capsys, "matches", "--demo", "--format", "json")
    wanted = [
        (m["number"], index, p["id"] if p else "")
        for m in reversed(json.loads(matches))
        for index, f in enumerate(m["factions"], start=1)
        for p in (f["players"] or [None])
    ]
    got = [(int(r[1]), int(r[3]), r[CSV_COLUMNS.index("player_id")]) for r in rows[1:]]
    assert got == wanted
    bots = [r for r in rows[1:] if r[CSV_COLUMNS.index("bot")] == "1"]
    assert bots and all(r[CSV_COLUMNS.index("player")] == "" for r in bots)


def test_json_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "export", "-", "--demo")
    assert (code, err) == (0, "")
    assert json.loads(out)["counts"]["matches"] == 300


async def test_the_walk_holds_a_page_and_fetches_one_ahead(demo: RankingClient) -> None:
    requested: list[int] = []

    async def fetch(n: int) -> MatchesPage:
        requested.append(n)
        return await export_module.matches_page(demo, n)

    told: list[tuple[int, int]] = []
    numbers = []
    async for match in matches_oldest_first(
        demo, fetch=fetch, progress=lambda *told_now: told.append(told_now)
    ):
        numbers.append(match.number)
        pages_given = -(-len(numbers) // 25)  # pages whose matches have been yielded, from the oldest
        assert len(requested) <= 1 + pages_given + 1  # page 1 (read first), those, one ahead
    assert numbers == list(range(1, 301))
    assert requested == [1, *range(12, 1, -1)]  # page 1 is read once and used at the end
    assert told == [(n, 300) for n in range(25, 301, 25)]  # after each page


async def test_a_match_recorded_during_the_export_is_neither_skipped_nor_doubled(demo: RankingClient) -> None:
    players = await Group(demo).players()
    games = await Group(demo).games()
    duel = NewMatch(
        game=games[0].id,
        weight="normal",
        factions=[NewFaction(players=[players[0].id], rank=1), NewFaction(players=[players[1].id], rank=2)],
    )
    numbers = []
    async for match in matches_oldest_first(demo):
        numbers.append(match.number)
        if len(numbers) in (10, 140):  # every page of the walk moves by one, twice
            await demo.add_matches(duel)
    assert numbers == list(range(1, 303))


async def test_a_player_made_during_the_walk_restarts_it_without_doubles(demo: RankingClient) -> None:
    for n in range(30):
        await Group(demo).create_player(f"Guest {n:02d}")
    before = {p.id for p in await Group(demo).players_now(refresh=True)}
    assert len(before) == 40
    seen = []
    async for player in export_module.all_players(demo):
        seen.append(player.id)
        if len(seen) == 3:
            await Group(demo).create_player("Aaron")  # sorted onto page 1, pushing one onto page 2
    assert len(seen) == len(set(seen)) == 41 and before < set(seen)


def test_a_failed_export_leaves_the_file_as_it_was(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "league.json"
    target.write_text("the export of last week\n")
    real = export_module.matches_page

    async def flaky(client: RankingClient, page: int, subset: str | None = None) -> MatchesPage:
        if page == 9:
            raise Offline("matches", "connection reset")
        return await real(client, page, subset)

    monkeypatch.setattr(export_module, "matches_page", flaky)
    code, out, err = run(capsys, "export", str(target), "--demo")
    assert (code, out) == (3, "") and err.startswith("rankterm: Cannot reach the service (matches)")
    assert target.read_text() == "the export of last week\n"
    assert [name for name in os.listdir(tmp_path) if name.startswith(".league.json.")] == []  # no temp file


# ---------------------------------------------------------------------------------------------- rankterm serve


def _serve(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`rankterm serve --demo` on a free port of 127.0.0.1 with a fresh database; yields it and a profile for it."""
    proc, printed, url = start_serve(["--db", str(tmp_path / "service.db"), "--port", "0", "--demo"])
    text = "".join(printed)  # the demo profile it prints to paste
    key, secret = (re.search(rf'^{name} = "([^"]+)"$', text, re.M).group(1) for name in ("key", "secret"))  # type: ignore[union-attr]
    try:
        yield proc, f'[profiles.home]\nbase_url = "{url}"\nkey = "{key}"\nsecret = "{secret}"\n'
    finally:
        proc.kill()
        proc.wait(10)


def test_export_from_rankterm_serve_then_offline(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for proc, snippet in _serve(tmp_path):
        config = tmp_path / "config" / "config.toml"
        config.parent.mkdir()
        config.write_text(snippet)
        target = tmp_path / "plays.csv"
        code, _, err = run(capsys, "--profile", "home", "export", str(target), "--format", "csv")
        assert code == 0 and err.startswith("rankterm: exported ") and "300 matches" in err
        exported = target.read_text()
        assert exported.startswith(",".join(CSV_COLUMNS) + "\n")
        proc.kill()
        proc.wait(10)
        code, out, err = run(capsys, "export", str(target), "--profile", "home")
        assert (code, out) == (3, "")
        assert err.startswith("rankterm: Cannot reach the service") and err.count("\n") == 1
        assert target.read_text() == exported  # never a half file
        assert not [name for name in os.listdir(tmp_path) if name.endswith(".part")]


# ---------------------------------------------------------------------------------------------- the walk, as a property


class Pager:
    """Matches pages as the service makes them (newest first, `per` a page, `totalMatches` on each), over a
    list that grows between requests as `arrivals` says: what the walk must survive, at every timing."""

    def __init__(self, total: int, per: int, arrivals: list[int]) -> None:
        self.numbers = list(range(1, total + 1))
        self.per, self.arrivals = per, arrivals

    async def fetch(self, n: int) -> MatchesPage:
        for _ in range(self.arrivals.pop(0) if self.arrivals else 0):
            self.numbers.append(self.numbers[-1] + 1 if self.numbers else 1)
        newest_first = self.numbers[::-1]
        rows = newest_first[(n - 1) * self.per : n * self.per]
        return MatchesPage.model_validate(
            {
                "page": n,
                "totalPages": max(1, -(-len(self.numbers) // self.per)),
                "rowsForPage": self.per,
                "totalMatches": len(self.numbers),
                "data": [{"id": str(x), "number": x} for x in rows],
            }
        )


@settings(max_examples=examples(100), deadline=None)
@given(
    total=st.integers(0, 80),
    per=st.integers(1, 9),
    arrivals=st.lists(st.integers(0, 3), max_size=30),
)
def test_oldest_first_whatever_arrives_meanwhile(total: int, per: int, arrivals: list[int]) -> None:
    pager = Pager(total, per, list(arrivals))

    async def walk() -> list[int]:
        return [m.number async for m in matches_oldest_first(None, fetch=pager.fetch)]  # type: ignore[arg-type]

    numbers = asyncio.run(walk())
    assert numbers == list(range(1, len(numbers) + 1))  # in order, none skipped, none twice
    assert len(numbers) >= total  # every match there at the start, and the ones seen on page 1 at the end


async def test_a_group_that_never_stops_changing_ends_the_walk_with_one_sentence() -> None:
    pager = Pager(60, 10, [0] + [1] * 500)  # a match arrives before every read but the first

    with pytest.raises(GroupChanging, match="kept changing"):
        async for _ in matches_oldest_first(None, fetch=pager.fetch):  # type: ignore[arg-type]
            pass
