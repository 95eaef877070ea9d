"""`KeyQueue`, owned by the app: the keys it reads reach the widgets one at a time and in order.

    self.keys = KeyQueue(self)                      # in the app; its `on_event` hands each key read to
    if await self.keys.arrived(event): return       # the queue, and `on_descendant_focus` calls
    self.keys.focus_placed()                        # `focus_placed`; `await app.keys.done()` in tests

- **One key at a time.** Textual hands each key from the terminal to the widget that has the focus *when the
  app reads it*, and reads the next key at once. What a key does happens later: the focused widget handles it,
  it bubbles up to the app (where the widgets' bindings run: Tab's focus move, Backspace), a field posts
  what it was told (Enter: `Input.Submitted`, then a pick, then the focus moved on, maybe a faction row
  mounted first). Keys that arrive in one write (an SSH connection, `tmux send-keys`, a paste, a fast
  typist) were all handed to the field that had the focus before the first of them had done anything:
  `E l Tab Tab 1 0` typed "10" into the rank instead of the points. So the app keeps the keys it reads
  (`_typed`) and lets the next one go only when the one before has settled (`KeyQueue.settled`): no message
  waiting or being handled anywhere on the screen shown or in the app, no callback waiting for a refresh,
  a new screen's focus placed. Then it goes where the focus is *now*, exactly as Textual would send it.
  Keys typed one by one (nothing pending) go at once, as before.
- **An app key acts before the next key is read**: `_app_key_now` runs the app's own binding of a key
  first, when nothing closer to the focus takes it and no text field has the focus (nor a list, where
  letters search).
- **A new screen gets the keys typed while it placed its focus**: after a key opened a screen, the keys that
  follow wait until its first focus (or `HOLD_KEYS_FOR` seconds, or at once when it has no field for them).
- **A screen busy with what the next keys depend on holds them**: while the screen shown says `holds_keys()`
  (the match form while its batch is on its way), the keys wait for it, `BUSY_LIMIT` seconds at most, not
  `SETTLE_LIMIT`: `ctrl+s n C a t ⏎ …` on a slow link starts the next match once the first is answered,
  instead of typing into the form being sent and losing the second `ctrl+s`.
- **The limits count calm time** (`KeyQueue.calm`): only the time the app's loop was free to run. On a host so
  loaded that Enter's pick and the focus it moves take longer than `SETTLE_LIMIT`, the next keys still wait for
  them (on the wall clock they went into the field just picked); a handler that only waits lets them go.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque

from textual import events
from textual.app import App, ScreenStackError
from textual.dom import NoScreen
from textual.screen import Screen
from textual.widgets import Input, OptionList

from rankterm.tui.textual_internals import character_to_key, pump_busy, screen_has_callbacks, text_area_class

HOLD_KEYS_FOR = 3.0
"""Seconds (on the calm clock, see `SETTLE_LIMIT`) a new screen may take to place its focus (a slow SSH link)
before the keys typed meanwhile go where they can; a screen with no field for them gets them as soon as it is
composed."""
SETTLE_LIMIT = 2.0
"""Seconds a key waits at most for the one before it to settle (something on the screen busy that long, e.g.
a handler waiting for the network): then it goes where the focus is. Counted on the queue's calm clock
(`KeyQueue.calm`), so a machine too loaded to run the app's steps in time does not let keys go early."""
BUSY_LIMIT = 120.0
"""Seconds the keys wait at most for a screen that holds them (a send is bounded by the client's own timeouts;
this only keeps a screen that never lets go from keeping the keys for ever)."""
_QUICK_LOOKS = 3
"""Looks at the screen a turn of the event loop apart, before the feeder waits a little between looks."""
_LATE_LOOK = 0.005
"""Seconds a look at the screen may come back late and still count whole on the calm clock: later than that,
the app's loop (or the whole machine) was busy, and only the pause asked for and this much count."""


def _is_text_field(widget: object) -> bool:
    """An Input, a TextArea or an OptionList. TextArea is checked only once its module is loaded (no screen of
    rankterm has one; a widget cannot be one before): importing it for this check alone would load its
    document model, ~0.5 MB that a seat would keep for its whole life."""
    if isinstance(widget, Input | OptionList):
        return True
    text_area = text_area_class()
    return text_area is not None and isinstance(widget, text_area)


def _escape_apart(key: events.Key) -> tuple[events.Key, ...]:
    """`key`, or Escape and then the key typed after it when the terminal's parser read the two as one alt key.

    Escape followed by a letter in one write (a burst over SSH, `tmux send-keys`) reaches the parser as the
    bytes an alt+letter sends; Textual names it ``alt+d`` with the character ``d``, and a text field types the
    ``d``. rankterm binds no alt key that types a character, so it is read as what was meant: leave the field,
    then the letter (a screen key).
    """
    char = key.character
    if not key.key.startswith("alt+") or char is None or len(char) != 1 or not char.isprintable():
        return (key,)
    name = char if char.isalnum() else character_to_key(char)
    return events.Key("escape", "\x1b"), events.Key(name, char)


