"""``python -m host.cli``: the ``memory-service`` command."""

from host.cli.main import main

main()
