"""What an operator runs on a store: verify it, salvage a damaged user (the commands in ``host.cli``)."""
