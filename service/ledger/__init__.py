"""The playlist ledger: history buckets as the record, the playlist document as its projection."""
