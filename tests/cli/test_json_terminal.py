"""JSON on a terminal: a name holding bidi controls, C1 controls or a line separator is printed with those
characters as \\u escapes, so the terminal cannot turn the rest of the line around, and the JSON still reads
back to the same name; to a pipe the text is UTF-8 as it is. Run through `main([...])` against the embedded
service on a real socket."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankterm.cli import main
from rankterm.server.store import Store
from tests.cli.conftest import league_profile

TURNED = "Ada\u202e\u2066nimda\u2069\u200f"
C1 = "Ben\x9b2J\x85x"
RAW = ("\u202e", "\u2066", "\u2069", "\u200f", "\x9b", "\x85")


@pytest.fixture(autouse=True)
def league(isolated: Path) -> Iterator[None]:
    store = Store(isolated / "service.db")
    group = store.create_group("League")
    key, secret = store.create_client(group)
    first, second = store.create_player(group, TURNED), store.create_player(group, C1)
    game = store.create_game(group, name="Catan")
    body = {
        "game": game.id,
        "weight": "normal",
        "factions": [{"players": [first.id], "rank": 1}, {"players": [second.id], "rank": 2}],
    }
    assert store.add_matches(group, [body]).accepted_count == 1
    with league_profile(isolated, store, key, secret):
        yield


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tty: bool, *argv: str) -> str:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return out


def names_in(out: str, fmt: str) -> set[str]:
    """The two players' names among the strings of the printed JSON, read back."""
    found: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str):
            found.update(name for name in ("*" + TURNED, "*" + C1) if name in value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk([json.loads(line) for line in out.split("\n") if line] if fmt == "jsonl" else json.loads(out))
    return found


COMMANDS = [
    ("players", "--format", "json"),
    ("matches", "--format", "json"),
    ("matches", "--format", "jsonl"),
    ("rankings", "--format", "json"),
    ("stats", "h2h", "*" + TURNED, "--format", "json"),
]


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: "-".join(a[:1] + a[-1:]))
def test_json_on_a_terminal_escapes_what_would_turn_the_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]
) -> None:
    out = run(capsys, monkeypatch, True, *argv)
    assert not [c for c in RAW if c in out], out
    assert "\\u202e" in out
    assert names_in(out, argv[-1]) == {"*" + TURNED, "*" + C1}  # the same value, read back


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda a: "-".join(a[:1] + a[-1:]))
def test_json_to_a_pipe_is_utf8_as_it_is(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]
) -> None:
    out = run(capsys, monkeypatch, False, *argv)
    assert "\u202e" in out and "\\u202e" not in out
    assert names_in(out, argv[-1]) == {"*" + TURNED, "*" + C1}
