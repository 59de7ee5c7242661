from __future__ import annotations

from collections import Counter
from typing import Any

from django.core.management.base import CommandParser

from runs.engine.analysis.diff import diff_runs, format_diff
from runs.engine.analysis.leaves import ROOT_LABEL
from runs.engine.judging import configured_judge
from runs.management.base import RewindCommand


class Command(RewindCommand):
    help = (
        "Field-level diff of two runs: first divergence, per-node hashes, artifacts; when the "
        "first run has stability samples (rewind_stability), whether each changed field is "
        "beyond its noise, and why (a text the rule leaves uncertain is put to the judge when "
        "REWIND_JUDGE_MODEL names one: its answers are cached, so a second diff costs nothing)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("run_a", help="id of the first run")
        parser.add_argument("run_b", help="id of the second run")
        parser.add_argument("--json", action="store_true", help="print the diff as one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        run_a, run_b = self.get_run(options["run_a"]), self.get_run(options["run_b"])
        # The operator's command: the judge (when configured) is asked without a budget.
        result = diff_runs(run_a, run_b, referee=configured_judge())
        if options["json"]:
            self.print_json(result.as_json())
            return
        self.stdout.write(format_diff(result))
        if result.verdicts is not None:
            self.stdout.write(format_verdicts(result.verdicts))


def format_verdicts(verdicts: list[dict[str, Any]]) -> str:
    """How many changed leaves are beyond the first run's noise, which ones and why, which
    ones the samples are too few to tell, and every one a judge decided (marked as its)."""
    counts = Counter(v["verdict"] for v in verdicts)
    samples = max((v["samples"] for v in verdicts), default=0)
    judges = Counter(v["by"] for v in verdicts if v.get("by", "rule") != "rule")
    decided = "".join(f", {n} decided by {by}" for by, n in sorted(judges.items()))
    lines = [
        f"\nnoise (judged against {samples} sample(s) of the first run): "
        f"{counts['beyond-noise']} beyond-noise, {counts['within-noise']} within-noise, "
        f"{counts['uncertain']} uncertain, {counts['no-samples']} no-samples{decided}"
    ]
    for verdict in verdicts:
        by = verdict.get("by", "rule")
        if verdict["verdict"] in {"beyond-noise", "uncertain"} or by != "rule":
            lines.append(
                f"  {verdict['verdict']:<12}  {verdict['node']}  {verdict['path'] or ROOT_LABEL}"
                f"  ({verdict['why']})" + (f"  [{by}]" if by != "rule" else "")
            )
    return "\n".join(lines) + "\n"
