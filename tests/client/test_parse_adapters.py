"""The client parses a list answer (``list[Game]``, ``list[Match]``) through one validator per type for the
process: building one compiles the type's whole schema (about 12 ms for ``list[Match]``, once per page of a
sync before), and the answer is the same, under either display rule, with the same error for a bad one."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter

from rankterm.client.client import RankingClient
from rankterm.wire import adapters
from rankterm.wire.adapters import type_adapter
from rankterm.wire.errors import UnexpectedResponse
from rankterm.wire.models import Game, Match


@pytest.fixture
def built(monkeypatch) -> list[object]:
    """The types a validator was built for from now on (a fresh cache)."""
    seen: list[object] = []

    def counting(model: object) -> TypeAdapter[object]:
        seen.append(model)
        return TypeAdapter(model)

    type_adapter.cache_clear()
    monkeypatch.setattr(adapters, "TypeAdapter", counting)
    yield seen
    type_adapter.cache_clear()


def test_a_list_type_is_compiled_once_for_every_answer(built):
    client = RankingClient("http://parse.rankterm/", key="k", secret="s")
    first = client.parse("games", list[Game], [{"id": 1, "name": "Azul"}])
    again = client.parse("games", list[Game], [{"id": 2, "name": "Ra"}, {"id": "3", "name": 7}])
    client.parse("matches", list[Match], [])
    client.parse("matches", list[Match], [])
    assert [g.name for g in first] == ["Azul"]
    assert [(g.id, g.name) for g in again] == [(2, "Ra"), (3, "7")]
    assert built == [list[Game], list[Match]]


def test_the_kept_validator_follows_each_clients_display_rule(built):
    raw, safe = (RankingClient("http://parse.rankterm/", key="k", secret="s") for _ in range(2))
    safe.display_safe = True
    name = "Az\x1b[2Jul\nnight"
    (shown,) = safe.parse("games", list[Game], [{"id": 1, "name": name}])
    (kept,) = raw.parse("games", list[Game], [{"id": 1, "name": name}])
    assert kept.name == name  # as sent
    assert "\x1b" not in shown.name and "\n" not in shown.name
    assert len(built) == 1


def test_a_bad_answer_is_still_named_after_its_endpoint(built):
    client = RankingClient("http://parse.rankterm/", key="k", secret="s")
    client.parse("games", list[Game], [])
    with pytest.raises(UnexpectedResponse, match="games popular"):
        client.parse("games popular", list[Game], [{"id": "not a number", "name": "x"}])
    assert len(built) == 1
