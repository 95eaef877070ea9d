"""`RankingClient`: one async method per endpoint of the ranking service.

It takes an `httpx.AsyncClient` (a real one for a URL; one on `httpx.ASGITransport` for the embedded service
in-process), or makes one from a base URL. It owns the token (fetch, cache, renew before expiry and once on
A002), retries GETs on connection errors, 5xx and rate-limiting 429s with bounded backoff (POSTs never retry
blindly), fetches all pages of a list with as many requests in flight as the service answers in time for
(`rankterm.client.paging`: never more calls than pages, never past what the quota is known to allow), and sends
new matches in batches.

It keeps no group state: the group's mirror and the reads through it are `rankterm.mirror.Group`, which
reaches the service through this client's public calls (`call`, `parse`, `all_pages`, `fetch_pages`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import ssl
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from rankterm.client import paging
from rankterm.client.auth import Token, TokenCache, sendable_token
from rankterm.client.frames import FrameMemo
from rankterm.client.paging import QuotaView, Window, fetch_pages, refuse, report_pressure
from rankterm.client.send_policy import ONCE, Backoff, batches
from rankterm.client.transport import address_problem, offline
from rankterm.wire import endpoints as ep
from rankterm.wire import jsontext
from rankterm.wire.adapters import type_adapter
from rankterm.wire.errors import (
    AuthError,
    BadBaseURL,
    BadRequest,
    MatchRejected,
    Offline,
    QuotaError,
    ServiceError,
    UnexpectedResponse,
    clean_text,
    error_from_response,
)
from rankterm.wire.fields import DISPLAY_SAFE
from rankterm.wire.ids import service_scope
from rankterm.wire.models import (
    ExistsAnswer,
    Game,
    MatchStatus,
    NewMatch,
    NewMatchAnswer,
    Page,
    Quota,
    RankingsPage,
    ServiceStatus,
)

P = TypeVar("P", bound=Page)
T = TypeVar("T")

USER_AGENT = "rankterm"

MAX_RETRY_AFTER = 10.0
"""Longest Retry-After (seconds) a rate-limited GET waits for before its retry; a longer one is raised."""

_SECRET_IN_URL = re.compile(r"((?:^|[?&\s])secret=)[^&\s\"']*")


class _RedactSecrets(logging.Filter):
    """httpx logs each request's URL; the auth call carries the secret in its query, which never reaches a log."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "secret=" in message:
            record.msg, record.args = _SECRET_IN_URL.sub(r"\1***", message), ()
        return True


logging.getLogger("httpx").addFilter(_RedactSecrets())


def _retry_after(response: httpx.Response | None) -> float:
    """Seconds a Retry-After header asks for (0 when absent or not a number of seconds)."""
    value = response.headers.get("retry-after", "") if response is not None else ""
    try:
        seconds = float(value.strip())
    except ValueError:
        return 0.0
    return seconds if seconds >= 0 and seconds == seconds else 0.0


def _describe(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err.get("loc", ())) or "answer"
    return f"field {where!r}: {err.get('msg', 'invalid')}"


def _tls_for(base_url: str, verify_tls: bool) -> ssl.SSLContext | bool:
    """What httpx is given to verify TLS with, for a client of `base_url`.

    httpx builds its SSL context when the client is made, loading certifi's ~150 CA certificates into
    OpenSSL (~2 MB of C heap), whether or not a request ever uses TLS. A service on plain http:// never
    opens TLS, so its client gets a context that verifies as strictly (certificate required, host name
    checked) but trusts no certificate at all: a TLS connection it were ever led into fails, it is never
    let through. An https:// service (or any other URL) gets exactly what httpx does by default."""
    if verify_tls and base_url.lower().startswith("http://"):
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # CERT_REQUIRED and check_hostname; no CA loaded
    return verify_tls


