"""A screen follows a history that changed, told by whichever read found it (the client's history listeners).

Another seat records a match played before the group's latest ones (the embedded service places it at its
date and numbers the later matches one up). A player's page shown at this seat is not a live screen (the
live probe runs on the list screens), and it drew its chart from the standings after the player's matches.
When a read elsewhere in the app brings the held matches up to date (the match form reading what a match did,
the scoreboard, the matches screen), the client tells the app, and the page shown draws again: its matches
and its chart are those of the history as it is now.
"""

from __future__ import annotations

from dataclasses import replace

from rankterm.mirror import Group
from rankterm.stats.compact import player_matches
from rankterm.stats.effect import MatchEffect, PlayerEffect
from rankterm.stats.history import player_history
from rankterm.tui.widgets.match_form.answer import effect_text
from rankterm.tui.widgets.stats.player_story import MAX_POINTS, PlayerStory
from rankterm.wire.models import NewFaction, NewMatch, Weight

from .pilot import settle
from .test_stats_pages import open_leaders_page


async def test_a_players_page_draws_again_when_a_read_elsewhere_finds_the_history_changed(
    make_app, demo_service, demo_client
):
    async with make_app().run_test(size=(100, 40)) as pilot:
        page = await open_leaders_page(pilot)
        story = page.query_one(PlayerStory)
        leader = page.player_id
        assert story.history is not None and story.history.complete
        drawn = story.history.points
        numbers = [m.number for m in page.matches]

        other = demo_service.client()
        seat = pilot.app.group  # the seat's group: its mirror is the page's
        held = {m.number: m for m in seat.cached_matches()}
        rival = next(p.id for p in await Group.of(other).players() if p.id != leader)
        catan = next(g.id for g in await Group.of(other).games() if g.name == "Catan")
        played_earlier = NewMatch(
            game=catan,
            weight=Weight.NORMAL,
            external_id="played-earlier",
            date=held[numbers[len(numbers) // 2]].date,  # among the leader's matches, before half of them
            factions=[NewFaction(players=[rival], rank=1), NewFaction(players=[leader], rank=2)],
        )
        assert (await other.add_matches(played_earlier)).accepted_count == 1

        await seat.sync_matches()  # a read elsewhere (the form's effect, the board) finds it
        await settle(pilot)
        await settle(pilot)

        now = player_matches(seat, leader)
        assert [m.number for m in page.matches] == [m.number for m in now] != numbers
        assert "played-earlier" in {m.external_id for m in page.matches}
        fresh = await player_history(Group(demo_service.client()), leader, max_points=MAX_POINTS)
        assert story.history is not None and story.history.points == fresh.points != drawn
        await other.aclose()


def test_the_forms_line_for_a_match_played_before_others_says_so():
    ada = PlayerEffect(
        "a", "Ada", rank=1, ree_after=2010.0, position_after=1, ree_before=2000.0, position_before=2
    )
    placed = MatchEffect(number=12, subset=None, game="Catan", date="", players=(ada,), later=3)
    assert effect_text(placed) == "Match 12, played before 3 later matches · Ada +10 (2→1)"
    assert effect_text(replace(placed, later=0)) == "Match 12 · Ada +10 (2→1)"
