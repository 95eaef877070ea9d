"""`periods_by` places a whole UTC day at once when the seat's clock keeps it in one period, and each match of
a day it splits on its own: the same periods as placing every match, in zones east and west and at half hours;
`period_choices` offers all time, the current periods, the named seasons, then the past back to the group's
first match, newest first."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rankterm.config import NamedSeason
from rankterm.stats.seasons import Period, containing, period_choices, period_matches, period_of, periods_by
from rankterm.wire.localtime import seat_zone
from rankterm.wire.models import Match

ZONES = ["UTC", "Pacific/Auckland", "America/Los_Angeles", "Asia/Kolkata", "Asia/Kathmandu"]


def match(number: int, when: datetime) -> Match:
    return Match(id=f"m{number}", number=number, date=f"{when:%Y-%m-%d %H:%M:%S}", factions=[])


moments = st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2026, 12, 31))


@given(when=st.lists(moments, min_size=1, max_size=40), zone_name=st.sampled_from(ZONES))
def test_periods_by_places_each_match_as_its_own_clock_does(when: list[datetime], zone_name: str) -> None:
    zone = seat_zone(zone_name)
    matches = [match(n, w) for n, w in enumerate(sorted(when), start=1)]
    for kind in ("month", "quarter", "year"):
        one_by_one = {
            containing(zone.from_wire(m.date).replace(tzinfo=None), kind).name  # type: ignore[union-attr]
            for m in matches
        }
        assert [p.name for p in periods_by(matches, kind, zone)] == sorted(
            one_by_one, key=lambda name: period_of(name).start
        )


@pytest.mark.parametrize("zone_name", ZONES)
def test_a_month_boundary_inside_a_utc_day(zone_name: str) -> None:
    zone = seat_zone(zone_name)
    first = datetime(2026, 3, 31, 0, 0)
    matches = [match(n, first + timedelta(minutes=15 * n)) for n in range(0, 96 * 2)]  # 31 Mar and 1 Apr UTC
    names = [p.name for p in periods_by(matches, "month", zone)]
    expected = sorted(
        {f"{zone.from_wire(m.date):%Y-%m}" for m in matches}  # type: ignore[str-format]
    )
    assert names == expected
    april = period_of("2026-04")
    assert [m.number for m in period_matches(matches, april, zone)] == [
        m.number for m in matches if april.holds(m, zone)
    ]


def test_what_a_picker_offers() -> None:
    autumn = NamedSeason("Autumn league", datetime(2025, 9, 1), datetime(2025, 12, 1))
    span = (datetime(2025, 11, 3, 20), datetime(2026, 5, 1))
    choices = period_choices(span, datetime(2026, 5, 28, 20), [autumn])
    assert [c.label for c in choices] == [
        "All time",
        "This month (2026-05)",
        "This quarter (2026-Q2)",
        "This year (2026)",
        "Autumn league",
        "2025",
        "2026-Q1",
        "2025-Q4",
        "2026-04",
        "2026-03",
        "2026-02",
        "2026-01",
        "2025-12",
        "2025-11",
    ]
    assert choices[0].period is None
    assert choices[4].period == Period("Autumn league", autumn.start, autumn.end)
    assert [c.label for c in period_choices(None, datetime(2026, 5, 28), [])][1:] == [
        "This month (2026-05)",
        "This quarter (2026-Q2)",
        "This year (2026)",
    ]
