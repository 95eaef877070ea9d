"""The command palette's search (ctrl+p): a command is found by its name and by what it does.

Textual's own provider matches a query against the command's name only, so "standings" found nothing (the
standings are the Rankings screen) and "tonight" only on the Stats screen. Here each command of
`RanktermApp.get_system_commands` is also found by the words of its help line (`WHAT_IT_DOES`, shown under
it in the palette): a word of the help that begins with the query is a hit. A command whose name begins with
the query comes first ("keys" finds "Keys (f1)" before a line that merely mentions keys).
"""

from __future__ import annotations

import re

from textual.command import DiscoveryHit, Hit, Hits, Provider

WHAT_IT_DOES: dict[str, str] = {
    "open_mode('home')": "the group at a glance: the leaders, the last match, the night so far",
    "open_mode('service')": "the service's state and the quota used",
    "open_mode('games')": "the group's games and the catalogue",
    "open_mode('players')": "everyone in the group, ghosts too",
    "open_mode('match')": "record a match: the new match form",
    "open_mode('rankings')": "the standings: each player's ree and position, a leaderboard",
    "open_mode('matches')": "every match recorded, newest first: the history",
    "open_mode('outbox')": "matches and ghosts waiting to be sent, and what came of them",
    "open_mode('stats')": "tonight's matches, a player, head-to-head, a game: the statistics",
    "open_mode('login')": "profiles: the services this machine knows, the built-in demo",
    "open_mode('board')": "the scoreboard: standings in big type for a TV",
    "show_keys": "every key of this screen and of the app: help, shortcuts",
    "tab('tonight')": "tonight's matches: biggest gain, upsets",
    "tab('player')": "one player's history and form",
    "tab('h2h')": "two players against each other",
    "tab('game')": "one game's players and matches",
}
"""The help line of a palette command, by its action: the words a person may type for it."""

_WORD = re.compile(r"[a-z0-9]+")
HELP_SCORE = 0.5
"""A hit by the help line: after a good hit by the name, before none."""
NAME_FIRST = 2.0
"""How much a name that begins with the query is lifted."""


def help_hit(query: str, help_text: str) -> bool:
    """A word of `help_text` begins with `query` (3 letters or more, case aside)."""
    wanted = query.strip().lower()
    return len(wanted) >= 3 and any(w.startswith(wanted) for w in _WORD.findall(help_text.lower()))


class RanktermCommands(Provider):
    """The app's commands (`get_system_commands`), found by name or by what they do."""

    async def discover(self) -> Hits:
        commands = sorted(self.app.get_system_commands(self.screen), key=lambda command: str(command.title))
        for command in commands:
            if command.discover:
                yield DiscoveryHit(command.title, command.callback, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        wanted = query.strip().lower()
        for command in self.app.get_system_commands(self.screen):
            title = str(command.title)
            score = matcher.match(title)
            if score > 0 and wanted and title.lower().startswith(wanted):
                score *= NAME_FIRST
            elif score <= 0 and help_hit(query, command.help):
                score = HELP_SCORE
            if score > 0:
                yield Hit(score, matcher.highlight(title), command.callback, help=command.help)
