"""How many pages a first sync may read now: a share of the hourly call quota, granted in rounds.

A first sync of a large group reads its matches newest first and stops when this hour's share is spent; the
next sync in a later hour goes on where it stopped. The quota endpoint tells usage as whole percentages
only (`callsPerHour`, e.g. "12%"), never the limit, so the share is kept in percentage points, as the
stats' ranking-call budget is: the meter's value when the sync first spent in this hour (UTC, by the
client's clock) is the baseline, kept in the mirror (every seat of the profile shares it), with the calls
made since. Before each round the meter is read again, and the round is sized so that the meter cannot
pass baseline + share:

- a displayed value u means a true usage in (u - 1, u] (the service rounds up), so spent so far is less
  than u - baseline + 1 points;
- the cost of one call is at most (u - baseline + 1) / calls made since the baseline (pages and quota
  reads); the first round of an hour, with no such figure yet, is `FIRST_ROUND` call;
- the room left is share·100 - (u - baseline + 1), less the cost of the calls made before the baseline
  (`BEFORE_BASELINE`: the sync's page 1 and the read that gave the baseline) and of the next read;
- whatever the share, the sync never takes the meter past `CEILING` % (recording matches needs the rest).

Other calls in the hour move the meter too and are counted against the share: it errs on the side of
spending less. An unlimited meter stays at 0 %, so the rounds grow until one holds the rest. When the quota
cannot be read (a service without one), no share is known and the sync reads on (a refusal still stops it).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable

from rankterm.mirror.notes import Notes
from rankterm.wire.errors import ApiError, QuotaError

NOTE = "sync.call-share"
"""Where the mirror keeps the hour's ledger."""

DEFAULT_SHARE = 0.25
FIRST_ROUND = 1
BEFORE_BASELINE = 2
CEILING = 80
METER = "callsPerHour"


class CallShare:
    """Grants page calls round by round (`grant`), told what was spent (`spent`)."""

    def __init__(
        self,
        notes: Notes,
        usage: Callable[[], Awaitable[dict[str, float | None]]],
        clock: Callable[[], float],
        share: float = DEFAULT_SHARE,
    ) -> None:
        """`usage`: reads the quota (one request), each meter as a percentage."""
        self.notes = notes
        self.usage = usage
        self.clock = clock
        self.share = max(0.0, min(1.0, share))

    def _hour(self) -> int:
        return int(self.clock() // 3600)

    def _ledger(self) -> dict:
        held = self.notes.get(NOTE)
        if isinstance(held, dict) and held.get("hour") == self._hour():
            return held
        pace = held.get("pace") if isinstance(held, dict) else None
        return {"hour": self._hour(), "base": None, "calls": 0, "spent": False, "pace": pace}

    async def grant(self) -> int | None:
        """Calls that may go out in the next round: 0 when this hour's share is spent (then without a request
        until the hour turns), None when the quota tells no hourly meter. Reads the quota (one request,
        counted); raises `Offline` when the service is gone."""
        ledger = self._ledger()
        if ledger.get("spent"):
            return 0  # the meter only goes up within the hour: no need to read it again
        try:
            used = (await self.usage()).get(METER)
        except QuotaError:
            return 0  # the quota endpoint itself refused: a meter is full
        except ApiError:
            used = None
        if used is None:
            return None
        if ledger["base"] is None or ledger["base"] > used:
            ledger.update(base=used, calls=0)  # this read and the sync's page 1 came before the baseline
        else:
            ledger["calls"] += 1
        spent_hi = used - ledger["base"] + 1
        if ledger["calls"] == 0:
            granted = FIRST_ROUND if min(self.share * 100 - spent_hi, CEILING - used - 1) >= 1 else 0
        else:
            cost_hi = spent_hi / ledger["calls"]
            ahead = (BEFORE_BASELINE + 1) * cost_hi  # the calls before the baseline, and the next read
            room = min(self.share * 100 - spent_hi - ahead, CEILING - used - 1 - cost_hi)
            granted = max(0, math.floor(room / cost_hi))
        if granted == 0:
            ledger["spent"] = True
            if ledger["calls"]:
                ledger["pace"] = ledger["calls"]  # what one hour's share reads: the rest takes that long
        self.notes.set(NOTE, ledger)
        return granted

    def spent(self, calls: int) -> None:
        """Count `calls` made in this hour."""
        if calls > 0:
            ledger = self._ledger()
            ledger["calls"] += calls
            self.notes.set(NOTE, ledger)

    def pace(self) -> int | None:
        """Calls one hour's share was last seen to allow (None until a share ran out)."""
        held = self.notes.get(NOTE)
        pace = held.get("pace") if isinstance(held, dict) else None
        return int(pace) if isinstance(pace, int | float) and pace > 0 else None
