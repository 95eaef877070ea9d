"""The outbox keeps matches on disk and sends each exactly once, whatever the network does.

These tests use a small stateful handler for what the embedded service cannot be made to do on cue;
the soak test in tests/e2e runs the outbox against the real embedded service behind random faults.
"""

from __future__ import annotations

import json
import sqlite3
import stat

import httpx
import pytest

from rankterm.client.client import RankingClient
from rankterm.outbox.outbox import Outbox, OutboxSender, State, next_hour
from rankterm.outbox.outcome import OutcomeState
from rankterm.outbox.sender import SendReport
from rankterm.wire.errors import ErrorItem
from rankterm.wire.models import NewFaction, NewMatch
from tests.fake_service import BASE, fail, make_token, ok
from tests.support.faults import Fault, FaultyTransport


class Recorder:
    """Remembers accepted external ids; rejects rank 99 (M008) and duplicates (M003)."""

    def __init__(self):
        self.accepted: list[str] = []
        self.posts = 0
        self.quota_left: int | None = None
        self.auth_ok = True

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path.removeprefix("/api/1/")
        if path == "auth":
            return ok({"token": make_token()}) if self.auth_ok else fail(401, "A001", "client disabled")
        if path == "matches/match/exists":
            return ok({"exists": request.url.params["id"] in self.accepted})
        if path == "matches/match":
            self.posts += 1
            if self.quota_left is not None:
                if self.quota_left <= 0:
                    return fail(429, "Q005", "matches per hour")
                self.quota_left -= 1
            body = json.loads(request.content)
            accepted, rejected = [], []
            for i, m in enumerate(body):
                if m["id"] in self.accepted:
                    rejected.append(
                        {"index": i, "id": m["id"], "errors": [{"code": "M003", "message": "dup"}]}
                    )
                elif any(f["rank"] == 99 for f in m["factions"]):
                    rejected.append(
                        {"index": i, "id": m["id"], "errors": [{"code": "M008", "message": "bad rank"}]}
                    )
                else:
                    self.accepted.append(m["id"])
                    accepted.append({"index": i, "id": m["id"], "errors": []})
            return ok({"total": len(body), "accepted": accepted, "rejected": rejected})
        return fail(404, "R002")


def match(i: int, rank2: int = 2) -> NewMatch:
    return NewMatch(
        game=1,
        weight="normal",
        external_id=f"x{i}",
        factions=[NewFaction(players=["a"], rank=1), NewFaction(players=["b"], rank=rank2)],
    )


async def no_sleep(_s: float) -> None:
    return None


@pytest.fixture
def recorder():
    return Recorder()


@pytest.fixture
def box(tmp_path) -> Outbox:
    """An outbox file of scope "s"."""
    return Outbox(tmp_path / "o.db", "s")


async def send(box: Outbox, client: RankingClient) -> SendReport:
    """One `send_pending` of `box` through `client`, without waiting between tries."""
    return await OutboxSender(box, client, sleep=no_sleep).send_pending()


def make_client(recorder, script=(), clock=None) -> tuple[RankingClient, FaultyTransport]:
    transport = FaultyTransport(httpx.MockTransport(recorder), script=script)
    kw = {"clock": clock} if clock else {}
    return RankingClient(
        BASE, key="k", secret="s", http=httpx.AsyncClient(transport=transport), retries=0, backoff=0, **kw
    ), transport


def test_entries_are_on_disk_private_and_scoped(tmp_path):
    path = tmp_path / "data" / "outbox.db"
    box = Outbox(path, scope="svc-a")
    entry = box.add(NewMatch(game=1, weight="light", factions=[]))
    assert entry.external_id.startswith("rt-") and entry.state is State.PENDING
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    box.close()
    again = Outbox(path, scope="svc-a")
    assert [e.external_id for e in again.entries()] == [entry.external_id]
    assert again.entries()[0].match.weight.value == "light"
    assert Outbox(path, scope="svc-b").entries() == []


async def test_sends_once_then_nothing_left(box, recorder):
    for i in range(23):
        box.add(match(i))
    client, _ = make_client(recorder)
    report = await send(box, client)
    assert report.sent == 23 and report.stopped is None
    assert recorder.accepted == [f"x{i}" for i in range(23)] and recorder.posts == 3
    assert box.counts()[State.SENT] == 23
    again = await send(box, client)
    assert again.sent == 0 and recorder.posts == 3


@pytest.mark.parametrize("fault", [Fault.RESET_AFTER, Fault.TIMEOUT])
async def test_answer_lost_after_commit_is_not_resent(box, recorder, fault):
    box.add(match(1))
    client, transport = make_client(recorder, script=[fault])
    report = await send(box, client)
    assert recorder.accepted == ["x1"] and recorder.posts == 1  # asked exists?, never posted again
    assert report.confirmed_by_exists == 1 and box.counts()[State.SENT] == 1
    assert transport.injected[fault] == 1


@pytest.mark.parametrize("fault", [Fault.RESET_BEFORE, Fault.ERROR_500])
async def test_failure_before_the_service_is_sent_again(box, recorder, fault):
    box.add(match(1))
    client, _ = make_client(recorder, script=[fault])
    report = await send(box, client)
    assert recorder.accepted == ["x1"] and report.failures == 1 and report.sent == 1


async def test_in_doubt_survives_a_crash(tmp_path, recorder):
    path = tmp_path / "o.db"
    box = Outbox(path, "s")
    box.add(match(1))
    box.mark_in_doubt(["x1"])
    recorder.accepted.append("x1")  # the service got it; the process died before the answer
    box.close()
    box = Outbox(path, "s")
    assert box.entries()[0].in_doubt
    client, _ = make_client(recorder)
    report = await send(box, client)
    assert report.confirmed_by_exists == 1 and recorder.posts == 0


