"""`MatchFormAnswer`: what the service said about the matches just sent, one line a match, and what each did.

"✔ accepted" lines in the success colour, "✘ rejected: <reason>" lines in the error colour, and a plain line
for anything else (a dry run, a hint, an error that refused the whole request). Empty, it takes no room.

A match kept in the outbox (the service could not be reached) has its line replaced (`replace_line`) once the
outbox sends it, and its effect followed as any other's.

What a match did: after a send, `follow()` reads, in a worker, each accepted match's effect on the main
standings (rankterm/stats/effect.py: its number from the matches list, then the standings before and after it)
and shows it under the match's line: `↳ Match 301 · Elena +58 (3→1) · Ada +18 · ...`. When it cannot be read
(offline, the rankings quota, not rated yet) the line says the match was recorded and that its effect shows
when the service answers; it is read again when the group changes (the app's `group_version`, e.g. the
service answering again) and a few times on a timer. The answer itself is never held back by this and never
lost.

What it changed: once its effect is shown, the events of `rankterm.stats.changes` that match caused where it
was played (a new leader or champion, a nemesis, a streak, a milestone: `stats.kept.match_changes`, from the
held history, read in a thread) follow on a line of their own under it, "New Catan champion: Elena · Ada: 3
wins in a row", a few at most, the weightiest first; nothing when it changed nothing. Read after the effect,
so neither holds back the answer or the effect.

Where it is said: on the form, in this panel only, at the top of the form where it covers no field (a toast
stayed over the next match's Rank, Points and Bot columns at 80x24, and two stacked). A match whose line has
been replaced since (another send) gets a line of its own at the end ("Earlier: Match 301 · ..."). Only when
the form is not the screen shown (the seat moved on before the effect could be read) is it a toast: one for
all the effects read together, so they never stack.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Static

from rankterm.stats.changes import Event
from rankterm.stats.effect import MatchEffect, outcome_effect
from rankterm.stats.kept import match_changes
from rankterm.tui.text import plain, plain_str
from rankterm.wire.errors import RanktermError

if TYPE_CHECKING:
    from rankterm.mirror import Group
    from rankterm.outbox.outcome import Outcome

OK = "ok"
BAD = "bad"
NOTE = "note"
EFFECT = "effect"
CHANGES = "changes"

WAITING = "Recorded; what it did to the standings shows when the service answers."
EARLIER = "Earlier: "
"""Opens the line of a match whose own line was replaced by a later answer."""
TOAST_SECONDS = 8.0
"""How long the toast of effects read while the form is not shown stays."""
RETRY_AFTER = (3.0, 10.0, 30.0)
"""Seconds before each timed retry of an effect that could not be read (the group changing retries too)."""
MAX_OWED = 10
"""At most this many effects are waited for; an older one is dropped (its match stays recorded)."""
CHANGES_SHOWN = 4
"""At most this many of a match's changes are said; the rest are counted ("+2 more")."""
WEIGHT = ("leader", "champion", "game leader", "nemesis", "streak", "wins", "matches")
"""The kinds of change, weightiest first: the order they are said in."""


def changes_text(events: Sequence[Event]) -> str:
    """What a match changed in one line, the weightiest first: "New Catan champion: Elena · Ada: 3 wins in a
    row" ("" when nothing)."""
    ordered = sorted(events, key=lambda e: WEIGHT.index(e.kind) if e.kind in WEIGHT else len(WEIGHT))
    said = [e.text for e in ordered[:CHANGES_SHOWN]]
    if len(ordered) > CHANGES_SHOWN:
        said.append(f"+{len(ordered) - CHANGES_SHOWN} more")
    return " \u00b7 ".join(said)


def effect_text(effect: MatchEffect) -> str:
    """The line and the toast for what a match did: "Match 301 · Elena +58 (3→1) · Ada +18" (a match played
    before others already recorded: "Match 12, played before 3 later matches · …", what it did there)."""
    said = effect.sentence()
    return f"{effect.heading()} · {said}" if said else f"{effect.heading()}: no ranked player in it."


@dataclass
class _Owed:
    """An accepted match whose effect is still to be shown."""

    token: int
    outcome: Outcome
    tries: int = 0


