"""The dry run and the end of an import in words and tables, the same for the command line and the app.

`summary(plan)` is a few sentences (each file read, what would be done, why plays are skipped, the zone of
local times, and — when nothing can be recorded because of the files — why, `nothing_recorded(plan)`);
`sections(plan)` the tables (title, columns, rows of plain strings):
the people (who each name of the file is in the group, or a new ghost), the games, the skipped plays and
why, and the first matches to record. `outcome(report)` says what sending did. `as_json(plan)` is the dry
run for scripts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rankterm.importing.plan import (
    BAD_DATE,
    FUTURE,
    LISTED_SKIPS,
    NO_GAME,
    NO_ORDER,
    NO_PLAYER,
    PREVIEW,
    SOURCE,
    TOO_OLD,
    TWICE,
    Plan,
)
from rankterm.importing.send import ImportReport


@dataclass(frozen=True)
class Section:
    """One table of the dry run."""

    title: str
    columns: tuple[str, ...]
    rows: list[tuple[str, ...]]


def _n(count: int, one: str, many: str | None = None) -> str:
    return f"{count} {one if count == 1 else (many or one + 's')}"


def why_skipped(plan: Plan, kind: str) -> str:
    """Why plays of a kind were skipped, as the end of "N plays left out: …"."""
    if kind == BAD_DATE:
        shown = ", ".join(plan.bad_dates)
        hint = (
            ": write them as YYYY-MM-DD or YYYY-MM-DD HH:MM"
            if any(s.kind == "csv" for s in plan.sources)
            else ""
        )
        return "dates that cannot be read" + (f" ({shown})" if shown else "") + hint
    if kind.startswith("M") and kind[1:].isdigit():
        return f"refused by the service's rules ({kind}; the skipped table says why)"
    return {
        TWICE: "the same play twice in one file",
        SOURCE: "marked ignored, incomplete or out of statistics in the source",
        FUTURE: "dated in the future",
        TOO_OLD: "older than the public service lets a match be backdated",
        NO_ORDER: "no finishing order to be told (the skipped table says why)",
        NO_GAME: "a game that cannot be found or made",
        NO_PLAYER: "a player who cannot be told (the skipped table says who; the map file settles it)",
    }.get(kind, kind)


def nothing_recorded(plan: Plan) -> str | None:
    """Why the import can record nothing because of its files, in one sentence; None when it can record
    something, or its plays are recorded already."""
    if not plan.records_nothing:
        return None
    if not plan.plays_read:
        return (
            "Nothing can be recorded: "
            + ("the files hold" if len(plan.files) > 1 else "the file holds")
            + " no plays."
        )
    reasons = "; ".join(
        f"{_n(n, 'play')} left out: {why_skipped(plan, kind)}" for kind, n in plan.skip_counts.most_common()
    )
    return f"Nothing can be recorded: {reasons}."


def summary(plan: Plan) -> list[str]:
    """The dry run in a few sentences."""
    lines = [
        f"{read.source.path.name}: {read.source.label}, {_n(read.plays_read, 'play')} read."
        for read in plan.files
    ]
    lines.append(
        f"To record: {_n(plan.to_record, 'match', 'matches')}; new players: {len(plan.new_players)}; "
        f"new games: {len(plan.new_games)}; skipped: {plan.skipped_count}; already recorded: {plan.already}"
        + (f" ({plan.queued} of them waiting in the outbox)" if plan.queued else "")
        + (f"; in more than one file: {plan.overlap} (counted once)" if len(plan.files) > 1 else "")
        + "."
    )
    nothing = nothing_recorded(plan)
    if nothing is not None:
        lines.append(nothing)
    elif plan.skip_counts:
        lines.append(
            "Skipped: "
            + "; ".join(
                f"{_n(n, 'play')}: {why_skipped(plan, kind)}" for kind, n in plan.skip_counts.most_common()
            )
            + "."
        )
    lines += plan.notes
    return lines


def sections(plan: Plan) -> list[Section]:
    """The dry run's tables."""
    out = [
        Section(
            "Players",
            ("in the file", "in the group", "how", "plays"),
            [
                (p.source, ("new ghost: " if p.new else "") + p.name, p.how, str(p.plays))
                for p in plan.players
            ],
        ),
        Section(
            "Games",
            ("in the file", "BGG id", "in the group", "how", "plays"),
            [
                (g.source, str(g.bgg_id or ""), ("new: " if g.new else "") + g.name, g.how, str(g.plays))
                for g in plan.games
            ],
        ),
    ]
    if plan.skipped:
        title = "Skipped"
        if plan.skipped_count > len(plan.skipped):
            title += f" (the first {LISTED_SKIPS} of {plan.skipped_count})"
        out.append(Section(title, ("where", "why"), [(s.where, s.reason) for s in plan.skipped]))
    if plan.preview:
        title = "Matches to record"
        if plan.to_record > len(plan.preview):
            title += f" (the first {PREVIEW} of {plan.to_record}, oldest first)"
        out.append(
            Section(
                title,
                ("date", "game", "result", "external id"),
                [(m.date, m.game, m.result, m.external_id) for m in plan.preview],
            )
        )
    return out


