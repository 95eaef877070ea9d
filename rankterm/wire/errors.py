"""One exception tree for everything that can go wrong between rankterm and a ranking service.

Every exception's `str()` is one sentence a screen can show as it is. The service's envelope codes
(WIRE.md: R…, A…, M…, Q…) are one table, `CODES`: the embedded service takes each code's HTTP status from
it (`status_for_code`), the client its exception (`error_from_response`, which goes by the HTTP status when
an answer has no code it knows).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rankterm.wire.models import NewMatchAnswer

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def clean_text(text: object, limit: int = 200) -> str:
    """Text from outside made safe to show on one line: control characters and escapes dropped, cut short."""
    s = _CONTROL.sub(" ", str(text)).strip()
    s = re.sub(r"\s{2,}", " ", s)
    return s if len(s) <= limit else s[: limit - 1] + "…"


class RanktermError(Exception):
    """Base of every error rankterm shows to a person.

    `partial`: when a batch of matches was under way, the answer for the batches the service had already
    accepted before this error (None when there were none); `RankingClient.add_matches` fills it in.
    """

    partial: NewMatchAnswer | None

    def __init__(self, message: str, *, partial: NewMatchAnswer | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.partial = partial

    def __str__(self) -> str:
        return self.message


class ConfigError(RanktermError):
    """A config, token-cache or theme file that cannot be read; names the file (and line when known)."""

    def __init__(self, path: object, problem: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if line else f"{path}"
        super().__init__(f"{where}: {problem}")
        self.path = path
        self.line = line
        self.problem = problem


class Offline(RanktermError):
    """The service could not be reached: no connection, DNS failure, timeout, connection reset."""

    def __init__(self, endpoint: str, reason: str) -> None:
        super().__init__(f"Cannot reach the service ({endpoint}): {clean_text(reason, 120)}.")
        self.endpoint = endpoint
        self.reason = reason


class NeverSent(Offline):
    """`Offline`, and the request never left: no connection to the service could be made, so it received
    nothing (sending again cannot make anything twice)."""


class BadBaseURL(RanktermError):
    """A base URL no request can be sent to (a port out of range, a malformed host, another scheme): only a
    corrected profile helps, so nothing retries it, and the command line exits with its usage code."""

    def __init__(self, base_url: str, problem: str) -> None:
        super().__init__(f"The base URL {clean_text(base_url, 120)} {problem}.")
        self.base_url = base_url
        self.problem = problem


@dataclass(frozen=True, slots=True)
class ErrorItem:
    """One entry of the envelope's `errors` list."""

    code: str
    message: str = ""


