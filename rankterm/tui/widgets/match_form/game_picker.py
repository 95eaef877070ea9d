"""`GamePicker`: pick the game of a match by typing its name.

Typing filters the group's games (handed over with `set_games`, from `client.games()`); from two characters
on, a one-shot timer (debounce) also asks the catalogue (`search`, i.e. `client.search_games`) in a worker, and
the games found that the group has not played yet are offered after the group's own, tagged "catalogue".
Enter picks the highlighted game; `game` is the picked one (None while the text names no picked game), and
every change is announced with `GamePicker.Changed`.

Enter before the group's games have arrived (typed faster than the lists load) keeps the text as `pending`
and moves on as a pick would (`Changed` with `by_user` and no game); the games, when they come, pick the best
match for it (`set_games`). The games arriving never open the list over the form unless a text typed and not
yet picked is being typed in the focused field (`typing`: re-entering the form leaves it closed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.message import Message
from textual.timer import Timer

from rankterm.tui.text import error_sentence, plain_str
from rankterm.tui.widgets.typeahead import TypeAhead
from rankterm.wire.errors import Offline, RanktermError
from rankterm.wire.models import Game

SEARCH_DELAY = 0.3
"""Seconds of quiet typing before the catalogue is searched."""
MIN_SEARCH = 2
"""Characters needed before the catalogue is searched."""

Search = Callable[[str], Awaitable[list[Game]]]


class GamePicker(TypeAhead):
    """The game field of the match form: the group's games first, then the catalogue's."""

    DEFAULT_CSS = """
    GamePicker {
        width: 1fr;
    }
    GamePicker.-invalid > Input {
        background: $error 25%;
    }
    """

    @dataclass
    class Changed(Message):
        """The picked game changed (None: the field names no game any more)."""

        picker: GamePicker
        game: Game | None
        by_user: bool = False
        """True when picked from the list (Enter or a click), False when set from code or by typing on."""

        @property
        def control(self) -> GamePicker:
            return self.picker

    def __init__(
        self,
        *,
        search: Search | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__("type a game (Enter picks)", id=id, classes=classes)
        self.search = search
        self.games: list[Game] = []
        self.game: Game | None = None
        self._group_ids: set[int] = set()
        self._timer: Timer | None = None
        self.search_error: str | None = None
        self.pending: str | None = None
        """The text Enter was pressed on before the group's games arrived (picked when they do)."""
        self.loaded = False
        """True once the group's games were handed over (`set_games`), even none."""

    def candidates(self) -> Sequence[Any]:
        return self.games

    def label(self, item: Any) -> str:
        return item.name

    def item_key(self, item: Any) -> Any:
        return item.id

    def suggestion_prompt(self, item: Any) -> str:
        return item.name if item.id in self._group_ids else f"{item.name}  · catalogue"

    def set_games(self, games: Sequence[Game]) -> None:
        """The group's games (offered first); a text Enter was pressed on before they came is picked now."""
        self.games = list(games)
        self._group_ids = {g.id for g in self.games}
        self.loaded = True
        if self.pending is not None:  # the first lists to come decide (nothing found: the text stays)
            wanted, self.pending = self.pending, None
            found = self.matches(wanted)
            if found and self.text == wanted:
                self.choose(found[0])
            return
        if self.typing and self.input.has_focus and self.game is None:
            self.refresh_suggestions()

    @property
    def waiting(self) -> bool:
        """True while a text Enter was pressed on waits for the group's games."""
        return self.pending is not None

    def enter(self, text: str) -> None:
        """Enter: pick the game; on the game picked already (its name, the list closed), move on again; before
        the group's games are known, keep the text and move on all the same."""
        if self.game is not None and text == self.game.name and not self.is_open:
            self.post_message(self.Changed(self, self.game, by_user=True))
            return
        if not self.loaded and text.strip() and self.best(text) is None:
            self.pending = text
            self.close()
            self.post_message(self.Changed(self, None, by_user=True))
            return
        super().enter(text)

    def choose(self, game: Game | None, *, by_user: bool = False) -> None:
        """Set the picked game (and the text), e.g. for a rematch."""
        self.extra = []
        self.pending = None
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.game = game
        self.set_text(game.name if game else "")
        self.post_message(self.Changed(self, game, by_user))

    @on(TypeAhead.Picked)
    def _picked(self, event: TypeAhead.Picked) -> None:
        if event.typeahead is not self:
            return
        event.stop()
        self.choose(event.item, by_user=True)

    @on(TypeAhead.Query)
    def _query(self, event: TypeAhead.Query) -> None:
        if event.typeahead is not self:
            return
        event.stop()
        text = event.text
        if self.pending is not None and text != self.pending:
            self.pending = None  # typed on: that Enter no longer stands
        if self.game is not None and text != self.game.name:
            self.game = None
            self.post_message(self.Changed(self, None))
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        wanted = text.strip()
        known = {g.name.casefold() for g in self.games}
        if self.search is None or len(wanted) < MIN_SEARCH or wanted.casefold() in known:
            self.extra = []
            return
        self._timer = self.set_timer(SEARCH_DELAY, lambda: self._search(wanted))

    @work(exclusive=True, group="game-search", exit_on_error=False)
    async def _search(self, wanted: str) -> None:
        self._timer = None
        if self.search is None or self.text.strip() != wanted:
            return
        try:
            found = await self.search(wanted)
        except RanktermError as exc:
            self.search_error = error_sentence(exc)
            if not isinstance(exc, Offline):  # offline is said once, by the status line, not at every search
                self.notify(plain_str(self.search_error), severity="error", markup=False)
            return
        self.search_error = None
        if self.text.strip() != wanted:
            return  # typed on meanwhile: that text has its own search coming
        self.extra = found
        if self.typing:  # a search that ends after the field was left never opens the list by itself
            self.refresh_suggestions()
