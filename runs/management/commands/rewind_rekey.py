from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser

from runs.lib import sealing
from runs.management.base import RewindCommand
from runs.models.packed import reseal_all


class Command(RewindCommand):
    help = (
        "Rotate the encryption key: every value sealed at rest (content that looks like a "
        "secret) is encrypted again under the first key of REWIND_ENCRYPTION_KEYS. Put the new "
        "key first, keep the old one after it, run this, then drop the old one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="print the counts as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        sealing.reset()
        done = reseal_all()
        if options["json"]:
            self.stdout.write(json.dumps({"resealed": done, "total": sum(done.values())}))
            return
        for column, count in done.items():
            self.stdout.write(f"{column}: {count} sealed value{'s' if count != 1 else ''}")
        self.stdout.write(f"resealed {sum(done.values())} under the first key")
