"""The taste profile and what the user said: merge-patched profile, preference events, choices, supersession."""
