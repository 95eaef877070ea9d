"""What an outbox entry keeps beside its match: the seat that queued it and the twins the person said it is not
("send anyway"). Both stay with the entry when the file is opened again, and when a damaged file is carried
into a clean one."""

from __future__ import annotations

from pathlib import Path

from rankterm.outbox.outbox import Outbox
from rankterm.outbox.twins import NotTwins, Twin
from tests.outbox.test_damaged_outbox import ENTRIES, match


def test_the_answers_stay_with_the_entry_when_the_file_is_opened_again(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    box = Outbox(path, "s")
    box.add(match(1))
    box.not_twin("m-001", number=313)
    box.not_twin("m-001", other="rt-0123456789ab")
    box.not_twin("m-001", number=313)  # said twice, kept once
    box.close()
    [entry] = Outbox(path, "s").entries()
    assert entry.not_twins == NotTwins((313,), ("rt-0123456789ab",))
    assert entry.not_twins.covers(Twin(313))
    assert entry.not_twins.covers(Twin(400, external_id="rt-0123456789ab"))
    assert not entry.not_twins.covers(Twin(314, external_id="rt-other"))


def test_a_damaged_file_carries_each_entry_with_its_seat_and_answers(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    box = Outbox(path, "s", seat="guest-a")
    box.add_many(match(i) for i in range(ENTRIES))
    box.not_twin("m-000", number=7)
    box.close()
    original = path.read_bytes()
    with open(path, "r+b") as f:
        f.truncate(len(original) // 2)
    reopened = Outbox(path, "s")
    carried = reopened.entries()
    assert reopened.problem and carried  # moved aside, and some entries carried
    assert {e.seat for e in carried} == {"guest-a"}  # still the guest's own: it may discard them
    first = next(e for e in carried if e.external_id == "m-000")
    assert first.not_twins.numbers == (7,)
