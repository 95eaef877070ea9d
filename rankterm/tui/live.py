"""Live seats: a cheap, periodic probe that notices another seat's new match or player and says so to the app.

While a seat shows Home, the Service screen, the rankings, the matches, the players or the scoreboard (the base screen
of its mode, with no dialog or form over it), `LiveProbe` asks the service one small question every few
seconds and calls `app.group_changed()` only when the answer differs from the last one: the screen shown then
revalidates what it shows (`base.RanktermScreen`). A probe that finds nothing new changes nothing on screen,
so it writes 0 bytes to the terminal.

    probe = LiveProbe(app)     # one per app (RanktermApp.on_mount); `attach()` with each group opened
    probe.touched()            # every key or mouse event on the app (RanktermApp.on_event)

**The question** (one call, metered as one API call on SERVICE.md's public interface, never a ranking call):

- on the players screen, `players/1`: the group's player count (`totalPlayers`; a new ghost raises it);
- elsewhere, `matches/status`: its five counters (about 70 bytes). Every match a seat of rankterm records
  goes through the interface and moves them; on the public service they also move while a match is queued,
  inserted and processed, so the standings are read again when its ratings are computed;
- every `SUBSETS_EVERY`-th probe also reads `subset` (each subset's match count and last match), for
  matches recorded outside the interface (the public service's own app), which `matches/status` may not
  count (WIRE.md: it counts "matches recorded through the interface").

**How often**: every `every` seconds (5; `RANKTERM_LIVE_EVERY` sets it, 0 turns live updates off) while
someone pressed a key or moved the mouse in the last 10 minutes, every 60 s after that; the first key after a
quiet spell brings the next probe forward. While the service cannot be reached the probe waits as the outbox
does between its retries (`outbox_runner.RETRY_DELAYS`: 5 s, 15 s, … 5 min), never faster; its first answer
runs the app's own `_reachable` path (the client's reachability listeners), which revalidates everything.

**Quota**: every `QUOTA_EVERY`-th probe reads `quota` (one more call) and takes the worst of the meters the
probe spends (the `calls…` fields). At `QUOTA_GATE` (80 %) or more, or when the service refuses with a quota
code, probing stops and the status line says so (`note`); the quota is read again every `GATED_RECHECK`
seconds and probing resumes below the gate. F5 still reloads a screen by hand.

**Dialogs and the form**: the probe pauses while a dialog (a match's detail, the command palette, …) is over
the screen, or the match form, games, outbox or profiles screen is shown. What a dialog covers is revalidated
when it closes (the screen's ScreenResume), so probing behind it would spend quota on nothing; and the form
is never disturbed while it is being filled (it revalidates its lists when it is entered).

**After this seat's own send** the app calls `group_changed()` itself, at once; the probe's next answer then
differs from the last and the screen revalidates once more, which costs a few calls but never loses a match
another seat recorded in the same seconds.

**A history that changed** (a match played earlier than the group's latest arrived, from another seat's
outbox or an import): it moves the counters as any new match does, so the same probe notices it, at no
extra call. What it found different also marks the mirror's matches stale (no call), so that whatever reads
the past next (standings after a past match, the stats, a chart, a match's effect) first brings the held
matches up to date; that sync tells a changed history by page 1 of the matches (`mirrored`: a number held
under another id), rewrites the held matches from the earliest change and drops the standings after it.
The probe listens for that (the group's `history_listeners`) and calls `group_changed()` once more, so the
screen shown reads again what it drew from the old history.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.signal import Signal
from textual.timer import Timer

from rankterm.tui.textual_internals import app_exiting
from rankterm.wire.errors import Offline, QuotaError, RanktermError

if TYPE_CHECKING:
    from rankterm.client.client import RankingClient
    from rankterm.mirror import Group
    from rankterm.wire.models import Quota

LIVE_MODES = frozenset({"home", "service", "rankings", "matches", "players", "board"})
"""The modes whose screen follows the room: the probe runs while one of them is shown, with nothing over it."""

ENV_EVERY = "RANKTERM_LIVE_EVERY"
"""Seconds between probes while someone is at the keyboard (default 5); 0 turns live updates off."""

ACTIVE_EVERY = 5.0
IDLE_EVERY = 60.0
IDLE_AFTER = 600.0
"""Seconds without a key or mouse event after which the seat probes every `IDLE_EVERY` seconds."""
QUOTA_GATE = 80.0
"""Percent of a metered quota at or above which the probe stops."""
QUOTA_EVERY = 24
"""Probes between two reads of the quota (about every 2 minutes at 5 s, every 24 minutes at 60 s)."""
SUBSETS_EVERY = 24
"""Probes between two reads of the subsets (matches recorded outside the interface)."""
GATED_RECHECK = 600.0
"""Seconds between two reads of the quota while probing is stopped by it."""

Fingerprint = tuple[Any, ...]


def every_from_env(default: float = ACTIVE_EVERY) -> float:
    """`RANKTERM_LIVE_EVERY` as seconds (0: off); the default when unset or not a number."""
    raw = os.environ.get(ENV_EVERY, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return max(0.0, value)


def probe_meter(quota: Quota) -> tuple[str, float] | None:
    """The fullest quota meter the probe spends (the API calls, per hour and per year), as (name, percent);
    None when the service reports none of them."""
    worst: tuple[str, float] | None = None
    for key, percent in quota.usage().items():
        if percent is None or not key.lower().startswith("calls"):
            continue
        if worst is None or percent > worst[1]:
            worst = (key, percent)
    return worst


def _meter_words(key: str) -> str:
    """`callsPerHour` -> "calls per hour"."""
    out = "".join(" " + c.lower() if c.isupper() else c for c in key)
    return out.replace("_", " ").strip()


class LiveProbe:
    """The app's probe: a timer, its interval, the quota gate; `group_changed()` only when something is new."""

    def __init__(
        self,
        app: Any,
        *,
        every: float | None = None,
        idle_every: float = IDLE_EVERY,
        idle_after: float = IDLE_AFTER,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`every`: seconds between probes while active (None: `RANKTERM_LIVE_EVERY`, else 5; 0: off).
        `clock`: monotonic seconds, settable in tests (idleness is judged by it; timers run in real time)."""
        self.app = app
        self.every = every_from_env() if every is None else max(0.0, every)
        self.idle_every = idle_every
        self.idle_after = idle_after
        self.clock = clock
        self.quota_every = QUOTA_EVERY
        self.subsets_every = SUBSETS_EVERY
        self.last_input = clock()
        self.note = ""
        """Why probing is stopped, for the status line ("" while it runs or has nothing to say)."""
        self.changed: Signal[str] = Signal(app, "live-note")
        """Published with `note` when it changes (the status line subscribes)."""
        self.probes = 0
        """Probes made (each one call, plus the occasional quota or subsets read: see `calls`)."""
        self.calls = 0
        """Requests the probe sent."""
        self.found = 0
        """Probes that found something new (and called `group_changed`)."""
        self._group: Group | None = None
        self._seen: dict[str, Fingerprint] = {}
        self._timer: Timer | None = None
        self._due = 0.0
        self._since_quota: int | None = None
        self._since_subsets = 0
        self._gated_at: float | None = None
        self._offline_step = 0
        self._version = 0
        self._running = False
        self._runs = 0

    # ------------------------------------------------------------------ state

    @property
    def enabled(self) -> bool:
        return self.every > 0

    @property
    def gated(self) -> bool:
        """True while the quota stops the probe."""
        return self._gated_at is not None

    def active(self) -> bool:
        """Whether someone pressed a key or moved the mouse in the last `idle_after` seconds."""
        return self.clock() - self.last_input < self.idle_after

    def interval(self) -> float:
        """Seconds until the next probe: `every` while active, `idle_every` after, and never faster than the
        outbox's retries while the service cannot be reached."""
        base = self.every if self.active() else max(self.every, self.idle_every)
        if self._offline_step or getattr(self.app, "offline", False):
            from rankterm.tui.outbox_runner import RETRY_DELAYS  # here: it imports the client (~0.4 s)

            step = max(0, self._offline_step - 1)
            base = max(base, RETRY_DELAYS[min(step, len(RETRY_DELAYS) - 1)])
        return base

    def wanted(self) -> bool:
        """Whether a probe is of use now: a client is open and a live screen is shown with nothing over it."""
        app = self.app
        if not self.enabled or app.client is None or app_exiting(app):
            return False
        try:
            mode, stack = app.current_mode, app.screen_stack
        except Exception:  # no screen yet (starting) or none any more (closing)
            return False
        return mode in LIVE_MODES and len(stack) == 1

    def kind(self) -> str:
        """What the next probe asks: "players" on the players screen, else "status"."""
        return "players" if getattr(self.app, "current_mode", "") == "players" else "status"

    # ------------------------------------------------------------------ the app's hooks

    def attach(self, group: Group) -> None:
        """A client was opened: forget what the last one said, take the new one's baseline now (one call)."""
        if self._group is not None and self._history_changed in self._group.history_listeners:
            self._group.history_listeners.remove(self._history_changed)
        if self._group is not None and self._reachability in self._group.client.reachability_listeners:
            self._group.client.reachability_listeners.remove(self._reachability)
        group.history_listeners.append(self._history_changed)
        group.client.reachability_listeners.append(self._reachability)
        self._group = group
        self._seen.clear()
        self._since_quota = None
        self._since_subsets = 0
        self._offline_step = 0
        self._set_note("")
        self._gated_at = None
        if not self.enabled:
            return
        self._version = self.app.group_version
        self._start(self.probe_once(baseline=True))

    def touched(self) -> None:
        """A key or mouse event: the seat is active; after a quiet spell the next probe comes forward."""
        now = self.clock()
        was_idle = now - self.last_input >= self.idle_after
        self.last_input = now
        if was_idle and self.enabled and self._timer is not None and self._due - now > self.every:
            self.schedule()

    def stop(self) -> None:
        """No more probes (the app is closing)."""
        self.every = 0.0
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    # ------------------------------------------------------------------ the timer

    def schedule(self) -> None:
        """(Re)arm the timer for the next probe, `interval()` from now."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if not self.enabled or self._group is None:
            return
        delay = self.interval()
        self._due = self.clock() + delay
        self._timer = self.app.set_timer(delay, self._tick, name="live-probe")

    def _tick(self) -> None:
        self._timer = None
        if self._running:
            return  # the probe under way schedules the next one
        if not self.wanted():
            self.schedule()  # looked again later: a timer that fires and finds nothing to do draws nothing
            return
        self._start(self.probe_once())

    def _start(self, probe: Any) -> None:
        self._running = True
        self._runs += 1
        run_id = self._runs

        async def run() -> None:
            try:
                await probe
            finally:
                if run_id == self._runs:  # not a probe cancelled by a newer one (a client opened meanwhile)
                    self._running = False
                    self.schedule()

        self.app.run_worker(run(), group="live-probe", exclusive=True, exit_on_error=False)

    # ------------------------------------------------------------------ one probe

    async def probe_once(self, *, baseline: bool = False) -> bool:
        """Ask the service once (and the quota or the subsets when due); call `group_changed()` when
        something is new. Returns whether it did. `baseline`: the first probe on a client, which also takes
        the players' count (the players screen is compared with it when it is shown later)."""
        group = self._group
        if group is None or self.app.client is not group.client:
            return False
        version = self.app.group_version
        if version != self._version:
            self._seen.pop("subsets", None)  # the fallback's baseline is taken again after any change
            self._version = version
        try:
            if self._quota_due():
                await self._read_quota(group.client)
            if self.gated:
                return False
            kinds = ["status", "players"] if baseline else [self.kind()]
            fingerprints = {kind: await self._fingerprint(group, kind) for kind in kinds}
            kind = kinds[0]
            self.probes += 1
            self._since_quota = (self._since_quota or 0) + 1
            self._since_subsets += 1
            if kind == "status" and self._since_subsets >= self.subsets_every:
                self._since_subsets = 0
                fingerprints["subsets"] = await self._fingerprint(group, "subsets")
        except QuotaError as exc:
            self._gate(f"the service refused on quota ({exc.code or 'quota'})")
            return False
        except Offline:
            self._offline_step += 1
            return False
        except RanktermError:
            return False  # said by the screens when they load; the probe tries again next time
        if getattr(self.app, "offline", False):
            # The players and subsets reads answer from the mirror when the service cannot be reached:
            # not an answer to compare, and the next probe waits as the outbox does.
            self._offline_step += 1
            return False
        self._offline_step = 0
        new = False
        for name, fingerprint in fingerprints.items():
            old = self._seen.get(name)
            self._seen[name] = fingerprint
            new = new or (old is not None and old != fingerprint)
        if self.app.client is not group.client or self.app.group_version != version:
            return False  # another client, or the group changed meanwhile (the service back, a send): done
        if not new:
            return False
        self.found += 1
        group.invalidate("matches")  # maybe dated before held ones: the past is read again before it is used
        self.app.group_changed()
        self._version = self.app.group_version
        return True

    def _reachability(self, reachable: bool) -> None:
        """The service answers again (the outbox's knock, any read): probe at the usual pace from now on,
        not after the offline wait the last failed probe armed."""
        if reachable and self._offline_step and self.enabled:
            self._offline_step = 0
            if not self._running:
                self.schedule()

    def _history_changed(self, _first: int) -> None:
        """The client rewrote the held matches from a changed history: the screen shown reads again (what it
        drew may come from the old one; the sync that found it was perhaps not the screen's own)."""
        if self._group is not None and self.app.client is self._group.client:
            self.app.call_later(self.app.group_changed)  # after the read that found it, not within it

    async def _fingerprint(self, group: Group, kind: str) -> Fingerprint:
        self.calls += 1
        if kind == "players":
            page = await group.players_page(1)
            return (page.total, page.total_pages, tuple(p.id for p in page.data))
        if kind == "subsets":
            subsets = await group.subsets(refresh=True)
            return tuple(sorted((s.id, s.count_matches, repr(s.last_match)) for s in subsets))
        status = await group.client.match_status()
        return (status.queued, status.waiting, status.added, status.processed, status.total)

    # ------------------------------------------------------------------ quota

    def _quota_due(self) -> bool:
        if self._gated_at is not None:
            return self.clock() - self._gated_at >= GATED_RECHECK
        return self._since_quota is None or self._since_quota >= self.quota_every

    async def _read_quota(self, client: RankingClient) -> None:
        self.calls += 1
        self._since_quota = 0
        quota = await client.quota()
        meter = probe_meter(quota)
        if meter is not None and meter[1] >= QUOTA_GATE:
            self._gate(f"{_meter_words(meter[0])} at {meter[1]:.0f}% of the quota")
        elif self._gated_at is not None:
            self._gated_at = None
            self._set_note("")

    def _gate(self, why: str) -> None:
        self._gated_at = self.clock()
        self._set_note(f"Live updates paused: {why} (F5 reloads)")

    def _set_note(self, note: str) -> None:
        if note != self.note:
            self.note = note
            self.changed.publish(note)
