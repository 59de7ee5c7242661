from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.management.base import CommandParser

from runs.engine.analysis.diff import diff_runs, format_diff
from runs.engine.analysis.leaves import ROOT_LABEL
from runs.management.base import RewindCommand


class Command(RewindCommand):
    help = (
        "Field-level diff of two runs: first divergence, per-node hashes, artifacts; when the "
        "first run has stability samples (rewind_stability), whether each changed field is "
        "beyond its noise, and why."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run_a", help="id of the first run")
        parser.add_argument("run_b", help="id of the second run")
        parser.add_argument("--json", action="store_true", help="print the diff as one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        result = diff_runs(self.get_run(options["run_a"]), self.get_run(options["run_b"]))
        if options["json"]:
            self.print_json(result.as_json())
            return
        self.stdout.write(format_diff(result))
        if result.verdicts is not None:
            self.stdout.write(format_verdicts(result.verdicts))


def format_verdicts(verdicts: list[dict[str, Any]]) -> str:
    """How many changed leaves are beyond the first run's noise, which ones and why, and which
    ones the samples are too few to tell."""
    counts = Counter(v["verdict"] for v in verdicts)
    samples = max((v["samples"] for v in verdicts), default=0)
    lines = [
        f"\nnoise (judged against {samples} sample(s) of the first run): "
        f"{counts['beyond-noise']} beyond-noise, {counts['within-noise']} within-noise, "
        f"{counts['uncertain']} uncertain, {counts['no-samples']} no-samples"
    ]
    for verdict in verdicts:
        if verdict["verdict"] in {"beyond-noise", "uncertain"}:
            lines.append(
                f"  {verdict['verdict']:<12}  {verdict['node']}  {verdict['path'] or ROOT_LABEL}"
                f"  ({verdict['why']})"
            )
    return "\n".join(lines) + "\n"
