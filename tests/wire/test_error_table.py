"""The envelope codes are one table (`wire.errors.CODES`) that the client and the embedded service both read.

The two tables there were before, the client's code -> exception and the service's code -> HTTP status, are
kept here as the oracles: each reader answers as its old table did.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankterm.wire import errors as er

OLD_CLIENT_BY_PREFIX: dict[str, type[er.ApiError]] = {
    "A": er.AuthError,
    "Q": er.QuotaError,
    "M": er.MatchRejected,
}
OLD_CLIENT_BY_CODE: dict[str, type[er.ApiError]] = {
    "R001": er.ServiceError,
    "R002": er.NotFound,
    "R003": er.BadRequest,
}
OLD_SERVICE_STATUS = {
    "R001": 500,
    "R002": 404,
    "R003": 400,
    "A001": 401,
    "A002": 403,
    "M001": 400,
    "M002": 400,
}
SERVICE_SENDS = ("R001", "R002", "R003", "A001", "A002", "M001", "M002", "Q001", "Q002", "Q007")
"""Every code the embedded service raises (R, A and M by name, Q00n for the n-th quota meter)."""


def old_client_class(code: str | None, status: int) -> type[er.ApiError]:
    if code:
        if code in OLD_CLIENT_BY_CODE:
            return OLD_CLIENT_BY_CODE[code]
        if code[:1] in OLD_CLIENT_BY_PREFIX:
            return OLD_CLIENT_BY_PREFIX[code[:1]]
    return type(er.error_from_response("x", status, {}))


def old_service_status(code: str) -> int:
    return 429 if code.startswith("Q") else OLD_SERVICE_STATUS.get(code, 400)


CODE_TEXT = st.from_regex(r"[ARMQXr]?[0-9]{0,4}", fullmatch=True) | st.text(max_size=6)
STATUSES = st.sampled_from([200, 202, 400, 401, 403, 404, 409, 429, 500, 502, 503])


@given(CODE_TEXT, STATUSES)
def test_the_client_picks_the_exception_its_old_table_picked(code: str, status: int) -> None:
    body = {"errors": [{"code": code, "message": "Why."}]}
    read = er.parse_error_items(body)[0].code  # as the envelope's code is read: cleaned, cut short
    assert type(er.error_from_response("matches", status, body)) is old_client_class(read or None, status)


@pytest.mark.parametrize("code", SERVICE_SENDS)
def test_the_service_sends_the_status_its_old_table_sent_and_the_client_reads_it_back(code: str) -> None:
    status = er.status_for_code(code)
    assert status == old_service_status(code)
    answer = er.error_from_response("x", status, {"errors": [{"code": code, "message": "Why."}]})
    assert type(answer) is old_client_class(code, status) and answer.status == status


@given(CODE_TEXT)
def test_a_code_the_service_does_not_send_keeps_its_status_unless_its_letter_says_otherwise(
    code: str,
) -> None:
    # One table: an unknown A… code is an authentication error on both sides now (401), as the client read it.
    if code[:1] == "A" and code not in OLD_SERVICE_STATUS:
        assert er.status_for_code(code) == 401
    else:
        assert er.status_for_code(code) == old_service_status(code)