async def test_rejected_kept_with_reason_then_edited_and_resent(box, recorder):
    box.add(match(1, rank2=99))
    box.add(match(2))
    client, _ = make_client(recorder)
    report = await send(box, client)
    assert report.sent == 1 and report.rejected == 1
    bad = box.get("x1")
    assert bad.state is State.REJECTED and bad.errors == (ErrorItem("M008", "bad rank"),)
    assert report.outcomes["x1"].rejected and report.outcomes["x1"].codes == ("M008",)
    assert report.outcomes["x2"].accepted and report.outcomes["x2"].match_id == "x2"
    box.edit("x1", match(1, rank2=2))
    assert box.get("x1").state is State.PENDING
    await send(box, client)
    assert box.get("x1").state is State.SENT and recorder.accepted == ["x2", "x1"]


async def test_quota_pauses_until_the_hour_turns(box, recorder):
    now = [1_800_000_123.0]
    for i in range(3):
        box.add(match(i))
    recorder.quota_left = 0
    client, _ = make_client(recorder, clock=lambda: now[0])
    client.batch_size = 1
    sender = OutboxSender(box, client, sleep=no_sleep)
    report = await sender.send_pending()
    assert report.paused and report.resume_at == next_hour(now[0]) and recorder.posts == 1
    assert (await sender.send_pending()).paused and recorder.posts == 1  # still paused: nothing sent
    recorder.quota_left = 10
    now[0] = report.resume_at + 1
    assert (await sender.send_pending()).sent == 3


async def test_revoked_credentials_stop_and_keep_matches(box, recorder):
    box.add(match(1))
    recorder.auth_ok = False
    client, _ = make_client(recorder)
    report = await send(box, client)
    assert report.stopped is not None and "client disabled" in str(report.stopped)
    assert box.counts()[State.PENDING] == 1


def test_discard_refuses_a_match_in_doubt(box):
    box.add(match(1))
    box.add(match(2))
    box.mark_in_doubt(["x1"])
    with pytest.raises(ValueError):
        box.discard("x1")
    box.discard("x2")
    assert [e.external_id for e in box.entries()] == ["x1"]


async def test_m003_on_a_first_attempt_is_a_collision_not_a_success(box, recorder):
    recorder.accepted.append("x1")  # another match already holds this external id
    box.add(match(1))
    client, _ = make_client(recorder)
    report = await send(box, client)
    assert report.rejected == 1 and box.get("x1").state is State.REJECTED
    outcome = box.get("x1").outcome()
    assert outcome.state is OutcomeState.REJECTED and outcome.has_code("M003")
    assert outcome.errors == (ErrorItem("M003", "dup"),)  # the service's sentence, kept as it came


async def test_m003_after_an_earlier_attempt_is_sent(box, recorder):
    box.add(match(1))
    box.mark_in_doubt(["x1"])  # an earlier attempt, whose answer was lost ...
    recorder.accepted.append("x1")  # ... landed; the service's exists check lags behind (asked: no)

    def lagging(request):
        if request.url.path.endswith("matches/match/exists"):
            return ok({"exists": False})
        return recorder(request)

    client, transport = make_client(recorder)
    transport.inner = httpx.MockTransport(lagging)
    report = await send(box, client)
    assert recorder.posts == 1 and report.rejected == 0 and report.sent == 1
    assert box.get("x1").state is State.SENT and report.outcomes["x1"].accepted


def test_an_old_outbox_file_is_migrated_reason_to_one_error_item(tmp_path):
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript(
        """CREATE TABLE entries (seq INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL,
        external_id TEXT NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL,
        in_doubt INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
        reason TEXT NOT NULL DEFAULT '', created_at REAL NOT NULL, updated_at REAL NOT NULL,
        UNIQUE (scope, external_id));"""
    )
    body = json.dumps(match(1).to_wire())
    db.execute(
        "INSERT INTO entries (scope, external_id, body, state, attempts, reason, created_at, updated_at)"
        " VALUES ('s', 'x1', ?, 'rejected', 1, 'bad rank (M008)', 1, 1)",
        (body,),
    )
    db.execute(
        "INSERT INTO entries (scope, external_id, body, state, created_at, updated_at)"
        " VALUES ('s', 'x2', ?, 'pending', 2, 2)",
        (body.replace('"x1"', '"x2"'),),
    )
    db.commit()
    db.close()
    box = Outbox(path, "s")
    old, pending = box.entries()
    assert old.state is State.REJECTED and old.errors == (ErrorItem("", "bad rank (M008)"),)
    assert old.outcome().codes == ()  # an old reason is shown, never searched for a code
    assert pending.state is State.PENDING and pending.errors == ()
    box.add(match(3))
    box.close()
    again = Outbox(path, "s")  # opening twice migrates once
    assert [e.external_id for e in again.entries()] == ["x1", "x2", "x3"]
    assert again.get("x1").errors == (ErrorItem("", "bad rank (M008)"),)


def test_a_fix_may_take_a_new_external_id_and_stays_one_entry(box):
    box.add(match(1))
    box.add(match(2))
    box.mark_rejected("x1", [ErrorItem("M003", "taken")])
    fixed = box.edit("x1", match(1).model_copy(update={"external_id": "x1-fixed"}))
    assert fixed.external_id == "x1-fixed" and fixed.state is State.PENDING and fixed.errors == ()
    assert [e.external_id for e in box.entries()] == ["x1-fixed", "x2"]  # same place in the queue
    with pytest.raises(ValueError):
        box.edit("x1-fixed", match(2))  # x2 is another entry's id
