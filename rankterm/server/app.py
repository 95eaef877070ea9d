"""The embedded ranking service as an ASGI app: SERVICE.md's endpoints over a `Store`.

Every answer is WIRE.md's envelope, built with the wire's models; nothing escapes as a traceback (an
unexpected exception is logged and answered R001, a full disk R004). A request goes: route (`routes`, R002)
-> token (A002), before a byte of the body is read -> body (R003) -> quota (Q…) -> handler, on a worker
thread (`asgi.in_thread`). See docs/design/server.md.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.datastructures import Headers, QueryParams
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

import rankterm
from rankterm.server import ops, quota, tokens
from rankterm.server.asgi import ServiceApp, in_thread, read_body
from rankterm.server.matches import MAX_BATCH, surely_too_big
from rankterm.server.quota import QuotaBook, QuotaLimits
from rankterm.server.routes import Route, Router
from rankterm.server.store import Client, Store
from rankterm.server.throttle import SignInThrottle
from rankterm.server.wire import RANKINGS_PAGE_KEYS, Fault, format_time, only_keys
from rankterm.wire import jsontext
from rankterm.wire.endpoints import RANKINGS
from rankterm.wire.new_match import MAX_FACTIONS, MAX_PARTICIPANTS
from rankterm.wire.text import ascii_digits

if TYPE_CHECKING:
    from rankterm.server.metrics import Metrics

__all__ = ["create_app", "error_response", "success_response"]

log = logging.getLogger("rankterm.server")

MAX_PAGE = 10**9
LAST = "last"
BODY_SECONDS = 20.0
"""A request body must arrive whole within this long (1 MB in 20 s is 50 KB/s: any live network)."""
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_OWN = frozenset((ops.HEALTH, ops.READY, ops.METRICS))
QUOTA_READ_EVERY = 10.0
"""Seconds a service keeps the quota limits it read from the database before it reads them again."""
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


class WireJSONResponse(JSONResponse):
    """Starlette's JSON answer, its bytes made by `jsontext.dumps` (the same bytes, a third of the time)."""

    def render(self, content: Any) -> bytes:
        return jsontext.dumps(content)


def success_response(payload: Any) -> JSONResponse:
    """HTTP 200 ``{"success": payload}``."""
    return WireJSONResponse({"success": payload})


def error_response(fault: Fault) -> JSONResponse:
    """The error envelope of `fault`, with its HTTP status (and ``Retry-After`` when the refusal ends at a
    known moment: a quota's period)."""
    headers = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else None
    return WireJSONResponse(
        {"errors": [{"code": fault.code, "message": fault.message}]},
        status_code=fault.status,
        headers=headers,
    )


