"""Cheap abuse costs the attacker: sign-ins throttled per address and per key before the secret is hashed,
the token checked before a body is read, bodies and headers on a deadline, connections capped per address,
an oversized match refused before it is judged, a dry run that never waits for a write.

The throttle is driven through the app (httpx's ASGI transport, which names the client's address); the
deadlines and the connection cap through uvicorn on a real socket on 127.0.0.1, with `listener`'s settings."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn

from rankterm.server import app as app_module
from rankterm.server import listener, throttle, tokens
from rankterm.server.app import create_app
from rankterm.wire.errors import SignInThrottled, error_from_response
from tests.server.conftest import BASE_URL, Api, duel


def _from(app, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    return httpx.AsyncClient(transport=transport, base_url=BASE_URL)


@pytest.fixture
def hashes(monkeypatch) -> list[int]:
    """Counts the secrets hashed (scrypt) from here on."""
    seen: list[int] = []
    real = tokens.check_secret

    def counted(secret: str, stored: str) -> bool:
        seen.append(1)
        return real(secret, stored)

    monkeypatch.setattr(tokens, "check_secret", counted)
    return seen


async def test_wrong_secrets_from_one_address_are_refused_unhashed_past_the_burst(store, credentials, hashes):
    _, key, secret = credentials
    app = create_app(store)
    async with _from(app, "10.0.0.1") as attacker, _from(app, "10.0.0.2") as neighbour:
        for i in range(throttle.BURST):
            Api.check_error(await attacker.get("auth", params={"key": f"k{i}", "secret": "x"}), "A001")
        assert len(hashes) == throttle.BURST
        response = await attacker.get("auth", params={"key": key, "secret": secret})
        message = Api.check_error(response, "A003", 429)
        assert message == "Too many sign-in tries; try again in 3 seconds."
        assert response.headers["Retry-After"] == "3"
        assert len(hashes) == throttle.BURST  # refused before the hash
        neighbour_api = Api(neighbour, key, secret)
        await neighbour_api.login()  # another address signs in at once
        assert (await neighbour_api.ok("players"))["data"] == []


async def test_wrong_secrets_for_one_key_are_throttled_from_any_address(store, credentials, hashes):
    _, key, _ = credentials
    app = create_app(store)
    for i in range(throttle.BURST):
        async with _from(app, f"10.0.1.{i}") as http:
            Api.check_error(await http.get("auth", params={"key": key, "secret": "wrong"}), "A001")
    async with _from(app, "10.0.2.1") as http:
        Api.check_error(await http.get("auth", params={"key": key, "secret": "wrong"}), "A003", 429)
        Api.check_error(await http.get("auth", params={"key": "other", "secret": "x"}), "A001")


async def test_a_try_is_given_back_when_the_secret_is_right_and_the_bucket_refills(store, credentials, clock):
    _, key, secret = credentials
    app = create_app(store)
    async with _from(app, "10.0.0.3") as http:
        for _ in range(3 * throttle.BURST):
            assert (await http.get("auth", params={"key": key, "secret": secret})).status_code == 200
        for _ in range(throttle.BURST):
            await http.get("auth", params={"key": "nobody", "secret": "x"})
        Api.check_error(await http.get("auth", params={"key": key, "secret": secret}), "A003", 429)
        clock.advance(throttle.REFILL)
        assert (await http.get("auth", params={"key": key, "secret": secret})).status_code == 200


def test_the_client_says_a_throttled_sign_in_in_one_sentence():
    body = {"errors": [{"code": "A003", "message": "Too many sign-in tries; try again in 3 seconds."}]}
    error = error_from_response("auth", 429, body)
    assert isinstance(error, SignInThrottled)
    assert str(error) == "auth: Too many sign-in tries; try again in 3 seconds. (A003)."
    bare = error_from_response("auth", 429, None)  # another service's 429, no envelope
    assert str(bare) == "auth: too many sign-in tries; wait a minute and try again (HTTP 429)."


async def test_a_hundred_thousand_factions_are_refused_before_they_are_parsed(api, players3):
    game = await api.game("Go")
    match = duel(game, players3[0], players3[1])
    match["factions"] = [{} for _ in range(100_000)]
    body = json.dumps([match], separators=(",", ":"))
    assert len(body) < 310_000
    for dry in (1, 0):
        response = await api.post(
            "matches/match",
            params={"dryrun": dry},
            content=body,
            headers={"Content-Type": "application/json"},
        )
        message = Api.check_error(response, "M002", 400)
        assert message == "A request holds at most 100 matches, each of at most 100 factions and 200 players."
    assert (await api.ok("matches/status"))["total"] == 0


async def test_a_match_past_the_limits_gets_that_one_problem_and_no_other(api, players3):
    game = await api.game("Go")
    match = duel(game, players3[0], players3[1])
    match["factions"] = [{} for _ in range(150)]  # each would be M008 and M007: not judged
    [rejected] = (await api.add(match, dryrun=True))["rejected"]
    assert rejected["errors"] == [
        {"code": "M002", "message": "A match has at most 100 factions and 200 players."}
    ]
    match["factions"] = [{"players": [players3[0]] * 201, "rank": 1}, {"players": [players3[1]], "rank": 2}]
    [rejected] = (await api.add(match, dryrun=True))["rejected"]
    assert rejected["errors"] == [
        {"code": "M002", "message": "A match has at most 100 factions and 200 players."}
    ]


def test_a_dry_run_does_not_wait_for_a_write(store, credentials):
    group, _, _ = credentials
    a = store.create_player(group, "Ann").id
    b = store.create_player(group, "Bob").id
    game = store.create_game(group, name="Go").id
    answered = threading.Event()
    with store._write(lock_group=group):  # a long write holds the group

        def dry_run() -> None:
            store.add_matches(group, duel(game, a, b), dryrun=True)
            answered.set()

        threading.Thread(target=dry_run, daemon=True).start()
        assert answered.wait(5)
    assert store.match_status(group).total == 0


# ------------------------------------------------------------------ on a real socket


@pytest.fixture
def served(store, credentials, monkeypatch) -> Iterator[tuple[int, str]]:
    """(port, token) of the service on 127.0.0.1 with `listener`'s settings, deadlines made short."""
    monkeypatch.setattr(listener, "HEADER_SECONDS", 0.5)
    monkeypatch.setattr(listener, "PER_ADDRESS", 4)
    monkeypatch.setattr(app_module, "BODY_SECONDS", 0.5)
    _, key, secret = credentials
    server = uvicorn.Server(listener.config(create_app(store), host="127.0.0.1", port=0))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    token = httpx.get(f"http://127.0.0.1:{port}/auth", params={"key": key, "secret": secret}).json()
    yield port, token["success"]["token"]
    server.should_exit = True
    thread.join(10)


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=5)


