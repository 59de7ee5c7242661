"""``/runs/<run>/nodes/<sequence_id>/fork/``: the fork editor. GET offers exactly the fields
the node consumes, pre-filled, with the dirty-set preview; POST with one changed field creates
that fork (and enqueues it); with none it says it would be an unchanged replay and writes
nothing until the "Replay unchanged" button asks for one. Anything else is a 400 that shows
why next to the field and writes nothing."""

from __future__ import annotations

import pytest

from runs.models import Edge, Node, Run
from runs.tests.helpers.fork_editor import current

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
PLAN, RESEARCH, ANALYSE, CRITIQUE, PUBLISH = 0, 1, 2, 3, 7  # research pipeline steps


def url(run: Run | int, sequence_id: int) -> str:
    return f"/runs/{getattr(run, 'pk', run)}/nodes/{sequence_id}/fork/"


def rows() -> tuple[int, int, int]:
    return Run.objects.count(), Node.objects.count(), Edge.objects.count()


def newest_run() -> Run:
    return Run.objects.order_by("-pk").first()


def field_block(text: str, name: str) -> str:
    """The editor's ``<div class="field">`` of ``name`` (label, input, errors)."""
    start = text.index(f'<label for="id_{name}">')
    start = text.rindex("<div", 0, start)
    return text[start : text.index("</div>", start)]


# --- access ----------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client, research_run):
    response = client.get(url(research_run, ANALYSE))

    assert response.status_code == 302
    assert response["Location"] == f"/login/?next=/runs/{research_run.pk}/nodes/{ANALYSE}/fork/"


def test_anonymous_post_is_sent_to_login_and_writes_nothing(client, research_run):
    before = rows()

    response = client.post(url(research_run, ANALYSE), {"args.cost_scale": "3"})

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    assert rows() == before


def test_unknown_step_and_unknown_run_are_404(signed_in, research_run):
    assert signed_in.get(url(research_run, 8)).status_code == 404
    assert signed_in.post(url(research_run, 8), {"output": "{}"}).status_code == 404
    assert signed_in.get(url(research_run.pk + 1000, 0)).status_code == 404


def test_a_step_the_pipeline_does_not_declare_is_404_not_500(signed_in, run_row, node_row):
    run = run_row()
    node_row(run, 0, "no-such-node")

    assert signed_in.get(url(run, 0)).status_code == 404


def test_put_is_not_allowed(signed_in, research_run):
    assert signed_in.put(url(research_run, ANALYSE)).status_code == 405


# --- the editor ------------------------------------------------------------------------------


def test_an_llm_step_offers_prompt_model_temperature_and_output(signed_in, research_run):
    values = current(research_run, CRITIQUE)

    response = signed_in.get(url(research_run, CRITIQUE))

    assert response.status_code == 200
    text = response.content.decode()
    assert "<html" in text
    assert list(response.context["form"].fields) == ["prompt", "model", "temperature", "output"]
    assert '<textarea name="prompt"' in field_block(text, "prompt")
    assert values["prompt"].splitlines()[0] in text  # "Question: …"
    assert '<input type="text" name="model" value="rewind-sim-1"' in text
    assert '<input type="number" name="temperature" value="0.0" step="any"' in text
    assert '<textarea name="output"' in text and "&quot;issues&quot;" in text
    assert 'name="args.' not in text


def test_a_tool_step_offers_its_args_and_output_only(signed_in, research_run):
    response = signed_in.get(url(research_run, ANALYSE))

    text = response.content.decode()
    # A set: the args come back from a JSON column, whose key order PostgreSQL does not keep.
    assert set(response.context["form"].fields) == {
        "args.dataset",
        "args.region",
        "args.min_contacts",
        "args.cost_scale",
        "output",
    }
    # The node's declared domains: bounds as min/max, choices as a select (issue 7, finding 2).
    assert 'name="args.cost_scale" value="1.0" step="any" min="0" max="1000.0"' in text
    assert 'name="args.min_contacts" value="1" step="1" min="1" max="8"' in text
    region = field_block(text, "args.region")
    assert '<select name="args.region"' in region
    assert '<option value="all" selected>all</option>' in region
    for other in ("east", "north", "south", "west"):
        assert f'<option value="{other}">{other}</option>' in region
    assert '<select name="args.dataset"' in text
    assert '<option value="outreach.csv" selected>' in text
    for absent in ('name="prompt"', 'name="model"', 'name="temperature"'):
        assert absent not in text


