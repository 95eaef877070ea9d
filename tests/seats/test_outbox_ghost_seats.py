"""The seat rules where a seat's ghost and another seat's matches meet in the shared outbox: a guest that
discards its own ghost must not reject another seat's unsent matches naming it, an external id that is a
ghost's local id is refused in one sentence (not a crash), and another seat's rejected ghost is retried as it
is."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankterm.outbox.outbox import NAMED_AT_OTHER_SEATS, Outbox, State
from rankterm.wire.errors import RanktermError
from rankterm.wire.models import NewFaction, NewMatch

SCOPE = "http://demo.rankterm/|demo"


def a_match(external_id: str = "", player: str = "1") -> NewMatch:
    return NewMatch(
        game=1,
        weight="normal",
        external_id=external_id or None,
        factions=[NewFaction(players=[player], rank=1), NewFaction(players=["2"], rank=2)],
    )


@pytest.fixture
def seats(tmp_path: Path):
    path = tmp_path / "outbox.db"
    boxes = Outbox(path, SCOPE, seat="ada"), Outbox(path, SCOPE, seat="ben"), Outbox(path, SCOPE)
    yield boxes
    for box in boxes:
        box.close()


def test_a_guest_cannot_discard_its_ghost_from_under_another_seats_match(seats) -> None:
    ada, ben, host = seats
    ghost = ada.add_ghost("Zed")
    ben.add(
        a_match("ben-1", player=ghost.local_id)
    )  # ben's form offers the queued ghost: the outbox is shared

    with pytest.raises(ValueError, match=NAMED_AT_OTHER_SEATS):
        ada.discard_ghost(ghost.local_id)
    bens = ben.get("ben-1")
    assert bens is not None and bens.state is State.PENDING and bens.errors == ()
    assert ada.get_ghost(ghost.local_id) is not None

    # ada's own matches naming it do not stop her; the host's own app may discard it whoever it strands
    ada.add(a_match("ada-1", player=ghost.local_id))
    assert host.discard_ghost(ghost.local_id) == ["ben-1", "ada-1"]


def test_a_guest_cannot_rename_its_ghost_under_another_seats_match(seats) -> None:
    ada, ben, host = seats
    ghost = ada.add_ghost("Zed")
    ada.mark_ghost_rejected(ghost.local_id, [])
    ada.rename_ghost(ghost.local_id, "Zed K.")  # named by no match yet: hers to fix
    ben.add(a_match("ben-1", player=ghost.local_id))

    with pytest.raises(ValueError, match=NAMED_AT_OTHER_SEATS):
        ada.rename_ghost(ghost.local_id, "Mallory")  # ben's match would name another person
    assert ada.get_ghost(ghost.local_id).name == "Zed K."  # type: ignore[union-attr]
    assert host.rename_ghost(ghost.local_id, "Zed Kay").name == "Zed Kay"  # the host's own app may


def test_a_guest_discards_its_ghost_when_only_its_own_matches_name_it(seats) -> None:
    ada, _ben, _host = seats
    ghost = ada.add_ghost("Zed")
    ada.add(a_match("ada-1", player=ghost.local_id))
    assert ada.discard_ghost(ghost.local_id) == ["ada-1"]
    assert ada.get("ada-1").state is State.REJECTED  # type: ignore[union-attr]


def test_an_external_id_that_is_a_ghosts_local_id_is_refused_in_one_sentence(seats) -> None:
    ada, ben, _host = seats
    ghost = ada.add_ghost("Zed")
    with pytest.raises(RanktermError, match="is a ghost player's in the outbox: use a new external id"):
        ben.put([a_match(ghost.local_id)])
    ben.add(a_match("ben-1"))
    ben.mark_rejected("ben-1", [])
    with pytest.raises(ValueError, match="already in the outbox"):
        ben.edit("ben-1", a_match(ghost.local_id))
    assert [e.external_id for e in ben.entries()] == ["ben-1"]
    assert ada.get_ghost(ghost.local_id).name == "Zed"  # type: ignore[union-attr]


def test_another_seats_rejected_ghost_is_retried_as_it_is(seats) -> None:
    ada, ben, _host = seats
    ghost = ada.add_ghost("Zed")
    ada.mark_ghost_rejected(ghost.local_id, [])
    ben.retry_ghost(ghost.local_id)
    retried = ada.get_ghost(ghost.local_id)
    assert retried is not None and retried.state is State.PENDING and retried.name == "Zed"
    assert retried.seat == "ada"
