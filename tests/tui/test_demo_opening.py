"""`rankterm demo` opening its group: the title says so while it is built, and no toast is left over the
figures once they are painted."""

from __future__ import annotations

import threading

from rankterm.tui.session import BUILT_IN_DEMO

from .conftest import _new_demo_service
from .pilot import settle


async def test_opening_the_demo_is_said_in_the_title_and_leaves_no_toast(make_app) -> None:
    release = threading.Event()

    def slow_demo():
        release.wait(10)
        return _new_demo_service().client()

    app = make_app(client=None, demo=True, demo_factory=slow_demo)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        assert app.sub_title == "opening the built-in demo…"
        assert str(app.screen.query_one("#home-title").render()) == "Home — opening the built-in demo…"
        release.set()
        await settle(pilot, 0.5)
        assert app.sub_title == BUILT_IN_DEMO
        title = str(app.screen.query_one("#home-title").render())
        assert title == f"Home — {BUILT_IN_DEMO} · after match 300"  # the standings are painted
        assert [n.message for n in app._notifications] == []
