"""`Pager`: one line saying "page n of N" for a paginated list, and the page to ask for next.

Shared by the rankings and matches screens. It holds no data and makes no call: the screen binds the page
keys, asks the pager to move (`next_page`, `previous_page`, `go_to`), and loads the page the pager announces
with a `Pager.Changed` message. The screen tells the pager what the service answered with `show()`.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget


class Pager(Widget):
    """ "page 2 of 13 · 312 matches" plus the keys that move it."""

    DEFAULT_CSS = """
    Pager {
        width: auto;
        height: 1;
        padding: 0 1;
        color: $text-muted;
    }
    """

    page: reactive[int] = reactive(1, layout=True)
    total_pages: reactive[int] = reactive(1, layout=True)
    total: reactive[int | None] = reactive(None, layout=True)

    @dataclass
    class Changed(Message):
        """The page to show changed (by a page key); the screen loads it."""

        pager: Pager
        page: int

        @property
        def control(self) -> Pager:
            return self.pager

    def __init__(
        self,
        noun: str = "rows",
        hint: str = "[ ] pages",
        *,
        one: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.noun = noun
        self.one = one or noun
        """The noun for a count of 1 ("match" beside "matches")."""
        self.hint = hint

    def render(self) -> Content:
        text = f"page {self.page} of {max(1, self.total_pages)}"
        if self.total is not None:
            text += f" · {self.total} {self.one if self.total == 1 else self.noun}"
        if self.hint:
            text += f" · {self.hint}"
        return Content(text)

    def show(self, page: int, total_pages: int, total: int | None = None) -> None:
        """What the service answered: the page shown, how many pages, how many rows in all."""
        self.total_pages = max(1, total_pages)
        self.page = min(max(1, page), self.total_pages)
        self.total = total

    def go_to(self, page: int) -> bool:
        """Ask for `page` (clamped to 1..N); False, and no message, when that is the page already shown."""
        page = min(max(1, page), max(1, self.total_pages))
        if page == self.page:
            return False
        self.page = page
        self.post_message(self.Changed(self, page))
        return True

    def next_page(self) -> bool:
        return self.go_to(self.page + 1)

    def previous_page(self) -> bool:
        return self.go_to(self.page - 1)

    def first_page(self) -> bool:
        return self.go_to(1)

    def last_page(self) -> bool:
        return self.go_to(self.total_pages)
