"""The seats of a table share one outbox file: each entry is marked with the guest seat that queued it, and a
guest seat edits, renames and discards only its own (a match or a ghost), also when the form is given another
seat's external id; it may retry another's as it is. The host's own app, unmarked, changes any."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankterm.outbox.outbox import NOT_THIS_SEATS, Outbox
from rankterm.wire.errors import RanktermError
from rankterm.wire.models import NewFaction, NewMatch

SCOPE = "http://demo.rankterm/|demo"


def a_match(external_id: str = "") -> NewMatch:
    return NewMatch(
        game=1, weight="normal", external_id=external_id or None, factions=[NewFaction(players=["1"], rank=1)]
    )


def test_a_guest_seat_discards_only_the_entries_it_queued(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    ada, ben, host = Outbox(path, SCOPE, seat="ada"), Outbox(path, SCOPE, seat="ben"), Outbox(path, SCOPE)
    try:
        adas = ada.add(a_match())
        bens = ben.put([a_match("ben-1"), a_match()])
        hosts = host.add(a_match())
        ghost = ada.add_ghost("Max")
        assert (adas.seat, [e.seat for e in bens], hosts.seat, ghost.seat) == (
            "ada",
            ["ben", "ben"],
            "",
            "ada",
        )

        for external_id in (adas.external_id, hosts.external_id):
            with pytest.raises(ValueError, match=NOT_THIS_SEATS):
                ben.discard(external_id)
        with pytest.raises(ValueError, match=NOT_THIS_SEATS):
            ben.discard_ghost(ghost.local_id)
        assert ben.get(adas.external_id) is not None and ben.get_ghost(ghost.local_id) is not None
        assert [ben.may_change(e) for e in ben.entries()] == [False, True, True, False]

        ben.discard("ben-1")
        ada.discard_ghost(ghost.local_id)
        host.discard(adas.external_id)  # the host's own app: any entry
        assert [e.external_id for e in host.entries()] == [bens[1].external_id, hosts.external_id]
        assert host.ghosts() == []
    finally:
        for box in (ada, ben, host):
            box.close()


def test_a_guest_seat_changes_only_its_own_entries_and_retries_any(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    ada, ben = Outbox(path, SCOPE, seat="ada"), Outbox(path, SCOPE, seat="ben")
    try:
        entry = ada.add(a_match("ada-1"))
        ghost = ada.add_ghost("Max")
        ada.mark_rejected(entry.external_id, [])
        changed = a_match("ada-1").model_copy(update={"notes": "ben's"})
        with pytest.raises(ValueError, match=NOT_THIS_SEATS):
            ben.edit("ada-1", changed)
        with pytest.raises(RanktermError, match="queued at another seat"):
            ben.put([changed])  # the form, given ada's external id
        with pytest.raises(ValueError, match=NOT_THIS_SEATS):
            ben.rename_ghost(ghost.local_id, "Maxine")
        kept = ada.get("ada-1")
        assert kept is not None and kept.match == entry.match
        assert ada.get_ghost(ghost.local_id).name == "Max"  # type: ignore[union-attr]

        ben.retry("ada-1")  # as it is: rejected -> pending
        retried = ada.get("ada-1")
        assert retried is not None and retried.state.value == "pending" and retried.seat == "ada"
        fixed = ada.edit("ada-1", changed)  # its own seat may
        assert fixed.match.notes == "ben's" and fixed.seat == "ada"
    finally:
        ada.close()
        ben.close()
