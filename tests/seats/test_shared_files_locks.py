"""The seats' shared files (the outbox, the drafts) opened twice in one process, and read by another seat's
process meanwhile, keep their write-ahead log: what the first process writes after is in the file every seat
reads.

Before, each opening opened and closed the file once more, which drops every POSIX lock the process held on
it (its connections' too): the next seat to close the file found it unlocked, checkpointed it and deleted the
log the first process was still writing to, and the entries it queued after were in a deleted file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rankterm.outbox.outbox import Outbox
from rankterm.wire.models import NewFaction, NewMatch

SCOPE = "http://demo.rankterm/|demo"
OTHER_SEAT = (
    "import sys; from rankterm.outbox.outbox import Outbox; o = Outbox(sys.argv[1], {scope!r}, seat='other');"
    " print(','.join(e.external_id for e in o.entries())); o.close()"
)


def other_seat_reads(path: Path) -> str:
    """The external ids another seat's process reads from the outbox (opened, read and closed)."""
    done = subprocess.run(
        [sys.executable, "-c", OTHER_SEAT.format(scope=SCOPE), str(path)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def a_match(external_id: str) -> NewMatch:
    return NewMatch(
        game=1, weight="normal", external_id=external_id, factions=[NewFaction(players=["1"], rank=1)]
    )


def test_an_outbox_opened_twice_in_one_seat_keeps_its_log_when_another_seat_reads(tmp_path: Path) -> None:
    path = tmp_path / "outbox.db"
    Outbox(path, SCOPE, seat="mine").close()  # the file is there, as on any evening but the first
    mine, again = Outbox(path, SCOPE, seat="mine"), Outbox(path, SCOPE, seat="mine")
    try:
        mine.add(a_match("mine-1"))
        assert other_seat_reads(path) == "mine-1"
        assert (tmp_path / "outbox.db-wal").exists()
        mine.add(a_match("mine-2"))
        assert other_seat_reads(path) == "mine-1,mine-2"
    finally:
        mine.close()
        again.close()
