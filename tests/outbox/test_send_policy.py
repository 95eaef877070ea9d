"""One send policy: the client's GETs, the outbox's rounds and the app's sends wait one backoff schedule
(`client.send_policy.Backoff`), and what a send settled reaches its callers from the send itself.

Against the embedded service, in process, behind `FaultyTransport` (`down` cuts the network; a script puts a
quota refusal on one POST). Waits are recorded by an injected sleep and the app's timers, never timed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.client.send_policy import Backoff, batches
from rankterm.outbox.outbox import Outbox, OutboxSender, State
from rankterm.server.app import create_app
from rankterm.server.store import Store
from rankterm.tui import outbox_runner
from rankterm.tui.outbox_runner import OutboxRunner
from rankterm.wire.errors import Offline
from rankterm.wire.models import NewFaction, NewMatch
from tests.support.clock import SettableClock
from tests.support.faults import Fault, FaultyTransport

BASE = "http://policy.test/"


class Timer:
    def __init__(self, app: FakeApp, delay: float) -> None:
        self.app, self.delay = app, delay

    def stop(self) -> None:
        if self in self.app.armed:
            self.app.armed.remove(self)


@dataclass
class FakeApp:
    """What `OutboxRunner` needs of the app; `timers`: the delays of the sends it set (its knocks aside),
    `armed` those not stopped (none fires here)."""

    outbox_counts: dict[str, int] = field(default_factory=dict)
    outbox_note: str = ""
    timers: list[float] = field(default_factory=list)
    armed: list[Timer] = field(default_factory=list)

    def set_timer(self, delay: float, callback: Callable[[], Any], **options: Any) -> Timer:
        timer = Timer(self, delay)
        if callback == self.resume_sending:
            self.timers.append(delay)
            self.armed.append(timer)
        return timer

    def resume_sending(self) -> None:
        return None

    def credentials_refused(self, exc: Exception) -> None:
        raise AssertionError(f"credentials refused: {exc}")


class Table:
    """A group on the embedded service (Ada, Ben, Catan) and the network to it."""

    def __init__(self, tmp: Path, script: list[Fault | None] | None = None) -> None:
        self.tmp = tmp
        self.store = Store(tmp / "service.db")
        group = self.store.create_group("Policy")
        self.group = group
        self.key, self.secret = self.store.create_client(group)
        self.ada = self.store.create_player(group, "Ada", ghost=False, username="ada").id
        self.ben = self.store.create_player(group, "Ben", ghost=False, username="ben").id
        self.game = self.store.create_game(group, name="Catan").id
        self.clock = SettableClock()
        self.network = FaultyTransport(
            httpx.ASGITransport(app=create_app(self.store)),
            script=script or (),
            applies_to=lambda r: r.method == "POST" and r.url.path.endswith("matches/match"),
        )
        self.waits: list[float] = []

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)

    def client(self, **kw: Any) -> RankingClient:
        http = httpx.AsyncClient(transport=self.network, base_url=BASE)
        client = RankingClient(BASE, key=self.key, secret=self.secret, http=http, clock=self.clock, **kw)
        client.sleep = self.sleep
        return client

    def match(self, n: int) -> NewMatch:
        factions = [
            NewFaction(players=[self.ada], rank=1, points="10"),
            NewFaction(players=[self.ben], rank=2, points="7"),
        ]
        return NewMatch(game=self.game, weight="normal", factions=factions, external_id=f"policy-{n}")

    def recorded(self) -> list[str]:
        return [m.external_id for m in self.store.matches_page(self.group, None, 1).data]

    def taking_waits(self) -> list[float]:
        taken, self.waits = self.waits, []
        return taken


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return Table(tmp_path)


def test_a_backoff_doubles_up_to_its_cap_and_repeats_its_last_wait() -> None:
    schedule = Backoff.doubling(0.5, cap=3.0, tries=4)
    assert schedule.waits == (0.5, 1.0, 2.0, 3.0)
    assert [schedule.wait(n) for n in range(1, 7)] == [0.5, 1.0, 2.0, 3.0, 3.0, 3.0]
    assert [schedule.more(n) for n in (1, 3, 4)] == [True, True, False]
    assert Backoff.doubling(0).waits == (0.0,)
    assert Backoff.doubling(5.0, cap=1.0).waits == (5.0, 1.0)
    with pytest.raises(ValueError):
        Backoff(())
    assert [list(b) for b in batches(list(range(7)), 3)] == [[0, 1, 2], [3, 4, 5], [6]]


async def test_the_client_and_the_outbox_wait_the_same_schedule_capped_alike(table: Table) -> None:
    table.network.down = True
    client = table.client(retries=7, backoff=1.0)
    with pytest.raises(Offline):
        await client.test()  # a GET (no token to fetch first)
    by_the_client = table.taking_waits()

    box = Outbox(table.tmp / "outbox.db", client.scope)
    box.add(table.match(1))
    quiet = table.client(retries=0, backoff=0)
    sender = OutboxSender(box, quiet, backoff=1.0, max_rounds=8, sleep=table.sleep)
    report = await sender.send_pending()
    by_the_outbox = table.taking_waits()

    schedule = Backoff.doubling(1.0, tries=8)
    assert by_the_client == by_the_outbox == [schedule.wait(n) for n in range(1, 8)]
    assert by_the_client == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]  # one cap: no GET waits a minute
    assert isinstance(report.stopped, Offline) and report.retry_in == 30.0


async def test_failed_sends_in_a_row_wait_on_where_the_last_one_stopped(table: Table) -> None:
    client = table.client(retries=0, backoff=0)
    box = Outbox(table.tmp / "outbox.db", client.scope)
    box.add(table.match(1))
    sender = OutboxSender(box, client, backoff=0.5, max_backoff=8.0, max_rounds=3, sleep=table.sleep)
    table.network.down = True

    first = await sender.send_pending()
    assert table.taking_waits() == [0.5, 1.0] and first.retry_in == 2.0
    second = await sender.send_pending()  # the network is still gone: the waits go on growing
    assert table.taking_waits() == [4.0, 8.0] and second.retry_in == 8.0

    table.network.down = False
    done = await sender.send_pending()
    assert done.stopped is None and done.retry_in is None and table.recorded() == ["policy-1"]
    box.add(table.match(2))
    table.network.down = True
    await sender.send_pending()
    assert table.taking_waits() == [0.5, 1.0]  # a send that went through starts the schedule again


async def test_the_app_waits_the_outbox_schedule_on_its_timer_and_starts_again_once_through(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outbox_runner, "RETRY_DELAYS", (2.0, 7.0, 11.0))
    client = table.client(retries=0, backoff=0)
    app = FakeApp()
    runner = OutboxRunner(app, Outbox(None, client.scope), client)
    assert runner.sender.retry == Backoff((2.0, 7.0, 11.0), tries=1)  # one round a send: the timer waits
    table.network.down = True
    for n in range(4):
        await runner.record([table.match(n)])
    assert app.timers == [2.0, 7.0, 11.0, 11.0] and table.waits == []
    table.network.down = False
    report = await runner.send()
    assert report.sent == 4 and app.timers[4:] == [] and app.armed == []
    table.network.down = True
    await runner.record([table.match(9)])
    assert app.timers[4:] == [2.0]
    runner.close()


async def test_a_send_that_waited_for_another_is_told_what_that_one_settled(table: Table) -> None:
    client = table.client(retries=0, backoff=0)
    box = Outbox(table.tmp / "outbox.db", client.scope)
    box.add_many([table.match(1), table.match(2)])
    sender = OutboxSender(box, client, sleep=table.sleep)
    first, second = await asyncio.gather(sender.send_pending(), sender.send_pending())
    assert first.sent == 2 and second.sent == 0  # the second found nothing left to send
    assert sorted(second.outcomes) == ["policy-1", "policy-2"]
    assert all(o.accepted for o in second.outcomes.values())
    assert second.outcomes == first.outcomes


async def test_a_quota_pause_keeps_its_resume_timer_when_a_send_finds_it_paused(tmp_path: Path) -> None:
    table = Table(tmp_path, script=[Fault.QUOTA_429])
    client = table.client(retries=0, backoff=0)
    app = FakeApp()
    runner = OutboxRunner(app, Outbox(None, client.scope), client)
    recorded = await runner.record([table.match(1)])
    assert recorded[0].waiting and runner.sender.resume_at is not None
    resume_in = runner.sender.resume_at - table.clock()
    assert [t.delay for t in app.armed] == [resume_in]
    assert app.outbox_note.startswith("sending paused")

    report = await runner.send()  # e.g. the service answered a knock: not forced, still paused
    assert report.paused and report.sent == 0
    assert [t.delay for t in app.armed] == [resume_in]  # the send at the turn of the hour is still set
    assert app.outbox_note.startswith("sending paused")
    assert runner.outbox.counts()[State.PENDING] == 1
    runner.close()
