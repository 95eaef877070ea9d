"""Envelope codes and HTTP statuses map to the exception tree, each a one-sentence message."""

import pytest

from rankterm.wire import errors as er


@pytest.mark.parametrize(
    ("code", "status", "cls"),
    [
        ("R001", 500, er.ServiceError),
        ("R002", 404, er.NotFound),
        ("R003", 400, er.BadRequest),
        ("A001", 401, er.AuthError),
        ("A002", 403, er.AuthError),
        ("M001", 400, er.MatchRejected),
        ("M002", 400, er.MatchRejected),
        ("M002", 202, er.MatchRejected),
        ("M003", 400, er.MatchRejected),
        ("Q001", 429, er.QuotaError),
        ("Q001", 202, er.QuotaError),
        ("Q005", 429, er.QuotaError),
    ],
)
def test_codes(code, status, cls):
    exc = er.error_from_response("matches", status, {"errors": [{"code": code, "message": "Something\nbad"}]})
    assert type(exc) is cls
    assert exc.code == code and exc.status == status
    text = str(exc)
    assert "\n" not in text and text.endswith(".") and code in text and text.startswith("matches:")


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (401, er.AuthError),
        (403, er.AuthError),
        (404, er.NotFound),
        (429, er.QuotaError),
        (502, er.ServiceError),
        (418, er.BadRequest),
        (302, er.UnexpectedResponse),
    ],
)
def test_status_without_envelope(status, cls):
    exc = er.error_from_response("players", status, "<html>oops</html>")
    assert type(exc) is cls
    assert exc.code is None


def test_token_problem_only_for_a002():
    a1 = er.error_from_response("x", 401, {"errors": [{"code": "A001", "message": "bad"}]})
    a2 = er.error_from_response("x", 403, {"errors": [{"code": "A002", "message": "expired"}]})
    assert isinstance(a1, er.AuthError) and not a1.token_problem
    assert isinstance(a2, er.AuthError) and a2.token_problem


def test_escape_sequences_never_reach_the_message():
    exc = er.error_from_response("x", 400, {"errors": [{"code": "R003", "message": "\x1b[2Jboom\x07"}]})
    assert "\x1b" not in str(exc) and "\x07" not in str(exc)


def test_odd_error_shapes():
    assert er.parse_error_items({"errors": {"code": "R002"}})[0].code == "R002"
    assert er.parse_error_items({"errors": ["plain"]})[0].message == "plain"
    assert er.parse_error_items({"errors": 5}) == []
    assert er.parse_error_items(None) == []


def test_match_rejected_lists_reasons():
    rej = er.RejectedItem(1, [er.ErrorItem("M005", "unknown player")])
    exc = er.MatchRejected("match", 200, rejected=[rej, er.RejectedItem(2, [er.ErrorItem("M004", "")])])
    assert "match 2 rejected: unknown player (M005)" in str(exc)
    assert "and 1 more" in str(exc)


def test_offline_and_config_messages():
    assert (
        str(er.Offline("players", "Connection refused"))
        == "Cannot reach the service (players): Connection refused."
    )
    assert str(er.ConfigError("/x/config.toml", "bad", line=3)) == "/x/config.toml:3: bad"
