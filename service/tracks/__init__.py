"""The track catalog: what the assistant learned of tracks, per user, resolution of spoken names and rule checks."""
