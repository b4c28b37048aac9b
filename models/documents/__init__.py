"""Beanie documents: the collections, their shapes and the indexes their queries need, one module
per concern. Identifiers are deterministic strings (``"<user>:<playlist>"`` …) so that every write
names the document it touches: the embedded store commits exactly the documents a call changed,
and a retry after a crash lands on the same document instead of a twin."""
