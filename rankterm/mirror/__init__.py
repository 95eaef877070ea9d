"""The group on disk and the reads through it: `Group` (what screens, stats and the CLI take), its `Mirror`
(one SQLite file per profile, in parts) and the typed records the stats rows are read as.
See docs/design/mirror.md.
"""

from rankterm.mirror.group import Group
from rankterm.mirror.held_history import HeldHistory
from rankterm.mirror.marks import MatchMark, match_marks
from rankterm.mirror.memo import Memo
from rankterm.mirror.mirror import Mirror
from rankterm.mirror.rankings import LAST, HeldPage
from rankterm.mirror.stat_rows import (
    GameCounts,
    GameRows,
    GameSeat,
    RosterGame,
    RosterPlayer,
    StatRoster,
    StatRow,
)

__all__ = [
    "LAST",
    "GameCounts",
    "GameRows",
    "GameSeat",
    "Group",
    "HeldHistory",
    "HeldPage",
    "MatchMark",
    "Memo",
    "Mirror",
    "RosterGame",
    "RosterPlayer",
    "StatRoster",
    "StatRow",
    "match_marks",
]
