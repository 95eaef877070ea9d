"""Drafts of several seats of one group: each seat writes only its own, so one seat's queue is never
overwritten by another's typing; a seat that is gone leaves its draft to be adopted by exactly one next seat,
and the adopted file goes once the adopter has kept it in its own."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from rankterm.tui.widgets.match_form.draft import Draft, DraftFile, read_draft
from rankterm.wire.models import NewFaction, NewMatch

NOW = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)


def queued(external_id: str) -> tuple[NewMatch, str]:
    match = NewMatch(
        game=1,
        weight="normal",
        external_id=external_id,
        factions=[NewFaction(rank=1, players=["a"]), NewFaction(rank=2, players=["b"])],
    )
    return match, f"Catan {external_id}"


def test_a_seats_queue_is_not_overwritten_by_another_seats_typing(tmp_path: Path) -> None:
    group = tmp_path / "drafts" / "service-0123.json"
    first, second = DraftFile(group), DraftFile(group)
    first.save(Draft(NOW, {"game": "Catan"}, [queued("rt-1")]))
    second.save(Draft(NOW, {"game": "Tichu"}, []))
    kept = first.read()
    assert kept is not None and [m.external_id for m, _ in kept.queue] == ["rt-1"]
    assert second.load() is None  # the first seat is still there: its draft is nobody else's


def test_a_gone_seats_draft_is_adopted_by_one_seat_and_removed_once_kept(tmp_path: Path) -> None:
    group = tmp_path / "drafts" / "service-0123.json"
    gone = DraftFile(group)
    gone.save(Draft(NOW, {"game": "Catan"}, [queued("rt-1")]))
    gone.close()  # as when its process ends, however it ends
    adopter, other = DraftFile(group), DraftFile(group)
    adopted = adopter.load()
    assert adopted is not None and [m.external_id for m, _ in adopted.queue] == ["rt-1"]
    assert other.load() is None  # taken: offered to one seat only
    assert gone.path.exists()  # until the adopter has kept it
    adopter.save(Draft(NOW, None, adopted.queue))
    assert not gone.path.exists()
    kept = read_draft(adopter.path)
    assert kept is not None and [m.external_id for m, _ in kept.queue] == ["rt-1"]


def test_an_adopter_that_dies_before_keeping_it_leaves_it_for_the_next(tmp_path: Path) -> None:
    group = tmp_path / "drafts" / "service-0123.json"
    gone = DraftFile(group)
    gone.save(Draft(NOW, {"game": "Catan"}, [queued("rt-1")]))
    gone.close()
    adopter = DraftFile(group)
    assert adopter.load() is not None
    adopter.close()  # its process ends before it kept what it adopted
    assert DraftFile(group).load() is not None


def test_a_draft_of_an_older_rankterm_one_file_for_the_group_is_adopted(tmp_path: Path) -> None:
    group = tmp_path / "drafts" / "service-0123.json"
    group.parent.mkdir(parents=True)
    group.write_text('{"saved_at": "2026-11-27T20:00:00+00:00", "form": {"game": "Catan"}}', encoding="utf-8")
    seat = DraftFile(group)
    kept = seat.load()
    assert kept is not None and kept.form == {"game": "Catan"}
    seat.drop()
    assert not group.exists()
