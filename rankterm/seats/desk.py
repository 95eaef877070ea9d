"""The token desk: how a guest seat gets the service's address and its tokens from its host, never the secret.

The host (`rankterm host`, `rankterm web`) answers on its loop (`Desk.serve`); the seat asks on the end of a
socketpair it inherited (`ask`, `ask_seat`, `ask_token`: blocking, one JSON line a question and an answer).
See docs/design/seats.md for the questions and answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rankterm.wire.errors import ApiError, AuthError, Offline, RanktermError

LINE_LIMIT = 64 * 1024
"""The longest question or answer: a token or a seat's description is far shorter."""
ASK_SECONDS = 30.0
"""How long a seat waits for the host's answer before it takes the host for gone."""


class DeskError(Exception):
    """The host said no, or is gone: `kind` ("offline", "refused", "failed") and one sentence."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Desk:
    """What the host tells its seats: `seat` (what the seat shows and where the service is, never a secret)
    and `token(stale)`, a fresh token, renewed when `stale` is the one the host holds. `token` raises
    `DeskError` for an answer it cannot give."""

    seat: Mapping[str, Any]
    token: Callable[[str | None], Awaitable[str]]

    def pair(self) -> tuple[socket.socket, socket.socket]:
        """A new socketpair: the host's end, and the seat's (inheritable, to be passed to the seat)."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        theirs.set_inheritable(True)
        return ours, theirs

    async def warm(self) -> None:
        """Get the first token now (the host starting), so that the first seat does not wait for `auth`; a
        failure is left for a seat's own question to say."""
        with contextlib.suppress(DeskError):
            await self.token(None)

    async def serve(self, sock: socket.socket) -> None:
        """Answer the seat on `sock` until it closes its end (the seat ended)."""
        reader, writer = await asyncio.open_unix_connection(sock=sock, limit=LINE_LIMIT)
        try:
            while line := await reader.readline():
                writer.write(json.dumps(await self._answer(line)).encode() + b"\n")
                await writer.drain()
        except (ConnectionError, ValueError, asyncio.LimitOverrunError):
            pass  # the seat went, or wrote something no seat writes: stop answering it
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(self, line: bytes) -> dict[str, Any]:
        try:
            question = json.loads(line)
        except ValueError:
            return {"error": "failed", "message": "the seat asked something the host does not answer"}
        ask = question.get("ask") if isinstance(question, dict) else None
        if ask == "seat":
            return dict(self.seat)
        if ask == "token":
            stale = question.get("stale")
            try:
                return {"token": await self.token(stale if isinstance(stale, str) else None)}
            except DeskError as exc:
                return {"error": exc.kind, "message": str(exc)}
        return {"error": "failed", "message": "the seat asked something the host does not answer"}


def ask(fd: int, question: Mapping[str, Any], timeout: float = ASK_SECONDS) -> dict[str, Any]:
    """Ask the host on the inherited socket `fd` (blocking; one question at a time); its answer. A host that
    is gone or silent raises `DeskError("offline", …)`; an answer of refusal raises its own kind."""
    sock = socket.socket(fileno=fd)
    try:
        sock.settimeout(timeout)
        sock.sendall(json.dumps(question).encode() + b"\n")
        data = bytearray()
        while not data.endswith(b"\n"):
            chunk = sock.recv(4096)
            if not chunk or len(data) > LINE_LIMIT:
                raise DeskError("offline", "the host of this seat has gone")
            data += chunk
    except OSError as exc:
        raise DeskError("offline", "the host of this seat does not answer") from exc
    finally:
        sock.detach()  # the fd stays open for the next question
    answer = json.loads(data)
    if not isinstance(answer, dict):
        raise DeskError("failed", "the host of this seat answered something else")
    if "error" in answer:
        raise DeskError(str(answer["error"]), str(answer.get("message", "the host refused")))
    return answer


def ask_seat(fd: int) -> dict[str, Any]:
    """What the host on `fd` serves (the service's address, key, zone and theme to show); a host that does not
    answer is one sentence (`RanktermError`)."""
    try:
        return ask(fd, {"ask": "seat"})
    except (DeskError, OSError, ValueError) as exc:
        raise RanktermError(f"This seat's host does not answer ({exc}).") from None


def ask_token(fd: int, stale: str | None) -> str:
    """A token from the host on `fd` (a new one when `stale` is the one the service refused), its refusals as
    the client's errors: the host offline (`Offline`), its profile refused (`AuthError`, which the app says to
    the guest, who can only tell the host), anything else (`ApiError`)."""
    try:
        answer = ask(fd, {"ask": "token", "stale": stale})
    except DeskError as exc:
        if exc.kind == "offline":
            raise Offline("auth", str(exc)) from None
        if exc.kind == "refused":
            raise AuthError("auth", 401, message=str(exc)) from None
        raise ApiError("auth", None, message=str(exc)) from None
    return str(answer.get("token", ""))
