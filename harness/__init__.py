"""The agent side: a Gymnasium environment over a real browser bound to one world."""