def test_the_preview_lists_what_a_change_re_executes(signed_in, research_run):
    text = signed_in.get(url(research_run, CRITIQUE)).content.decode()

    preview = text[text.index('<div class="dirty">') :]
    assert "re-executes it live and is expected to re-execute 3 more steps" in preview
    plan = preview[preview.index('<ul class="plan">') : preview.index("</ul>")]
    names = [
        item.split("</span> ", 1)[1].split(" ·")[0].split("<")[0] for item in plan.split("<li>")[1:]
    ]
    assert names == ["critique", "revise", "compose", "verify", "publish"]
    # The changed step is certain; what follows depends on its new output, so it is expected.
    assert '<span class="badge src-tool-cache">expected tool-cache</span> verify' in plan
    assert '<span class="badge src-live">expected live</span> revise' in plan
    assert '<span class="badge src-live">live</span> critique · ~' in plan
    assert "Replaying unchanged costs 0 tokens." in preview


def test_htmx_gets_only_the_fork_editor(signed_in, research_run):
    response = signed_in.get(url(research_run, ANALYSE), headers=HTMX)

    text = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in text
    assert "← run" not in text
    assert f"<h2>Fork run {research_run.pk} at analyse" in text
    assert f'hx-post="/runs/{research_run.pk}/nodes/{ANALYSE}/fork/"' in text


# --- creating a fork -------------------------------------------------------------------------


def test_one_changed_field_creates_that_fork_and_redirects_to_it(signed_in, research_run):
    data = {**current(research_run, ANALYSE), "args.cost_scale": "3"}

    response = signed_in.post(url(research_run, ANALYSE), data)

    fork = newest_run()
    assert response.status_code == 302
    assert response["Location"] == f"/runs/{fork.pk}/"
    assert fork.parent_id == research_run.pk and fork.root_id == research_run.pk
    assert fork.override == {"node": "analyse", "field": "args.cost_scale", "value": 3.0}
    assert fork.fork_node == "analyse" and fork.fork_sequence_id == ANALYSE
    assert fork.status == Run.Status.QUEUED  # enqueued on commit, not run in the request
    assert list(fork.nodes.values_list("name", "cache_source")) == [
        ("plan", "inherited"),
        ("research", "inherited"),
    ]


def test_a_client_may_post_only_its_change(signed_in, research_run):
    response = signed_in.post(url(research_run, ANALYSE), {"args.min_contacts": "3"})

    assert response.status_code == 302
    assert newest_run().override == {"node": "analyse", "field": "args.min_contacts", "value": 3}


def test_htmx_gets_a_client_redirect_to_the_fork(signed_in, research_run):
    response = signed_in.post(url(research_run, CRITIQUE), {"temperature": "0.7"}, headers=HTMX)

    fork = newest_run()
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/runs/{fork.pk}/"
    assert fork.override == {"node": "critique", "field": "temperature", "value": 0.7}


def test_a_prompt_edit_with_browser_line_endings_is_one_change(signed_in, research_run):
    data = current(research_run, CRITIQUE)
    # Browsers send textareas with CRLF: an untouched output is not a change.
    data = {name: value.replace("\n", "\r\n") for name, value in data.items()}
    data["prompt"] = "Question: is C really cheapest?\r\nAnswer in JSON."

    response = signed_in.post(url(research_run, CRITIQUE), data)

    assert response.status_code == 302
    override = newest_run().override
    assert override["field"] == "prompt"
    assert override["value"].startswith("Question: is C really cheapest?")


def test_an_artifact_output_override_is_taken_as_text(signed_in, research_run):
    response = signed_in.post(url(research_run, PUBLISH), {"output": "# A report I wrote"})

    assert response.status_code == 302
    assert newest_run().override == {
        "node": "publish",
        "field": "output",
        "value": "# A report I wrote",
    }


