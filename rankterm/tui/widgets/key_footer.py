"""`KeyFooter`: the footer of every rankterm screen: the screen's own keys on the left, whole words only, and
the app's few always-keys docked on the right (`? Keys`, `q Quit`, `^p palette`), at any width.

Textual's `Footer` lists every shown binding in a row and cuts the row where the terminal ends ("r Ranking▏"),
so at 80 columns the keys a person most needs (quit, help) fell off the end. This footer:

- shows on the right, always, each app key marked `show=True` (the help and quit keys) and the palette key.
  When a text field takes a key for typing (`q`, `?`), the key that still works there is shown instead
  (`^q Quit`, `f1 Keys`): what the footer says always works from where the cursor is;
- fills the left with the shown keys of the focused widget and of the screen, in order, keeping only those
  that fit whole (the rest are in the help overlay, `?`, and in the palette). Bindings of one `Binding.Group`
  read as one item ("[ ] Pages");
- the app's navigation keys (d, g, p, …) are not in the footer: they are in the help overlay and the palette.

It lays itself out again when its width changes. Its keys are not data-bound to it (see `_key`): a recompose
leaves nothing of the keys it replaced.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalGroup
from textual.screen import Screen
from textual.widgets import Footer

from rankterm.tui.textual_internals import FooterKey, app_key_bindings

PALETTE_LABEL = "palette"


@dataclass(frozen=True)
class FooterItem:
    """One key (or one group of keys) as the footer shows it."""

    key: str
    """The key pressed when the item is clicked."""
    display: str
    description: str
    action: str
    enabled: bool = True

    @property
    def width(self) -> int:
        """Cells the item takes: " key " then "description " (FooterKey's padding)."""
        return (
            Text(self.display).cell_len + 2 + (Text(self.description).cell_len + 1 if self.description else 0)
        )


def _display(app, binding: Binding) -> str:
    return app.get_key_display(binding)


class KeyFooter(Footer):
    """The footer: this screen's keys that fit (left), the app's help, quit and palette keys (right)."""

    DEFAULT_CSS = """
    KeyFooter #footer-always {
        dock: right;
        width: auto;
        height: 1;
        border-left: vkey $foreground 20%;
    }
    """

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("show_command_palette", True)
        super().__init__(**kwargs)
        self._composed_width = 0
        self._composed: tuple[int, list[FooterItem], list[FooterItem]] | None = None

    # ------------------------------------------------------------------ what goes where

    def always_items(self) -> list[FooterItem]:
        """The app's keys shown whatever the screen (those marked `show=True`), each by a key that works now,
        then the palette's."""
        app = self.app
        active = self.screen.active_bindings
        items: list[FooterItem] = []
        wanted: list[str] = []
        for bindings in app_key_bindings(app).values():
            for binding in bindings:
                if binding.show and binding.description and binding.action not in wanted:
                    wanted.append(binding.action)
        for action in wanted:
            choices = [
                (b.binding, b.enabled)
                for b in active.values()
                if b.node is app and b.binding.action == action and b.binding.description
            ]
            if not choices:
                continue  # no key of it works here (a modal, say)
            shown = [c for c in choices if c[0].show]
            binding, enabled = (shown or choices)[0]
            items.append(
                FooterItem(binding.key, _display(app, binding), binding.description, action, enabled)
            )
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            palette = active.get(app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                binding = palette.binding
                items.append(
                    FooterItem(
                        binding.key, _display(app, binding), PALETTE_LABEL, binding.action, palette.enabled
                    )
                )
        return items

    def screen_items(self) -> list[FooterItem]:
        """The shown keys of the focused widget and the screen, one item per action (a group as one)."""
        app = self.app
        items: list[FooterItem] = []
        seen: set[tuple[int, str]] = set()
        groups: dict[tuple[int, Binding.Group], int] = {}
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if active.node is app or not binding.show:
                continue
            mark = (id(active.node), binding.action)
            if mark in seen:
                continue
            seen.add(mark)
            display = _display(app, binding)
            if binding.group is not None:
                where = (id(active.node), binding.group)
                if where in groups:  # one more key of a group already listed: "[" then "[ ]"
                    index = groups[where]
                    first = items[index]
                    joined = f"{first.display}{'' if binding.group.compact else ' '}{display}"
                    items[index] = FooterItem(
                        first.key, joined, first.description, first.action, first.enabled
                    )
                    continue
                groups[where] = len(items)
                items.append(
                    FooterItem(
                        binding.key, display, binding.group.description, binding.action, active.enabled
                    )
                )
                continue
            items.append(
                FooterItem(binding.key, display, binding.description, binding.action, active.enabled)
            )
        return items

    def _width(self) -> int:
        return self.size.width or self.screen.size.width or self.app.size.width

    @staticmethod
    def fit(items: list[FooterItem], room: int) -> list[FooterItem]:
        """The items, in order, that fit whole in `room` cells (an item that does not fit is left out, and so
        are the ones after it: the order is the screen's order of importance)."""
        kept = []
        for item in items:
            if item.width > room:
                break
            kept.append(item)
            room -= item.width
        return kept

    # ------------------------------------------------------------------ drawing

    def _key(self, item: FooterItem, classes: str = "") -> FooterKey:
        # Not `.data_bind(compact=Footer.compact)` as Textual's Footer does: each bind adds a watcher to this
        # footer that is never removed, so every recompose (each change of focus or bindings) kept the keys
        # it replaced alive, styles and all (105 dead keys after r, p, m). The keys follow `compact` from
        # `watch_compact` instead.
        key = FooterKey(
            item.key, item.display, item.description, item.action, disabled=not item.enabled, classes=classes
        )
        key.set_reactive(FooterKey.compact, self.compact)
        key.set_class(self.compact, "-compact")
        return key

    def watch_compact(self, compact: bool) -> None:
        for key in self.query(FooterKey):
            key.compact = compact

    def _plan(self) -> tuple[int, list[FooterItem], list[FooterItem]]:
        """What the footer shows at its width now: (width, the right group's items, the left's)."""
        width = self._width()
        always = self.always_items()
        room = width - sum(item.width for item in always) - 1  # the right group's left border
        return width, always, self.fit(self.screen_items(), room)

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._composed = plan = self._plan()
        width, always, left = plan
        self._composed_width = width
        with HorizontalGroup(id="footer-always"):
            for item in always:
                yield self._key(item)
        for item in left:
            yield self._key(item)

    def bindings_changed(self, screen: Screen) -> None:
        """Textual's Footer recomposes at each change of the screen's bindings (each focus change among
        them); this one only when what it shows changes: the same keys are not built again (each key built
        leaves a widget and its styles to the cyclic collector, ~1 MB a few screens on)."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if self.is_attached and self._plan() != self._composed:
            await self.recompose()

    def on_resize(self) -> None:
        if self._bindings_ready and self.size.width != self._composed_width:
            self.call_after_refresh(self.recompose)
