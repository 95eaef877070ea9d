"""Several files in one import: `rankterm import A.xml B.xml` reads them all and sends their plays
together, oldest first, a play in two files counted once, whatever order the files come in; BoardGameGeek
pages pasted into one file are each read; and importing two overlapping files one at a time, in either
order, leaves the embedded service (in process) with the same standings as importing them together.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankterm.cli import main
from rankterm.client.client import RankingClient
from rankterm.importing import MapFile, open_source, plan_import, send_plan
from rankterm.importing.plan import Plan
from rankterm.mirror import Group as Reads
from rankterm.outbox.outbox import Outbox, OutboxSender
from rankterm.server.app import create_app
from rankterm.server.store import Store
from rankterm.wire.errors import RanktermError
from tests.support.examples import examples

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"
PAGE_1 = FIXTURES / "plays.xml"
PAGE_2 = FIXTURES / "plays_page2.xml"  # older plays, two of them (101, 103) on page 1 too
BASE = "http://several.test/"
COOP = MapFile(cooperative=frozenset({"pandemic"}), players={"Anonymous player": "Guest"})
GAMES = (("Catan", 13), ("Carcassonne", 822), ("Ticket to Ride", 9209))
NAMES = ("Ada", "Bob", "Carla", "Dán", "Eve")


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("RANKTERM_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "data"))


@dataclass(frozen=True)
class Play:
    """A BGG play as a generated file holds it."""

    play_id: int
    date: str
    game: int
    scores: tuple[int, ...]


def page(plays: list[Play], number: int = 1, declaration: bool = True) -> str:
    """One saved BGG plays page (XML API 2) holding `plays`."""
    rows = []
    for p in plays:
        name, bgg = GAMES[p.game]
        seats = "".join(
            f'<player username="" userid="0" name="{NAMES[i]}" score="{s}" win="{int(s == max(p.scores))}"/>'
            for i, s in enumerate(p.scores)
        )
        rows.append(
            f'  <play id="{p.play_id}" date="{p.date}" quantity="1" incomplete="0" nowinstats="0">\n'
            f'    <item name="{name}" objecttype="thing" objectid="{bgg}"/>\n'
            f"    <players>{seats}</players>\n  </play>\n"
        )
    head = '<?xml version="1.0" encoding="utf-8"?>\n' if declaration else ""
    return f'{head}<plays username="ada" userid="1" total="{len(plays)}" page="{number}">\n{"".join(rows)}</plays>\n'


plays_st = st.lists(
    st.builds(
        Play,
        play_id=st.integers(1, 10**6),
        date=st.dates(min_value=date(2024, 1, 1), max_value=date(2026, 1, 31)).map(str),
        game=st.integers(0, len(GAMES) - 1),
        scores=st.lists(st.integers(0, 20), min_size=2, max_size=4).map(tuple),
    ),
    min_size=1,
    max_size=12,
    unique_by=lambda p: p.play_id,
)


def read(path: Path) -> list[tuple[str, str | None, tuple[tuple[str, str, bool], ...]]]:
    return [
        (p.external_id, p.date, tuple((s.name, s.score, s.winner) for s in p.seats))
        for p in open_source(path).plays()
    ]


# ------------------------------------------------------------------------------------------- pasted pages


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    plays=plays_st,
    cuts=st.lists(st.integers(0, 12), max_size=3),
    between=st.sampled_from(["", "\n", "\n\n  "]),
)
def test_pages_pasted_into_one_file_read_as_the_plays_of_each(
    tmp_path_factory: pytest.TempPathFactory, plays: list[Play], cuts: list[int], between: str
) -> None:
    folder = tmp_path_factory.mktemp("pasted")
    bounds = sorted({0, len(plays), *(min(c, len(plays)) for c in cuts)})
    pages = [plays[a:b] for a, b in itertools.pairwise(bounds)]
    pasted = folder / "pasted.xml"
    pasted.write_text(
        between.join(page(chunk, n) for n, chunk in enumerate(pages, start=1)), encoding="utf-8"
    )
    whole = folder / "whole.xml"
    whole.write_text(page(plays))
    assert read(pasted) == read(whole)
    assert [p[0] for p in read(pasted)] == [f"bgg-{p.play_id}" for p in plays]


def test_two_fixture_pages_pasted_into_one_file(tmp_path: Path) -> None:
    pasted = tmp_path / "plays.xml"
    pasted.write_bytes(PAGE_1.read_bytes() + b"\n" + PAGE_2.read_bytes())
    assert read(pasted) == read(PAGE_1) + read(PAGE_2)
    broken = tmp_path / "broken.xml"
    broken.write_bytes(PAGE_1.read_bytes() + PAGE_2.read_bytes()[:-40])  # the second page cut short
    with pytest.raises(RanktermError, match=r"^broken\.xml: the XML cannot be read \(.*\)\.$"):
        list(open_source(broken).plays())


# --------------------------------------------------------------------------------------- several files


@pytest.fixture(scope="module")
def shared_service(tmp_path_factory: pytest.TempPathFactory):
    """One embedded service for the plans (a plan writes nothing to it)."""
    store = Store(tmp_path_factory.mktemp("service") / "service.db")
    key, secret = store.create_client(store.create_group("Several files"))
    yield create_app(store), key, secret
    store.close()


def normalised(plan: Plan) -> list[tuple[Any, ...]]:
    """What the plan sends, in its order, with the plan's stand-in ids for new players and games told by name."""
    people = {p.player_id: p.name for p in plan.players}
    games = {g.game_id: g.name for g in plan.games}
    return [
        (
            m.external_id,
            m.date,
            games[m.game] if m.game is not None else None,
            sorted((f.rank, str(f.points), tuple(sorted(people[p] for p in f.players))) for f in m.factions),
        )
        for m in plan.matches()
    ]


