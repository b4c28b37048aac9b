"""One module per export format: which files it reads and the rows each element holds."""