class KeyQueue:
    """The keys the app has read and not handed on yet: each goes once the one before has settled (see the
    module docstring). The app hands every key it reads to `arrived` and tells `focus_placed` of each focus."""

    def __init__(self, app: App) -> None:
        self._app = app
        self._typed: deque[events.Key] = deque()
        """Keys read from the terminal that have not gone to a widget yet, oldest first."""
        self._passing: events.Key | None = None
        """The key the feeder let go: the app hands it on when it reads it again."""
        self._feeder: asyncio.Task[None] | None = None
        self._focus_wanted_since: float | None = None
        """The calm clock when a key opened a screen whose field has not taken the focus yet (None: no such
        screen)."""
        self.calm = 0.0
        """Seconds the keys have waited while the app's loop was free to run, not held up by work of its own or
        by a machine too busy to run it: the limits on waiting are counted on it, not on the wall clock."""

    async def arrived(self, event: events.Key) -> bool:
        """A key the app read: True when it is kept here (to go in turn) or was the app's own key, run at
        once; False when the app hands it on as Textual would."""
        if event is not self._passing:
            self._typed.extend(_escape_apart(event))  # in turn, once the keys before it have settled
            if self._feeder is None or self._feeder.done():
                self._feeder = asyncio.create_task(self._feed())
            return True
        self._passing = None
        return await self._app_key_now(event)

    async def _feed(self) -> None:
        """Let the typed keys go one at a time, each once the one before has settled."""
        app = self._app
        while self._typed and app.is_running:
            await self._settled()
            if not self._typed or not app.is_running:
                return
            self._passing = self._typed.popleft()
            app.post_message(self._passing)

    async def done(self) -> None:
        """Return once every key read so far has gone to its widget and settled."""
        await asyncio.sleep(0)  # keys posted just now: the app reads them first
        while self._app.is_running:  # an app that stopped (or failed) hands no more keys on
            if self._feeder is not None and not self._feeder.done():
                await asyncio.shield(self._feeder)
            await self._settled()
            if not self._typed and (self._feeder is None or self._feeder.done()):
                return

    async def _settled(self) -> None:
        """Return once what the last key set going has landed (`settled`): once the app has read it, then
        `SETTLE_LIMIT` s at most, or `BUSY_LIMIT` s while the screen shown holds the keys (`holds_keys`)."""
        start = self.calm
        looks = 0
        while not self.settled() and self._app.is_running:
            holding = self._screen_holds()
            # the key let go last is always read first, however long that takes: the next key let go before
            # it would be read before it, and the late one would join the end of the queue
            limit = BUSY_LIMIT if holding else SETTLE_LIMIT
            if self._passing is None and self.calm - start >= limit:
                return
            looks += 1
            await self._pause(0 if looks < _QUICK_LOOKS else 0.02 if holding else 0.002)

    async def _pause(self, seconds: float) -> None:
        """Sleep `seconds` between two looks, and move the calm clock by the time it took, up to `_LATE_LOOK`
        past what was asked: a step that keeps the loop busy (Enter's pick and the focus it moves, on a loaded
        host) counts little against the limits, a handler waiting for the network counts in full."""
        before = time.monotonic()
        await asyncio.sleep(seconds)
        self.calm += min(time.monotonic() - before, seconds + _LATE_LOOK)

    def _screen_holds(self) -> bool:
        """True while the screen shown asks the keys to wait (its `holds_keys()`, when it has one)."""
        try:
            holds = getattr(self._app.screen, "holds_keys", None)
        except ScreenStackError:
            return False
        return bool(holds is not None and holds())

    def settled(self) -> bool:
        """True when the next key may go: the last one let go has been read, nothing in the app or on the screen
        shown has work in hand (see `textual_internals.pump_busy`), the screen does not hold the keys, no
        callback waits for the screen's refresh, and a screen a key opened has placed its focus."""
        if self._passing is not None or pump_busy(self._app) or self._screen_holds():
            return False
        try:
            screen = self._app.screen
        except ScreenStackError:
            return True
        if screen_has_callbacks(screen) or not self._focus_placed(screen):
            return False
        return not any(pump_busy(node) for node in screen.walk_children(with_self=True))

    def _focus_placed(self, screen: Screen) -> bool:
        """False while a screen opened by a key still places its focus (`HOLD_KEYS_FOR` seconds at most)."""
        if self._focus_wanted_since is None:
            return True
        waited = self.calm - self._focus_wanted_since
        if (
            screen.focused is not None
            or waited >= HOLD_KEYS_FOR
            or (screen.is_mounted and not _auto_field(screen))
        ):
            self._focus_wanted_since = None
            return True
        return False

    async def _app_key_now(self, event: events.Key) -> bool:
        """Run the app's own binding of `event` at once, when nothing closer to the focus takes that key and no
        text field has the focus; True when it ran."""
        app = self._app
        if _is_text_field(app.focused):
            return False  # a letter typed in a field is text; in a list (a Select's too) it searches
        try:
            active = app.screen.active_bindings.get(event.key)
        except NoScreen:
            return False
        if active is None or active.node is not app or not active.enabled:
            return False
        event.stop()
        event.prevent_default()
        before = app.screen
        await app.run_action(active.binding.action, app)
        screen = app.screen
        if screen is not before and screen.focused is None and screen.AUTO_FOCUS:
            self._focus_wanted_since = self.calm  # the next keys wait for its field (`focus_placed`)
        return True

    def focus_placed(self) -> None:
        """A widget took the focus: the keys waiting for a new screen's field may go to it now."""
        self._focus_wanted_since = None


def _auto_field(screen: Screen) -> bool:
    selector = screen.AUTO_FOCUS
    return bool(selector) and any(w.focusable for w in screen.query(selector))
