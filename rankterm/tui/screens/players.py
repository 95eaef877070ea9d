"""Players: the group's players a page at a time, a filter by name, and creating a ghost player.

Paging asks the service for one page (`players/<n>`) and says "page n of N". The filter searches ALL the
group's players (every page, fetched once and cached by the client until a player is created), case- and
accent-blind (a name that breaks its line, "Ni⏎na", is found as "nina" and as "ni na"), and shows every
match at once; clearing it goes back to the page you were on. A new ghost
player is asked for in a small dialog (errors shown inline) and made through the outbox: once created the
list jumps to the page that holds them, with the cursor on their row; when the service cannot be reached it
is saved (a local player the match form offers at once) and made before the matches that name it. A name
the group has already (ignoring case, accents and repeated spaces) is warned of first: Enter makes a second
player of that name on purpose, Escape goes to the one there is. A ghost of exactly that name made
meanwhile by another seat is taken rather than made twice (rankterm/outbox/ghosts.py), and said.

Keys: [ / ] (or pageup / pagedown) previous / next page · / filter · ctrl+n new ghost player · F5 refresh.
Keys typed before a page or the filter's rows arrive wait for them: `/ e l e Enter Enter` opens Elena, however
late the service answers (`TextTable`, `list_screen_key`).
"""

from __future__ import annotations

import re

from textual import on
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Input

from rankterm.tui.base import task
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.screens.list_screen import ListScreen
from rankterm.tui.text import error_sentence
from rankterm.tui.warm import Opening
from rankterm.tui.widgets.text_table import NAME_CELLS, fill_table
from rankterm.wire.errors import RanktermError
from rankterm.wire.ids import is_local_id
from rankterm.wire.models import Player, PlayersPage
from rankterm.wire.text import NEWLINE_MARK
from rankterm.wire.text import fold_name as fold

_LINE_BREAKS = re.compile(f"[\n\r\x85\u2028\u2029{NEWLINE_MARK}]+")
"""Where a name breaks its line: raw, or as the app's client shows it ("⏎", which nobody types)."""


def _readings(name: str) -> tuple[str, ...]:
    """`name` as the filter reads it: folded; one that breaks its line also with each break as nothing and as a
    space, so that "nina" and "ni na" find "Ni⏎na"."""
    folded = fold(name)
    if not _LINE_BREAKS.search(folded):
        return (folded,)
    return folded, _LINE_BREAKS.sub("", folded), _LINE_BREAKS.sub(" ", folded)


def name_key(player: Player) -> tuple[str, str]:
    """Where a player stands in the list by the house's name rule (`fold_name`), ghosts' "*" and all."""
    return fold(player.display_name), str(player.id)


def with_pending(players: list[Player]) -> list[Player]:
    """The group's players in the service's order with the ghosts this seat (or another seat of the profile)
    made offline, not made yet (local ids), each put where its name belongs instead of at the end."""
    listed = [p for p in players if not is_local_id(p.id)]
    for ghost in sorted((p for p in players if is_local_id(p.id)), key=name_key):
        at = next((i for i, p in enumerate(listed) if name_key(p) > name_key(ghost)), len(listed))
        listed.insert(at, ghost)
    return listed


def matches_filter(player: Player, text: str) -> bool:
    needle = fold(text.strip().lstrip("*"))
    return not needle or any(
        needle in reading for name in (player.display_name, player.username) for reading in _readings(name)
    )


def _name_fold(text: str) -> str:
    """`fold`, with runs of whitespace as one space: the spelling a person may not notice differs."""
    return " ".join(fold(text).split())


def same_name(players: list[Player], name: str) -> list[Player]:
    """The players already called `name` (a member's display name or username, or a ghost's name without
    its *), ignoring case, accents and repeated spaces; the one spelled exactly so first."""
    wanted = _name_fold(name.strip().lstrip("*"))
    found = [
        p
        for p in players
        if wanted and wanted in (_name_fold(p.display_name.lstrip("*")), _name_fold(p.username))
    ]
    exact = name.strip().lstrip("*")
    return sorted(found, key=lambda p: p.display_name.lstrip("*") != exact)


COLUMNS = [("name", "Name"), ("kind", "Kind"), ("username", "Username")]
CAPS = {"username": NAME_CELLS}
"""Usernames longer than this are cut with "…" in the list; names take the room the other columns leave."""
WIDTHS = {"kind": 7}
"""The table's columns (key, title); "Kind" has its own width, the others are as wide as their widest cell."""

PAGES = Binding.Group("Pages")
"""[ and ] read as one item in the footer: "[ ] Pages"."""


