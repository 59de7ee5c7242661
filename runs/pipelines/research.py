"""The demo ``research`` pipeline: which outreach policy gives the best cost per conversion?

plan → research → analyse → critique → revise → compose → verify → publish. The llm nodes
(plan, critique, revise, compose) reason over the numbers; the tool nodes compute for real
over ``data/outreach.csv``. ``verify`` recomputes the analysis along an independent code path
and fails the run if the numbers disagree — so an ``output`` override that fabricates numbers
at ``analyse`` is caught, while an ``args.*`` override there changes the report's numbers.

It is registered in ``settings.REWIND_PIPELINES`` exactly like a user's own pipeline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runs.engine.analysis.outcomes import Outcome, one_of
from runs.engine.apps.domains import Choice, DataFile, Number
from runs.engine.apps.specs import LLMNode, Pipeline, ToolNode, chain, parse_json_object
from runs.engine.errors import NodeFailure
from runs.pipelines import analysis

DATASET = "outreach.csv"
METADATA = "outreach.json"

# The values a fork may set, the same ones the analysis itself accepts (analysis.py).
REGION = Choice(("all", *analysis.REGIONS))
DOMAINS = {
    "dataset": DataFile(suffixes=(".csv",)),
    "metadata": DataFile(suffixes=(".json",)),
    "region": REGION,
    "min_contacts": Number(int, minimum=1, maximum=analysis.MAX_CONTACTS),
    "cost_scale": Number(float, minimum=0, maximum=analysis.MAX_COST_SCALE, exclusive_minimum=True),
}


def _domains(*names: str) -> dict:
    return {name: DOMAINS[name] for name in names}


def _check_analysis(output: Any) -> None:
    """What the steps after ``analyse`` read of its output."""
    for key, kind in (("groups", dict), ("params", dict), ("best_group", (str, type(None)))):
        if not isinstance(output.get(key), kind):
            raise ValueError(
                f"an analysis needs {key!r} ({'an object' if kind is dict else 'text'})"
            )


_SYSTEM = (
    "You are the {role} step of a research pipeline over an outreach-policy experiment. "
    "Answer with one JSON object and nothing else.\nJSON keys: {keys}"
)


def _system(role: str, keys: str) -> str:
    return _SYSTEM.format(role=role, keys=keys)


def _table(result: dict[str, Any]) -> str:
    """The analysis as lines of text for a prompt: every number the model may reason about."""
    lines = []
    for group, m in sorted(result["groups"].items()):
        lines.append(
            f"- group {group}: {m['participants']} participants, {m['conversions']} conversions, "
            f"conversion rate {m['conversion_rate']}, total cost {m['total_cost']}, "
            f"cost per conversion {m['cost_per_conversion']}"
        )
    params = result["params"]
    lines.append(
        f"best group by cost per conversion: {result['best_group']} "
        f"(region {params['region']}, min contacts {params['min_contacts']}, "
        f"cost scale {params['cost_scale']})"
    )
    return "\n".join(lines)


def _bullets(items: Any) -> str:
    return "\n".join(f"- {item}" for item in items) if isinstance(items, list) else str(items)


# --- llm nodes ------------------------------------------------------------------------------

plan = LLMNode(
    name="plan",
    reads=("question", "region"),
    system=_system("planning", "objective, steps, metric"),
    prompt=lambda v: (
        f"Question: {v['question']}\nRegion: {v['region']}\n"
        "Plan how to answer the question from the experiment's participants, costs and outcomes."
    ),
    parse=parse_json_object(objective=str, steps=list),
)

critique = LLMNode(
    name="critique",
    reads=("question", "plan", "analyse"),
    system=_system("critique", "issues, confidence"),
    prompt=lambda v: (
        f"Question: {v['question']}\nObjective: {v['plan']['objective']}\n"
        f"Analysis:\n{_table(v['analyse'])}\n"
        "List the weaknesses of this analysis and how confident it can be."
    ),
    parse=parse_json_object(issues=list),
    embeds="analyse",
)

revise = LLMNode(
    name="revise",
    reads=("analyse", "critique"),
    system=_system("revision", "findings, recommendation"),
    prompt=lambda v: (
        f"Analysis:\n{_table(v['analyse'])}\nCritique:\n{_bullets(v['critique']['issues'])}\n"
        "Revise the findings in the light of the critique and recommend a policy."
    ),
    parse=parse_json_object(findings=list, recommendation=str),
)

compose = LLMNode(
    name="compose",
    reads=("question", "analyse", "revise"),
    system=_system("writing", "title, summary, sections"),
    prompt=lambda v: (
        f"Question: {v['question']}\nAnalysis:\n{_table(v['analyse'])}\n"
        f"Findings:\n{_bullets(v['revise']['findings'])}\n"
        f"Recommendation: {v['revise']['recommendation']}\n"
        "Write the report: a title, a summary and a few short sections."
    ),
    parse=parse_json_object(title=str, summary=str, sections=list),
)


# --- tool nodes -----------------------------------------------------------------------------


def _research(args: dict[str, Any], data_dir: Path) -> dict[str, Any]:
    return analysis.profile_dataset(
        data_dir / args["dataset"], data_dir / args["metadata"], region=args["region"]
    )


def _analyse(args: dict[str, Any], data_dir: Path) -> dict[str, Any]:
    return analysis.analyse(
        data_dir / args["dataset"],
        region=args["region"],
        min_contacts=args["min_contacts"],
        cost_scale=args["cost_scale"],
    )


def _verify(args: dict[str, Any], data_dir: Path) -> dict[str, Any]:
    result = analysis.verify_analysis(data_dir / args["dataset"], args["reported"])
    if not result["ok"]:
        first = result["mismatches"][0]
        raise NodeFailure(
            f"the analysis does not match an independent recomputation: {len(result['mismatches'])} "
            f"mismatch(es), first {first['group']}.{first['metric']} reported {first['reported']} "
            f"recomputed {first['recomputed']}",
            raw=str(result),
        )
    return result


def _publish(args: dict[str, Any], data_dir: Path) -> str:
    compose = args["compose"]
    return analysis.render_report(
        title=str(compose["title"]),
        question=args["question"],
        summary=str(compose["summary"]),
        sections=[str(s) for s in compose["sections"]],
        analysis=args["analyse"],
        verification=args["verify"],
        metadata=args["profile"],
    )


research = ToolNode(
    name="research",
    reads=("region",),
    args=lambda v: {"dataset": DATASET, "metadata": METADATA, "region": v["region"]},
    run=_research,
    data_files=(DATASET, METADATA),
    domains=_domains("dataset", "metadata", "region"),
)

analyse = ToolNode(
    name="analyse",
    reads=("region",),
    args=lambda v: {
        "dataset": DATASET,
        "region": v["region"],
        "min_contacts": 1,
        "cost_scale": 1.0,
    },
    run=_analyse,
    data_files=(DATASET,),
    domains=_domains("dataset", "region", "min_contacts", "cost_scale"),
    check_output=_check_analysis,
)

verify = ToolNode(
    name="verify",
    reads=("analyse",),
    args=lambda v: {"dataset": DATASET, "reported": v["analyse"]},
    run=_verify,
    data_files=(DATASET,),
    domains=_domains("dataset"),
)

publish = ToolNode(
    name="publish",
    reads=("question", "research", "analyse", "compose", "verify"),
    args=lambda v: {
        "question": v["question"],
        "profile": v["research"],
        "analyse": v["analyse"],
        "compose": v["compose"],
        "verify": v["verify"],
    },
    run=_publish,
    artifact=True,
)

ORDER = ("plan", "research", "analyse", "critique", "revise", "compose", "verify", "publish")

pipeline = Pipeline(
    name="research",
    description="Which outreach policy gives the best cost per conversion? (demo dataset)",
    nodes=(plan, research, analyse, critique, revise, compose, verify, publish),
    transitions=chain(*ORDER),
    entrypoint="plan",
    inputs={
        "question": "Which outreach policy gives the lowest cost per conversion, and should we adopt it?",
        "region": "all",
    },
    input_domains={"region": REGION},
    # The conclusion: the policy with the lowest cost per conversion — one of the dataset's
    # three (data/outreach.json); None, when no group qualifies, fails the check.
    outcomes=(Outcome("best_group", "analyse.best_group", one_of("A", "B", "C")),),
)
