"""The audit trail: who changed what and when (write-path entries, change-stream watcher, query)."""
