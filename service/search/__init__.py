"""Search over one user's playlists, preference events and profile, by words and by meaning."""
