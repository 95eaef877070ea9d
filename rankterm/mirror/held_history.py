"""`HeldHistory`: how much of the group's history the mirror holds, as a screen or `stats` says it.

A first sync within a share of the hourly call quota reads a large group over several hours, newest first;
until it is done, figures are computed over the matches held, and this says so:
"18,000 of 100,000 matches · the rest within 3 hours".
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class HeldHistory:
    """The matches held, of how many the service has, and in how many seconds the rest is expected."""

    held: int
    total: int
    rest_in: float | None = None
    """Seconds until the rest is expected to be held (the hours the quota's share takes to read it); None
    when every match is held, or before a share has run out (the pace is not known yet)."""

    @property
    def whole(self) -> bool:
        """Every match of the group is held."""
        return self.held >= self.total

    @property
    def rest(self) -> str:
        """When the rest comes: "the rest within 3 hours", "the rest on its way"; "" when all is held."""
        if self.whole:
            return ""
        if self.rest_in is None:
            return "the rest on its way"
        hours = max(1, math.ceil(self.rest_in / 3600))
        return f"the rest within {hours} hour{'s' if hours > 1 else ''}"

    def __str__(self) -> str:
        if self.whole:
            return f"{self.held:,} matches"
        return f"{self.held:,} of {self.total:,} matches · {self.rest}"
