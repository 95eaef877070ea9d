"""The desk between a host and its guest seats (`seats/desk.py`, built by `seats/hosting.host_desk`), over a real
socketpair against the demo group on a socket: a seat learns where the service is and gets working tokens,
never the secret; a refused profile and a host that is gone are each one sentence of their own kind."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from rankterm.seats import ask_seat, ask_token
from rankterm.seats.desk import DeskError, ask
from rankterm.seats.hosting import host_desk
from rankterm.server.seed import DEMO_KEY, DEMO_SECRET, demo_app
from rankterm.wire.errors import AuthError, Offline, RanktermError
from tests.support.live import serve_in_thread


@pytest.fixture
def served() -> Iterator[str]:
    asgi, _, _ = demo_app()
    with serve_in_thread(asgi) as base_url:
        yield base_url


def profile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str, secret: str) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[profiles.room]\nbase_url = "{url}"\nkey = "{DEMO_KEY}"\nsecret = "{secret}"\ntimezone = "Europe/Paris"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("RANKTERM_CONFIG", str(config))
    monkeypatch.setenv("RANKTERM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RANKTERM_DATA_DIR", str(tmp_path / "data"))


class HostSide:
    """The host's end of a desk, answered on a loop of its own (the host's loop, in the real thing)."""

    def __init__(self, secret_profile: str | None) -> None:
        self.desk = host_desk(profile=secret_profile)
        ours, self.theirs = self.desk.pair()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.served = asyncio.run_coroutine_threadsafe(self.desk.serve(ours), self.loop)

    def close(self) -> None:
        self.theirs.close()
        self.served.result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def test_a_seat_learns_the_service_and_gets_a_working_token_never_the_secret(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile(tmp_path, monkeypatch, served, DEMO_SECRET)
    host = HostSide("room")
    try:
        seat = ask(host.theirs.fileno(), {"ask": "seat"})
        assert seat["base_url"] == served and seat["key"] == DEMO_KEY and seat["timezone"] == "Europe/Paris"
        assert DEMO_SECRET not in json.dumps(seat)
        token = ask(host.theirs.fileno(), {"ask": "token", "stale": None})["token"]
        answer = httpx.get(served + "players/1", headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200
        again = ask(host.theirs.fileno(), {"ask": "token", "stale": token})["token"]  # refused: renewed
        assert (
            httpx.get(served + "players/1", headers={"Authorization": f"Bearer {again}"}).status_code == 200
        )
    finally:
        host.close()


def test_a_refused_profile_is_said_as_refused(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile(tmp_path, monkeypatch, served, "not-the-secret")
    host = HostSide("room")
    try:
        with pytest.raises(DeskError) as refused:
            ask(host.theirs.fileno(), {"ask": "token", "stale": None})
        assert refused.value.kind == "refused"
        assert str(refused.value) == "the service refused the host's profile; tell the host"
        assert "not-the-secret" not in str(refused.value)
    finally:
        host.close()


def test_a_host_that_is_gone_is_said_as_offline(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile(tmp_path, monkeypatch, served, DEMO_SECRET)
    desk = host_desk(profile="room")
    ours, theirs = desk.pair()
    ours.close()  # the host died
    try:
        with pytest.raises(DeskError) as gone:
            ask(theirs.fileno(), {"ask": "token", "stale": None}, timeout=2)
        assert gone.value.kind == "offline"
    finally:
        theirs.close()


def test_the_seat_hears_a_refusal_as_the_clients_auth_error_and_a_gone_host_as_offline(
    served: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile(tmp_path, monkeypatch, served, "not-the-secret")
    host = HostSide("room")
    try:
        with pytest.raises(AuthError) as refused:
            ask_token(host.theirs.fileno(), None)
        assert refused.value.status == 401 and "tell the host" in str(refused.value)
    finally:
        host.close()
    desk = host_desk(profile="room")
    ours, theirs = desk.pair()
    ours.close()  # the host died
    try:
        with pytest.raises(Offline):
            ask_token(theirs.fileno(), None)
        with pytest.raises(RanktermError, match=r"^This seat's host does not answer \(.+\)\.$"):
            ask_seat(theirs.fileno())
    finally:
        theirs.close()
