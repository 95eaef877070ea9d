"""The minute before a match on the form: the odds line follows the factions (the table's model's chances, a
co-op record against the game), and ctrl+b fills the factions with the fair teams chosen."""

from __future__ import annotations

from textual.widgets import DataTable, Static

from rankterm.mirror import Group
from rankterm.stats.before import before_match
from rankterm.stats.compact import game_matches
from rankterm.stats.held_model import held_model
from rankterm.stats.source import sync_group
from rankterm.stats.teams import fairest_splits
from rankterm.tui.dialogs.teams import TeamsDialog
from rankterm.tui.screens.match_entry import chance_text
from tests.tui.pilot import open_form, quick_fill, settle


def odds_text(screen) -> str:
    return str(screen.form.query_one("#odds-line", Static).render())


async def test_the_odds_line_is_the_models_chances_and_follows_the_form(make_app, demo_service) -> None:
    async with Group(demo_service.client()) as group:
        await sync_group(group, max_age=0)
        model = held_model(group)
        ids = {p.label: str(p.id) for p in await group.players()}
    async with make_app().run_test(size=(80, 24)) as pilot:
        await sync_group(pilot.app.group, max_age=0)  # the odds are the held matches' (the form reads none)
        screen = await open_form(pilot)
        await settle(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, ""), (["Ben", "Chiara"], 2, ""), (["Dev"], 3, "")])
        await settle(pilot)
        shown = odds_text(screen)
        said = before_match(
            model, [([ids["Ada"]], False), ([ids["Ben"], ids["Chiara"]], False), ([ids["Dev"]], False)]
        )
        assert said is not None
        expected = " · ".join(
            f"{n} {chance_text(c.chance)}"
            for n, c in zip(("Ada", "Ben+Chiara", "Dev"), said.chances, strict=True)
        )
        assert shown == f"Chances (rankterm's estimate): {expected}"
        screen.form.rows[2].fill()  # Dev's faction emptied: two factions left
        await settle(pilot)
        assert "Dev" not in odds_text(screen) and odds_text(screen).count("%") == 2
        screen.form.rows[1].fill()
        await settle(pilot)
        assert odds_text(screen) == ""  # one faction: nothing to say


async def test_a_coop_match_shows_the_groups_record_not_a_chance(make_app, demo_service) -> None:
    async with Group(demo_service.client()) as group:
        await sync_group(group, max_age=0)
        games = {g.name: g for g in await group.games()}
        pandemic = games["Pandemic"]
        held = game_matches(group, pandemic.id)
        teams = [
            sorted(p.label for f in m.factions if not f.bot for p in f.players)
            for m in held
            if any(f.bot for f in m.factions) and len(m.factions) == 2
        ]
    assert teams, "the demo plays Pandemic against the game"
    team = max(teams, key=teams.count)
    async with make_app().run_test(size=(80, 24)) as pilot:
        await sync_group(pilot.app.group, max_age=0)  # the odds are the held matches' (the form reads none)
        screen = await open_form(pilot)
        await quick_fill(pilot, "Pandemic", [(team, 1, "")], bot_row=(2, ""))
        await settle(pilot)
        shown = odds_text(screen)
    assert shown.startswith("With these players against the game: won ")
    assert shown.endswith(f" of {teams.count(team)}")


async def test_ctrl_b_fills_the_factions_with_the_fair_teams_chosen(make_app, demo_service) -> None:
    names = ["Ada", "Ben", "Chiara", "Dev"]
    async with Group(demo_service.client()) as group:
        await sync_group(group, max_age=0)
        model = held_model(group)
        ids = {p.label: str(p.id) for p in await group.players()}
    best = fairest_splits({ids[n]: model.skill(ids[n]) for n in names}, 2)[0]
    async with make_app().run_test(size=(100, 30)) as pilot:
        await sync_group(pilot.app.group, max_age=0)  # the odds are the held matches' (the form reads none)
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [([n], i + 1, "") for i, n in enumerate(names)])
        await settle(pilot)
        await pilot.press("ctrl+b")
        for _ in range(30):
            await settle(pilot)
            dialog = pilot.app.screen
            if isinstance(dialog, TeamsDialog) and dialog.query_one("#teams-table", DataTable).row_count:
                break
        await pilot.press("enter")
        await settle(pilot)
        filled = [
            sorted(ids[p.label] for p in row.picker.chosen) for row in screen.form.rows if row.picker.chosen
        ]
    assert filled == [sorted(team) for team in best.teams]
