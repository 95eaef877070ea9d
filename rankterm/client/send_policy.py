"""How rankterm tries again, and how many matches go in one request: the rules every sender follows.

`Backoff` is the one schedule of waits between tries: the n-th failure in a row waits `wait(n)` (the last
wait repeats), and one go makes at most `tries` tries. Three places wait it, each with its own figures:

- the client's GETs (`RankingClient.call`): `Backoff.doubling(client.backoff, tries=1 + client.retries)`,
  0.25 s then 0.5 s by default, a Retry-After longer than the next wait taken instead;
- the outbox's rounds (`OutboxSender`): `Backoff.doubling(0.5, cap=30, tries=8)` by default, slept in the
  sender; after the last round it says when the next send should start (`SendReport.retry_in`);
- the app's sends (`tui.outbox_runner`): one round a send, `RETRY_DELAYS` between them (5 s up to 5 min),
  waited by a timer from the report's `retry_in`.

`batches` cuts matches into requests of `batch_size`, in order: the client's `add_matches` and the outbox
both cut with it, so a batch is the same whoever sends it.

A retry library (tenacity, stamina) would bring its own loop, which none of these three can use as it is:
the client renews a refused token without counting it a try, the outbox settles what it sent between rounds,
and the app waits on a timer, not in a loop. What they share is the schedule, which is this module.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

MAX_WAIT = 30.0
"""The longest wait of a doubling schedule unless told otherwise (seconds)."""


@dataclass(frozen=True, slots=True)
class Backoff:
    """Seconds to wait after each failed try, and how many tries one go makes.

    `waits[n - 1]` after the n-th failure in a row, the last one again past the end; `tries`: the most tries
    of one go (None: no end, the caller stops)."""

    waits: tuple[float, ...]
    tries: int | None = None

    def __post_init__(self) -> None:
        if not self.waits or any(not 0 <= w < float("inf") for w in self.waits):
            raise ValueError("a backoff needs one or more waits, each 0 or more seconds")
        if self.tries is not None and self.tries < 1:
            raise ValueError("a backoff makes at least one try")

    @classmethod
    def doubling(cls, first: float, *, cap: float = MAX_WAIT, tries: int | None = None) -> Backoff:
        """`first`, then twice the wait before, up to `cap` (then `cap` again)."""
        if not 0 <= cap < float("inf"):
            raise ValueError("a doubling backoff needs a longest wait of 0 or more seconds")
        first = max(0.0, first)
        waits = [first]
        following = min(first * 2, cap)
        while first > 0 and following != waits[-1]:
            waits.append(following)
            following = min(following * 2, cap)
        return cls(tuple(waits), tries)

    def wait(self, failures: int) -> float:
        """Seconds to wait after `failures` failed tries in a row (1 or more) before the next."""
        return self.waits[min(max(failures, 1), len(self.waits)) - 1]

    def more(self, failures: int) -> bool:
        """Whether one go makes another try after `failures` failed ones."""
        return self.tries is None or failures < self.tries


ONCE = Backoff((0.0,), tries=1)
"""One try and no other (a POST: never sent twice blindly)."""


def batches(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """`items` in order, `size` at a time (the last batch may be smaller)."""
    size = max(1, size)
    for start in range(0, len(items), size):
        yield items[start : start + size]
