"""Modules a screen is about to need, imported in a thread so that their code does not run on the event loop.

A module imported for the first time runs all its code (classes built, dataclasses' methods compiled) in one
step of whoever imports it: on the loop, 100-150 ms for the Home board's or the player page's charts. In a
thread that code gives the interpreter back every few milliseconds, so the loop keeps drawing and reading
keys meanwhile. Python's import lock keeps it safe: a loop that imports the same module while the thread is
still at it waits for the thread, and then finds it done.

    await imported("rankterm.tui.screens.board")    # in a worker, before `from … import read_view`

A player's page is not imported ahead of Enter on a Rankings or Players row: that would load its charts
(plotext) on every seat that only reads the standings (tests/test_lazy_imports.py). Enter imports it in a
thread and then pushes it (`open_imported`); the screen holds the keys typed meanwhile (`Opening.holds_keys`),
so that they reach the page as they would have had it opened at once.

    self.opening.open("rankterm.tui.screens.stats.player_page", page)   # `page()` imports and builds it
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from collections.abc import Callable
from typing import Any

from textual.dom import DOMNode
from textual.screen import Screen
from textual.worker import Worker


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


class Opening:
    """A screen's opening of another whose module may not be loaded yet: the module imported in a thread, then
    the screen pushed; meanwhile `holds_keys()` is True (a screen's `holds_keys` hands it to the app's key
    queue), so the keys typed after Enter wait for the page instead of reaching the list under it."""

    def __init__(self, node: DOMNode) -> None:
        self._node = node
        self._worker: Worker[None] | None = None

    def holds_keys(self) -> bool:
        """True while a screen is being imported to be pushed."""
        return self._worker is not None and not self._worker.is_finished

    def open(self, name: str, build: Callable[[], Screen[Any]]) -> None:
        """Push `build()` (which imports its screen from the module `name`): at once when `name` is loaded,
        else once a thread imported it."""
        app = self._node.app
        if _loaded(name):
            app.push_screen(build())
            return

        async def push() -> None:
            await imported(name)
            app.push_screen(build())

        self._worker = self._node.run_worker(push(), group="opening", exclusive=True, exit_on_error=False)
