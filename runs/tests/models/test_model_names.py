"""Which answering model is a substitution (issue 34, item 11): a dated snapshot of the alias
asked for is not; another family or size is, and says which — on the row, in the timeline, on
the step page and in the admin filter alike."""

from __future__ import annotations

import pytest

from runs.admin.nodes import ModelSubstitutedFilter, NodeAdmin
from runs.lib.model_names import model_of, substitution
from runs.models import Node, Run

SNAPSHOTS = [  # (requested, answered) as real providers answer them: no substitution
    ("gpt-3.5-turbo", "gpt-3.5-turbo-0125"),
    ("gpt-4", "gpt-4-0613"),
    ("gpt-4o", "gpt-4o-2024-08-06"),
    ("gpt-4o-mini", "gpt-4o-mini-2024-07-18"),
    ("claude-3-5-sonnet-latest", "claude-3-5-sonnet-20241022"),
    ("claude-sonnet-4-5", "claude-sonnet-4-5-20250929"),
    ("gemini-1.5-flash", "gemini-1.5-flash-002"),
    ("models/gemini-1.5-pro", "gemini-1.5-pro-001"),
    ("llama3", "llama3:latest"),
    ("openai/gpt-4o", "gpt-4o-2024-08-06"),
    ("GPT-4o", "gpt-4o"),
]
SUBSTITUTIONS = [  # another family or size
    ("gpt-4o", "gpt-4o-mini"),
    ("gpt-4", "gpt-3.5-turbo-0125"),
    ("gpt-4", "gpt-4-turbo"),
    ("claude-3-5-sonnet-latest", "claude-3-haiku-20240307"),
    ("llama3:8b", "llama3:70b"),
    ("rewind-sim-1", "rewind-sim-2"),
]


@pytest.mark.parametrize(("requested", "answered"), SNAPSHOTS)
def test_a_snapshot_of_the_alias_asked_for_is_not_a_substitution(requested, answered):
    assert model_of(requested) == model_of(answered)
    assert substitution(requested, answered) == ""


@pytest.mark.parametrize(("requested", "answered"), SUBSTITUTIONS)
def test_another_family_or_size_is_and_says_which(requested, answered):
    assert substitution(requested, answered) == f"answered by {answered}, not {requested}"


def test_nothing_named_is_nothing_to_flag():
    assert substitution("gpt-4o", "") == substitution("", "gpt-4o") == ""


@pytest.mark.django_db
def test_the_row_the_timeline_and_the_admin_filter_agree(rf):
    run = Run.objects.create(pipeline="research", status=Run.Status.COMPLETED)
    rows = {}
    for seq, (requested, answered) in enumerate([*SNAPSHOTS[:3], *SUBSTITUTIONS[:2]]):
        rows[requested, answered] = Node.objects.create(
            run=run, sequence_id=seq, name=f"s{seq}", kind=Node.Kind.LLM, src_run=run,
            src_sequence_id=seq,
            model_requested=requested, model_answered=answered,
        )  # fmt: skip
    flagged = {pair for pair, node in rows.items() if node.model_substituted}
    assert flagged == set(SUBSTITUTIONS[:2])
    assert rows[SUBSTITUTIONS[0]].model_substitution == "answered by gpt-4o-mini, not gpt-4o"

    admin = NodeAdmin(Node, None)
    for value, wanted in (("yes", flagged), ("no", set(rows) - flagged)):
        request = rf.get("/", {"model_substituted": value})
        chosen = ModelSubstitutedFilter(request, {"model_substituted": [value]}, Node, admin)
        found = chosen.queryset(request, Node.objects.all())
        assert {(n.model_requested, n.model_answered) for n in found} == wanted
