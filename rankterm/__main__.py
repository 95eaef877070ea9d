"""`python -m rankterm` runs the same entry point as the `rankterm` command."""

from rankterm.cli import main

raise SystemExit(main())
