"""Importing plays from other apps and from rankterm's own export into a group.

One module a source (`bgstats`, `bgg`, `csv_plays`, `rankterm_export`) reads its file into `plays.SourcePlay`s;
`detect.open_source` picks the reader by content. `ranks` rebuilds a play's finishing order, `mapping` places
its people and game in the group, `plan.plan_import` makes the dry run, `send.send_plan` sends it through the
outbox. See docs/importing.md, and docs/development.md ("Importing, inside") for an example.
"""

from rankterm.importing.detect import Source, open_source
from rankterm.importing.mapping import MapFile, load_map
from rankterm.importing.plan import Plan, plan_import
from rankterm.importing.send import ImportReport, send_plan

__all__ = ["ImportReport", "MapFile", "Plan", "Source", "load_map", "open_source", "plan_import", "send_plan"]
