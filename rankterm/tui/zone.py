"""The time zone a seat shows times in: the open profile's `timezone`, else the config's, else this machine's.

Screens and widgets ask `shown_zone(self)` when they fill (cheap: the zone itself is looked up once per
name), so a profile opened from the login screen shows its own zone from the next fill on.
"""

from __future__ import annotations

from typing import Any

from rankterm.wire.localtime import SeatZone, seat_zone


def shown_zone(node: Any) -> SeatZone:
    """The zone of the app `node` (a widget, a screen or the app) belongs to; this machine's outside an app."""
    try:
        app = node.app
    except RuntimeError:  # not in a running app (textual's NoActiveAppError)
        return seat_zone()
    config = getattr(app, "config", None)
    if config is None:
        return seat_zone()
    profile = None if getattr(app, "demo", False) else getattr(app, "profile_name", None)
    return config.zone(profile)