@dataclass
class Call:
    """One request, read and routed, as the handlers see it (no I/O left to do)."""

    query: Mapping[str, str]
    headers: Headers
    body: bytes
    now: float
    client: Client | None = None
    args: list[str] = field(default_factory=list)
    address: str = ""

    def json_body(self, code: str) -> Any:
        """The body parsed as strict JSON (no NaN) whose strings are all text, or `Fault` `code`."""
        try:
            data = json.loads(self.body.decode("utf-8"), parse_constant=_no_constant)
        except (ValueError, RecursionError, UnicodeDecodeError):
            raise Fault(code, "The body is not valid JSON.") from None
        if _SURROGATE_ESCAPE.search(self.body):  # \ud800 alone is JSON, but no text: stored, it fails
            try:
                json.dumps(data, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                raise Fault(
                    code, "The body holds a lone surrogate escape (\\ud800-\\udfff), which is not text."
                ) from None
        return data

    def param(self, name: str) -> Any:
        """A parameter from the query, a form body or a JSON object body (first found)."""
        if name in self.query:
            return self.query[name]
        kind = self.headers.get("content-type", "").split(";")[0].strip().lower()
        if not self.body.strip():
            return None
        if kind == "application/x-www-form-urlencoded":
            try:
                form = dict(parse_qsl(self.body.decode("utf-8"), keep_blank_values=True))
            except (UnicodeDecodeError, ValueError):
                raise Fault("R003", "The form body could not be read.") from None
            return form.get(name)
        if kind.endswith("json") or self.body.lstrip()[:1] == b"{":
            data = self.json_body("R003")
            return data.get(name) if isinstance(data, dict) else None
        return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _page(text: str | None) -> int:
    if text is None:
        return 1
    if not ascii_digits(text) or not 1 <= int(text) <= MAX_PAGE:
        raise Fault("R003", f"Invalid page {text[:20]!r}: pages are integers from 1.")
    return int(text)


def _match_number(text: str) -> int | None:
    if text == LAST:
        return None
    if not ascii_digits(text) or int(text) < 1:
        raise Fault("R003", f"Invalid match {text[:20]!r}: give a match number from 1, or 'last'.")
    return min(int(text), 2**62)


def _is_match_segment(text: str) -> bool:
    return text == LAST or ascii_digits(text)


class _Service:
    """The handlers, bound to one store, clock, token lifetime, body limit and the clients' quota limits."""

    def __init__(
        self,
        store: Store,
        token_ttl: int,
        max_body: int,
        clock: Callable[[], float],
        quotas: QuotaBook,
        reread_quotas: bool,
        metrics_gate: ops.MetricsGate,
        counted: bool,
    ) -> None:
        self.store = store
        self.metrics: Metrics | None = None
        """The service's Prometheus metrics; None for a service answered in-process (nobody can read them)."""
        if counted:
            # Here, not at the top: a service that counts nothing never loads prometheus_client.
            from rankterm.server.metrics import Metrics

            self.metrics = Metrics()
            store.on_write_wait = self.metrics.waited
        self.metrics_gate = metrics_gate
        self.sign_ins = SignInThrottle()
        self.token_ttl = token_ttl
        self.max_body = max_body
        self.clock = clock
        self.quotas = quotas
        self.reread_quotas = reread_quotas
        self.quotas_read = time.monotonic()
        self.router: Router[Callable[[Call], Any]] = Router(
            {
                "test": self.test,
                "auth": self.auth,
                "games": self.games,
                "games search": self.games_search,
                "games popular": self.games_popular,
                "game": self.game,
                "player": self.player,
                "match": self.match,
                "match exists": self.match_exists,
                "match status": self.match_status,
                "subsets": self.subsets,
                "quota": self.quota,
                "status": self.status,
                "players": self.players,
                "matches": self.matches,
                "rankings": self.rankings,
            }
        )

    # ------------------------------------------------------------------ plumbing

    async def answer(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        """Answer one HTTP request to `path` (`ServiceApp` calls it for each one its route takes), counted in
        the metrics and written to the access log."""
        started = time.perf_counter()
        method: str = scope["method"]
        headers = Headers(scope=scope)
        peer = scope.get("client")
        address = str(peer[0]) if peer else ""
        own = path.strip("/")
        call: Call | None = None
        if own in _OWN and method in ("GET", "HEAD"):
            endpoint = own
            response = await self.own(own, address)
        else:
            endpoint = "unknown"
            try:
                route, args = self.router.find(method, path)
                endpoint = route.endpoint.name
                call = Call(
                    query=QueryParams(scope["query_string"]),
                    headers=headers,
                    body=b"",
                    now=self.clock(),
                    args=args,
                    address=address,
                )
                response = success_response(await self.result(route, call, receive))
            except Fault as fault:
                if fault.code.startswith("Q") and self.metrics is not None:
                    self.metrics.refused(fault.code)
                response = error_response(fault)
            except ClientDisconnect:
                response = error_response(Fault("R003", "The request was not received whole."))
            except Exception as exc:
                if self.store.disk_full(exc):
                    log.error("the disk is full: %s %s refused (%s)", method, path, exc)
                    response = error_response(
                        Fault("R004", "The service's disk is full; nothing was written. Send it again later.")
                    )
                else:
                    log.exception("unexpected error on %s %s", method, path)
                    response = error_response(Fault("R001", "The service failed; the error is in its log."))
        rid = ops.request_id(headers.get("x-request-id"))
        response.headers["X-Request-ID"] = rid
        seconds = time.perf_counter() - started
        if self.metrics is not None:
            self.metrics.answered(endpoint, response.status_code, seconds)
        if ops.access_log.isEnabledFor(logging.INFO):
            group = call.client.group_id if call is not None and call.client is not None else None
            ops.access_log.info(
                ops.access_line(rid, method, endpoint, group, response.status_code, seconds, address)
            )
        await response(scope, receive, send)

    async def result(self, route: Route[Callable[[Call], Any]], call: Call, receive: Receive) -> Any:
        """The payload of a routed request: its body read (a POST's, once its token is checked), then
        `run`."""
        if route.reads_body:
            if route.endpoint.auth:  # a body is read for a client the service knows, never for anyone
                call.client = await in_thread(self.authorise, call)
            call.body = await read_body(
                receive, call.headers.get("content-length"), self.max_body, BODY_SECONDS
            )
        if route.endpoint.method == "GET" and self.store.free_now():
            # A read of a SQLite store nobody is using: at once, on the event loop. Its one connection
            # serializes every request anyway; the hop to a worker thread and back measured 0.4-1.4 ms
            # a standings request (~2 ms) at 100,000 matches. Writes (long batches) and PostgreSQL
            # (a pool of connections) keep the thread pool.
            return self.run(route, call)
        return await in_thread(self.run, route, call)

    async def own(self, name: str, address: str) -> Response:
        """The server's own endpoints: no token, no quota (`ops`)."""
        if name == ops.HEALTH:
            return success_response({"status": "ok"})
        if name == ops.READY:
            reason = await in_thread(self.store.not_ready)
            if reason is None:
                return success_response({"status": "ready"})
            return error_response(Fault("R001", f"Not ready: {reason}", 503))
        if self.metrics is None:
            return error_response(
                Fault("R002", "This service is answered in-process: it keeps no metrics.", 404)
            )
        if not self.metrics_gate.admits(address):
            return error_response(
                Fault(
                    "R002",
                    "The metrics are answered to this machine only (rankterm serve --metrics-allow).",
                    403,
                )
            )
        return Response(self.metrics.text(), media_type=self.metrics.content_type)

    def run(self, route: Route[Callable[[Call], Any]], call: Call) -> Any:
        """Token, quota and handler: the request's work, on a worker thread or at once (see `answer`; its JSON
        is made on the event loop: with 24 requests in flight that measured 3-8 % faster than on the threads)."""
        if route.endpoint.auth:
            call.client = call.client or self.authorise(call)
            amounts = {quota.CALLS: 1}
            if route.endpoint is RANKINGS:
                amounts[quota.RANKING_CALLS] = 1
            self.store.charge(call.client.id, amounts, self.limits_of(call.client), call.now)
        return route.handler(call)

    def authorise(self, call: Call) -> Client:
        scheme, _, token = call.headers.get("authorization", "").strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Fault("A002", "Authentication required: send 'Authorization: Bearer <token>'.")
        claims = tokens.verify(self.store.signing_key, token.strip(), call.now)
        client = self.store.client(claims.client_id)
        if (
            client is None
            or client.disabled
            or client.group_id != claims.group_id
            or client.key != claims.client_key
        ):
            raise Fault("A002", "Authentication required: the token's client is unknown or disabled.")
        if claims.issued_at < client.tokens_from:
            raise Fault(
                "A002", "Authentication required: the token was issued before the client's secret changed."
            )
        return client

    @staticmethod
    def group(call: Call) -> int:
        assert call.client is not None
        return call.client.group_id

    # ------------------------------------------------------------------ endpoints

    def test(self, call: Call) -> Any:
        return {"test": "ok"}

    def auth(self, call: Call) -> Any:
        key, secret = call.query.get("key"), call.query.get("secret")
        if not key or not secret:
            raise Fault("R003", "Give key and secret as query parameters.")
        self.sign_ins.admit(call.address, key, call.now)
        client = self.store.authenticate(key, secret)
        self.sign_ins.succeeded(call.address, key, call.now)
        return {
            "token": tokens.mint(
                self.store.signing_key,
                client.id,
                client.group_id,
                call.now,
                self.token_ttl,
                client.tokens_from,
                client.key,
            )
        }

    def games(self, call: Call) -> Any:
        return [g.to_wire() for g in self.store.games(self.group(call))]

    def games_search(self, call: Call) -> Any:
        return [g.to_wire() for g in self.store.search_games(self.group(call), call.query.get("name"))]

    def games_popular(self, call: Call) -> Any:
        return [g.to_wire() for g in self.store.popular_games(self.group(call))]

    def game(self, call: Call) -> Any:
        game = self.store.create_game(
            self.group(call),
            bgg_id=call.param("bggId"),
            name=call.param("name"),
            client_id=call.client.id if call.client else None,
            limits=self._limits(call),
            now=call.now,
        )
        return [game.to_wire()]

    def player(self, call: Call) -> Any:
        return [self.store.create_player(self.group(call), call.param("name")).to_wire()]

    def players(self, call: Call) -> Any:
        page = _page(call.args[0] if call.args else None)
        return self.store.players_page(self.group(call), page).to_wire()

    def match(self, call: Call) -> Any:
        flag = call.query.get("dryrun", "").strip().lower()
        if flag not in _TRUE | _FALSE:
            raise Fault("R003", "dryrun is 1 or true (or 0 or false).")
        dryrun = flag in _TRUE
        if surely_too_big(call.body):
            raise Fault(
                "M002",
                f"A request holds at most {MAX_BATCH} matches, each of at most {MAX_FACTIONS} factions and"
                f" {MAX_PARTICIPANTS} players.",
            )
        recorded = self.store.add_matches(
            self.group(call),
            call.json_body("M001"),
            dryrun=dryrun,
            client_id=call.client.id if call.client else None,
            limits=self._limits(call),
            now=call.now,
        )
        answer = recorded.to_wire()
        if not dryrun:
            if self.metrics is not None:
                self.metrics.recorded(recorded.accepted_count)
            answer.pop("dryrun", None)
        return answer

    def match_exists(self, call: Call) -> Any:
        external_id = call.query.get("id", "").strip()
        if not external_id:
            raise Fault("R003", "Give the external id as the query parameter id.")
        return {"exists": self.store.match_exists(self.group(call), external_id)}

    def match_status(self, call: Call) -> Any:
        return self.store.match_status(self.group(call)).to_wire()

    def matches(self, call: Call) -> Any:
        args = call.args
        subset: str | None = None
        if args and not ascii_digits(args[0]):
            subset, args = args[0], args[1:]
        if len(args) > 1:
            raise Fault("R002", "No such path: matches[/<subset>][/<page>].")
        page = _page(args[0] if args else None)
        return self.store.matches_page(self.group(call), subset, page).to_wire()

    def rankings(self, call: Call) -> Any:
        args = call.args
        subset: str | None = None
        if len(args) == 3 or (len(args) == 2 and not _is_match_segment(args[0])):
            subset, args = args[0], args[1:]
        match = _match_number(args[0])
        page = _page(args[1] if len(args) > 1 else None)
        standings = self.store.rankings_page(self.group(call), subset, match, page, call.now)
        return only_keys(standings.to_wire(), RANKINGS_PAGE_KEYS)

    def subsets(self, call: Call) -> Any:
        return [s.to_wire() for s in self.store.subsets(self.group(call))]

    def quota(self, call: Call) -> Any:
        assert call.client is not None
        return self.store.quota(call.client.id, self.limits_of(call.client), call.now).to_wire()

    def limits_of(self, client: Client) -> QuotaLimits:
        """The client's quota limits; those the host keeps in the database are read again every
        `QUOTA_READ_EVERY` seconds (``rankterm admin quota set`` while the service runs)."""
        if self.reread_quotas and time.monotonic() - self.quotas_read >= QUOTA_READ_EVERY:
            self.quotas_read = time.monotonic()
            self.quotas = self.store.quota_book()
        return self.quotas.limits(client.id, client.group_id)

    def _limits(self, call: Call) -> QuotaLimits | None:
        return self.limits_of(call.client) if call.client else None

    def status(self, call: Call) -> Any:
        counters = self.store.match_status(self.group(call)).to_wire()
        return {
            "status": "ok",
            "version": rankterm.__version__,
            "serverTime": format_time(call.now),
            **counters,
        }


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (a method or path the route does not take) as R002 (R003/R001 else)."""
    status = getattr(exc, "status_code", 500)
    if status in (404, 405):
        return error_response(Fault("R002", "No such endpoint.", 404))
    return error_response(
        Fault("R003" if 400 <= status < 500 else "R001", "The request could not be served.")
    )


def create_app(
    store: Store,
    *,
    token_ttl: int = 3600,
    max_body: int = 1_000_000,
    clock: Callable[[], float] | None = None,
    limits: QuotaLimits | None = None,
    metrics_gate: ops.MetricsGate | None = None,
    counted: bool = True,
) -> Starlette:
    """The service over `store`: tokens live `token_ttl` seconds, bodies are at most `max_body` bytes.

    `clock` (seconds since the epoch; the store's clock by default) decides token expiry, quota buckets
    and default match dates. `limits`, when given, are every client's quota limits; otherwise each client
    has the limits the host kept in the database (`Store.quota_book`), read here and again every
    `QUOTA_READ_EVERY` seconds. ``GET metrics`` answers loopback addresses and those `metrics_gate` allows;
    a service built with `counted` false (one answered in-process, which nobody can scrape) keeps no metrics
    and answers it R002.
    """
    quotas = QuotaBook(limits) if limits is not None else store.quota_book()
    service = _Service(
        store,
        token_ttl,
        max_body,
        clock or (lambda: store.clock()),
        quotas,
        reread_quotas=limits is None,
        metrics_gate=metrics_gate or ops.MetricsGate(),
        counted=counted,
    )
    app = ServiceApp(service.answer, _http_error)
    app.state.store = store
    app.state.service = service
    return app