def test_the_fork_is_enqueued_after_commit_and_executes(
    signed_in, research_run, immediate_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = signed_in.post(url(research_run, ANALYSE), {"args.cost_scale": "3"})

    assert response.status_code == 302
    assert len(callbacks) == 1
    fork = newest_run()
    assert fork.status == Run.Status.COMPLETED, fork.error
    analyse = fork.nodes.get(name="analyse")
    assert analyse.cache_source == Node.CacheSource.LIVE
    assert analyse.output["params"]["cost_scale"] == 3.0
    assert fork.artifact_sha256 and fork.artifact_sha256 != research_run.artifact_sha256


@pytest.mark.parametrize("extra", [{}, {"args.cost_scale": "7"}])
def test_the_replay_button_creates_an_unchanged_replay(signed_in, research_run, extra):
    data = {**current(research_run, ANALYSE), **extra, "replay": "1"}

    response = signed_in.post(url(research_run, ANALYSE), data)

    replay = newest_run()
    assert response.status_code == 302
    assert response["Location"] == f"/runs/{replay.pk}/"
    assert replay.parent_id == research_run.pk
    assert replay.override is None  # the button wins over an edited field


def nothing_changed_notice(text: str) -> str:
    start = text.index('<div class="verdict diverged nothing-changed" role="alert">')
    return " ".join(text[start : text.index("</div>", start)].split())


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_submitting_the_editor_untouched_says_it_would_replay_and_makes_nothing(
    signed_in, research_run, headers
):
    before = rows()

    response = signed_in.post(
        url(research_run, CRITIQUE), current(research_run, CRITIQUE), headers=headers
    )

    assert response.status_code == 400
    assert rows() == before  # no silent replay
    text = response.content.decode()
    notice = nothing_changed_notice(text)
    assert "<strong>Nothing changed.</strong>" in notice
    assert f"Forking run {research_run.pk} at critique with every field as it was" in notice
    assert "would be an <strong>unchanged replay</strong>" in notice
    assert "press <strong>Replay unchanged</strong>" in notice
    # the fields keep what was sent, and the replay button is there to confirm
    assert '<button type="submit" name="replay" value="1" class="secondary">' in text
    assert ("<html" in text) is not bool(headers)


def test_posting_no_field_at_all_says_the_same(signed_in, research_run):
    # A client may post only its change; one that posts no field has changed nothing.
    before = rows()

    response = signed_in.post(url(research_run, ANALYSE), {"csrfmiddlewaretoken": "token"})

    assert response.status_code == 400
    assert rows() == before
    assert "Nothing changed." in nothing_changed_notice(response.content.decode())


def test_an_ordinary_error_is_not_called_nothing_changed(signed_in, research_run):
    response = signed_in.post(url(research_run, ANALYSE), {"args.cost_scale": "abc"})

    assert response.status_code == 400
    assert "nothing-changed" not in response.content.decode()


def test_an_unchanged_replay_reproduces_the_run_for_free(
    signed_in, research_run, immediate_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        signed_in.post(url(research_run, PLAN), {"replay": "1"})

    replay = newest_run()
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay.trajectory_sha256 == research_run.trajectory_sha256
    assert replay.artifact_sha256 == research_run.artifact_sha256
    assert sum(replay.nodes.values_list("total_tokens", flat=True)) == 0


# --- refusals --------------------------------------------------------------------------------


def test_two_changed_fields_are_refused_and_nothing_is_written(signed_in, research_run):
    data = {**current(research_run, ANALYSE), "args.cost_scale": "3", "args.min_contacts": "2"}
    before = rows()

    response = signed_in.post(url(research_run, ANALYSE), data)

    assert response.status_code == 400
    text = response.content.decode()
    assert "change exactly one field; you changed args." in text
    message = text[text.index("you changed") : text.index("Fork once per change")]
    assert "args.min_contacts" in message and "args.cost_scale" in message
    assert 'value="3"' in text and 'value="2"' in text  # what was typed is kept
    assert rows() == before


@pytest.mark.parametrize(
    ("sequence_id", "field", "value", "message"),
    [
        (
            ANALYSE,
            "args.cost_scale",
            "abc",
            "args.cost_scale: expected float like 1.0, got &#x27;abc&#x27;",
        ),
        (ANALYSE, "args.min_contacts", "1.5", "args.min_contacts: expected int like 1"),
        (ANALYSE, "output", "{not json", "output: not valid JSON"),
        (CRITIQUE, "temperature", "9", "temperature: must be between 0 and 2.0"),
        (CRITIQUE, "temperature", "nan", "temperature: must be between 0 and 2.0"),
        (CRITIQUE, "output", "not json at all", "output: not valid JSON"),
        (CRITIQUE, "output", '{"confidence": 1}', "output: "),  # the node's parser refuses it
        (CRITIQUE, "prompt", "   ", "prompt: must be non-empty text"),
        (CRITIQUE, "model", "m" * 201, "model: must be a model name of 1 to 200 characters"),
    ],
)
def test_a_bad_value_is_400_next_to_its_field_and_writes_nothing(
    signed_in, research_run, sequence_id, field, value, message
):
    data = {**current(research_run, sequence_id), field: value}
    before = rows()

    response = signed_in.post(url(research_run, sequence_id), data)

    assert response.status_code == 400
    block = field_block(response.content.decode(), field)
    assert 'class="field invalid"' in block
    assert '<span class="error">' + message in block
    assert rows() == before


def test_a_bad_value_answers_htmx_with_the_editor_fragment(signed_in, research_run):
    response = signed_in.post(url(research_run, ANALYSE), {"args.cost_scale": "abc"}, headers=HTMX)

    assert response.status_code == 400
    text = response.content.decode()
    assert "<html" not in text and 'class="field invalid"' in text


@pytest.mark.parametrize(
    "data",
    [
        {"prompt": "say something else"},
        {"prompt": "say something else", "args.cost_scale": "2"},
        {"model": "gpt-4o"},
        {"args.cost_scale": "2", "args.no_such_arg": "1"},
    ],
)
def test_a_field_the_step_does_not_consume_is_refused(signed_in, research_run, data):
    """The editor of a tool step has no ``prompt`` field; a hand-made POST naming one must
    not become a silent unchanged replay (DESIGN.md: a prompt edit on a tool node would
    otherwise be a silent no-op), nor a fork of the other field it carries."""
    before = rows()

    response = signed_in.post(url(research_run, ANALYSE), data)

    assert response.status_code == 400
    text = response.content.decode()
    unknown = next(name for name in data if name not in current(research_run, ANALYSE))
    assert (
        f"node &#x27;analyse&#x27; (tool) cannot take an override of &#x27;{unknown}&#x27;" in text
    )
    assert rows() == before


def test_the_replay_button_ignores_what_else_was_posted(signed_in, research_run):
    # "Replay unchanged" says what it does: no field is read, known or not.
    response = signed_in.post(url(research_run, ANALYSE), {"prompt": "x", "replay": "1"})

    assert response.status_code == 302
    assert newest_run().override is None


def test_forking_a_run_that_is_still_running_is_refused(signed_in, research_run):
    Run.objects.filter(pk=research_run.pk).update(status=Run.Status.RUNNING)
    before = rows()

    response = signed_in.post(url(research_run, ANALYSE), {"args.cost_scale": "3"})
    replay = signed_in.post(url(research_run, ANALYSE), {"replay": "1"})

    assert response.status_code == 400 and replay.status_code == 400
    text = response.content.decode()
    assert (
        f'<p class="error">run {research_run.pk} is still running; fork it once it has finished</p>'
        in text
    )
    assert '<div class="dirty">' not in text  # no preview of an unfinished run
    assert rows() == before


def test_a_failed_step_can_be_forked_with_the_output_it_failed_to_give(
    signed_in, serve_simulator, run_pipeline
):
    serve_simulator(garbage=True)
    failed = run_pipeline("research")
    assert failed.status == Run.Status.FAILED

    editor = signed_in.get(url(failed, PLAN))
    response = signed_in.post(url(failed, PLAN), {"output": '{"objective": "o", "steps": ["a"]}'})

    assert editor.status_code == 200
    assert response.status_code == 302
    assert newest_run().override == {
        "node": "plan",
        "field": "output",
        "value": {"objective": "o", "steps": ["a"]},
    }


def test_a_run_of_a_pipeline_no_longer_registered_cannot_be_forked(signed_in, run_row, node_row):
    run = run_row(pipeline="retired")
    node_row(run, 0)
    before = rows()

    # No form that could only fail: the editor says what to register; a POST is a 400.
    editor = signed_in.get(url(run, 0))
    assert editor.status_code == 200 and b"REWIND_PIPELINES=&quot;retired=" in editor.content
    assert b"Fork with this change" not in editor.content
    refused = signed_in.post(url(run, 0), {"replay": "1"})
    assert refused.status_code == 400 and b"does not know the app" in refused.content
    assert rows() == before


def test_retyping_a_value_without_changing_it_is_nothing_changed(signed_in, research_run):
    # "0" where "0.0" was pre-filled: the text differs, the value does not.
    before = rows()

    response = signed_in.post(f"/runs/{research_run.pk}/nodes/3/fork/", {"temperature": "0"})

    assert response.status_code == 400
    assert rows() == before
    assert "Nothing changed." in nothing_changed_notice(response.content.decode())

    # Asked for on purpose, it is made: an unchanged replay from critique.
    response = signed_in.post(
        f"/runs/{research_run.pk}/nodes/3/fork/", {"temperature": "0", "replay": "1"}
    )

    assert response.status_code == 302
    fork = Run.objects.get(parent=research_run)
    assert fork.override is None and fork.fork_node == "critique"
