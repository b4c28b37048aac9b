"""The ledger as the tools use it: logging, reading and moving playlists, with search kept in step."""
