"""The service judges a match's date against its own clock: more than 5 minutes ahead is M010 (the rule the
form and the importer judge by, `rankterm.wire.new_match.future_date_problem`); any past date is kept."""

from __future__ import annotations

from rankterm.server.wire import format_time

from .conftest import Api, duel


async def test_a_date_more_than_five_minutes_ahead_of_the_service_is_m010_and_any_past_date_is_kept(
    api: Api, players3, clock
):
    a, b, _ = players3
    catan = await api.game("Catan")
    ahead, near = format_time(clock() + 5 * 60 + 1), format_time(clock() + 5 * 60)
    answer = await api.add(
        duel(catan, a, b, id="ahead", date=ahead),
        duel(catan, a, b, id="near", date=near),
        duel(catan, b, a, id="old", date="1987-06-05 04:03:02"),
    )
    assert answer["acceptedCount"] == 2
    assert [(o["index"], o["id"]) for o in answer["rejected"]] == [(0, "ahead")]
    [error] = answer["rejected"][0]["errors"]
    assert error["code"] == "M010" and "in the future" in error["message"], error
    assert ahead[:16] in error["message"]
    assert await api.ok("matches/match/exists", id="ahead") == {"exists": False}
    listed = (await api.ok("matches"))["data"]
    assert [(m["number"], m["externalId"]) for m in listed] == [(2, "near"), (1, "old")]
    clock.advance(1)  # the service's clock decides: a second later the same date is near enough
    assert (await api.add(duel(catan, a, b, id="ahead", date=ahead)))["acceptedCount"] == 1


async def test_a_dry_run_judges_the_date_too(api: Api, players3, clock):
    a, b, _ = players3
    catan = await api.game("Catan")
    answer = await api.add(duel(catan, a, b, date=format_time(clock() + 3600)), dryrun=True)
    assert [[e["code"] for e in o["errors"]] for o in answer["rejected"]] == [["M010"]]
    assert (await api.ok("matches/status"))["total"] == 0
