"""The ``memory-service`` command line, one module per group of commands."""
