"""Drafts of several seats of one group: each seat writes only its own, so one seat's queue is never
overwritten by another's typing; a seat that is gone leaves its draft to be adopted by exactly one next seat,
and the adopted file goes once the adopter has kept it in its own."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from rankterm.tui.widgets.match_form.draft import Draft, DraftFile
from rankterm.wire.models import NewFaction, NewMatch

NOW = datetime(2026, 11, 27, 20, 0, tzinfo=UTC)
LATER = NOW.replace(minute=5)


def queued(external_id: str) -> tuple[NewMatch, str]:
    match = NewMatch(
        game=1,
        weight="normal",
        external_id=external_id,
        factions=[NewFaction(rank=1, players=["a"]), NewFaction(rank=2, players=["b"])],
    )
    return match, f"Catan {external_id}"


def gone_seats(group: Path, *drafts: Draft) -> list[DraftFile]:
    """A seat for each of `drafts`, in turn, that saved it and is gone."""
    made = []
    for draft in drafts:
        seat = DraftFile(group)
        seat.save(draft)
        seat.close()
        made.append(seat)
    return made


def seats(drafts: DraftFile) -> set[str]:
    """The seats whose drafts of the group the file holds."""
    db = sqlite3.connect(drafts.path)
    try:
        return {row[0] for row in db.execute("SELECT seat FROM drafts WHERE grp = ?", (drafts.group.stem,))}
    finally:
        db.close()


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
    assert gone.seat in seats(adopter)  # until the adopter has kept it
    adopter.save(Draft(NOW, None, adopted.queue))
    assert seats(adopter) == {adopter.seat}
    kept = adopter.read()
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


def test_a_seats_json_draft_of_an_older_rankterm_is_adopted_and_removed_once_kept(tmp_path: Path) -> None:
    group = tmp_path / "drafts" / "service-0123.json"
    group.parent.mkdir(parents=True)
    old = group.with_name("service-0123.4242-abcdef.json")  # as the rankterm before the drafts' file wrote it
    match, label = queued("rt-9")
    old.write_text(
        json.dumps(
            {
                "saved_at": "2026-11-27T19:00:00+00:00",
                "form": {"game": "Tichu"},
                "queue": [{"match": match.to_wire(), "label": label}],
                "queue_only": False,
            }
        ),
        encoding="utf-8",
    )
    seat = DraftFile(group)
    kept = seat.load()
    assert kept is not None and kept.form == {"game": "Tichu"} and kept.queue == [(match, label)]
    assert DraftFile(group).load() is None  # adopted by one seat
    seat.save(Draft(NOW, kept.form, kept.queue))
    assert not old.exists()
    again = seat.read()
    assert again is not None and again.queue == [(match, label)]


def test_a_damaged_drafts_file_is_moved_aside_and_drafts_go_on(tmp_path: Path) -> None:
    group = tmp_path / "drafts" / "service-0123.json"
    group.parent.mkdir(parents=True)
    (group.parent / "drafts.db").write_bytes(b"not a database " * 100)
    seat = DraftFile(group)
    seat.save(Draft(NOW, {"game": "Catan"}, [queued("rt-1")]))
    assert seat.read() is not None
    assert [p.name.startswith("drafts.db.damaged-") for p in group.parent.glob("drafts.db.damaged-*")] == [
        True
    ]


def test_a_draft_of_an_older_rankterm_one_file_for_the_group_is_adopted(tmp_path: Path) -> None:
    group = tmp_path / "drafts" / "service-0123.json"
    group.parent.mkdir(parents=True)
    group.write_text('{"saved_at": "2026-11-27T20:00:00+00:00", "form": {"game": "Catan"}}', encoding="utf-8")
    seat = DraftFile(group)
    kept = seat.load()
    assert kept is not None and kept.form == {"game": "Catan"}
    seat.drop()
    assert not group.exists()


def test_every_gone_seats_queue_comes_back_with_the_newest_form_and_the_other_form_waits(
    tmp_path: Path,
) -> None:
    """Two seats gone: the older left a form and a queue, the newer a form alone. The next (not a guest)
    takes the older's queue and is offered the newer's form; once it has kept the queue, the older seat's
    form waits on disk, alone, for a later seat."""
    group = tmp_path / "drafts" / "service-0123.json"
    older, _ = gone_seats(
        group, Draft(NOW, {"game": "Catan"}, [queued("rt-1")]), Draft(LATER, {"game": "Tichu"}, [])
    )
    adopter = DraftFile(group)
    kept = adopter.load()
    assert kept is not None and kept.form == {"game": "Tichu"}
    assert [m.external_id for m, _ in kept.queue] == ["rt-1"]
    assert DraftFile(group).load() is None  # both held by the adopter until it has kept them
    adopter.save(Draft(LATER.replace(minute=6), None, kept.queue))
    assert seats(adopter) == {adopter.seat, older.seat}
    adopter.close()
    later = DraftFile(group)
    again = later.load()  # the adopter's queue (its seat gone too) and the older seat's form, alone
    assert again is not None and again.form == {"game": "Catan"}
    assert [m.external_id for m, _ in again.queue] == ["rt-1"]


def test_an_adopter_that_dies_before_keeping_a_queue_leaves_both_seats_whole(tmp_path: Path) -> None:
    group = tmp_path / "drafts" / "service-0123.json"
    older, newer = gone_seats(
        group,
        Draft(NOW, {"game": "Catan"}, [queued("rt-1")]),
        Draft(LATER, {"game": "Tichu"}, [queued("rt-2")]),
    )
    adopter = DraftFile(group)
    kept = adopter.load()
    assert kept is not None and [m.external_id for m, _ in kept.queue] == ["rt-1", "rt-2"]
    adopter.close()  # gone before it kept anything
    assert seats(adopter) == {older.seat, newer.seat}
    again = DraftFile(group).load()
    assert again is not None and again.form == {"game": "Tichu"}
    assert [m.external_id for m, _ in again.queue] == ["rt-1", "rt-2"]


def test_a_guest_seat_adopts_the_newest_draft_alone(tmp_path: Path) -> None:
    group = tmp_path / "drafts" / "service-0123.json"
    gone_seats(group, Draft(NOW, {"game": "Catan"}, [queued("rt-1")]), Draft(LATER, {"game": "Tichu"}, []))
    kept = DraftFile(group, keeps_adopted=True).load()
    assert kept is not None and kept.form == {"game": "Tichu"} and kept.queue == []
