"""Task templates: goals sampled from a world, oracle solutions and state-diff verifiers."""
