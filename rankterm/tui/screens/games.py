"""Games: the group's games, a catalogue search, the popular games, and creating a game.

The table lists one of three things, named in the line above it: the group's games (those with a match,
plus the games created in this session, marked "new"), the search results, or the popular games.
Typing in the search field starts a 300 ms one-shot timer (restarted on every change, no polling); at 2
characters or more it searches `games/search`; clearing the field shows the group's games again.

The group's games are shown at once from the mirror when the screen opens, then asked of the service whenever
the screen is shown (and on F5, and after a match sent from this seat); the table is redrawn only if they
changed. Offline they come from the mirror, and the status line says how old they are; a search offline
looks among the group's games held here and says so on the line above the table (never a toast: the status
line already says the seat is offline).

Keys: / search · F4 popular on/off · ctrl+n new game (a name, or a BGG id) · F5 refresh · esc clear search.
Keys typed before the rows arrive wait for them (`TextTable`, `list_screen_key`).
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import DataTable, Input

from rankterm.tui.base import task
from rankterm.tui.dialogs.ask_line import AskDialog
from rankterm.tui.screens.list_screen import ListScreen
from rankterm.tui.text import error_sentence, plain_str, weight_text
from rankterm.tui.widgets.text_table import fill_table
from rankterm.wire.errors import NotFound, Offline, RanktermError
from rankterm.wire.models import Game
from rankterm.wire.text import ascii_digits, fold_name

SEARCH_DELAY = 0.3
SEARCH_MIN = 2
COLUMNS = ("Name", "Weight", "BGG id")
MIN_WIDTHS = (0, 10, 8)
"""The table's columns and their least widths (Name: as wide as the list's longest name)."""


def parse_game_request(text: str) -> dict[str, str | int]:
    """`create_game` keywords for what was typed: digits (or "bgg:123") are a BGG id, anything else a name.

    A name made only of digits is written in quotes: "1830".
    """
    value = text.strip()
    if not value:
        raise ValueError("Type a game's name or its BGG id.")
    lowered = value.lower()
    if lowered.startswith("bgg:"):
        value = value[4:].strip()
        if not ascii_digits(value) or int(value) < 1:
            raise ValueError("A BGG id is a positive whole number, such as bgg:13.")
        return {"bgg_id": int(value)}
    if ascii_digits(value):
        if int(value) < 1:
            raise ValueError("A BGG id is a positive whole number, such as 13.")
        return {"bgg_id": int(value)}
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1].strip()
        if not value:
            raise ValueError("Type a game's name or its BGG id.")
    return {"name": value}


class GamesScreen(ListScreen):
    """The group's games, search, popular games, new game."""

    NAME = "games"
    FIELD = "search"
    FIELD_LABEL = "Search (/)"
    PLACEHOLDER = "the catalogue, 2 letters or more"

    AUTO_FOCUS = "#games-table"
    INFO = "#games-caption"

    DEFAULT_CSS = """
    GamesScreen #games-bar { height: 1; margin: 1 1 0 1; }
    GamesScreen #games-bar Label { width: auto; padding-right: 1; color: $text-muted; }
    GamesScreen #games-search { width: 1fr; }
    GamesScreen #games-caption { height: 1; padding: 0 1; color: $text-muted; text-wrap: nowrap; text-overflow: ellipsis; }
    GamesScreen #games-caption.-error { color: $text-error; }
    GamesScreen #games-table { height: 1fr; margin: 0 1; }
    """

    BINDINGS = [
        Binding("slash,ctrl+f", "focus_search", "Search", key_display="/"),
        Binding("f4", "toggle_popular", "Popular"),
        Binding("ctrl+n", "new_game", "New game"),
        Binding("f5", "refresh", "Refresh"),
        Binding("ctrl+r", "refresh", "Refresh", show=False),
        Binding("escape", "clear_search", "Clear", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.view = "group"
        """What the table shows: "group", "search" or "popular"."""
        self.created: list[Game] = []
        """Games created in this session (they join the group's list after their first match)."""
        self._search_timer: Timer | None = None
        self.shown: list[Game] = []
        self._shown: object = None

    def on_mount(self) -> None:
        table = self.table
        for title, width in zip(COLUMNS, MIN_WIDTHS, strict=True):
            table.add_column(title, key=title, width=width or None)
        table.focus()
        if self.has_client:  # what the mirror holds, at once (no request); shown, it is revalidated
            held = self.group.cached_games()
            if held:
                self._show_group(held)

    def on_screen_resume(self) -> None:
        if self.view == "group":
            self.load_group(refresh=True)

    def reload_data(self) -> None:
        if self.view == "group":
            self.load_group(refresh=True)

    # ------------------------------------------------------------------ showing

    def show_games(self, games: list[Game], caption: str, *, new_ids: frozenset[int] = frozenset()) -> None:
        shown = (list(games), caption, new_ids)
        if shown == self._shown:
            return  # the same list: no redraw
        self._shown = shown
        table = self.table
        rows = [
            (
                Text(plain_str(game.name + ("  (new)" if game.id in new_ids else ""))),
                Text(plain_str(weight_text(game.weight_label, game.weight))),
                Text("" if game.bgg_id_game is None else str(game.bgg_id_game)),
            )
            for game in games
        ]
        # Each column as wide as this list needs, at once (a DataTable widens a column only when idle, so a
        # search's longer names were drawn cut to the group list's width until then); a list revalidated
        # under the cursor keeps it on its game.
        fill_table(table, COLUMNS, rows, [str(game.id) for game in games], min_widths=MIN_WIDTHS)
        self.shown = list(games)
        self.say(caption)

    # ------------------------------------------------------------------ loading

    @task(group="games")
    async def load_group(self, refresh: bool = False) -> None:
        with self.rows_coming(replace=self.view != "group") as table:  # keys typed meanwhile wait for them
            self.view = "group"
            table.loading = not table.row_count  # a list already shown stays up while it is revalidated
            try:
                games = await self.group.games(refresh=refresh)
            except RanktermError as exc:
                self.show_error(exc)
                self.say(f"The group's games could not be read. {error_sentence(exc)}", "error")
                return
            finally:
                table.loading = False
                self.note_freshness()
            if self.view == "group":
                self._show_group(games)

    def _show_group(self, games: list[Game]) -> None:
        known = {g.id for g in games}
        extra = [g for g in self.created if g.id not in known]
        word = "game" if len(games) == 1 else "games"
        caption = f"The group's games: {len(games)} {word}"
        if extra:
            caption += f", and {len(extra)} new without a match yet"
        self.show_games(games + extra, caption + ".", new_ids=frozenset(g.id for g in extra))

    @task(group="games")
    async def search(self, text: str) -> None:
        self.view = "search"
        with self.rows_coming(replace=True) as table:  # keys typed before the rows wait for them
            table.loading = True
            try:
                games = await self.client.search_games(text)
            except Offline:
                # the status line already says the seat is offline: the group's games held here are searched
                wanted = fold_name(text)
                held = [g for g in self.group.cached_games() if wanted in fold_name(g.name)]
                found = f"{len(held)} of the group's games"
                self.show_games(
                    held,
                    f"Offline: {found} match “{text}”; the catalogue is searched when the service is back.",
                )
                return
            except RanktermError as exc:
                self.say(f"Search failed. {error_sentence(exc)}", "error")
                return
            finally:
                table.loading = False
            found = f"{len(games)} game" + ("" if len(games) == 1 else "s")
            self.show_games(games, f"Search “{text}”: {found} found (esc: back to the group's games).")

    @task(group="games")
    async def load_popular(self) -> None:
        self.view = "popular"
        with self.rows_coming(replace=True) as table:  # keys typed before the rows wait for them
            table.loading = True
            try:
                games = await self.client.popular_games()
            except RanktermError as exc:
                self.say(f"Popular games could not be read. {error_sentence(exc)}", "error")
                return
            finally:
                table.loading = False
            self.show_games(games, f"Popular games: {len(games)} (F4: back to the group's games).")

    # ------------------------------------------------------------------ search field

    @on(Input.Changed, "#games-search")
    def _search_changed(self, event: Input.Changed) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
            self._search_timer = None
        text = event.value.strip()
        if len(text) >= SEARCH_MIN:
            self._search_timer = self.set_timer(SEARCH_DELAY, lambda: self._search_now(text))
        elif not text and self.view == "search":
            self.load_group()
        elif text:
            self.say(f"Type at least {SEARCH_MIN} characters to search.")

    def _search_now(self, text: str) -> None:
        self._search_timer = None
        self.table.expect_rows(replace=True)  # from now, not when it starts
        self.search(text)

    def field_submitted(self) -> None:
        """Enter in the search: search now (no waiting for the timer), then the table takes the focus."""
        text = self.field_text
        if len(text) >= SEARCH_MIN:
            if self._search_timer is not None:
                self._search_timer.stop()
            self._search_now(text)
        super().field_submitted()

    # ------------------------------------------------------------------ actions

    def action_focus_search(self) -> None:
        self.focus_field()

    def action_clear_search(self) -> None:
        search = self.field
        if search.value or self.view != "group":
            search.value = ""
            if self._search_timer is not None:
                self._search_timer.stop()
                self._search_timer = None
            self.load_group()
        self.table.take_focus()

    def action_toggle_popular(self) -> None:
        if self.view == "popular":
            self.load_group()
        else:
            self.load_popular()

    def action_refresh(self) -> None:
        if self.view == "popular":
            self.load_popular()
        elif self.view == "search":
            self.search(self.field_text)
        else:
            self.load_group(refresh=True)

    def action_new_game(self) -> None:
        async def create(text: str) -> Game:
            wanted = parse_game_request(text)
            try:
                return await self.group.create_game(**wanted)  # type: ignore[arg-type]
            except NotFound as exc:
                if "bgg_id" not in wanted:
                    raise
                raise ValueError(
                    f"The catalogue has no game with BGG id {wanted['bgg_id']}: check the id, or type the "
                    "game's name instead."
                ) from exc

        dialog = AskDialog(
            "New game",
            'A name, or a BGG id (digits, or bgg:13). A name of digits only goes in quotes: "1830".',
            placeholder="Catan  or  13",
            submit=create,
        )
        self.app.push_screen(dialog, self._created)

    def _created(self, game: Game | None) -> None:
        if game is not None:
            self.field.value = ""
            self.show_created(game)

    @task(group="games-created")  # not cancelled by the revalidation the dialog's closing starts
    async def show_created(self, game: Game) -> None:
        """Say where the game stands (new, or already in the group's list), then show the group's games."""
        try:
            group = await self.group.games(refresh=True)
        except RanktermError as exc:
            self.show_error(exc)
            group = []
        if any(g.id == game.id for g in group):
            self.say(f"{game.name} (id {game.id}) is already in the group's list.", "ok", to="toast")
        else:
            if all(g.id != game.id for g in self.created):
                self.created.append(game)
            self.say(
                f"{game.name} is ready (id {game.id}); it joins the group's list after its first match.",
                "ok",
                to="toast",
            )
        self.load_group()

    @on(DataTable.RowSelected, "#games-table")
    def _open_game(self, event: DataTable.RowSelected) -> None:
        """Enter on a game: its page (figures and standings, the Stats mode's stories)."""
        from rankterm.tui.screens.stats.game_page import GamePageScreen

        game = next((g for g in self.shown if str(g.id) == event.row_key.value), None)
        if game is not None:
            self.app.push_screen(GamePageScreen(game))