def _answer(sock: socket.socket) -> bytes:
    """One whole HTTP answer read from `sock`."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        fields = dict(line.split(b": ", 1) for line in head.split(b"\r\n")[1:] if b": " in line)
        if _ and len(rest) >= int(fields.get(b"content-length", b"0")):
            break
    return data


def _closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(100) == b""
    except ConnectionResetError:
        return True


def test_the_token_is_checked_before_the_body_is_read(served, monkeypatch):
    port, _ = served
    # a body deadline far beyond the socket's 5 s timeout: a service that waited for the body before the
    # token would leave `_answer` to time out, not answer 403
    monkeypatch.setattr(app_module, "BODY_SECONDS", 60.0)
    with _connect(port) as sock:
        sock.sendall(b"POST /matches/match HTTP/1.1\r\nHost: x\r\nContent-Length: 900000\r\n\r\n{")
        answer = _answer(sock)
    assert answer.startswith(b"HTTP/1.1 403") and b'"A002"' in answer


def test_a_body_that_never_completes_is_dropped_at_its_deadline(served, store, credentials):
    port, token = served
    with _connect(port) as sock:
        sock.sendall(
            b"POST /matches/match HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n"
            + f"Authorization: Bearer {token}\r\n\r\n".encode()
            + b'[{"game": 1'
        )
        answer = _answer(sock)
        assert answer.startswith(b"HTTP/1.1 408") and b'"R003"' in answer
        assert b"did not arrive whole within 0.5 seconds" in answer
        assert sock.recv(100) == b""  # and the connection is closed
    assert store.match_status(credentials[0]).total == 0


def test_headers_trickled_a_byte_at_a_time_are_cut_off(served):
    port, _ = served
    with _connect(port) as sock:
        sock.settimeout(0.05)
        started = time.monotonic()
        closed = False
        for byte in b"GET /test HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200:
            try:
                sock.sendall(bytes([byte]))
                closed = sock.recv(100) == b""
            except TimeoutError:
                pass
            except OSError:
                closed = True
            if closed or time.monotonic() - started > 5:
                break
        # a byte every 50 ms never leaves the connection idle: only the headers' whole deadline cuts it
        assert closed


def test_one_address_holds_a_few_connections_at_most(served, monkeypatch):
    port, _ = served
    monkeypatch.setattr(listener, "HEADER_SECONDS", 30.0)  # the held connections stay open meanwhile
    held = [_connect(port) for _ in range(listener.PER_ADDRESS)]
    try:
        for sock in held:  # each taken and answered, and kept open
            sock.sendall(b"GET /test HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _answer(sock).startswith(b"HTTP/1.1 200")
        with _connect(port) as extra:
            assert _closed(extra)  # closed unanswered
        held[0].sendall(b"GET /test HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _answer(held[0]).startswith(b"HTTP/1.1 200")
    finally:
        for sock in held:
            sock.close()
    time.sleep(0.1)
    with _connect(port) as again:  # once they are closed, the address is served again
        again.sendall(b"GET /test HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _answer(again).startswith(b"HTTP/1.1 200")
