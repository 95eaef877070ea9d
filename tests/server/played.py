"""A group of the embedded service to compare with another: its matches sent in some order, and everything
a client can read of it (`Group.everything`), with row ids as external ids and player ids as names (row ids
follow arrival, names and external ids do not)."""

from __future__ import annotations

import random
from typing import Any

from rankterm.server.store import Store

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Flo")
CATAN, AZUL = 13, 230802


class Group:
    """A group of `store` with NAMES as players and Catan and Azul as games."""

    def __init__(self, store: Store, name: str = "Club") -> None:
        self.store = store
        self.id = store.create_group(name)
        self.players = [store.create_player(self.id, n).id for n in NAMES]
        self.games = [store.create_game(self.id, bgg_id=bgg).id for bgg in (CATAN, AZUL)]

    @classmethod
    def reopened(cls, store: Store, group_id: int) -> Group:
        """The group `group_id` of `store` as it is (to read it: `everything`, `numbers`)."""
        group = cls.__new__(cls)
        group.store, group.id = store, group_id
        return group

    def send(self, *matches: dict) -> Any:
        return self.store.add_matches(self.id, list(matches))

    def accept(self, matches: list[dict], batch: int = 1) -> None:
        for start in range(0, len(matches), batch):
            answer = self.send(*matches[start : start + batch])
            assert answer.rejected == [], answer.rejected

    def names(self) -> dict[str, str]:
        return {p.id: p.display_name for p in self.store.players_page(self.id, 1).data}

    def match_count(self) -> int:
        return self.store.match_status(self.id).total

    def everything(self) -> dict[str, Any]:
        """Every page a client can read (matches pages, the standings after every match of every subset)
        and every rating row stored, with row ids as external ids and player ids as names."""
        store, total = self.store, self.match_count()
        out: dict[str, Any] = {}
        for subset in store.subsets(self.id):
            key = subset.name
            pages = [store.matches_page(self.id, subset.id, 1)]
            while pages[-1].page < pages[-1].total_pages:
                pages.append(store.matches_page(self.id, subset.id, pages[-1].page + 1))
            out[f"matches {key}"] = [p.to_wire() for p in pages]
            out[f"rankings {key}"] = [
                store.rankings_page(self.id, subset.id, n, 1).to_wire() for n in range(1, total + 1)
            ]
            out[f"latest {key}"] = store.rankings_page(self.id, subset.id, None, 1).to_wire()
        with store._read() as conn:
            for table, columns in (
                (
                    "rating_history",
                    "number, player, prev, match_date, mu, sigma, ree, best_ree, played, last_date",
                ),
                (
                    "rating_current",
                    "player, bot, first_number, number, mu, sigma, best_ree, played, last_date, ree",
                ),
                ("rating_snapshot", "at_number, player, number, ree, best_ree, played, last_date"),
                ("subset_matches", "number, seq, (SELECT external_id FROM matches WHERE id = match_id)"),
            ):
                rows = conn.execute(
                    f"SELECT s.name, {columns} FROM {table} JOIN subsets s ON s.id = subset_id"
                    " WHERE s.group_id = ?",
                    (self.id,),
                ).fetchall()
                out[table] = [tuple(r) for r in rows]
        return self._plain(out)

    def _plain(self, found: dict[str, Any]) -> dict[str, Any]:
        names = self.names()
        external = {}
        for page in found["matches Main"]:
            external.update({m["id"]: m["externalId"] for m in page["data"]})

        def plain(value: Any) -> Any:
            if isinstance(value, dict):
                out = {k: plain(v) for k, v in value.items()}
                if "displayName" in value:
                    out["id"] = names[value["id"]]
                elif {"id", "number", "date"} <= set(value):
                    out["id"] = external[value["id"]]
                return out
            if isinstance(value, list | tuple):
                return type(value)(plain(v) for v in value)
            if isinstance(value, str):
                return names.get(value, value)
            return value

        out = {k: plain(v) for k, v in found.items()}
        for table in ("rating_history", "rating_current", "rating_snapshot", "subset_matches"):
            out[table] = sorted(out[table], key=repr)
        return out

    def numbers(self) -> list[tuple[int, str]]:
        """(number, external id) of every match, in played order."""
        data = self.store.matches_page(self.id, None, 1).data
        return sorted((m.number, m.external_id) for m in data)


def season(group: Group, count: int, seed: int = 1, day: int = 1) -> list[dict]:
    """`count` matches of `group` dated a day apart from October `day`, each with an external id."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        size = rng.randint(2, 4)
        chosen = rng.sample(group.players, size)
        factions: list[dict] = [
            {"players": [pid], "rank": 1 + r - (r == 2 and i % 4 == 0), "points": str(10 - r)}
            for r, pid in enumerate(chosen)
        ]
        if i % 5 == 0:
            factions.append({"bot": True, "rank": size + 1, "points": "4"})
        out.append(
            {
                "id": f"m{i:02d}",
                "game": group.games[i % 3 == 2],
                "weight": ("light", "normal", "heavy")[i % 3],
                "date": f"2025-10-{day + i:02d} 20:00:00",
                "factions": factions,
            }
        )
    return out