async def planned(service: tuple[Any, str, str], paths: list[Path]) -> tuple[list[tuple[Any, ...]], Plan]:
    app, key, secret = service
    async with Reads(RankingClient.in_process(app, key=key, secret=secret, base_url=BASE)) as group:
        plan = await plan_import(group, [open_source(p) for p in paths])
        with plan:
            return normalised(plan), plan


@settings(
    max_examples=examples(15), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    plays=plays_st,
    homes=st.lists(st.sets(st.integers(0, 2), min_size=1), min_size=12, max_size=12),
    order=st.permutations([0, 1, 2]),
)
def test_any_order_of_the_files_sends_the_same_plays_oldest_first_each_once(
    shared_service,
    tmp_path_factory: pytest.TempPathFactory,
    plays: list[Play],
    homes: list[set[int]],
    order: list[int],
) -> None:
    folder = tmp_path_factory.mktemp("files")
    paths = []
    for n in range(3):
        held = [p for p, home in zip(plays, homes, strict=False) if n in home]
        path = folder / f"page{n}.xml"
        path.write_text(page(sorted(held, key=lambda p: p.date, reverse=True), n + 1))  # BGG: newest first
        paths.append(path)
    given_order, other = (
        asyncio.run(planned(shared_service, paths)),
        asyncio.run(planned(shared_service, [paths[i] for i in order])),
    )
    assert given_order[0] == other[0]
    sent = given_order[0]
    assert sorted(m[0] for m in sent) == sorted(f"bgg-{p.play_id}" for p in plays)  # each once
    assert [m[1] for m in sent] == sorted(m[1] for m in sent)  # oldest first
    plan = given_order[1]
    assert plan.overlap == sum(len(home) - 1 for home in homes[: len(plays)])
    assert [f.plays_read for f in plan.files] == [
        sum(1 for h in homes[: len(plays)] if n in h) for n in range(3)
    ]


def test_the_command_reads_several_files_and_speaks_of_all(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["import", str(PAGE_1), str(PAGE_2), "--demo", "--dry-run"]
    assert main([*args, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)["dryRun"]
    assert [(Path(f["file"]).name, f["plays"]) for f in out["files"]] == [
        ("plays.xml", 11),
        ("plays_page2.xml", 7),
    ]
    assert out["plays"] == 18 and out["inEarlierFile"] == 2  # 101 and 103 are on both pages
    ids = [m["externalId"] for m in out["firstMatches"]]
    assert ids[:3] == ["bgg-92", "bgg-93", "bgg-96"]  # page 2's older plays first
    assert len(ids) == len(set(ids))
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "plays.xml: BoardGameGeek plays (XML), 11 plays read." in text
    assert "plays_page2.xml: BoardGameGeek plays (XML), 7 plays read." in text
    assert "in more than one file: 2 (counted once)" in text
    assert "plays_page2.xml play 5 (id 94)" in text  # where, in which file


def test_a_file_that_cannot_be_read_among_several_sends_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("milk, eggs\n")
    assert main(["import", str(PAGE_1), str(junk), "--demo"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "notes.txt: not a file rankterm can import" in captured.err


# ------------------------------------------------------------------------------- one at a time, either order


@dataclass
class Service:
    store: Store
    client: RankingClient
    outbox: Outbox

    def __post_init__(self) -> None:
        self.reads = Reads(self.client)

    async def send(self, *paths: Path) -> None:
        with await plan_import(
            self.reads, [open_source(p) for p in paths], map_file=COOP, outbox=self.outbox
        ) as plan:
            report = await send_plan(
                plan,
                self.reads,
                self.outbox,
                OutboxSender(self.outbox, self.reads, max_rounds=1).send_pending,
            )
        assert report.rejected == 0 and report.waiting == 0

    async def standings(self) -> dict[str, tuple[float, int]]:
        rows = await self.reads.all_rankings()
        return {r.player.display_name.lstrip("*"): (round(float(r.ree or 0), 6), r.position) for r in rows}


async def fresh(folder: Path) -> Service:
    folder.mkdir()
    store = Store(folder / "service.db")
    key, secret = store.create_client(store.create_group("Either order"))
    client = RankingClient.in_process(create_app(store), key=key, secret=secret, base_url=BASE, retries=0)
    return Service(store, client, Outbox(folder / "outbox.db", scope=client.scope))


async def test_two_overlapping_files_one_at_a_time_in_either_order_give_the_same_standings(
    tmp_path: Path,
) -> None:
    newer_first, older_first, together = (
        await fresh(tmp_path / "a"),
        await fresh(tmp_path / "b"),
        await fresh(tmp_path / "c"),
    )
    try:
        await newer_first.send(PAGE_1)
        await newer_first.send(PAGE_2)  # its older plays arrive after the newer ones
        await older_first.send(PAGE_2)
        await older_first.send(PAGE_1)
        await together.send(PAGE_1, PAGE_2)
        expected = await together.standings()
        assert len(expected) == 5  # Ada, Bob, Carla, Dán and the map's Guest
        assert await older_first.standings() == expected
        assert await newer_first.standings() == expected
    finally:
        for service in (newer_first, older_first, together):
            service.outbox.close()
            await service.client.aclose()
            service.store.close()
