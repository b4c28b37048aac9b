"""Behaviour of the taste memory: storage, ledger, profiles, search, export, app assembly, CLI."""
