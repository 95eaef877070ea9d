"""Random form input gives inline errors and sends nothing; valid input is sent. Hypothesis drives the form.

Each example fills a real match form (on the in-process demo) with arbitrary text in the rank, points and
faction-name fields, presses ctrl+s, and checks: either the form showed its problems and no request went to
the service, or the input was valid and the service recorded the match.
"""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from rankterm.wire.new_match import read_match
from tests.support.examples import examples

from .conftest import KeptDemo, _new_demo_service, fixed_ids
from .pilot import open_form, quick_fill, settle

hostile = st.one_of(
    st.text(max_size=8),
    st.sampled_from(
        ["", "0", "1", "2", "-1", "1.5", "10001", "1e3", "¹", "٣", "NaN", "[b]x[/b]", "\x1b[2J", "'; --"]
    ),
)


async def _one(kept: KeptDemo, rank1: str, rank2: str, points: str, name: str) -> tuple[bool, bool, int, str]:
    from rankterm.config import Config
    from rankterm.tui.app import RanktermApp

    service = _new_demo_service()
    client = service.client()
    app = RanktermApp(config=Config(), client=kept.start(service, client), demo=True, id_factory=fixed_ids())
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_form(pilot)
        await quick_fill(pilot, "Catan", [(["Ada"], 1, ""), (["Ben"], 2, "")])
        rows = screen.form.rows
        rows[0].rank_input.value, rows[1].rank_input.value = rank1, rank2
        rows[0].points_input.value, rows[1].name_input.value = points, name
        before = client.calls
        await pilot.press("ctrl+s")
        await settle(pilot)
        problems = screen.form.query_one("#form-problem").has_class("-shown")
        sent = client.calls - before
        recorded = await client.match_exists("rt-test-0001")
        return problems, recorded, sent, screen.form.answer.text


# Each example runs a whole app (about 2 s): no shrinking (a failure prints its example as it is), six
# examples in the suite, sixty in the loop profile.
@pytest.mark.slow
@settings(
    max_examples=examples(6),
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(rank1=hostile, rank2=hostile, points=hostile, name=hostile)
@example(rank1="1", rank2="2", points="10", name="team")  # the valid branch, every run
@example(rank1="¹", rank2="2", points="", name="")  # once a crash: "¹".isdigit() but int("¹") fails
def test_random_input_is_refused_inline_or_recorded(isolated_paths, kept_demo, rank1, rank2, points, name):
    problems, recorded, calls, answer = asyncio.run(_one(kept_demo, rank1, rank2, points, name))
    factions = [
        {"players": ["a"], "rank": rank1, "points": points},
        {"players": ["b"], "rank": rank2, "name": name},
    ]
    valid = not read_match({"game": 1, "weight": "normal", "factions": factions})[1]
    if valid:
        assert recorded and not problems, answer
    else:
        assert problems and not recorded and calls == 0, answer
    assert "Traceback" not in answer