class PlayersScreen(ListScreen):
    """The group's players, paged; filter; new ghost player."""

    NAME = "players"
    FIELD = "filter"
    FIELD_LABEL = "Filter (/)"
    PLACEHOLDER = "all players, by name"

    AUTO_FOCUS = "#players-table"
    INFO = "#players-caption"

    DEFAULT_CSS = """
    PlayersScreen #players-bar { height: 1; margin: 1 1 0 1; }
    PlayersScreen #players-bar Label { width: auto; padding-right: 1; color: $text-muted; }
    PlayersScreen #players-filter { width: 1fr; }
    PlayersScreen #players-caption { height: 1; padding: 0 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    PlayersScreen #players-caption.-error { color: $text-error; }
    PlayersScreen #players-table { height: 1fr; margin: 0 1; }
    """

    BINDINGS = [
        Binding("left_square_bracket", "page(-1)", "Prev page", key_display="[", group=PAGES),
        Binding("right_square_bracket", "page(1)", "Next page", key_display="]", group=PAGES),
        Binding("pageup", "page(-1)", "Prev page", show=False, priority=True),
        Binding("pagedown", "page(1)", "Next page", show=False, priority=True),
        Binding("slash,ctrl+f", "focus_filter", "Filter", key_display="/"),
        Binding("ctrl+n", "new_player", "New ghost"),
        Binding("f5", "refresh", "Refresh"),
        Binding("ctrl+r", "refresh", "Refresh", show=False),
        Binding("escape", "clear_filter", "Clear", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.page_number = 1
        self.total_pages = 1
        self.current: PlayersPage | None = None
        self.shown: list[Player] = []
        self.warned_of: Player | None = None
        """The player the new-ghost dialog's warning named (Escape goes to them), None when it named none."""
        self.opening = Opening(self)
        """A player's page opened by Enter: its module imported in a thread the first time."""

    def on_mount(self) -> None:
        table = self.table
        fill_table(table, COLUMNS, [], [], widths=WIDTHS)
        table.focus()
        self.load_page(1)

    # ------------------------------------------------------------------ showing

    @property
    def filter_text(self) -> str:
        return self.field_text

    def show_players(self, players: list[Player], caption: str, select: str | None = None) -> None:
        table = self.table
        was_on = table.cursor_key()
        # each column as wide as these names at once (str cells: plain, display-safe text, measured in cells)
        rows = [[p.label, "ghost" if p.ghost else "member", p.username or "—"] for p in players]
        fill_table(table, COLUMNS, rows, [p.id for p in players], widths=WIDTHS, caps=CAPS, fit="name")
        self.shown = list(players)
        self.say(caption)
        table.keep_cursor_on(select if select is not None else was_on)  # the same player stays under it

    # ------------------------------------------------------------------ loading

    @task(group="players")
    async def load_page(self, number: int, select: str | None = None) -> None:
        # keys typed before the rows wait for them (also when this load is cancelled by a newer one)
        with self.rows_coming(replace=number != self.page_number or bool(self.filter_text)) as table:
            table.loading = True
            try:
                page = await self.group.players_page(number)
                if any(is_local_id(p.id) for p in self.group.cached_players()):
                    page = await self._with_pending(page)
            except RanktermError as exc:
                self.show_error(exc)
                self.say(f"Players could not be read. {error_sentence(exc)}", "error")
                return
            finally:
                table.loading = False
            self.current = page
            self.page_number = page.page
            self.total_pages = max(1, page.total_pages)
            total = page.total or len(page.data)
            caption = f"Page {self.page_number} of {self.total_pages} · {total} players"
            if self.total_pages > 1:
                caption += " · [ ] to turn"
            self.show_players(page.data, caption, select)

    async def _with_pending(self, page: PlayersPage) -> PlayersPage:
        """`page` as it reads with the ghosts made offline and not sent yet among the players: every player
        (`players()`, which holds them), those ghosts put where their names belong, then the page cut from
        that list (so the count and the page count hold them too)."""
        everyone = with_pending(await self.group.players())
        per_page = page.rows_for_page or len(page.data) or 25
        pages = max(1, -(-len(everyone) // per_page))
        number = min(max(1, page.page), pages)
        start = (number - 1) * per_page
        return PlayersPage(
            page=number,
            total_pages=pages,
            rows_for_page=per_page,
            total_players=len(everyone),
            data=everyone[start : start + per_page],
        )

    @task(group="players")
    async def apply_filter(self, text: str) -> None:
        with self.rows_coming(replace=True) as table:
            table.loading = True
            try:
                everyone = await self.group.players()
            except RanktermError as exc:
                self.say(f"Players could not be read. {error_sentence(exc)}", "error")
                return
            finally:
                table.loading = False
            found = [p for p in with_pending(everyone) if matches_filter(p, text)]
            self.show_players(
                found, f"Filter “{text}”: {len(found)} of all {len(everyone)} players (esc: clear)."
            )

    @task(group="players-jump")
    async def jump_to(self, player: Player) -> None:
        """Show the page that holds `player`, cursor on them."""
        try:
            everyone = await self.group.players(refresh=True)
        except RanktermError as exc:
            self.show_error(exc)
            everyone = []
        per_page = (self.current.rows_for_page if self.current else 0) or 25
        everyone = with_pending(everyone)
        index = next((i for i, p in enumerate(everyone) if p.id == player.id), None)
        number = 1 if index is None else index // per_page + 1
        self.load_page(number, select=player.id)

    # ------------------------------------------------------------------ filter field

    @on(Input.Changed, "#players-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.table.expect_rows(replace=True)  # Enter waits for these rows
        if event.value.strip():
            self.apply_filter(event.value.strip())
        else:
            self.load_page(self.page_number)

    # ------------------------------------------------------------------ actions

    def action_page(self, step: int) -> None:
        if self.filter_text:
            self.say("Clear the filter (esc) to turn pages.", "warning", to="toast")
            return
        target = min(max(1, self.page_number + step), self.total_pages)
        if target != self.page_number:
            self.table.expect_rows(replace=True)
            self.load_page(target)

    def action_focus_filter(self) -> None:
        self.focus_field()

    def action_clear_filter(self) -> None:
        if self.field.value:
            self.field.value = ""  # the Changed handler reloads the page
        self.table.take_focus()

    def reload_data(self) -> None:
        """The group changed (another seat's player, a ghost sent): the page (or the filter) is read again,
        the cursor kept on the player it was on."""
        if self.filter_text:
            self.action_refresh()
            return
        row = self.table.cursor_row
        self.load_page(self.page_number, select=self.shown[row].id if 0 <= row < len(self.shown) else None)

    def action_refresh(self) -> None:
        if self.filter_text:
            self.group.invalidate("players")
            self.apply_filter(self.filter_text)
        else:
            self.load_page(self.page_number)

    def action_new_player(self) -> None:
        self.warned_of = None

        async def create(text: str) -> Player:
            name = text.strip()
            if not name:
                raise ValueError("Type the ghost player's name.")
            # Through the outbox: made now when the service answers, else queued (a local player, sent
            # before the matches that name it). A refused or too long name is said in the dialog.
            return await self.session.outbox.create_ghost(name)

        async def taken(text: str) -> str | None:
            self.warned_of = None
            try:
                everyone = await self.group.players()
            except RanktermError:  # offline with nothing held: nobody to warn about
                return None
            found = same_name(everyone, text)
            if not found:
                return None
            self.warned_of = found[0]
            who = ", ".join(f"{p.label} ({'ghost' if p.ghost else 'member'})" for p in found[:3])
            return (
                f"Already in the group: {who}. Enter makes another one anyway; "
                f"Escape goes to {found[0].label}."
            )

        dialog = AskDialog(
            "New ghost player",
            "A ghost player has no account; the service shows their name with a * in front.",
            placeholder="Name",
            submit=create,
            warn=taken,
        )
        self.app.push_screen(dialog, self._created)

    def _created(self, player: Player | None) -> None:
        if player is None:
            existing, self.warned_of = self.warned_of, None
            if existing is not None:  # the warning named them: the user kept the one there is
                self.field.value = ""
                self.jump_to(existing)
            return
        self.warned_of = None
        self.field.value = ""
        if is_local_id(player.id):  # queued in the outbox: no page of the service holds it yet
            self.say(
                f"Ghost player {player.label} saved; it is made on the service when it can be reached, "
                "before the matches that name it.",
                "ok",
                to="toast",
            )
            return
        ghosts = self.session.outbox.ghosts() if self.has_client else []
        note = next((g.note for g in ghosts if g.player_id == player.id and g.taken), "")
        self.say(note or f"Ghost player {player.label} created.", "ok", to="toast")
        self.jump_to(player)

    @on(DataTable.RowSelected, "#players-table")
    def _open_player(self, event: DataTable.RowSelected) -> None:
        """Enter on a player: their page (a player's page, the Stats mode's stories); its module (with the
        charts) imported in a thread the first time (`warm.Opening`)."""
        player = next((p for p in self.shown if p.id == event.row_key.value), None)
        if player is None or is_local_id(player.id):
            return
        shown = player

        def page() -> Screen[None]:
            from rankterm.tui.screens.stats.player_page import PlayerPageScreen

            return PlayerPageScreen(shown)

        self.opening.open("rankterm.tui.screens.stats.player_page", page)

    def holds_keys(self) -> bool:
        """Keys wait while a player's page is imported to be opened (`warm.Opening`)."""
        return self.opening.holds_keys()
