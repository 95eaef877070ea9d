"""The wire's dates are read by one function (`wire_date`): exactly "YYYY-MM-DD HH:MM:SS", naive UTC.

What it reads is the one text of one moment (written back, it is the same text); anything else is refused
in one sentence. A time a person types is read by `read_layouts`, the seat's zone and the new match alike.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import ValidationError

from rankterm.wire.fields import DATE_FORMAT, parse_wire_date, wire_date, wire_seconds
from rankterm.wire.localtime import TYPED_FORMATS, UTC_ZONE, read_layouts
from rankterm.wire.models import Match, NewMatch
from rankterm.wire.new_match import EARLIEST

MOMENTS = st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)).map(
    lambda d: d.replace(microsecond=0)
)


@given(MOMENTS)
@example(datetime(2026, 2, 28, 23, 59, 59))
@example(datetime(2024, 2, 29, 0, 0, 0))
def test_a_wire_date_reads_back_the_moment_it_was_written_from(moment: datetime) -> None:
    text = moment.strftime(DATE_FORMAT)
    assert wire_date(text) == moment and wire_date(text).tzinfo is None
    assert parse_wire_date(text) == moment
    assert wire_seconds(text) == moment.replace(tzinfo=UTC).timestamp()


@given(st.text(alphabet="0123456789-: T.+Z\u0663", max_size=22) | st.text(max_size=22))
@example("2026-02-30 12:00:00")
@example("2026-05-01 24:00:00")
def test_whatever_it_reads_is_written_back_as_the_same_text(text: str) -> None:
    try:
        read = wire_date(text)
    except ValueError as refused:
        assert parse_wire_date(text) is None
        assert "is not a date of the wire" in str(refused)
        return
    assert read.isoformat(sep=" ") == text and parse_wire_date(text) == read


@pytest.mark.parametrize(
    "text",
    [
        "2026-05-01T12:00:00",  # the other ISO forms fromisoformat would take
        "2026-05-01",
        "2026-05-01 12:00",
        "2026-05-01 12:00:00+02:00",
        "2026-05-01 12:00:00.5",
        "20260501T120000",
        "2026-05-01 12:00:00\n",
        "\u0662\u0660\u0662\u0666-05-01 12:00:00",  # digits of another script
        "2026-02-30 12:00:00",
        "",
    ],
)
def test_what_is_not_a_wire_date_is_refused_in_one_sentence(text: str) -> None:
    with pytest.raises(ValueError, match="is not a date of the wire"):
        wire_date(text)
    assert parse_wire_date(text) is None


def test_a_date_that_is_no_text_is_none() -> None:
    assert parse_wire_date(None) is None and parse_wire_date(20260501) is None


def test_the_models_read_their_dates_with_it() -> None:
    assert Match(id="1", date="2026-05-01 12:30:00").when == datetime(2026, 5, 1, 12, 30)
    assert Match(id="1", date="soon").when is None
    assert NewMatch(name="default_1", weight="normal", date="2026-05-01 12:30").when == datetime(
        2026, 5, 1, 12, 30
    )
    assert NewMatch(name="default_1", weight="normal").when is None


TYPED = MOMENTS.flatmap(lambda d: st.sampled_from([d.strftime(f) for f in TYPED_FORMATS])).flatmap(
    lambda t: st.sampled_from([t, f" {t}\t", t[:-1], t + "x", t.replace("-", "/")])
) | st.text(alphabet="0123456789-: T", max_size=20)


@given(TYPED)
@example("2026-5-1 7:05")
@example("2026-05-01T07:05")
def test_a_typed_time_is_read_alike_by_the_seats_zone_and_the_new_match(text: str) -> None:
    read = UTC_ZONE.read_typed(text)
    assert read == read_layouts(text, TYPED_FORMATS)
    new_match_layouts = (DATE_FORMAT, "%Y-%m-%d %H:%M", "%Y-%m-%d")
    by_layouts = read_layouts(text, new_match_layouts)
    try:
        after = NewMatch(name="default_1", weight="normal", date=text).date
    except ValidationError:
        assert (
            by_layouts is None or not text.strip() or by_layouts < EARLIEST
        )  # no match is dated before 1900
    else:
        assert after == (
            by_layouts.strftime(DATE_FORMAT) if by_layouts is not None and text.strip() else None
        )


@given(MOMENTS, st.sampled_from(TYPED_FORMATS), st.sampled_from(["", " ", "\t"]))
def test_a_time_typed_in_any_layout_is_its_moment_to_that_layouts_precision(
    moment: datetime, layout: str, around: str
) -> None:
    expected = moment.replace(
        second=moment.second if "%S" in layout else 0,
        minute=moment.minute if "%M" in layout else 0,
        hour=moment.hour if "%H" in layout else 0,
    )
    assert UTC_ZONE.read_typed(f"{around}{moment.strftime(layout)}{around}") == expected
