"""The subset and match every standings page repeats are validated once per reading (`client.frames`): the
pages come out equal to pydantic's own validation of each answer, a page whose subset changed is validated
afresh, a part kept under one validation context is never given under another, and a part the client cannot
read is refused as before."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rankterm.client.client import RankingClient
from rankterm.client.frames import FrameMemo
from rankterm.mirror import Group
from rankterm.server.app import create_app
from rankterm.server.store import Store
from rankterm.wire.errors import UnexpectedResponse
from rankterm.wire.fields import DISPLAY_SAFE
from rankterm.wire.models import NewFaction, NewMatch, RankingsPage

KEY, SECRET = "frames-key", "frames-secret"
PLAYERS = 25 * 3 + 4


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store(tmp_path / "service.db")
    group = store.create_group("Frames")
    store.create_client(group, key=KEY, secret=SECRET)
    people = [store.create_player(group, f"Player \x1b[31m{i:03d}").id for i in range(PLAYERS)]
    game = store.create_game(group, name="Azul").id
    body = [
        NewMatch(
            game=game,
            weight="normal",
            date=f"2025-03-{1 + i // 40:02d} 20:{i % 40:02d}:00",
            factions=[NewFaction(players=[p], rank=r) for r, p in enumerate(people[i : i + 4], 1)],
        ).to_wire()
        for i in range(0, PLAYERS, 4)
    ]
    assert store.add_matches(group, body).accepted_count == len(body)
    yield store
    store.close()


def _subset(store: Store) -> str:
    group = store.client_by_key(KEY).group_id  # type: ignore[union-attr]
    return next(s.id for s in store.subsets(group) if s.name == "Azul")


async def _answers(client: RankingClient, subset: str, pages: int) -> list[dict]:
    """The `success` payload of each page, as the service sent it."""
    token = (await client.authenticate()).value
    out = []
    for n in range(1, pages + 1):
        response = await client.http.get(
            f"rankings/{subset}/last/{n}", headers={"Authorization": f"Bearer {token}"}
        )
        out.append(json.loads(response.content)["success"])
    return out


@pytest.mark.parametrize("display_safe", [False, True])
async def test_pages_equal_pydantics_own_validation_and_share_one_frame(
    store: Store, display_safe: bool
) -> None:
    subset = _subset(store)
    client = RankingClient.in_process(create_app(store), key=KEY, secret=SECRET)
    client.display_safe = display_safe
    try:
        group = Group(client)
        pages = [await group.rankings_page(n, subset=subset) for n in range(1, 5)]
        answers = await _answers(client, subset, 4)
    finally:
        await client.aclose()
    context = DISPLAY_SAFE if display_safe else None
    assert [p.model_dump() for p in pages] == [
        RankingsPage.model_validate(a, context=context).model_dump() for a in answers
    ]
    assert len({a["totalPages"] for a in answers}) == 1 and len(pages) == answers[0]["totalPages"]
    assert client.frames.hits == 3
    assert all(p.subset is pages[0].subset and p.match is pages[0].match for p in pages)
    name = pages[0].data[0].player.display_name
    assert ("\x1b" in name) is not display_safe  # the rows' own texts are as the context says


async def test_a_page_whose_subset_changed_is_validated_afresh(store: Store) -> None:
    subset = _subset(store)
    client = RankingClient.in_process(create_app(store), key=KEY, secret=SECRET)
    try:
        group = Group(client)
        first = await group.rankings_page(1, subset=subset)
        one, two = first.data[0].player.id, first.data[1].player.id
        match = NewMatch(
            game=int(first.subset.game.id),  # type: ignore[union-attr]
            weight="heavy",
            date="2025-04-01 20:00:00",
            factions=[NewFaction(players=[two], rank=1), NewFaction(players=[one], rank=2)],
        )
        await client.add_matches([match])
        second = await group.rankings_page(2, subset=subset)
    finally:
        await client.aclose()
    assert client.frames.hits == 0
    assert second.subset is not None and first.subset is not None
    assert second.subset.count_matches == first.subset.count_matches + 1
    assert second.match is not None and second.match.date == "2025-04-01 20:00:00"


@pytest.fixture
async def first_page(store: Store) -> tuple[RankingClient, dict]:
    """A client of the service (closed once it has read) and the `success` payload of the first standings
    page as the service sent it."""
    client = RankingClient.in_process(create_app(store), key=KEY, secret=SECRET)
    try:
        (answer,) = await _answers(client, _subset(store), 1)
    finally:
        await client.aclose()
    return client, answer


def test_a_part_kept_without_a_context_is_not_given_under_display_safe(
    first_page: tuple[RankingClient, dict],
) -> None:
    _, answer = first_page
    answer["subset"]["name"] = "Azul \x1b[2J"
    memo = FrameMemo()
    raw = memo.validate(RankingsPage, answer, None)
    again = memo.validate(RankingsPage, copy.deepcopy(answer), None)
    safe = memo.validate(RankingsPage, copy.deepcopy(answer), DISPLAY_SAFE)
    assert memo.hits == 1 and again.subset is raw.subset
    assert raw.subset is not None and "\x1b" in raw.subset.name
    assert safe.subset is not None and "\x1b" not in safe.subset.name and safe.subset is not raw.subset


@pytest.mark.parametrize(
    ("path", "value"),
    [(("subset", "countMatches"), "many"), (("data", 0, "position"), "first")],
    ids=["in the frame", "in a row beside the kept frame"],
)
def test_a_part_the_client_cannot_read_is_refused_as_before(
    first_page: tuple[RankingClient, dict], path: tuple[str | int, ...], value: str
) -> None:
    client, answer = first_page
    client.parse("rankings", RankingsPage, answer)  # kept
    broken = copy.deepcopy(answer)
    *outer, last = path
    part = broken
    for step in outer:
        part = part[step]
    part[last] = value
    with pytest.raises(UnexpectedResponse, match=re.escape(".".join(map(str, path)))):
        client.parse("rankings", RankingsPage, broken)
