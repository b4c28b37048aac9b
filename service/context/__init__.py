"""The memory block for the prompt: Prefer / Avoid / Rules / Recent playlists / Open follow-ups, within a token budget."""
