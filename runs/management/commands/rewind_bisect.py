from __future__ import annotations

import json
from typing import Any

from django.core.management.base import CommandParser

from runs.engine.run_sets.bisect import bisect
from runs.management.base import RewindCommand
from runs.management.run_sets import add_output, add_runs, read_runs


class Command(RewindCommand):
    help = (
        "Counterfactual bisect: the earliest step of BAD whose output alone, swapped for GOOD's "
        "(an ordinary fork: `output` of a declared node, `writes.KEY` of a Burr app's step), "
        "flips the outcome NAME to GOOD's value, confirmed by that fork. By default it spends "
        "what a binary search and its verification cost (⌈log₂ n⌉ + 2 forks for n differing "
        "steps) and lists the steps left untried; a larger --budget tries the other steps too, "
        "so it says when the flip is not monotone and names every step whose swap alone flips "
        "it. When no single step does, it says so and swaps pairs of steps together while the "
        "budget lasts. Forks are made and executed in this process; a fork already made is "
        "reused."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        # Exactly two runs, so no --where/--limit; no --samples; and no --workers/--enqueue:
        # each probe's fork is chosen from the outcome of the one before (a binary search).
        add_runs(parser, names=("GOOD", "BAD"), old_positional=True)
        parser.add_argument(
            "--outcome", required=True, help="the outcome's name (rewind_show lists them)"
        )
        parser.add_argument(
            "--budget",
            type=int,
            default=None,
            help="the most forks to spend (default: ⌈log₂ n⌉ + 2 for n differing steps, a binary "
            "search and its verification; the answer says which budget tries every step)",
        )
        add_output(
            parser,
            json='print {"step", "leaves", "forks", "monotone", "verified", "decisive", '
            '"unknown", "budget", "no_single_step", "together", "pairs", …} as one JSON object',
        )

    def handle(self, *args: Any, **options: Any) -> None:
        good_id, bad_id = read_runs(options, ("GOOD", "BAD"))
        good, bad = self.get_run(good_id), self.get_run(bad_id)
        result = bisect(good, bad, options["outcome"], budget=options["budget"]).as_json()
        if options["json"]:
            self.print_json(result)
            return
        self.stdout.write(format_bisect(result))


def format_bisect(data: dict[str, Any]) -> str:
    outcome = data["outcome"]
    step, verified = data["step"], data["verified"]
    lines = [
        f"{outcome['name']}: run {data['good']} {_text(outcome['good'])}, "
        f"run {data['bad']} {_text(outcome['bad'])}"
    ]
    if step is None:
        lines.append(f"step: none confirmed to flip {outcome['name']}")
    else:
        earlier = sum(1 for c in data["unknown"] if c["sequence_id"] < step["sequence_id"])
        lines.append(
            f"step: {_step(step)} — swapping run {data['good']}'s output there alone into run "
            f"{data['bad']} flips it: fork {verified['forks'][-1]} → {_text(verified['value'])}"
            + ("" if data["exact"] else f"; {earlier} earlier steps not tried, one may flip it")
            + (" (the step it reads: by construction)" if step == data["by_construction"] else "")
        )
    for leaf in data["leaves"]:
        lines.append(f"  {leaf['path']}: {_text(leaf['a'])} (good) / {_text(leaf['b'])} (bad)")
    decisive = [f"{_step(d)} (fork {d['forks'][-1]})" for d in data["decisive"]]
    if (last := data["by_construction"]) and last not in data["unknown"] + [
        {"node": d["node"], "sequence_id": d["sequence_id"]} for d in data["decisive"]
    ]:
        decisive.append(f"{_step(last)} (the step it reads: by construction)")
    lines.append("decisive (each swap alone flips it): " + ("; ".join(decisive) or "none found"))
    if data["no_single_step"]:
        lines.append(_together(data))
    lines.append(
        f"forks: {data['spent']} of a budget of {data['budget']} over {data['candidates']} "
        "differing steps" + (f" ({', '.join(map(str, data['forks']))})" if data["forks"] else "")
    )
    for probe in data["probes"]:
        mark = "flips" if probe["flips"] else "no flip"
        again = ", reused" if probe["reused"] else ""
        forks = ", ".join(map(str, probe["forks"]))
        lines.append(f"  {_step(probe)}: {mark} → {_text(probe['value'])} (fork {forks}{again})")
    if data["pairs"]:
        lines.append("pairs swapped together:")
    for pair in data["pairs"]:
        steps = " + ".join(_step(s) for s in pair["steps"])
        if pair["skipped"]:
            lines.append(f"  {steps}: not tried — {pair['skipped']}")
            continue
        mark = "flips" if pair["flips"] else "no flip"
        again = ", reused" if pair["reused"] else ""
        forks = ", ".join(map(str, pair["forks"]))
        lines.append(f"  {steps}: {mark} → {_text(pair['value'])} (forks {forks}{again})")
    monotone = {True: "yes", False: "no", None: "unknown"}[data["monotone"]]
    lines.append(f"monotone: {monotone}" + (f" — {data['why']}" if data["why"] else ""))
    if data["unknown"]:
        untried = ", ".join(_step(c) for c in data["unknown"])
        lines.append(f"not tried (budget {data['budget']} spent): {untried}")
    if data["unknown"] or data["pairs_untried"]:
        what = "every step" if data["unknown"] else "every pair"
        lines.append(
            f"--budget {data['budget_for_the_rest']} tries {what} (the forks made are reused)"
        )
    for skipped in data["skipped"]:
        lines.append(f"  skipped {skipped}")
    return "\n".join(lines)


def _together(data: dict[str, Any]) -> str:
    """The no-single-step finding, with the forks that show the pair flipping it."""
    line = data["no_single_step_why"]
    flipped = next((p for p in data["pairs"] if p["flips"]), None)
    if flipped is None:
        return line
    last, first = flipped["forks"][-1], flipped["steps"][0]["node"]
    return (
        f"{line}: fork {last}, made on top of fork {flipped['on_top_of']} ({first} alone) → "
        f"{_text(flipped['value'])}"
    )


def _step(step: dict[str, Any]) -> str:
    return f"{step['node']} (step {step['sequence_id']})"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)
