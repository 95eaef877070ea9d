"""The seats of a table share one outbox file: each entry is marked with the guest seat that queued it, and a
guest seat discards only its own (a match or a ghost); the host's own app, unmarked, discards any."""

from __future__ import annotations

from pathlib import Path

import pytest

from rankterm.outbox.outbox import NOT_THIS_SEATS, Outbox
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
        assert [ben.may_discard(e) for e in ben.entries()] == [False, True, True, False]

        ben.discard("ben-1")
        ada.discard_ghost(ghost.local_id)
        host.discard(adas.external_id)  # the host's own app: any entry
        assert [e.external_id for e in host.entries()] == [bens[1].external_id, hosts.external_id]
        assert host.ghosts() == []
    finally:
        for box in (ada, ben, host):
            box.close()


def test_an_edit_keeps_the_seat_that_queued_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    ada, ben = Outbox(path, SCOPE, seat="ada"), Outbox(path, SCOPE, seat="ben")
    try:
        entry = ada.add(a_match())
        ada.mark_rejected(entry.external_id, [])
        fixed = ben.edit(entry.external_id, a_match())
        assert fixed.seat == "ada"
        with pytest.raises(ValueError, match=NOT_THIS_SEATS):
            ben.discard(fixed.external_id)
    finally:
        ada.close()
        ben.close()
