"""Modules a screen is about to need, imported in a thread so that their code does not run on the event loop.

A module imported for the first time runs all its code (classes built, dataclasses' methods compiled) in one
step of whoever imports it: on the loop, 100-150 ms for the Home board's or the player page's charts. In a
thread that code gives the interpreter back every few milliseconds, so the loop keeps drawing and reading
keys meanwhile. Python's import lock keeps it safe: a loop that imports the same module while the thread is
still at it waits for the thread, and then finds it done.

    await imported("rankterm.tui.screens.board")    # in a worker, before `from … import read_view`

A player's page is not imported ahead of Enter on a Rankings or Players row: that would load its charts
(plotext) on every seat that only reads the standings (tests/test_lazy_imports.py).
"""

from __future__ import annotations

import asyncio
import importlib
import sys


def _loaded(name: str) -> bool:
    """True when `name` was imported whole (not one still being imported by another thread)."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    return module is not None and not getattr(spec, "_initializing", False)


async def imported(*names: str) -> None:
    """Import `names` (those not loaded yet) in a thread and wait for them: the `import` that follows on the
    loop finds them in `sys.modules`. An import that fails raises here, as it would on the loop."""
    missing = tuple(name for name in names if not _loaded(name))
    if missing:
        await asyncio.to_thread(lambda: [importlib.import_module(name) for name in missing])
