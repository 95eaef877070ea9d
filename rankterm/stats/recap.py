"""A recap of the evening to share: short Markdown that reads as plain text too (a chat, a clipboard).

    ## Tonight: 4 matches since Fri 27 Nov 19:30 (Paris)

    - 297 Brass: Birmingham: Elena
    - 298 Catan: Ada

    - **Most wins**: Elena 2 of 2
    - **Biggest gain**: Elena +83 (2262 → 2345)
    - **Biggest upset**: Farid won 299 (Ticket to Ride) from ree 1744
    - **What changed**: New Catan champion: Elena · Ada: 4 wins in a row

Names are other people's text: written as they are, with Markdown's own characters escaped so that a name
cannot make a link, a heading or bold text where the recap is pasted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime

from rankterm.stats.changes import Event
from rankterm.stats.results import HeadToHead, PlayerFigures, Tonight, TonightMatch
from rankterm.wire.models import Match
from rankterm.wire.shown import percent, ree, signed

__all__ = ["h2h_summary", "markdown_text", "match_summary", "player_summary", "tonight_recap"]

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def markdown_text(text: str) -> str:
    """`text` on one line with Markdown's characters escaped."""
    return _MARKDOWN.sub(r"\\\1", " ".join(text.split()))


def _winners(match: TonightMatch) -> str:
    if match.bot_won:
        return "the game (bot)"
    names = ", ".join(markdown_text(n) for n in match.winner_names)
    return f"{names} (tied)" if match.draw else names


def tonight_recap(evening: Tonight, events: Sequence[Event], since_shown: datetime, zone_label: str) -> str:
    """The evening (`since_shown`: its start in the seat's zone, named `zone_label`) as a short recap."""
    count = len(evening.matches)
    when = f"{since_shown:%a} {since_shown.day} {since_shown:%b %H:%M} ({zone_label})"
    lines = [f"## Tonight: {count} match{'es' if count != 1 else ''} since {when}"]
    if not count:
        return lines[0] + "\n"
    lines.append("")
    for match in evening.matches:
        lines.append(f"- {match.number} {markdown_text(match.game_name)}: {_winners(match)}")
    lines.append("")
    if evening.tallies and evening.tallies[0].wins:
        top = evening.tallies[0]
        lines.append(f"- **Most wins**: {markdown_text(top.name)} {top.wins} of {top.played}")
    gain, upset = evening.biggest_gain, evening.biggest_upset
    if gain is not None:
        change = signed(gain.gain, exact_sign=True)
        lines.append(
            f"- **Biggest gain**: {markdown_text(gain.name)} {change} ({ree(gain.before)} → {ree(gain.after)})"
        )
    if upset is not None:
        lines.append(
            f"- **Biggest upset**: {markdown_text(upset.name)} won {upset.match_number} "
            f"({markdown_text(upset.game_name)}) from ree {ree(upset.ree_before)}"
        )
    numbers = {m.number for m in evening.matches}
    changed = [markdown_text(e.text) for e in events if e.number in numbers]
    if changed:
        lines.append("- **What changed**: " + " · ".join(changed))
    return "\n".join(lines).rstrip("\n") + "\n"


def player_summary(figures: PlayerFigures) -> str:
    """A player's page in a few plain lines, to paste."""
    f = figures
    lines = [
        f"{f.name}: {f.played} matches, {f.wins} wins, {f.draws} draws, {f.losses} losses"
        + (f" ({percent(f.win_rate)} won)" if f.played else ""),
        f"Form {f.form_line} · streak {f.current_streak} (longest {f.longest_streak})" if f.played else "",
    ]
    if f.best_game is not None:
        lines.append(
            f"Best game {f.best_game.game_name} ({percent(f.best_game.win_rate)} of {f.best_game.played})"
        )
    if f.nemesis is not None:
        lines.append(
            f"Nemesis {f.nemesis.name} ({f.nemesis.ahead}-{f.nemesis.behind} in {f.nemesis.meetings})"
        )
    return "\n".join(line for line in lines if line) + "\n"


def h2h_summary(h: HeadToHead) -> str:
    """A head-to-head in a few plain lines, to paste."""
    lines = [
        f"{h.a_name} against {h.b_name}: {h.meetings} meetings, {h.a_name} ahead {h.a_ahead}, "
        f"{h.b_name} ahead {h.b_ahead}, {h.ties} tied",
    ]
    if h.together:
        lines.append(f"Together {h.together} times, won {h.together_wins}")
    return "\n".join(lines) + "\n"


def match_summary(match: Match) -> str:
    """A match in one plain line, to paste: "Match 300 · Catan · 27 Nov: 1 Elena · 2 Chiara · 3 the bot"."""
    places = []
    for faction in sorted(match.factions, key=lambda f: f.rank):
        who = "the bot" if faction.bot else ", ".join(p.label for p in faction.players) or faction.name
        places.append(f"{faction.rank} {who}")
    game = match.game.name if match.game is not None else "a game"
    return f"Match {match.number} · {game} · {match.date[:10]}: " + " · ".join(places) + "\n"
