"""`MatchFormFlow`: how the match form moves on as a result is said aloud (the base of `MatchForm`).

The game picked (Enter, also on a game picked already), the focus is on the first field that still needs
something (`first_needed`: the game, else the first faction without players). Enter on a player picks and moves on
to the next faction (added when needed); `+` keeps the next player in the same faction; Enter on an empty
players field, or in the rank, points or faction-name field, moves on too; ctrl+g makes the faction the
game's (a bot faction) and moves on; Enter on the empty last faction sends, once two factions are filled.
Ranks follow row order unless typed. Keys typed while a faction is being added wait for it and land in it,
not in the one left: the app lets each key go once the one before has settled (`rankterm.tui.key_queue`).
"""

from __future__ import annotations

from textual import on
from textual.containers import Vertical, VerticalScroll
from textual.widget import Widget

from rankterm.tui.widgets.match_form.faction_row import FactionRow
from rankterm.tui.widgets.match_form.game_picker import GamePicker
from rankterm.tui.widgets.match_form.player_picker import PlayerPicker


class MatchFormFlow(VerticalScroll, can_focus=False):
    """The keys that move the match form on, from the game to the last faction and to sending."""

    @property
    def game_picker(self) -> GamePicker:
        return self.query_one("#game", GamePicker)

    @property
    def rows(self) -> list[FactionRow]:
        """The faction rows, once each is mounted (its fields there): a row being mounted is not one yet."""
        return [
            row for row in self.query_one("#factions", Vertical).query_children(FactionRow) if row.is_mounted
        ]

    async def add_row(self) -> FactionRow:
        """A new faction row at the end (mounted, ready to focus): the form's."""
        raise NotImplementedError

    def first_needed(self) -> Widget | None:
        """The first field that still needs something: the game while none is picked (nor waiting for the
        games), else the players of the first faction that has none (or a name typed and not picked); None
        when every faction has its players."""
        picker = self.game_picker
        if picker.game is None and not picker.waiting:
            return picker.input
        for row in self.rows:
            if not row.is_mounted:
                continue
            chooser = row.picker
            if row.is_bot:
                continue
            if chooser.text.strip() or chooser.unknown or not (chooser.chosen or chooser.waiting):
                return chooser.input
        return None

    def focus_first_needed(self) -> None:
        """Focus `first_needed()`, else the first faction's first field (the first field after the game)."""
        target = self.first_needed()
        rows = self.rows
        if target is None and rows:
            target = rows[0].first_field
        if target is not None:
            self._focus(target)

    @on(GamePicker.Changed)
    async def _game_picked(self, event: GamePicker.Changed) -> None:
        """A game picked (or Enter on a text before the games came, or on the game picked already): on to the
        first field that still needs something (Tab goes back)."""
        if not event.by_user:
            return
        picker = self.game_picker
        if event.game is not None or picker.waiting:
            picker.remove_class("-invalid")
            target = self.first_needed()
            if target is not None and target is not picker.input:
                self._focus(target)

    async def _next_row(self, row: FactionRow) -> FactionRow:
        rows = self.rows
        index = rows.index(row)
        return rows[index + 1] if index + 1 < len(rows) else await self.add_row()

    async def _move_on(self, row: FactionRow) -> None:
        """The focus goes to the next faction's first field (a faction added when `row` is the last)."""
        following = await self._next_row(row)
        self._focus(following.first_field)

    def _focus(self, field: Widget) -> None:
        """Focus `field` now (`Widget.focus` would wait for the app's next turn)."""
        self.screen.set_focus(field)

    @on(PlayerPicker.Done)
    async def _players_done(self, event: PlayerPicker.Done) -> None:
        """Enter in a players field: on to the next faction; on the empty last one (nothing in it), send
        once two factions are filled."""
        event.stop()
        row = next((r for r in self.rows if r.picker is event.picker), None)
        if row is None:
            return
        last = row is self.rows[-1]
        if event.empty and last and row.is_blank():
            if sum(not r.is_blank() for r in self.rows) >= 2:
                await self.run_action("screen.send")
            return
        await self._move_on(row)

    @on(FactionRow.Next)
    async def _row_done(self, event: FactionRow.Next) -> None:
        event.stop()
        await self._move_on(event.row)

    @on(FactionRow.BotKey)
    async def _bot_key(self, event: FactionRow.BotKey) -> None:
        """ctrl+g: the game plays this faction, and the focus moves on; again: it does not, players back."""
        event.stop()
        row = event.row
        if row.is_bot:
            row.bot_box.value = False
            self.call_after_refresh(self._focus, row.picker.input)  # once the players field shows again
            return
        following = await self._next_row(row)
        self._focus(following.first_field)
        row.bot_box.value = True
