"""Times for people in the seat's time zone: `rankterm matches` (and the other tables) print the service's UTC
dates as the `timezone` setting, else this machine's zone (`TZ`), reads them, and name the zone in the header;
`--format json` and `--format csv` keep the wire's UTC. A `timezone` that is no zone stops the command with
one line naming the setting (exit 2)."""

from __future__ import annotations

import csv
import io
import json
import time
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from rankterm import config as cfg
from rankterm.cli import main

AUCKLAND = ZoneInfo("Pacific/Auckland")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def in_auckland(wire_date: str) -> str:
    """A wire date (naive UTC) as a wall clock in Auckland reads it, to the minute."""
    moment = datetime.strptime(wire_date, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    return moment.astimezone(AUCKLAND).strftime("%Y-%m-%d %H:%M")


def wire_dates(capsys: pytest.CaptureFixture[str]) -> list[tuple[int, str]]:
    code, out, err = run(capsys, "matches", "--demo", "--page", "1", "--format", "json")
    assert (code, err) == (0, "")
    return [(m["number"], m["date"]) for m in json.loads(out)["data"]]


def table_dates(capsys: pytest.CaptureFixture[str]) -> tuple[str, list[tuple[int, str]]]:
    """The header of the date column and each match's date, from the table as piped (tab-separated)."""
    code, out, err = run(capsys, "matches", "--demo", "--page", "1")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("# Matches")
    header = lines[1].split("\t")
    rows = [line.split("\t") for line in lines[2:]]
    return header[1], [(int(row[0]), row[1]) for row in rows]


def test_the_table_shows_the_configured_zone_and_json_and_csv_keep_utc(capsys, monkeypatch):
    cfg.save_config(cfg.Config(timezone="Pacific/Auckland"))  # --demo takes the top-level setting
    wire = wire_dates(capsys)
    assert wire and all(len(date) == 19 for _, date in wire)
    heading, shown = table_dates(capsys)
    assert heading == "date (Auckland)"
    assert shown == [(number, in_auckland(date)) for number, date in wire]
    assert any(date[:16] != in_auckland(date) for _, date in wire)  # not UTC under another name
    code, out, err = run(capsys, "matches", "--demo", "--page", "1", "--format", "csv")
    assert (code, err) == (0, "")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(int(r["number"]), r["date"]) for r in rows] == wire  # CSV: the wire's UTC, to the second


def test_without_a_setting_the_machines_zone_is_shown(capsys, monkeypatch):
    wire = wire_dates(capsys)
    monkeypatch.setenv("TZ", "Pacific/Auckland")
    time.tzset()
    try:
        heading, shown = table_dates(capsys)
        again = wire_dates(capsys)
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()
    assert heading == "date (Auckland)"
    assert shown == [(number, in_auckland(date)) for number, date in wire]
    assert again == wire  # JSON is the same whatever the zone


def test_utc_is_named_too(capsys):
    heading, shown = table_dates(capsys)
    assert heading == "date (UTC)"
    assert shown == [(number, date[:16]) for number, date in wire_dates(capsys)]


def test_a_profiles_zone_comes_before_the_top_level_one(capsys, monkeypatch, tmp_path):
    from rankterm.cli.common import shown_zone

    cfg.save_config(
        cfg.Config(
            timezone="Europe/Paris",
            default_profile="room",
            profiles={"room": cfg.Profile(base_url="http://127.0.0.1:9/", timezone="Pacific/Auckland")},
        )
    )
    import argparse

    assert shown_zone(argparse.Namespace(profile=None, demo=False)).label == "Auckland"
    assert shown_zone(argparse.Namespace(profile=None, demo=True)).label == "Paris"


def test_stats_tonight_reads_since_in_the_seats_zone(capsys):
    cfg.save_config(cfg.Config(timezone="Pacific/Auckland"))
    code, out, err = run(capsys, "stats", "tonight", "--demo", "--format", "json", "--quota-share", "0",
                         "--since", "2026-01-01 12:00")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["since"] == "2025-12-31T23:00:00"  # noon in Auckland (NZDT, UTC+13), as UTC
    code, out, err = run(capsys, "stats", "tonight", "--demo", "--format", "json", "--quota-share", "0",
                         "--since", "2026-01-01 12:00 UTC")  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["since"] == "2026-01-01T12:00:00"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("timezone = 'Mars/Olympus'\n", "timezone: 'Mars/Olympus' is not a time zone: give a zoneinfo name"),
        (
            "[profiles.room]\nbase_url = 'http://127.0.0.1:9/'\ntimezone = 'Europe/Pariss'\n",
            "profiles.room.timezone: 'Europe/Pariss' is not a time zone",
        ),
    ],
)
def test_a_zone_that_is_none_stops_the_command_in_one_line(capsys, isolated, text, expected):
    path = isolated / "config" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    code, out, err = run(capsys, "matches", "--demo", "--page", "1")
    assert code == 2 and out == ""
    assert err.startswith(f"rankterm: {path}: ") and expected in err and err.count("\n") == 1