class MatchFormAnswer(Vertical):
    """The answer panel at the top of the match form."""

    DEFAULT_CSS = """
    MatchFormAnswer {
        height: auto;
        width: 1fr;
        display: none;
        border-left: outer $primary;
        padding: 0 0 0 1;
        margin: 0 0 1 0;
    }
    MatchFormAnswer.-shown {
        display: block;
    }
    MatchFormAnswer > Static {
        width: 1fr;
        height: auto;
    }
    MatchFormAnswer > .-ok {
        color: $text-success;
    }
    MatchFormAnswer > .-bad {
        color: $text-error;
    }
    MatchFormAnswer > .-note {
        color: $text-muted;
    }
    MatchFormAnswer > .-effect {
        color: $text;
        text-style: bold;
        padding-left: 2;
    }
    MatchFormAnswer > .-changes {
        color: $text-accent;
        padding-left: 4;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[tuple[str, str]] = []
        self._tokens: list[int | str | None] = []
        """Parallel to `lines`: the token of the match a line is about (its effect goes under it, marked by
        the token negated; what it changed under that, marked "changes:<token>")."""
        self._counter = itertools.count(1)
        self._owed: list[_Owed] = []
        self._group: Group | None = None
        self._reading = False
        self._again = False
        self._retry: Timer | None = None
        self.effects: list[MatchEffect] = []
        """Every effect shown since the screen opened, newest last (for tests and for the log)."""
        self.changed: dict[int, list[Event]] = {}
        """What each match whose effect was shown changed, by number (for tests and for the log)."""

    def on_mount(self) -> None:
        self.watch(self.app, "group_version", self._group_changed, init=False)

    def show(self, lines: Iterable[tuple[str, str]]) -> None:
        """Replace the panel with `lines`: (kind, text), kind one of "ok", "bad", "note"."""
        self.lines = list(lines)
        self._tokens = [None] * len(self.lines)
        self._redraw()

    def _redraw(self) -> None:
        self.remove_children()
        self.mount_all(Static(plain(text), classes=f"-{kind}") for kind, text in self.lines)
        self.set_class(bool(self.lines), "-shown")

    def clear(self) -> None:
        self.show([])

    def add(self, kind: str, text: str) -> None:
        """One more line at the end (the lines shown and the effects owed stay); none when it is the last
        line already."""
        if self.lines[-1:] == [(kind, text)]:
            return
        self.lines.append((kind, text))
        self._tokens.append(None)
        self._redraw()

    def replace_line(self, said: tuple[str, str], kind: str, text: str) -> int | None:
        """Put (kind, text) in the place of the line `said` (a match's line that has changed: kept in the
        outbox, then sent); its index, or None when that line is no longer shown."""
        if said not in self.lines:
            return None
        at = self.lines.index(said)
        self.lines[at] = (kind, text)
        self._redraw()
        return at

    @property
    def text(self) -> str:
        """All lines as plain text (for tests and for the log)."""
        return "\n".join(text for _, text in self.lines)

    # ------------------------------------------------------------------ what each match did

    def follow(self, group: Group, accepted: Iterable[tuple[int, Outcome]]) -> None:
        """Read what each accepted match did and show it under its line (line `index`, as `show` was given
        them; a toast when the form is not shown by then); in a worker, so the answer is never held back."""
        self._group = group
        fresh = []
        for index, outcome in accepted:
            token = next(self._counter)
            if 0 <= index < len(self._tokens):
                self._tokens[index] = token
            fresh.append(_Owed(token, outcome))
        if not fresh:
            return
        self._owed = (self._owed + fresh)[-MAX_OWED:]
        self._read_owed()

    def _group_changed(self, _version: int) -> None:
        if self._owed:
            self._read_owed()

    def _retry_later(self) -> None:
        tries = min((o.tries for o in self._owed), default=len(RETRY_AFTER) + 1)
        if self._retry is not None:
            self._retry.stop()
            self._retry = None
        if 1 <= tries <= len(RETRY_AFTER):
            self._retry = self.set_timer(RETRY_AFTER[tries - 1], self._read_owed)

    def _read_owed(self) -> None:
        """Read the owed effects in a worker; while one is reading, it reads again when done (a read is never
        cut short and started over: that would spend rankings calls twice)."""
        if self._reading:
            self._again = True
            return
        self._reading = True
        self.run_worker(self._read(), group="match-effect", exit_on_error=False)

    async def _read(self) -> None:
        try:
            while True:
                self._again = False
                await self._read_once()
                if not (self._again and self._owed):
                    break
        finally:
            self._reading = False

    async def _read_once(self) -> None:
        group = self._group
        if group is None:
            return
        failed = False
        read: list[str] = []
        for owed in list(self._owed):  # in order: a match's "after" is the next one's "before" (mirrored)
            try:
                effect = await outcome_effect(group, owed.outcome)
            except RanktermError:
                owed.tries += 1
                failed = True
                if owed.tries == 1:
                    self._set_effect(owed.token, NOTE, WAITING)
                continue
            self._owed.remove(owed)
            self.effects.append(effect)
            text = effect_text(effect)
            read.append(text)
            if not self._set_effect(owed.token, EFFECT, text):
                self.lines.append((EFFECT, EARLIER + text))
                self._tokens.append(owed.token)
                self._redraw()
            self.run_worker(
                self._read_changes(group, owed.token, effect.number),
                group="match-changes",
                exit_on_error=False,
            )
        if read and not self.screen.is_current:
            title = "What the match did" if len(read) == 1 else "What the matches did"
            self.app.notify(plain_str("\n".join(read)), title=title, markup=False, timeout=TOAST_SECONDS)
        if failed:
            self._retry_later()

    def _set_effect(self, token: int, kind: str, text: str) -> bool:
        """Put `text` under the line of match `token` (replacing what was said of its effect before); False
        when that line is no longer shown (a later answer replaced it)."""
        if token not in self._tokens:
            return False
        at = self._tokens.index(token)
        entry = (kind, f"↳ {text}")
        following = at + 1
        if following < len(self.lines) and self._tokens[following] == -token:
            self.lines[following] = entry
        else:
            self.lines.insert(following, entry)
            self._tokens.insert(following, -token)
        self._redraw()
        return True

    async def _read_changes(self, group: Group, token: int, number: int) -> None:
        """Say what match `number` changed under its effect (line of `token`); a walk of the held history in
        a thread, after a sync when the mirror does not hold the match yet."""
        if group.held_numbers()[1] < number:
            with contextlib.suppress(RanktermError):
                await group.sync_matches()
        events = await asyncio.to_thread(match_changes, group, number)
        self.changed[number] = events
        text = changes_text(events)
        if text:
            self._set_changes(token, text)

    def _set_changes(self, token: int, text: str) -> None:
        """Put `text` under the effect of match `token` (its line, when the effect is that line itself);
        nothing when neither is shown any more."""
        marker = f"changes:{token}"
        if marker in self._tokens:
            self.lines[self._tokens.index(marker)] = (CHANGES, text)
        else:
            above = -token if -token in self._tokens else token
            if above not in self._tokens:
                return
            at = self._tokens.index(above) + 1
            self.lines.insert(at, (CHANGES, text))
            self._tokens.insert(at, marker)
        self._redraw()
