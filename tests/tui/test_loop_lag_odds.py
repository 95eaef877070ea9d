"""The Odds tab rates a big group's history once: the scores of every match and of the last ones come from one
replay (`scores_whole_and_last`), the same figures as two replays gave (`score_predictions`)."""

from __future__ import annotations

from rankterm.mirror import Group
from rankterm.stats import predictions
from rankterm.stats.predictions import score_predictions, scores_whole_and_last
from rankterm.stats.source import group_matches


async def test_one_replay_gives_the_whole_and_the_last_scores_of_two(demo_service, monkeypatch) -> None:
    async with Group(demo_service.client()) as group:
        matches = await group_matches(group)
    apart = score_predictions(matches), score_predictions(matches, 50)
    rated: list[int] = []
    real = predictions.TableModel.add

    def counted(self, match):
        rated.append(match.number)
        return real(self, match)

    real_follow = predictions.TableModel.follow

    def followed(self, some):
        rated.extend(m.number for m in some[self.followed :])
        return real_follow(self, some)

    monkeypatch.setattr(predictions.TableModel, "add", counted)
    monkeypatch.setattr(predictions.TableModel, "follow", followed)
    together = scores_whole_and_last(matches, 50)
    assert together == apart
    assert together[0].matches > together[1].matches > 0
    assert len(rated) == len(matches)  # each match rated once
