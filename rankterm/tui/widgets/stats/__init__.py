"""The widgets of the Stats mode and the story pages: a player's and a game's story, head-to-head, tonight,
the odds, and the words and choices they share. Each module is imported where it is used (no imports here),
so that opening one page does not load them all."""