def outcome(report: ImportReport) -> str:
    """What sending did, in one or two sentences."""
    parts = [f"Recorded {_n(report.recorded, 'match', 'matches')}"]
    if report.rejected:
        codes = ", ".join(f"{code}: {n}" for code, n in report.rejected_codes.most_common())
        parts.append(f"{report.rejected} rejected ({codes}; they stay in the outbox to fix)")
    if report.games_made or report.ghosts_made:
        parts.append(f"made {_n(report.games_made, 'game')} and {_n(report.ghosts_made, 'ghost player')}")
    if report.left_out:
        refused = "; ".join(f"{name}: {why}" for name, why in report.games_refused.items())
        parts.append(f"{report.left_out} left out: their game could not be made ({refused})")
    text = ", ".join(parts) + f". {_n(report.requests, 'request')} in {report.seconds:.1f} s."
    if report.waiting:
        why = f" ({report.stopped})" if report.stopped is not None else ""
        text += (
            f" {_n(report.waiting, 'match', 'matches')} wait in the outbox{why}: they are sent the next time "
            "rankterm runs, or by importing the same file again."
        )
    return text


def as_json(plan: Plan) -> dict[str, Any]:
    """The dry run as one JSON document."""
    return {
        "file": str(plan.source.path),
        "kind": plan.source.kind,
        "files": [
            {"file": str(read.source.path), "kind": read.source.kind, "plays": read.plays_read}
            for read in plan.files
        ],
        "plays": plan.plays_read,
        "toRecord": plan.to_record,
        "alreadyRecorded": plan.already,
        "inEarlierFile": plan.overlap,
        "localTimeZone": plan.zone,
        "nothingRecorded": nothing_recorded(plan),
        "skipped": dict(plan.skip_counts),
        "skippedPlays": [
            {"where": s.where, "externalId": s.external_id, "kind": s.kind, "reason": s.reason}
            for s in plan.skipped
        ],
        "players": [
            {
                "source": p.source,
                "name": p.name,
                "id": None if p.new else p.player_id,
                "how": p.how,
                "plays": p.plays,
            }
            for p in plan.players
        ],
        "games": [
            {
                "source": g.source,
                "bggId": g.bgg_id,
                "name": g.name,
                "id": None if g.new else g.game_id,
                "how": g.how,
                "plays": g.plays,
            }
            for g in plan.games
        ],
        "firstMatches": [
            {
                "externalId": m.external_id,
                "where": m.where,
                "date": m.date,
                "game": m.game,
                "result": m.result,
            }
            for m in plan.preview
        ],
        "notes": plan.notes,
    }


def report_json(report: ImportReport) -> dict[str, Any]:
    """What sending did, as JSON."""
    return {
        "recorded": report.recorded,
        "rejected": report.rejected,
        "rejectedCodes": dict(report.rejected_codes),
        "waiting": report.waiting,
        "ghostsMade": report.ghosts_made,
        "gamesMade": report.games_made,
        "gamesRefused": report.games_refused,
        "leftOut": report.left_out,
        "stopped": str(report.stopped) if report.stopped is not None else None,
        "requests": report.requests,
        "seconds": round(report.seconds, 3),
    }
