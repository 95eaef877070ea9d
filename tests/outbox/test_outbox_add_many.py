"""Many matches queued at once (`Outbox.add_many`, what an import does): one transaction, on disk on return
(a process killed right after it loses none), an external id already queued never queued twice; and the
sender's bookkeeping is one write a batch, on the embedded service."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import httpx

from rankterm.client.client import RankingClient
from rankterm.mirror import Group
from rankterm.outbox.outbox import Outbox, OutboxSender, State
from rankterm.server.seed import demo_app
from rankterm.wire.models import NewFaction, NewMatch

BASE = "http://in-process.rankterm/"
NOW = 1_780_000_000.0


def match(external_id: str | None, game: int = 1, players: tuple[str, str] = ("a", "b")) -> NewMatch:
    factions = [NewFaction(players=[p], rank=rank) for rank, p in enumerate(players, start=1)]
    return NewMatch(game=game, weight="normal", factions=factions, external_id=external_id)


class Statements:
    """The statements an outbox's connection runs (sqlite3's trace), to see where its transactions are."""

    def __init__(self, outbox: Outbox) -> None:
        self.seen: list[str] = []
        outbox._db.set_trace_callback(self.seen.append)

    def words(self) -> list[str]:
        return [s.split()[0].upper() for s in self.seen]

    def commits(self) -> int:
        return self.words().count("COMMIT")

    def writes_alone(self) -> int:
        """Writes run outside BEGIN … COMMIT: each is a transaction (a sync to disk) of its own."""
        alone, inside = 0, False
        for word in self.words():
            if word in ("BEGIN", "COMMIT", "ROLLBACK"):
                inside = word == "BEGIN"
            elif word in ("INSERT", "UPDATE", "DELETE") and not inside:
                alone += 1
        return alone


def test_many_matches_are_written_in_one_transaction_in_order(tmp_path: Path):
    box = Outbox(tmp_path / "outbox.db", scope="s")
    trace = Statements(box)
    entries = box.add_many(match(f"ext-{i}") for i in range(25))
    assert trace.words() == ["BEGIN"] + ["INSERT"] * 25 + ["COMMIT"] + ["SELECT"]
    assert [e.external_id for e in entries] == [f"ext-{i}" for i in range(25)]
    assert all(e.state is State.PENDING and not e.in_doubt for e in entries)
    assert [e.external_id for e in box.entries()] == [f"ext-{i}" for i in range(25)]
    assert box.add_many([]) == []


def test_an_external_id_already_there_is_not_added_twice(tmp_path: Path):
    box = Outbox(tmp_path / "outbox.db", scope="s")
    first = box.add(match("ext-1", game=1))
    entries = box.add_many([match("ext-1", game=9), match("ext-2"), match("ext-2", game=7), match(None)])
    assert [e.external_id for e in entries[:3]] == ["ext-1", "ext-2", "ext-2"]
    assert entries[0] == first and entries[0].match.game == 1  # the one queued before stays as it was
    assert entries[2].match.game == 1  # the first of the batch wins
    assert entries[3].external_id  # given one
    assert len(box.entries()) == 3
    other = Outbox(tmp_path / "outbox.db", scope="another key")
    assert [e.external_id for e in other.add_many([match("ext-1")])] == ["ext-1"]  # scopes stay apart
    assert len(box.entries()) == 3 and len(other.entries()) == 1


def test_matches_naming_a_ghost_already_made_name_its_real_id(tmp_path: Path):
    box = Outbox(tmp_path / "outbox.db", scope="s")
    made, waiting = box.add_ghost("Zoe"), box.add_ghost("Yan")
    box.mark_ghost_sent(made.local_id, "realzoe0001")
    entries = box.add_many([match("ext-1", players=(made.local_id, waiting.local_id)), match("ext-2")])
    assert entries[0].match.factions[0].players == ["realzoe0001"]
    assert entries[0].match.factions[1].players == [waiting.local_id]  # sent once Yan is made


def test_on_return_the_matches_are_on_disk_a_killed_process_loses_none(tmp_path: Path):
    path = tmp_path / "outbox.db"
    script = textwrap.dedent(
        f"""
        import os
        from rankterm.wire.models import NewFaction, NewMatch
        from rankterm.outbox.outbox import Outbox
        box = Outbox({str(path)!r}, scope="s")
        box.add_many(
            NewMatch(game=1, weight="normal", factions=[NewFaction(players=["a"], rank=1)], external_id=f"ext-{{i}}")
            for i in range(300)
        )
        os._exit(0)  # no close, no checkpoint: as if the process died there
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    reopened = Outbox(path, scope="s")
    assert [e.external_id for e in reopened.entries(State.PENDING)] == [f"ext-{i}" for i in range(300)]


async def test_the_sender_writes_once_before_and_once_after_each_batch_on_the_embedded_service(
    tmp_path: Path,
):
    app, key, secret = demo_app(clock=lambda: NOW)
    http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)
    group = Group(
        RankingClient(BASE, key=key, secret=secret, http=http, clock=lambda: NOW, retries=0, backoff=0)
    )
    try:
        ids = [p.id for p in await group.players()][:2]
        game = (await group.games())[0].id
        box = Outbox(tmp_path / "outbox.db", scope=group.client.scope)
        box.add_many(match(f"imp-{i}", game=game, players=(ids[0], ids[1])) for i in range(25))
        trace = Statements(box)
        report = await OutboxSender(box, group).send_pending()
        assert report.sent == 25 and report.stopped is None
        batches = -(-25 // group.client.batch_size)
        assert trace.writes_alone() == 0
        assert trace.commits() == 2 * batches  # in doubt before the POST, sent after it: one write each
        assert all(e.state is State.SENT and e.match_id for e in box.entries())
        stored = sqlite3.connect(tmp_path / "outbox.db").execute(
            "SELECT COUNT(*) FROM entries WHERE state='sent'"
        )
        assert stored.fetchone()[0] == 25
    finally:
        await group.client.aclose()
