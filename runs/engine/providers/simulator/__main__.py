"""``python -m runs.engine.providers.simulator --port N``: see :func:`.cli.main`."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
