"""Odds: how often the odds came true, the body of the Stats mode's Odds tab.

Every held match predicted from the ratings before it (`rankterm.stats.predictions`: the table's model, no
look-ahead), scored in a thread: how often the favourite finished first, how many pairs the odds ordered
right and the Brier score, each beside picking at random and beside openskill's own `predict_win` over the
same ratings; over every match and over the last 50. The ratings are rankterm's estimate (the embedded
service's rules over the held history), which the summary says.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from rankterm.stats.predictions import Scores, scores_whole_and_last
from rankterm.stats.source import held_matches, kept_out_of_collections
from rankterm.tui.base import task
from rankterm.tui.text import plain
from rankterm.tui.widgets.text_table import TextTable
from rankterm.wire.shown import percent

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rankterm.mirror import Group
    from rankterm.wire.models import Match

RECENT = 50
"""The recent matches scored on their own, beside the whole history."""


def score_rows(scores: Scores) -> list[list[str]]:
    """The table's rows for one set of scores: rankterm, by chance, openskill."""
    return [
        [
            "favourite won",
            percent(scores.winner_picked),
            percent(scores.baseline),
            percent(scores.openskill_winner_picked),
        ],
        ["pairs in order", percent(scores.pairwise), "50%", ""],
        [
            "Brier (lower better)",
            f"{scores.brier:.3f}",
            f"{scores.baseline_brier:.3f}",
            f"{scores.openskill_brier:.3f}",
        ],
    ]


class OddsView(Vertical):
    """A summary line and one table: every match, then the last `RECENT`."""

    DEFAULT_CSS = """
    OddsView { height: 1fr; padding: 0 1; }
    OddsView #od-summary { height: auto; margin-bottom: 1; }
    OddsView DataTable { height: 1fr; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._shown_for: object = None

    def compose(self) -> ComposeResult:
        yield Static("Scoring every match from the ratings before it…", id="od-summary")
        yield TextTable(id="od-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one("#od-table", DataTable)
        table.add_columns("", "rankterm", "by chance", "openskill")

    def show(self, key: object, group: Group) -> None:
        """Score the held matches (again only when they changed: `key`)."""
        if key != self._shown_for:
            self._shown_for = key
            self.score(group)

    @task(group="stats-odds")  # scores: see `scored`
    async def score(self, group: Group) -> None:
        matches = await asyncio.to_thread(held_matches, group)
        whole, recent = await asyncio.to_thread(scored, matches)
        summary = self.query_one("#od-summary", Static)
        if not whole.matches:
            summary.update(plain("No match to score yet: the odds are judged from the second match on."))
            return
        summary.update(
            plain(
                f"{whole.matches:,} matches, each predicted from the ratings before it "
                "(rankterm's estimate: the embedded service's rules over the held history)."
            )
        )
        table = self.query_one("#od-table", DataTable)
        table.clear()
        table.add_row(f"all {whole.matches:,} matches", "", "", "")
        for row in score_rows(whole):
            table.add_row(*row)
        if whole.matches > RECENT:
            table.add_row(f"the last {recent.matches}", "", "", "")
            for row in score_rows(recent):
                table.add_row(*row)


def scored(matches: Sequence[Match]) -> tuple[Scores, Scores]:
    """The scores of every match and of the last `RECENT`, from one replay of the history, run with the cyclic
    collector paused in a big group (it rates every match once more: millions of short-lived objects, and each
    full collection they set off holds the GIL, the event loop frozen with it;
    `source.kept_out_of_collections`)."""
    with kept_out_of_collections(len(matches)):
        return scores_whole_and_last(matches, RECENT)
