"""`PeriodPicker`: choose which period a list of standings covers: all time (the default), this month, this
quarter, this year, the seasons the host names, then each earlier year, quarter and month with matches.

A compact `Select` whose value is the period's name ("" for all time); the screen hands it the choices
(`rankterm.stats.seasons.period_choices`) with `set_choices()`, and reads the chosen `period` (None: all time).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from rich.cells import cell_len
from rich.text import Text
from textual.css.query import NoMatches
from textual.widgets import Select

from rankterm.stats.seasons import ALL_TIME, Period, PeriodChoice
from rankterm.tui.text import plain_str
from rankterm.tui.textual_internals import SelectOverlay
from rankterm.tui.widgets.subset_picker import OPTION_PADDING


class PeriodPicker(Select[str]):
    """Which period: a compact one-line `Select`, all time first."""

    DEFAULT_CSS = """
    PeriodPicker {
        width: 20;
    }
    PeriodPicker > SelectOverlay {
        min-width: 100%;
        max-width: 40;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(
            [(ALL_TIME.label, ALL_TIME.key)],
            prompt="Period",
            allow_blank=False,
            value=ALL_TIME.key,
            id=id,
            classes=classes,
            compact=True,
            type_to_search=True,
        )
        self._choices: dict[str, PeriodChoice] = {ALL_TIME.key: ALL_TIME}

    def set_choices(self, choices: Iterable[PeriodChoice]) -> bool:
        """Offer `choices`, keeping the one chosen when it is still offered (else all time). Returns False
        (and redraws nothing) when the same choices are offered."""
        offered = {c.key: c for c in choices} or {ALL_TIME.key: ALL_TIME}
        if list(offered.values()) == list(self._choices.values()):
            return False
        keep = self.value if isinstance(self.value, str) and self.value in offered else ALL_TIME.key
        self._choices = offered
        labels = [(key, plain_str(c.label)) for key, c in offered.items()]
        self.set_options([(Text(label), key) for key, label in labels])
        self.value = keep
        with contextlib.suppress(NoMatches):
            widest = max(cell_len(label) for _key, label in labels)
            self.query_one(SelectOverlay).styles.width = widest + OPTION_PADDING
        return True

    @property
    def labels(self) -> list[str]:
        """The periods offered, as they read in the picker, in order."""
        return [c.label for c in self._choices.values()]

    @property
    def period(self) -> Period | None:
        """The chosen period; None for all time."""
        value = self.value
        choice = self._choices.get(value) if isinstance(value, str) else None
        return choice.period if choice is not None else None
