"""The match form's sender (`tui.send_controller.SendController`) without a screen or a pilot: the embedded
demo group in-process, a real client, outbox and runner; the app's part is a small `Seat`.

A send is accepted and said; the same match again is stopped as a twin (nothing sent) until sent anyway; a dry
run saves nothing; a rejection names the form's field and keeps the queue; a match kept in the outbox while the
service is away gets its accepted line once the outbox sends it; a match fixed from the outbox replaces its
entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from rankterm.mirror import Group
from rankterm.outbox.outbox import Outbox
from rankterm.outbox.outcome import BatchOutcome
from rankterm.tui.outbox_runner import OutboxRunner
from rankterm.tui.send_controller import (
    AFTER_ACCEPT,
    AFTER_REJECT,
    Moved,
    Pending,
    Report,
    SendController,
    TwinFound,
)
from rankterm.tui.session import Session
from rankterm.tui.widgets.match_form.answer import BAD, NOTE, OK
from rankterm.tui.widgets.match_form.twin import THIS_SEAT
from rankterm.wire.models import NewFaction, NewMatch, Weight
from tests.support.faults import FaultyTransport

from .conftest import DemoService


class NoTimer:
    def stop(self) -> None:
        return None


@dataclass
class Seat:
    """What the sender needs of the app (`send_controller.Seat`), and what the outbox runner needs of it:
    its counts and notes, and timers that never fire here (the test sends when it wants)."""

    session: Session | None = None
    offline: bool = False
    outbox_counts: dict[str, int] = field(default_factory=dict)
    outbox_note: str = ""
    said: list[str] = field(default_factory=list)

    async def record_matches(self, matches: list[NewMatch]) -> BatchOutcome:
        assert self.session is not None
        return await self.session.record(matches)

    def set_timer(self, delay: float, callback: Callable[[], Any], **options: Any) -> NoTimer:
        return NoTimer()

    def set_interval(self, every: float, callback: Callable[[], Any], **options: Any) -> NoTimer:
        return NoTimer()

    def run_worker(self, work: Any, **options: Any) -> None:
        work.close()  # the knock: not needed, the test brings the service back itself

    def say(self, text: str, kind: str = "info") -> None:
        self.said.append(text)

    def resume_sending(self) -> None:
        return None

    def credentials_refused(self, exc: Exception) -> None:
        raise AssertionError(f"credentials refused: {exc}")


@dataclass
class Table:
    seat: Seat
    group: Group
    transport: FaultyTransport
    sender: SendController
    game: int
    players: list[str]

    def match(
        self, external_id: str, *, points: tuple[str, str] = ("12", "9"), game: int | None = None
    ) -> NewMatch:
        a, b = self.players[:2]
        return NewMatch(
            game=self.game if game is None else game,
            weight=Weight.NORMAL,
            external_id=external_id,
            factions=[
                NewFaction(players=[a], rank=1, points=points[0]),
                NewFaction(players=[b], rank=2, points=points[1]),
            ],
        )

    async def service_has(self, external_id: str) -> bool:
        page = await self.group.matches_page(1)
        return any(m.external_id == external_id for m in page.data)


@pytest.fixture
async def table(demo_service: DemoService):
    client, transport = demo_service.downable_client()
    group = Group(client)
    seat = Seat()
    runner = OutboxRunner(seat, Outbox(None, scope=group.client.scope), group)
    seat.session = Session(group, runner, demo=True, profile_name=None)
    games = await group.games()
    players = [p.id for p in await group.players() if not p.ghost]
    yield Table(seat, group, transport, SendController(seat), games[0].id, players)
    await seat.session.close()
    await group.client.http.aclose()


def form(match: NewMatch) -> list[Pending]:
    return [Pending(match, "Ada vs Ben", queued=False)]


async def test_a_match_sent_is_accepted_said_and_recorded(table):
    report = await table.sender.send(form(table.match("ctl-1")), dry_run=False)
    assert isinstance(report, Report)
    assert report.lines[0] == (OK, "✔ Ada vs Ben: accepted.")
    assert report.lines[-1] == (NOTE, AFTER_ACCEPT)
    assert report.form_done and report.rejection is None
    assert [i for i, _ in report.accepted] == [0]
    assert "ctl-1" in table.sender.recorded and table.sender.taken_ids() == {"ctl-1"}
    assert table.sender.last_answer is report.batch and not table.sender.sending
    assert await table.service_has("ctl-1")


async def test_the_same_match_again_is_asked_about_and_nothing_goes_until_sent_anyway(table):
    await table.sender.send(form(table.match("ctl-1")), dry_run=False)
    again = form(table.match("ctl-2"))
    found = await table.sender.send(again, dry_run=False)
    assert isinstance(found, TwinFound)
    assert found.twin.external_id == "ctl-1" and found.item is again[0]
    assert table.sender.sent_from(found.twin) == THIS_SEAT
    assert "looks the same" in found.question and "send anyway" in found.question
    assert not await table.service_has("ctl-2") and not table.sender.sending

    sent = await table.sender.send(again, dry_run=False, checked=True)
    assert isinstance(sent, Report) and sent.form_done
    assert await table.service_has("ctl-2")


async def test_other_points_are_not_a_twin(table):
    await table.sender.send(form(table.match("ctl-1")), dry_run=False)
    other = await table.sender.send(form(table.match("ctl-2", points=("20", "3"))), dry_run=False)
    assert isinstance(other, Report) and other.form_done


async def test_a_dry_run_checks_and_saves_nothing(table):
    queued = Pending(table.match("ctl-q"), "queued one", queued=True)
    table.sender.queue = [queued]
    report = await table.sender.send([queued, *form(table.match("ctl-1"))], dry_run=True)
    assert isinstance(report, Report)
    assert report.lines == [
        (OK, "✔ queued one [queued]: would be accepted (dry run, nothing saved)."),
        (OK, "✔ Ada vs Ben: would be accepted (dry run, nothing saved)."),
    ]
    assert not report.form_done and report.accepted == []
    assert table.sender.queue == [queued] and table.sender.recorded == set()
    assert not await table.service_has("ctl-1")


async def test_a_rejection_names_the_field_and_the_queue_keeps_the_rejected(table):
    good = Pending(table.match("ctl-q"), "queued one", queued=True)
    bad = Pending(table.match("ctl-bad", game=987654), "no such game", queued=True)
    table.sender.queue = [good, bad]
    mine = form(table.match("ctl-1", game=987654, points=("8", "6")))  # not the same match as `bad`
    report = await table.sender.send([good, bad, *mine], dry_run=False)
    assert isinstance(report, Report)
    kinds = [kind for kind, _ in report.lines]
    assert kinds[:3] == [OK, BAD, BAD]
    assert report.lines[-1] == (NOTE, AFTER_REJECT)
    assert report.rejection is not None and report.fields() == ["game"]
    assert not report.form_done
    assert table.sender.queue == [bad]  # the accepted one left the queue, the rejected one stayed
    assert table.sender.recorded == {"ctl-q"}


async def test_a_match_kept_in_the_outbox_gets_its_line_when_the_outbox_sends_it(table):
    heard: list[list[Moved]] = []
    table.sender.on_moved = heard.append
    table.transport.down = True
    report = await table.sender.send(form(table.match("ctl-1")), dry_run=False)
    assert isinstance(report, Report)
    said = (NOTE, "⧗ Ada vs Ben: saved in the outbox, sent when the service answers.")
    assert report.lines[0] == said and report.form_done and report.accepted == []
    assert set(table.sender.in_outbox) == {"ctl-1"}

    table.transport.down = False
    assert table.seat.session is not None
    await table.seat.session.outbox.send(force=True)
    assert len(heard) == 1 and heard[0][0].said == said
    assert heard[0][0].line == (OK, "✔ Ada vs Ben: accepted.")
    assert table.sender.in_outbox == {}
    assert await table.service_has("ctl-1")

    listeners = table.seat.session.outbox.send_listeners
    assert len(listeners) == 1  # the sender's, while a match on the form waited in the outbox
    table.sender.close()
    assert listeners == []


async def test_a_match_fixed_from_the_outbox_takes_its_entry_s_place(table):
    assert table.seat.session is not None
    outbox = table.seat.session.outbox
    rejected = await outbox.record([table.match("ctl-old", game=987654)])
    assert rejected[0].rejected
    table.sender.editing = "ctl-old"
    report = await table.sender.send(form(table.match("ctl-new")), dry_run=False)
    assert isinstance(report, Report) and report.form_done
    assert outbox.outbox.get("ctl-old") is None
    assert table.sender.editing is None
    assert await table.service_has("ctl-new")


async def test_no_service_open_sends_nothing_and_says_why(table):
    table.sender.seat = Seat()
    report = await table.sender.send(form(table.match("ctl-1")), dry_run=True)
    assert isinstance(report, Report)
    assert report.batch.failure is not None
    assert report.lines[-1][0] == BAD and "No service is open" in report.lines[-1][1]
