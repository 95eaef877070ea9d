"""Something held open by another thread for the length of a `with` block: a transaction another request is
in, for the tests that check who waits for it and who does not.

    with held_in_thread(store._read):
        ...                                   # another thread is inside store._read() meanwhile
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any


@contextmanager
def held_in_thread(enter: Callable[[], AbstractContextManager[Any]], limit: float = 30.0) -> Iterator[None]:
    """`enter()` entered on another thread before the block starts and left after it ends (each waited for at
    most `limit` seconds)."""
    inside, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with enter():
            inside.set()
            leave.wait(limit)

    holder = threading.Thread(target=hold, name="rankterm-holder", daemon=True)
    holder.start()
    try:
        if not inside.wait(limit):
            raise RuntimeError(f"the other thread did not get in within {limit} s")
        yield
    finally:
        leave.set()
        holder.join(limit)
