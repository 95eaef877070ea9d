"""`SubsetPicker`: choose which subset of the group a list shows (the main subset first, then one per game).

A `Select` over the subsets the service lists (`client.subsets()`); the screen loads them and hands them over
with `set_subsets()` (first what the mirror holds, then what the service says: it redraws only when a subset
or a count changed). Its value is the chosen subset's id; `subset` gives the `Subset` itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from rich.cells import cell_len
from rich.text import Text
from textual.css.query import NoMatches
from textual.widgets import Select

from rankterm.tui.text import plain_str
from rankterm.tui.textual_internals import SelectOverlay
from rankterm.wire.models import Subset

OPTION_PADDING = 2
"""Cells an option of the list takes beside its label (a space each side)."""


def order_subsets(subsets: Iterable[Subset]) -> list[Subset]:
    """Main first, then the per-game subsets by name, then any other (custom) subset by name."""

    def key(s: Subset) -> tuple[int, str, str]:
        if s.is_main or s.type == "main":
            rank = 0
        elif s.type == "game" or s.game is not None:
            rank = 1
        else:
            rank = 2
        return (rank, s.name.casefold(), s.id)

    return sorted(subsets, key=key)


def subset_title(subset: Subset) -> str:
    """A subset's name as shown: "Main", "Catan", "Friday league (custom)"."""
    name = subset.name or subset.id
    if subset.is_main or subset.type == "main":
        text = "Main" if name.casefold() in ("main", "") else name
    elif subset.type == "game" or subset.game is not None:
        text = name
    else:
        text = f"{name} (custom)"
    return text


def subset_label(subset: Subset) -> str:
    """How a subset reads in the picker: "Main · 312 matches", "Catan · 41 matches", "Hive · 1 match"."""
    text = subset_title(subset)
    count = subset.count_matches
    return f"{text} · {count} match{'' if count == 1 else 'es'}" if count else text


class SubsetPicker(Select[str]):
    """Which subset to show: a compact one-line `Select`, main first."""

    DEFAULT_CSS = """
    SubsetPicker {
        width: 30;
    }
    SubsetPicker > SelectOverlay {
        min-width: 100%;
        max-width: 60;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(
            [], prompt="Subset", allow_blank=True, id=id, classes=classes, compact=True, type_to_search=True
        )
        self._subsets: dict[str, Subset] = {}
        self._labels: list[tuple[str, str]] = []

    def set_subsets(self, subsets: Iterable[Subset], keep: str | None = None) -> bool:
        """Offer `subsets` (ordered main first); select `keep` when offered, else the main subset.
        Returns False (and redraws nothing) when the same subsets, with the same counts, are offered."""
        ordered = order_subsets(subsets)
        labels = [(s.id, plain_str(subset_label(s))) for s in ordered]
        self._subsets = {s.id: s for s in ordered}
        if labels == self._labels and (keep is None or keep == self.value):
            return False
        self._labels = labels
        self.set_options([(Text(label), sid) for sid, label in labels])
        with contextlib.suppress(NoMatches):  # the list as wide as its longest label: nothing shows through
            widest = max((cell_len(label) for _sid, label in labels), default=0)
            self.query_one(SelectOverlay).styles.width = widest + OPTION_PADDING
        if keep is not None and keep in self._subsets:
            self.value = keep
        elif ordered:
            self.value = ordered[0].id
        return True

    @property
    def labels(self) -> list[str]:
        """The subsets offered, as they read in the picker, in order."""
        return [label for _id, label in self._labels]

    @property
    def subset(self) -> Subset | None:
        """The chosen subset, or None before the subsets are loaded."""
        value = self.value
        return self._subsets.get(value) if isinstance(value, str) else None

    @property
    def subset_id(self) -> str | None:
        """The chosen subset's id for a call (`None` for the main subset, whose path has no subset segment)."""
        chosen = self.subset
        if chosen is None or chosen.is_main or chosen.type == "main":
            return None
        return chosen.id
