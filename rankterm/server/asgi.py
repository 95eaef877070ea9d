"""The service's HTTP plumbing on plain ASGI: the path, the body and the hop to a worker thread.

The service has one catch-all route, so `ServiceApp` hands every HTTP request that route takes straight
to one callable, with the path ``request.url.path`` gave (`request_path`), instead of walking Starlette's
middleware stack, router and `Request` per request (profiled at 100,000 matches: those, the URL object
and anyio's thread hop were ~0.6 ms of a standings request). A request the route does not take (an odd
method, an empty path) and the lifespan and websocket scopes go through Starlette.

`in_thread` runs the synchronous handlers on a thread pool of the process (asyncio's executor: half the
cost of anyio's hop), or on anyio's when the loop is not asyncio's (trio).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import URL
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import Receive, Scope, Send

from rankterm.server.wire import Fault
from rankterm.wire.text import ascii_digits

__all__ = ["METHODS", "ServiceApp", "in_thread", "read_body", "request_path"]

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
"""The methods the catch-all route takes; any other is Starlette's 405, which the app answers R002."""

THREADS = 40
"""Worker threads of the process's pool at most (anyio's default limit, which the service used before)."""

T = TypeVar("T")


async def _unused(scope: Scope, receive: Receive, send: Send) -> None:  # pragma: no cover
    raise AssertionError("the catch-all route only matches, it never answers")


_CATCH_ALL = Route("/{path:path}", _unused, methods=list(METHODS))
_METHOD_SET = frozenset(METHODS)
_ODD = ("?", "#", "\\")


class ServiceApp(Starlette):
    """Starlette with one catch-all route, whose HTTP requests go straight to ``answer(scope, receive,
    send, path)``; `refuse` answers Starlette's 404 and 405 (those the route does not take)."""

    def __init__(
        self,
        answer: Callable[[Scope, Receive, Send, str], Awaitable[None]],
        refuse: Callable[[Request, Exception], Awaitable[Response]],
    ) -> None:
        super().__init__(routes=[_CATCH_ALL], exception_handlers={HTTPException: refuse})
        self.answer = answer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            path = request_path(scope)
            if path is not None:
                scope["app"] = self
                await self.answer(scope, receive, send, path)
                return
        await super().__call__(scope, receive, send)


def request_path(scope: Scope) -> str | None:
    """The path of an HTTP request as Starlette's ``request.url.path`` gives it; None if the route misses.

    Plain paths (printable, no ``? # \\``, no ``//`` start, no root path) are the scope's path as is;
    any other is worked out by Starlette itself, so odd paths are answered exactly as before.
    """
    path: str = scope["path"]
    if (
        path[:1] == "/"
        and path[1:2] != "/"
        and not scope.get("root_path")
        and scope["method"] in _METHOD_SET
        and path.isprintable()
        and not any(c in path for c in _ODD)
    ):
        return path
    match, _ = _CATCH_ALL.matches(scope)
    if match is not Match.FULL:
        return None
    return URL(scope=scope).path


async def read_body(
    receive: Receive, declared: str | None, max_body: int, seconds: float | None = None
) -> bytes:
    """The whole body, at most `max_body` bytes (`Fault` R003, 413), within `seconds` (`Fault` R003, 408);
    `ClientDisconnect` if the client left.

    `declared` is the Content-Length header, if any: a body declared too large is refused unread, and one
    sent past the limit is refused as soon as the limit is passed, never held whole.
    """
    if declared is not None:
        if not ascii_digits(declared.strip()):
            raise Fault("R003", "Invalid Content-Length.")
        if int(declared) > max_body:
            raise Fault("R003", f"The body is larger than {max_body} bytes.", 413)
    if seconds is None:
        return await _read(receive, max_body)
    with anyio.move_on_after(seconds):
        return await _read(receive, max_body)
    raise Fault("R003", f"The body did not arrive whole within {seconds:g} seconds.", 408)


async def _read(receive: Receive, max_body: int) -> bytes:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.request":
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > max_body:
                raise Fault("R003", f"The body is larger than {max_body} bytes.", 413)
            if chunk:
                chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)
        elif message["type"] == "http.disconnect":
            raise ClientDisconnect()


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="rankterm-service")
    return _pool


async def in_thread(func: Callable[..., T], *args: Any) -> T:
    """``func(*args)`` on a worker thread, in a copy of the caller's context, off the event loop."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # trio: anyio's pool
        return await run_in_threadpool(func, *args)
    call = functools.partial(contextvars.copy_context().run, func, *args)
    return await loop.run_in_executor(_executor(), call)
