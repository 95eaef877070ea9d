"""Importing plays from other apps and from rankterm's own export into a group.

One module a source — `bgstats` (BG Stats JSON), `bgg` (BoardGameGeek plays XML), `csv_plays` (CSV with a
documented header), `rankterm_export` (rankterm's JSON and CSV export) — each reading its file into
`plays.SourcePlay`s; `detect.open_source` picks the reader by the file's content. `ranks` rebuilds a play's
finishing order, `mapping` gives its people and game their place in the group (and reads the ``--map``
file), `plan.plan_import` makes the dry run (what would be recorded, created, skipped and why), and
`send.send_plan` sends it through the outbox.

    source = open_source("plays.xml")
    with await plan_import(client, source, map_file=load_map("players.toml"), outbox=outbox) as plan:
        report = await send_plan(plan, client, outbox, OutboxSender(outbox, client).send_pending)
"""

from rankterm.importing.detect import Source, open_source
from rankterm.importing.mapping import MapFile, load_map
from rankterm.importing.plan import Plan, plan_import
from rankterm.importing.send import ImportReport, send_plan

__all__ = ["ImportReport", "MapFile", "Plan", "Source", "load_map", "open_source", "plan_import", "send_plan"]
