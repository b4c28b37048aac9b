"""Users as a whole: who has data, per-user counters, hard deletion."""
