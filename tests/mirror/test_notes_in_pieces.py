"""A note of megabytes read in pieces (`Notes.get_in_pieces`, `items`, `field`): the same value `get` gives,
with no single parse of the whole text (it would hold the GIL, and the app's event loop with it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rankterm.mirror import Mirror, notes

STORY_LIKE: dict[str, Any] = {
    "key": [100, 100, 0, True],
    "story": {
        "rules": "openskill; weights [('heavy', 1.5)]",
        "names": {f"p{i}": f'Player «{i}» "quoted"' for i in range(300)},
        "rivalries": {
            f"p{i}": {f"p{j}": [j, i * 0.5, j % 2 == 0, None] for j in range(40)} for i in range(300)
        },
        "odd keys": {"a.b": 1, "$[0]": 2, 'x"y': 3, "": 4, "ünï": -2.5e-7},
        "flags": [True, False, None, 0, 1, 1.0, "", []],
        "walked": 100,
    },
}


@pytest.fixture
def kept(tmp_path: Path) -> Mirror:
    mirror = Mirror(tmp_path / "mirror.db", "https://x.test/|k")
    mirror.notes.set("story", STORY_LIKE)
    mirror.notes.set(
        "events", {"key": [3, 3], "events": [["won", n, f"2026-0{n}-01 20:00:00"] for n in range(1, 8)]}
    )
    mirror.notes.set("small", {"a": [1, 2]})
    mirror.notes.set("broken", None)
    return mirror


def parses_of(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text the notes module parses with `json.loads`."""
    seen: list[int] = []
    real = json.loads

    def spy(text: str, *args: Any, **kwargs: Any) -> Any:
        seen.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(notes.json, "loads", spy)
    return seen


def test_a_big_note_read_in_pieces_is_the_same_value_and_never_parsed_whole(
    kept: Mirror, monkeypatch
) -> None:
    whole = len(json.dumps(STORY_LIKE))
    monkeypatch.setattr(notes, "PIECE", 4096)
    assert whole > 40 * notes.PIECE
    seen = parses_of(monkeypatch)
    value = kept.notes.get_in_pieces("story")
    assert value == STORY_LIKE
    assert list(value["story"]) == list(STORY_LIKE["story"])  # the keys in their order
    assert seen and max(seen) <= notes.PIECE
    seen.clear()
    assert kept.notes.get("story") == STORY_LIKE
    assert seen == [
        len(json.dumps(STORY_LIKE, separators=(",", ":"), ensure_ascii=False))
    ]  # as before: whole


def test_a_small_or_missing_note_reads_as_get_does(kept: Mirror) -> None:
    assert kept.notes.get_in_pieces("small") == {"a": [1, 2]}
    assert kept.notes.get_in_pieces("nothing") is None
    kept.file.db.execute("INSERT OR REPLACE INTO meta VALUES ('note:bad', '{not json')")
    assert kept.notes.get_in_pieces("bad") is None and kept.notes.get("bad") is None


def test_items_are_picked_by_sqlite_and_parsed_one_by_one(kept: Mirror, monkeypatch) -> None:
    seen = parses_of(monkeypatch)
    assert kept.notes.items("events", "events", at=2, at_least="2026-05-01") == [
        ["won", n, f"2026-0{n}-01 20:00:00"] for n in (5, 6, 7)
    ]
    assert len(seen) == 3 and max(seen) < 40  # the chosen rows alone
    assert len(kept.notes.items("events", "events") or []) == 7
    assert kept.notes.items("small", "a") == [1, 2]
    assert kept.notes.items("story", "story") is None  # an object, not an array
    assert kept.notes.items("events", "missing") is None
    assert kept.notes.items("nothing", "events") is None
    assert kept.notes.field("events", "key") == [3, 3]
    assert kept.notes.field("events", "missing") is None
    assert kept.notes.field("story", "key") == [100, 100, 0, True]
    with pytest.raises(ValueError):
        kept.notes.items("events", "events') --")
