"""The scoreboard's parts (rankterm/tui/screens/board.py): what one view of it holds, the podium, the panels."""
