"""Load the PRD §11 example taste profile for a user: the same code as ``memory-service seed``.

    python scripts/seed.py --user-id 1 --data-dir ./data
    python scripts/seed.py --user-id 1 --mongodb-uri "mongodb://127.0.0.1:27017/?directConnection=true"

Works from a checkout without installing the package (the repository root is put on the path);
the dependencies must be importable. A second run changes nothing. Run it while the service is
stopped when using the embedded store: its data directory admits one process at a time.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from host.cli.main import app  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    app(["seed", *(sys.argv[1:] if argv is None else argv)], prog_name="seed.py")


if __name__ == "__main__":
    main()
