"""Text analysis shared by search, tracks and memories: folding, words, stems, entities."""
