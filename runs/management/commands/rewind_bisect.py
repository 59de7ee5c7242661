from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser

from runs.engine.analysis.bisect import bisect
from runs.management.base import RewindCommand


class Command(RewindCommand):
    help = (
        "Counterfactual bisect: the earliest step of BAD whose output, swapped for GOOD's (an "
        "ordinary fork: `output` of a declared node, `writes.KEY` of a Burr app's step), flips "
        "the outcome NAME to GOOD's value. O(log n) forks when the flip is monotone along the "
        "trajectory; it says when it is not. Forks are made and executed in this process; a "
        "fork already made is reused."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("good", help="id of the run with the outcome wanted")
        parser.add_argument("bad", help="id of the run whose outcome differs")
        parser.add_argument(
            "--outcome", required=True, help="the outcome's name (rewind_show lists them)"
        )
        parser.add_argument(
            "--json",
            action="store_true",
            help='print {"step", "leaves", "forks", "monotone", …} as one JSON object',
        )

    def handle(self, *args: Any, **options: Any) -> None:
        good, bad = self.get_run(options["good"]), self.get_run(options["bad"])
        result = bisect(good, bad, options["outcome"]).as_json()
        if options["json"]:
            self.print_json(result)
            return
        self.stdout.write(format_bisect(result))


def format_bisect(data: dict[str, Any]) -> str:
    outcome = data["outcome"]
    step = data["step"]
    lines = [
        f"{outcome['name']}: run {data['good']} {_text(outcome['good'])}, "
        f"run {data['bad']} {_text(outcome['bad'])}",
        f"step: {step['node']} (step {step['sequence_id']}) — swapping run {data['good']}'s "
        f"output there into run {data['bad']} flips it",
    ]
    for leaf in data["leaves"]:
        lines.append(f"  {leaf['path']}: {_text(leaf['a'])} (good) / {_text(leaf['b'])} (bad)")
    lines.append(
        f"forks: {len(data['forks'])} over {data['candidates']} differing steps"
        + (f" ({', '.join(map(str, data['forks']))})" if data["forks"] else "")
    )
    for probe in data["probes"]:
        mark = "flips" if probe["flips"] else "no flip"
        again = ", reused" if probe["reused"] else ""
        forks = ", ".join(map(str, probe["forks"]))
        lines.append(
            f"  {probe['node']} (step {probe['sequence_id']}): {mark} "
            f"→ {_text(probe['value'])} (fork {forks}{again})"
        )
    lines.append("monotone: yes" if data["monotone"] else f"monotone: no — {data['why']}")
    for skipped in data["skipped"]:
        lines.append(f"  skipped {skipped}")
    return "\n".join(lines)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)
