"""The match form and its parts: the faction rows, the game and player pickers, the answer panel."""
