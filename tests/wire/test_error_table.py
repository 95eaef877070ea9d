"""The envelope codes are one table (`wire.errors.CODES`) that the client and the embedded service both read.

Each code the service sends has WIRE.md's HTTP status, and the client reads it back as the exception of its
code: by the code when the table names it, by its first letter (A, M, Q) when not, else by the status.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankterm.wire import errors as er

WIRE_TABLE: list[tuple[str, int, type[er.ApiError]]] = [
    ("R001", 500, er.ServiceError),
    ("R002", 404, er.NotFound),
    ("R003", 400, er.BadRequest),
    ("R004", 507, er.ServiceDiskFull),
    ("A001", 401, er.AuthError),
    ("A002", 403, er.AuthError),
    ("A003", 429, er.SignInThrottled),
    ("A009", 401, er.AuthError),  # an A… code it does not name: an authentication error
    ("M001", 400, er.MatchRejected),
    ("M002", 400, er.MatchRejected),
    ("M003", 400, er.MatchRejected),  # refusals of one match in a batch
    ("Q001", 429, er.QuotaError),
    ("Q002", 429, er.QuotaError),
    ("Q007", 429, er.QuotaError),  # the n-th quota meter
]
"""WIRE.md's codes: each one's HTTP status and the exception the client raises for it."""

BY_LETTER = {"A": 401, "M": 400, "Q": 429}
"""The status of a code the table does not name, by its first letter (400 for any other letter)."""

CODE_TEXT = st.from_regex(r"[ARMQXr]?[0-9]{0,4}", fullmatch=True) | st.text(max_size=6)
STATUSES = st.sampled_from([200, 202, 400, 401, 403, 404, 409, 429, 500, 502, 503, 507])


def envelope(code: str) -> dict[str, list[dict[str, str]]]:
    return {"errors": [{"code": code, "message": "Why."}]}


@pytest.mark.parametrize(("code", "status", "raised"), WIRE_TABLE)
def test_the_service_sends_wires_status_and_the_client_reads_it_back(
    code: str, status: int, raised: type[er.ApiError]
) -> None:
    assert er.status_for_code(code) == status
    answer = er.error_from_response("x", status, envelope(code))
    assert type(answer) is raised and answer.status == status
    assert answer.errors[0].code == code


@given(CODE_TEXT, STATUSES, STATUSES)
def test_a_code_the_table_knows_picks_its_exception_whatever_the_status(
    code: str, status: int, other: int
) -> None:
    read = er.parse_error_items(envelope(code))[0].code  # as the envelope's code is read: cleaned, cut short
    first = type(er.error_from_response("matches", status, envelope(code)))
    second = type(er.error_from_response("matches", other, envelope(code)))
    if read and (read in er.CODES or read[:1] in BY_LETTER):
        assert first is second
    else:  # no code it knows: the status alone decides, as for an answer without an envelope code
        assert first is type(er.error_from_response("matches", status, envelope("")))


@given(CODE_TEXT)
def test_a_code_the_table_does_not_name_goes_by_its_first_letter(code: str) -> None:
    named = {known: status for known, status, _ in WIRE_TABLE}
    expected = named.get(code, BY_LETTER.get(code[:1], 400))
    assert er.status_for_code(code) == expected


@pytest.mark.parametrize(
    ("status", "raised"),
    [
        (401, er.AuthError),
        (403, er.AuthError),
        (404, er.NotFound),
        (409, er.BadRequest),
        (429, er.QuotaError),
        (500, er.ServiceError),
        (502, er.ServiceError),
        (507, er.ServiceDiskFull),
    ],
)
def test_an_answer_without_a_code_goes_by_its_status(status: int, raised: type[er.ApiError]) -> None:
    assert type(er.error_from_response("matches", status, {})) is raised
    assert type(er.error_from_response("matches", status, envelope(""))) is raised


def test_too_many_sign_in_tries_are_not_a_quota_of_the_client() -> None:
    assert type(er.error_from_response("auth", 429, {})) is er.SignInThrottled
    assert type(er.error_from_response("matches", 429, {})) is er.QuotaError
