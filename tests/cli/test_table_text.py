"""What the headless reads print for people: a name that breaks its line stays on its row (marked "⏎") in
tables, exact in JSON and CSV; a tie reads as one place; a page past the last is a usage error naming the last
page. Through `main([...])` against the embedded service on a real socket."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankterm.cli import main
from rankterm.server.store import Store
from tests.cli.conftest import league_profile

NAMES = {"Ni\nna": "*Ni⏎na", "Zed\u2028Two": "*Zed⏎Two", "Kai\r\nLee": "*Kai⏎Lee"}


@pytest.fixture(autouse=True)
def league(isolated: Path) -> Iterator[None]:
    """The only profile, `league`: three ghosts whose names break their line, and one match where the first
    two tie for first (5 points each) ahead of the third (2)."""
    store = Store(isolated / "service.db")
    group = store.create_group("League")
    key, secret = store.create_client(group)
    ni, zed, kai = (store.create_player(group, name) for name in NAMES)
    game = store.create_game(group, name="Catan")
    body = {
        "game": game.id,
        "weight": "normal",
        "factions": [
            {"players": [ni.id], "rank": 1, "points": "5"},
            {"players": [zed.id], "rank": 1, "points": "5"},
            {"players": [kai.id], "rank": 3, "points": "2"},
        ],
    }
    assert store.add_matches(group, [body]).accepted_count == 1
    with league_profile(isolated, store, key, secret):
        yield


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tty: bool, *argv: str):
    """`rankterm argv` with stdout a terminal (`tty`) or a pipe: (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_name_that_breaks_its_line_stays_on_its_row_in_every_table(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for tty in (False, True):
        code, out, err = run(capsys, monkeypatch, tty, "players")
        assert (code, err) == (0, "")
        lines = out.splitlines()
        for shown in NAMES.values():
            assert sum(shown in line for line in lines) == 1, (tty, shown)
        assert not any(line.strip().startswith(("na", "Two", "Lee")) for line in lines), tty  # no split row
        assert "\u2028" not in out and "\r" not in out
        code, out, err = run(capsys, monkeypatch, tty, "rankings")
        assert (code, err) == (0, "") and all(shown in out for shown in NAMES.values()), tty
        assert not any(line.strip().startswith(("na", "Two", "Lee")) for line in out.splitlines()), tty


def test_csv_keeps_the_names_exact_to_a_pipe_and_marks_them_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, False, "players", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert code == 0 and {f"*{name}" for name in NAMES} <= {row[1] for row in rows}
    code, out, _ = run(capsys, monkeypatch, True, "players", "--format", "csv")
    assert code == 0 and len(out.splitlines()) == 4  # the header and a line a player, as a table shows them
    assert {row[1] for row in csv.reader(io.StringIO(out))} >= set(NAMES.values())
    code, out, _ = run(capsys, monkeypatch, True, "players", "--format", "json")
    assert {p["displayName"] for p in json.loads(out)} == {f"*{name}" for name in NAMES}


def test_an_export_on_a_terminal_keeps_a_row_a_line_as_csv_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, True, "export", "-", "--format", "csv")
    records = list(csv.reader(io.StringIO(out)))
    assert code == 0 and len(records) == len(out.splitlines()) == 4  # the header and a row a player's side
    assert {row[5] for row in records[1:]} == set(NAMES.values())
    code, out, _ = run(capsys, monkeypatch, False, "export", "-", "--format", "csv")
    assert {row[5] for row in list(csv.reader(io.StringIO(out, newline="")))[1:]} == {f"*{n}" for n in NAMES}


def test_a_tie_is_one_place_in_the_result(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, third = "1. *Ni⏎na (5) = *Zed⏎Two (5)", "3. *Kai⏎Lee (2)"
    code, out, _ = run(capsys, monkeypatch, False, "matches")
    assert code == 0 and f"{first}  {third}" in out.splitlines()[-1]  # piped: the match on its one line
    code, out, _ = run(capsys, monkeypatch, True, "matches")
    lines = out.splitlines()
    assert code == 0 and any(first in line for line in lines) and any(third in line for line in lines)
    assert len([line for line in lines if "*" in line]) == 2  # a place a line, each name whole
    code, out, _ = run(capsys, monkeypatch, False, "matches", "--format", "csv")
    [row] = list(csv.DictReader(io.StringIO(out, newline="")))
    assert row["result"] == "1. *Ni\nna (5) = *Zed\u2028Two (5)  3. *Kai\r\nLee (2)"  # exact names


@pytest.mark.parametrize(
    ("command", "what"),
    [("matches", "matches"), ("players", "players"), ("rankings", "standings")],
)
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_a_page_past_the_last_exits_2_naming_the_last_page(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str, what: str, fmt: str
) -> None:
    code, out, err = run(capsys, monkeypatch, False, command, "--page", "99", "--format", fmt)
    assert (code, out) == (2, "")
    assert err == f"rankterm: There is no page 99 of the {what}: the last is page 1.\n"
    code, out, err = run(capsys, monkeypatch, False, command, "--page", "1", "--format", fmt)
    assert (code, err) == (0, "") and "*Kai" in out
