"""What the app's modules leave unbuilt until it is first used: pydantic's validators of rankterm's models.

Every model defers its validator to its first validation (`WireModel`'s `defer_build`): built at import, each
one costs start-up time and memory in every process, whether or not it reads that kind of answer
(benchmarks/bench_startup.py, bench_memory.py). A model can build its validator at import without saying so
(pydantic builds the whole validator of a generic model when it is first parametrized), so a fresh process
imports what the app and the demo load on the way to Home's data and lists the models already built.
"""

from __future__ import annotations

import json

from tests.support.terminal import child_says

BUILT_AT_IMPORT = """
import importlib, json, pydantic

for name in (
    "rankterm.cli", "rankterm.cli.demo_mirror", "rankterm.tui.app", "rankterm.tui.screens.home",
    "rankterm.tui.screens.board", "rankterm.client.client", "rankterm.mirror", "rankterm.outbox",
    "rankterm.stats.kept", "rankterm.server.app", "rankterm.server.demo",
):
    importlib.import_module(name)

def subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from subclasses(sub)

built = {
    f"{c.__module__}.{c.__qualname__}"
    for c in subclasses(pydantic.BaseModel)
    if c.__module__.startswith("rankterm") and c.__dict__.get("__pydantic_complete__")
}
print(json.dumps(sorted(built)))
"""


def test_importing_the_app_and_the_demo_builds_no_models_validator(tmp_path):
    assert child_says(BUILT_AT_IMPORT, tmp_path) == []


def test_a_page_kind_reads_its_rows_and_a_null_list_as_empty():
    from rankterm.wire.models import Match, MatchesPage, Player, PlayersPage, RankingRow, RankingsPage

    players = PlayersPage.model_validate({"data": [{"id": "p1", "name": "Ann"}], "totalPlayers": "1"})
    matches = MatchesPage.model_validate({"data": None, "totalMatches": 0})
    standings = RankingsPage.model_validate({"data": [{"player": {"id": "p1", "name": "Ann"}}]})

    assert [type(p) for p in players.data] == [Player] and players.total == 1
    assert matches.data == [] and matches.total == 0
    assert [type(r) for r in standings.data] == [RankingRow]
    assert json.loads(json.dumps(players.to_wire()))["data"][0]["id"] == "p1"
    assert MatchesPage.model_fields["data"].annotation == list[Match]
