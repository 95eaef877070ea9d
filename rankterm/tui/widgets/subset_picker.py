"""`SubsetPicker`: choose which subset of the group a list shows (the main subset first, then one per game).

A `Select` over the subsets the service lists (`client.subsets()`); the screen loads them and hands them over
with `set_subsets()` (first what the mirror holds, then what the service says: it redraws only when a subset
or a count changed). Its value is the chosen subset's id; `subset` gives the `Subset` itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import Select

from rankterm.tui.text import plain_str
from rankterm.wire.models import Subset


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
    """How a subset reads in the picker: "Main · 312 matches", "Catan · 41 matches"."""
    text = subset_title(subset)
    return f"{text} · {subset.count_matches} matches" if subset.count_matches else text


class SubsetPicker(Select[str]):
    """Which subset to show: a compact one-line `Select`, main first."""

    DEFAULT_CSS = """
    SubsetPicker {
        width: 30;
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
