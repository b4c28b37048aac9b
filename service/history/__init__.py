"""Listening histories as their services export them (Spotify's account data and extended
streaming history, Last.fm's recent tracks), imported as plays and skips of the play store."""
