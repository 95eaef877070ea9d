"""How many ranking calls the stats may spend now: a share of the hourly ranking-call quota, in rounds.

The quota endpoint tells usage as whole percentages only (WIRE.md: `rankingCallsPerHour`, e.g. "12%"), never
the limit. So the budget is kept in percentage points: the meter's value when the stats first spent in this
hour (UTC, by the client's clock) is the baseline, kept in the mirror beside the group (so a second run in
the same hour continues the same budget), together with the calls made since. Before each round the meter is
read again, and the round is sized so that the meter cannot pass baseline + share:

- a displayed value u means a true usage in (u - 1, u] (the service rounds up), so spent so far is less
  than u - baseline + 1 points, and the room left is share·100 - (u - baseline + 1);
- the cost of one call is at most (u - baseline + 1) / calls made this hour; the first round of an hour,
  with no such figure yet, is `FIRST_ROUND` calls;
- a round is at most `ROUND_MAX` calls;
- whatever the share, the stats never take the meter past `CEILING` % (the standings screens need the
  rest of the hour).

Calls by other screens in the same hour move the meter too and are counted against the stats: the budget
errs on the side of spending less, never more. When the quota cannot be read (an error other than the
network), the stats spend at most `FALLBACK_PER_HOUR` · share calls in the hour.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from rankterm.wire.errors import ApiError

if TYPE_CHECKING:
    from rankterm.mirror import Group

NOTE = "stats.ranking-budget"
"""Where the mirror keeps the hour's ledger."""

FIRST_ROUND = 1
ROUND_MAX = 50
FALLBACK_PER_HOUR = 100
METER = "rankingCallsPerHour"
CEILING = 90


class QuotaBudget:
    """Grants ranking calls round by round (`grant`), told what was spent (`spent`)."""

    def __init__(self, group: Group, share: float) -> None:
        self.group = group
        self.share = max(0.0, min(1.0, share))

    def _ledger(self, hour: int) -> dict:
        held = self.group.note(NOTE)
        if isinstance(held, dict) and held.get("hour") == hour:
            return held
        return {"hour": hour, "base": None, "calls": 0}

    async def grant(self) -> int:
        """Calls that may go out in the next round (0: the share of this hour is spent). Reads the quota
        (one request, not a ranking call); raises `Offline` when the service cannot be reached."""
        if self.share <= 0:
            return 0
        hour = int(self.group.client.clock() // 3600)
        ledger = self._ledger(hour)
        try:
            usage = (await self.group.client.quota()).usage().get(METER)
        except ApiError:
            usage = None
        if usage is None:
            ledger["base"] = None
            self.group.set_note(NOTE, ledger)
            return max(0, min(ROUND_MAX, math.floor(FALLBACK_PER_HOUR * self.share) - ledger["calls"]))
        if ledger["base"] is None or ledger["base"] > usage:
            ledger.update(base=usage, calls=0)
        self.group.set_note(NOTE, ledger)
        spent_hi = usage - ledger["base"] + 1
        room = min(self.share * 100 - spent_hi, CEILING - usage - 1)
        if room <= 0:
            return 0
        if ledger["calls"] == 0:
            return FIRST_ROUND if room >= 1 else 0
        cost_hi = spent_hi / ledger["calls"]
        return max(0, min(ROUND_MAX, math.floor(room / cost_hi)))

    def spent(self, calls: int) -> None:
        """Count `calls` ranking calls made in this hour."""
        if calls <= 0:
            return
        hour = int(self.group.client.clock() // 3600)
        ledger = self._ledger(hour)
        ledger["calls"] += calls
        self.group.set_note(NOTE, ledger)
