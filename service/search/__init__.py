"""Search over one user's playlists, preference events and profile (see ``engine``)."""

from service.search.analysis import fold, parse_query, terms
from service.search.engine import SearchEngine

__all__ = ["SearchEngine", "fold", "parse_query", "terms"]
