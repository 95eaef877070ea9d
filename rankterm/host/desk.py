"""The token desk: how a guest seat gets what it needs from the host without ever holding the API secret.

`rankterm host` and `rankterm web` authenticate with the profile's key and secret in their own process. Each
seat they start inherits one end of a socketpair (a file descriptor, never a path or a variable another local
user could read) and asks on it, one JSON line a question, one JSON line an answer:

    {"ask": "seat"}                     -> {"name": ..., "base_url": ..., "key": ..., "timezone": ..., ...}
    {"ask": "token", "stale": T|null}   -> {"token": "..."}  or  {"error": "offline"|"refused"|"failed",
                                                                  "message": "one sentence"}

`stale` is the token the service refused (or that expired), so that the host renews its own only when the seat
holds the one the host holds too. The host side (`Desk.serve`) runs on the host's loop; the seat side
(`ask`) is plain blocking I/O, run by the seat in a thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