class ApiError(RanktermError):
    """The service answered, and the answer is an error (or not an answer at all)."""

    default_message = "the service reported an error"

    def __init__(
        self,
        endpoint: str,
        status: int | None = None,
        errors: Sequence[ErrorItem] = (),
        message: str | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.status = status
        self.errors = tuple(errors)
        first = self.errors[0] if self.errors else None
        self.code = first.code if first else None
        detail = message or (clean_text(first.message) if first and first.message else self.default_message)
        tag = f" ({self.code})" if self.code else (f" (HTTP {status})" if status else "")
        text = f"{endpoint}: {detail}{tag}"
        super().__init__(text if text.endswith(".") else text + ".")


class AuthError(ApiError):
    """A…: credentials refused (A001) or a token missing, invalid or expired (A002)."""

    default_message = "authentication failed"

    @property
    def token_problem(self) -> bool:
        """True when a fresh token may fix it (A002 / 403), False when the key or secret is wrong."""
        return self.code == "A002" or (self.code is None and self.status == 403)


class QuotaError(ApiError):
    """Q…: a quota limit of this client was reached; the service refuses calls until it resets."""

    default_message = "quota limit reached"


class SignInThrottled(QuotaError):
    """A003 / 429 on ``auth``: too many sign-in tries from this address or for this key; the service takes
    tries again after a while (its ``Retry-After``). Not a wrong secret: nothing in the profile is to blame."""

    default_message = "too many sign-in tries; wait a minute and try again"


class BadRequest(ApiError):
    """R003 / 400: missing or invalid parameters."""

    default_message = "missing or invalid parameters"


class NotFound(ApiError):
    """R002 / 404: no such resource."""

    default_message = "not found"


class ServiceError(ApiError):
    """R001 / 5xx: the service failed on its side."""

    default_message = "the service failed"


class ServiceDiskFull(ServiceError):
    """R004 / 507: the service's disk is full; nothing was written, and the same request may be sent again
    once the host has made room."""

    default_message = "the service's disk is full"


class UnexpectedResponse(ApiError):
    """An answer that is not the service's envelope: not JSON, an HTML page, a missing field."""

    default_message = "the answer was not understood"


@dataclass
class RejectedItem:
    """One match of a batch that the service (or rankterm's own checks) refused, with its reasons."""

    index: int
    errors: list[ErrorItem] = field(default_factory=list)
    external_id: str | None = None

    def reason(self) -> str:
        return "; ".join(
            clean_text(e.message or e.code) + (f" ({e.code})" if e.message else "") for e in self.errors
        )


class MatchRejected(ApiError):
    """M…: a match request refused as a whole (M001/M002), or matches refused one by one."""

    default_message = "the match was rejected"

    def __init__(
        self,
        endpoint: str,
        status: int | None = None,
        errors: Sequence[ErrorItem] = (),
        message: str | None = None,
        rejected: Sequence[RejectedItem] = (),
    ) -> None:
        self.rejected = list(rejected)
        if message is None and self.rejected and not errors:
            first = self.rejected[0]
            message = f"match {first.index + 1} rejected: {first.reason()}"
            if len(self.rejected) > 1:
                message += f" (and {len(self.rejected) - 1} more)"
        super().__init__(endpoint, status, errors, message)


CODES: dict[str, tuple[int, type[ApiError]]] = {
    "R001": (500, ServiceError),
    "R002": (404, NotFound),
    "R003": (400, BadRequest),
    "A001": (401, AuthError),
    "A002": (403, AuthError),
    "A003": (429, SignInThrottled),
    "R004": (507, ServiceDiskFull),
    "M001": (400, MatchRejected),
    "M002": (400, MatchRejected),
    "A": (401, AuthError),
    "M": (400, MatchRejected),
    "Q": (429, QuotaError),
}
"""WIRE.md's table: each envelope code's HTTP status and exception. A code not listed goes by its first
letter (Q002, Q003… one a quota meter; M003, M004… refusals of one match in a batch)."""


def _code_entry(code: str) -> tuple[int, type[ApiError]] | None:
    return CODES.get(code) or CODES.get(code[:1])


def status_for_code(code: str) -> int:
    """The HTTP status that goes with an envelope code (`CODES`; 400 for a code it does not know)."""
    entry = _code_entry(code)
    return entry[0] if entry else 400


def _class_for(code: str | None, status: int, endpoint: str = "") -> type[ApiError]:
    if code and (entry := _code_entry(code)):
        return entry[1]
    if status == 429 and endpoint == "auth":
        return SignInThrottled
    if status == 507:
        return ServiceDiskFull
    if status in (401, 403):
        return AuthError
    if status == 429:
        return QuotaError
    if status == 404:
        return NotFound
    if status >= 500:
        return ServiceError
    if 400 <= status < 500:
        return BadRequest
    return UnexpectedResponse


def parse_error_items(body: Any) -> list[ErrorItem]:
    """The `errors` list of an envelope, tolerating odd shapes; empty when there is none."""
    raw = body.get("errors") if isinstance(body, dict) else None
    if isinstance(raw, dict):
        raw = [raw]
    if not isinstance(raw, list):
        return []
    items = []
    for entry in raw:
        if isinstance(entry, dict):
            items.append(
                ErrorItem(clean_text(entry.get("code", ""), 20), str(entry.get("message", "") or ""))
            )
        elif isinstance(entry, str):
            items.append(ErrorItem("", entry))
    return items


def error_from_response(endpoint: str, status: int, body: Any) -> ApiError:
    """The exception for an error answer: by the first envelope code, else by the HTTP status."""
    items = parse_error_items(body)
    code = items[0].code if items else None
    cls = _class_for(code, status, endpoint)
    if cls is UnexpectedResponse and not items:
        return UnexpectedResponse(endpoint, status, message=f"unexpected HTTP status {status}")
    return cls(endpoint, status, items)