class RankingClient:
    """The ranking service, as async Python methods returning the models of `rankterm.wire.models`."""

    def __init__(
        self,
        base_url: str | None = None,
        *,
        key: str = "",
        secret: str = "",
        http: httpx.AsyncClient | None = None,
        token_cache: TokenCache | None = None,
        timeout: float = 10.0,
        verify_tls: bool = True,
        concurrency: int = 8,
        max_concurrency: int = paging.CEILING,
        batch_size: int = 10,
        retries: int = 2,
        backoff: float = 0.25,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`concurrency`: the bound of the reads that run side by side outside the paging window (matches
        pages of a sync, a stats history); `max_concurrency`: the most page requests the paging window lets
        be in flight (`rankterm.client.paging`; it starts at `paging.START` or this, whichever is less)."""
        self._own_http = http is None
        if http is None:
            if not base_url:
                raise ValueError("a base URL or an httpx.AsyncClient is needed")
            # Here, not at the top: only a client that opens sockets loads httpcore and h11.
            from rankterm.client.pool import http_client

            # Keep-alive for as many connections as the paging window may use (httpx keeps 20 by default).
            pool = max(concurrency, max_concurrency)
            http = http_client(timeout=timeout, verify=_tls_for(base_url, verify_tls), pool=pool)
        self.base_url = str(base_url or http.base_url)
        if not self.base_url.endswith("/"):
            self.base_url += "/"
        self.http = http
        self.key = key
        self._secret = secret
        self.token_cache = token_cache
        self.concurrency = max(1, concurrency)
        self.max_concurrency = max(self.concurrency, max_concurrency)
        self.last_window: Window | None = None
        """The paging window of the last list fetched (its sizes, halvings, most in flight)."""
        self.quota_view = QuotaView()
        """What the answers have shown of the quota (`paging.QuotaView`)."""
        self.call_budget: int | None = None
        """Calls the quota still allows, when the caller knows it (None: not known); each metered request
        sent counts it down, and a list that needs more pages than it allows is refused unsent."""
        self.batch_size = max(1, batch_size)
        self.retries = max(0, retries)
        self.backoff = backoff
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        """How a GET waits before its retry (`retry_schedule`); a test puts its own clock here."""
        self.clock = clock
        self._token: Token | None = None
        self._token_lock = asyncio.Lock()
        self.calls = 0
        """Requests sent (for the quota-minded and for tests)."""
        self.display_safe = False
        """When True, every text read from the service has its control characters shown as symbols
        (`wire.display_safe`): set by an app that puts those texts on a terminal."""
        self.reachability_listeners: list[Callable[[bool], None]] = []
        """Called with False when a request cannot reach the service, True when an answer comes back."""
        self.frames = FrameMemo()
        """The subset and match that every standings page repeats, validated once (`client.frames`)."""

    @classmethod
    def in_process(
        cls, asgi_app: Any, *, key: str, secret: str, base_url: str = "http://in-process.rankterm/", **kw: Any
    ) -> RankingClient:
        """A client for an ASGI app in this process (the embedded service): real HTTP semantics, no socket."""
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi_app), base_url=base_url)
        client = cls(base_url, key=key, secret=secret, http=http, **kw)
        client._own_http = True
        return client

    @property
    def scope(self) -> str:
        """This service and key (`ids.service_scope`): what the outbox and the mirror keep things under."""
        return service_scope(self.base_url, self.key)

    def __repr__(self) -> str:  # never shows the secret
        return f"RankingClient({self.base_url!r}, key={self.key!r})"

    async def aclose(self) -> None:
        """Close the HTTP client if this object made it (one passed in belongs to the caller)."""
        if self._own_http:
            await self.http.aclose()

    async def __aenter__(self) -> RankingClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # ------------------------------------------------------------------ plumbing

    def _url(self, path: str) -> str:
        return self.base_url + path

    async def _send_once(
        self, endpoint: ep.Endpoint, path: str, params: dict | None, json_body: Any, token: str | None
    ) -> httpx.Response:
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.calls += 1
        if endpoint.auth and self.call_budget is not None:
            self.call_budget -= 1
        try:
            url = httpx.URL(self._url(path))
        except httpx.InvalidURL as exc:  # a port that is not a number, an unclosed IPv6 bracket
            raise self._bad_base_url(exc) from exc
        try:
            response = await self.http.request(
                endpoint.method.value, url, params=params, json=json_body, headers=headers
            )
        except httpx.UnsupportedProtocol as exc:  # no host, or not http(s): before TransportError, its base
            raise self._bad_base_url(exc) from exc
        except httpx.TransportError as exc:
            self._tell_reachable(False)
            raise offline(endpoint.name, exc) from exc
        except (ValueError, OverflowError, ExceptionGroup) as exc:
            if not self._url_refused(exc):  # an error of the embedded service, in process, stays as it is
                raise
            raise self._bad_base_url(exc) from exc
        self._tell_reachable(True)
        return response

    def _url_refused(self, exc: BaseException) -> bool:
        """Whether the socket layer refused the URL while connecting: a port out of range (anyio: an
        OverflowError, in a task group's group) or a host IDNA cannot encode."""
        while isinstance(exc, BaseExceptionGroup):
            if exc.split((ValueError, OverflowError))[1] is not None:
                return False
            exc = exc.exceptions[0]
        idna = isinstance(exc, UnicodeError) and "idna" in f"{type(exc).__module__} {exc}".lower()
        return idna or address_problem(self.base_url) is not None

    def _bad_base_url(self, exc: BaseException) -> BadBaseURL:
        """The sentence for a URL no request can use (the last wall: a profile's is checked when read,
        `rankterm.config`): what is wrong with it when `address_problem` can say, else httpx's reason."""
        while isinstance(exc, BaseExceptionGroup):
            exc = exc.exceptions[0]
        reason = clean_text(str(exc) or type(exc).__name__, 120).rstrip(".")
        return BadBaseURL(self.base_url, address_problem(self.base_url) or f"cannot be used ({reason})")

    def _tell_reachable(self, reachable: bool) -> None:
        for listener in self.reachability_listeners:
            listener(reachable)

    @staticmethod
    def _payload(endpoint: ep.Endpoint, response: httpx.Response) -> Any:
        try:
            body = jsontext.loads(response.content)
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError):
            if response.status_code >= 400:
                raise error_from_response(endpoint.name, response.status_code, None) from None
            raise UnexpectedResponse(
                endpoint.name, response.status_code, message="the answer is not JSON"
            ) from None
        if isinstance(body, dict) and body.get("errors"):
            raise error_from_response(endpoint.name, response.status_code, body)
        if response.status_code >= 300:
            raise error_from_response(endpoint.name, response.status_code, body)
        if not isinstance(body, dict) or "success" not in body:
            raise UnexpectedResponse(
                endpoint.name, response.status_code, message="the answer has no envelope"
            )
        return body["success"]

    async def _token_value(self, force: bool = False, stale: str | None = None) -> str:
        """A usable token. `stale` is one the service refused: it is replaced, once, however many callers saw it."""
        async with self._token_lock:
            if stale is not None and self._token is not None and self._token.value != stale:
                return self._token.value  # another caller already renewed it
            if not force and stale is None and self._token is None and self.token_cache is not None:
                self._token = self.token_cache.load(self.base_url, self.key)
            if force or stale is not None or self._token is None or not self._token.fresh(self.clock()):
                self._token = await self.fetch_token(self._token.value if self._token is not None else None)
            return self._token.value

    async def fetch_token(self, held: str | None = None) -> Token:
        """A new token in place of `held` (the one held now, refused or expired, if any), from `GET auth` with
        the key and secret, kept in the token cache. Where tokens come from: a client that holds no secret (a
        guest seat, whose host gets them) overrides it."""
        response = await self._send_once(
            ep.AUTH, ep.build_path(ep.AUTH), {"key": self.key, "secret": self._secret}, None, None
        )
        payload = self._payload(ep.AUTH, response)
        value = (
            payload.get("token")
            if isinstance(payload, dict)
            else payload
            if isinstance(payload, str)
            else None
        )
        if not isinstance(value, str) or not value:
            raise UnexpectedResponse("auth", response.status_code, message="the answer carries no token")
        if not sendable_token(value):
            raise UnexpectedResponse(
                "auth", response.status_code, message="the answer's token has characters a token never has"
            )
        token = Token.parse(value)
        if self.token_cache is not None:
            self.token_cache.save(self.base_url, self.key, token)
        return token

    async def authenticate(self, force: bool = False) -> Token:
        """Make sure a fresh token is held (from memory, the cache, or `GET auth`) and return it."""
        await self._token_value(force)
        assert self._token is not None
        return self._token

    def forget_token(self) -> None:
        self._token = None
        if self.token_cache is not None:
            self.token_cache.save(self.base_url, self.key, None)

    async def call(
        self,
        endpoint: ep.Endpoint,
        *,
        subset: str | None = None,
        match: int | None = None,
        page: int | None = None,
        params: dict[str, Any] | None = None,
        json_body: Any = None,
    ) -> Any:
        """Send one request to `endpoint` and return the `success` payload, or raise from `errors`."""
        path = ep.build_path(endpoint, subset=subset, match=match, page=page)
        schedule = self.retry_schedule() if endpoint.method is ep.Method.GET else ONCE
        refused: str | None = None
        failures = 0
        while True:
            token = await self._token_value(stale=refused) if endpoint.auth else None
            response: httpx.Response | None = None
            try:
                response = await self._send_once(endpoint, path, params, json_body, token)
                return self._payload(endpoint, response)
            except AuthError as exc:
                if endpoint.auth and exc.token_problem and refused is None:
                    refused = token  # renewed once, not counted as a try
                    continue
                raise
            except QuotaError as exc:
                if exc.code:  # a meter is full: retrying before its period turns only spends calls
                    self.quota_view.note_refusal(exc.code, self.clock())
                    raise
                report_pressure()  # a 429 without a quota code: rate limiting, retried like a 5xx
                failures += 1
                after = _retry_after(response)
                if not schedule.more(failures) or after > MAX_RETRY_AFTER:
                    raise
                wait = max(schedule.wait(failures), after)
            except (Offline, ServiceError) as exc:
                if isinstance(exc, ServiceError) and exc.code not in (None, "R001"):
                    raise
                report_pressure()
                failures += 1
                if not schedule.more(failures):
                    raise
                wait = schedule.wait(failures)
            await self.sleep(wait)

    def retry_schedule(self) -> Backoff:
        """The waits between a GET's tries (`send_policy.Backoff`): `backoff`, doubling, `1 + retries` tries."""
        return Backoff.doubling(self.backoff, tries=1 + max(0, self.retries))

    def parse(self, endpoint: str, model: Any, payload: Any) -> Any:
        context = DISPLAY_SAFE if self.display_safe else None
        try:
            if model is RankingsPage and isinstance(payload, dict):
                return self.frames.validate(RankingsPage, payload, context)
            if isinstance(model, type) and issubclass(model, BaseModel):
                return model.model_validate(payload, context=context)
            return type_adapter(model).validate_python(payload, context=context)
        except ValidationError as exc:
            raise UnexpectedResponse(
                endpoint, message=f"the answer was not understood ({_describe(exc)})"
            ) from None

    def calls_left(self) -> int | None:
        """Calls the quota is known to allow now (0 when a call meter was seen full), None when not known."""
        seen = self.quota_view.calls_left(self.clock())
        known = [n for n in (seen, self.call_budget) if n is not None]
        return max(0, min(known)) if known else None

    def require_calls(self, needed: int) -> None:
        """Raise `QuotaError` when the quota is known not to allow `needed` more calls."""
        left = self.calls_left()
        if left is not None and left < needed:
            raise refuse("pages", needed, left, self.quota_view.full_meter(self.clock()))

    async def all_pages(self, fetch: Callable[[int], Awaitable[P]]) -> list[P]:
        """Page 1, then pages 2..N through the paging window (`rankterm.client.paging`), in page order."""
        self.require_calls(1)
        began = time.monotonic()
        first = await fetch(1)
        if first.total_pages <= 1:
            return [first]
        window = self.new_window()
        window.note_first(time.monotonic() - began)
        rest = await self.fetch_pages(range(2, first.total_pages + 1), fetch, window)
        return [first, *rest]

    def new_window(self) -> Window:
        start = min(paging.START, self.max_concurrency)
        self.last_window = Window(start=start, ceiling=self.max_concurrency)
        return self.last_window

    async def fetch_pages(
        self, numbers: Sequence[int], fetch: Callable[[int], Awaitable[T]], window: Window | None = None
    ) -> list[T]:
        """`fetch(n)` for each page number, as many in flight as the paging window allows, in that order;
        refused unsent when the quota is known not to allow that many calls."""
        self.require_calls(len(numbers))

        async def unless_refused(n: int) -> T:
            # A page whose turn comes after another's quota refusal (a service that answers at once can
            # refuse one before the next in the window is sent) is not sent: the meter is full.
            self.require_calls(1)
            return await fetch(n)

        return await fetch_pages(numbers, unless_refused, window or self.new_window())

    # ------------------------------------------------------------------ endpoints

    async def test(self) -> Any:
        return await self.call(ep.TEST)

    async def popular_games(self) -> list[Game]:
        return self.parse("games popular", list[Game], await self.call(ep.GAMES_POPULAR))

    async def search_games(self, name: str) -> list[Game]:
        return self.parse("games search", list[Game], await self.call(ep.GAMES_SEARCH, params={"name": name}))

    async def match_exists(self, external_id: str) -> bool:
        payload = await self.call(ep.MATCH_EXISTS, params={"id": external_id})
        return self.parse("match exists", ExistsAnswer, payload).exists

    async def match_status(self) -> MatchStatus:
        return self.parse("match status", MatchStatus, await self.call(ep.MATCH_STATUS))

    async def quota(self) -> Quota:
        quota = self.parse("quota", Quota, await self.call(ep.QUOTA))
        self.quota_view.note_read(quota, self.clock())
        return quota

    async def status(self) -> ServiceStatus:
        payload = await self.call(ep.STATUS)
        return self.parse(
            "status", ServiceStatus, payload if isinstance(payload, dict) else {"status": payload}
        )

    async def add_matches(
        self, matches: NewMatch | Sequence[NewMatch], *, dry_run: bool = False
    ) -> NewMatchAnswer:
        """Record matches, `batch_size` per request, in order; the answers joined, indexes across the whole.

        A request refused as a whole raises `MatchRejected`; a transport failure raises `Offline` with
        `.partial` holding the answer for the batches already accepted (never resent here: see the outbox).
        """
        items = [matches] if isinstance(matches, NewMatch) else list(matches)
        if not items:
            raise BadRequest("match", message="no match to send")
        params = {"dryrun": 1} if dry_run else None
        answers: list[NewMatchAnswer] = []
        sizes: list[int] = []
        for batch in batches(items, self.batch_size):
            try:
                payload = await self.call(ep.MATCH, params=params, json_body=[m.to_wire() for m in batch])
            except (MatchRejected, Offline) as exc:
                exc.partial = NewMatchAnswer.combine(answers, sizes) if answers else None
                raise
            answers.append(self.parse("match", NewMatchAnswer, payload))
            sizes.append(len(batch))
        return NewMatchAnswer.combine(answers, sizes)
