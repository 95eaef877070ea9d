"""CSV on a terminal: names from the service with ESC/BEL/OSC sequences are shown as symbols (the table
format's `display_safe`), so they cannot retitle or clear the terminal of whoever runs the command; to a
pipe or file CSV stays byte-exact (an export must round-trip). Run through `main([...])` against the
embedded service on a real socket."""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankterm.cli import main
from rankterm.server.store import Store
from tests.cli.conftest import league_profile

TITLE = "\x1b]0;pwned\x07Title"
CLEAR = "Esc\x1b[2JGame"
SHOWN = {"*␛]0;pwned␇Title", "*Esc␛[2JGame"}


@pytest.fixture(autouse=True)
def league(isolated: Path) -> Iterator[None]:
    """A profile `league` (the only one) on the embedded service, two players with escape codes, a match."""
    store = Store(isolated / "service.db")
    group = store.create_group("League")
    key, secret = store.create_client(group)
    first, second = store.create_player(group, TITLE), store.create_player(group, CLEAR)
    game = store.create_game(group, name=CLEAR)
    body = {
        "game": game.id,
        "weight": "normal",
        "factions": [{"players": [first.id], "rank": 1}, {"players": [second.id], "rank": 2}],
    }
    assert store.add_matches(group, [body]).accepted_count == 1
    with league_profile(isolated, store, key, secret):
        yield


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tty: bool, *argv: str) -> str:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)  # capsys's stdout, as a pty would answer
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out


COMMANDS = [
    ("players", "--format", "csv"),
    ("matches", "--format", "csv"),
    ("export", "-", "--format", "csv"),
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_csv_on_a_terminal_shows_escape_codes_as_symbols(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]
) -> None:
    out = run(capsys, monkeypatch, True, *argv)
    assert "\x1b" not in out and "\x07" not in out
    assert "␛]0;pwned␇Title" in out and "Esc␛[2JGame" in out
    assert len(list(csv.reader(io.StringIO(out)))) > 1  # still CSV, one row a line


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: a[0])
def test_csv_to_a_pipe_stays_byte_exact(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]
) -> None:
    out = run(capsys, monkeypatch, False, *argv)
    assert TITLE in out and CLEAR in out and "␛" not in out
    if argv[0] == "players":
        names = {row["name"] for row in csv.DictReader(io.StringIO(out))}
        assert {n.replace("\x1b", "␛").replace("\x07", "␇") for n in names} == SHOWN
