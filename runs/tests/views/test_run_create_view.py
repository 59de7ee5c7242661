"""``POST /runs/new/``: a valid form writes a queued run and enqueues it after commit, then
sends the browser to the run's page; a bad form is a 400 showing the error, and writes nothing.
The fields themselves (typed from the pipeline's declared inputs, switched with the pipeline)
are tested in ``test_new_run_form.py``.
"""

from __future__ import annotations

import pytest

from runs.models import Run

pytestmark = pytest.mark.django_db

URL = "/runs/new/"
HTMX = {"HX-Request": "true"}


def form(**fields: str) -> dict[str, str]:
    """The new-run form of the research pipeline as a browser posts it untouched."""
    return {
        "pipeline": "research",
        "input.question": "Which outreach policy gives the lowest cost per conversion?",
        "input.region": "all",
        "model": "",
        "temperature": "",
        **fields,
    }


def test_anonymous_user_is_sent_to_login_and_nothing_is_created(client, rewind_settings):
    response = client.post(URL, form())

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/runs/new/"
    assert not Run.objects.exists()


def test_put_is_not_allowed(signed_in):
    assert signed_in.put(URL).status_code == 405


def test_a_valid_form_creates_a_queued_run_and_redirects_to_it(signed_in, rewind_settings):
    response = signed_in.post(URL, form(**{"input.region": "east"}))

    run = Run.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/runs/{run.pk}/"
    # No commit happened in this test's transaction, so nothing was handed to a worker yet.
    assert run.status == Run.Status.QUEUED
    assert run.inputs["region"] == "east"
    assert run.root_id == run.pk and run.parent_id is None


def test_htmx_gets_a_client_redirect(signed_in, rewind_settings):
    response = signed_in.post(URL, form(), headers=HTMX)

    run = Run.objects.get()
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/runs/{run.pk}/"


def test_the_run_is_enqueued_after_commit_and_executes(
    signed_in, rewind_settings, immediate_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = signed_in.post(URL, form(model="rewind-sim-1", temperature="0"))

    assert response.status_code == 302
    assert len(callbacks) == 1  # one run, enqueued once, only after its row committed
    run = Run.objects.get()
    assert run.status == Run.Status.COMPLETED, run.error
    assert run.nodes.count() == 8
    assert run.artifact_sha256


def test_model_and_temperature_are_recorded_on_the_run(signed_in, rewind_settings):
    signed_in.post(URL, form(model="my-model", temperature="0.7"))

    run = Run.objects.get()
    assert run.provider["model"] == "my-model"
    assert run.provider["temperature"] == 0.7


def test_blank_model_and_temperature_take_the_configuration(signed_in, rewind_settings):
    rewind_settings.REWIND_LLM_TEMPERATURE = 0.3

    signed_in.post(URL, form())

    run = Run.objects.get()
    assert run.provider["model"] == "rewind-sim-1"
    assert run.provider["temperature"] == 0.3
    assert run.provider["simulator"] is True


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"input.region": "mars"}, "input.region", "must be one of &#x27;all&#x27;"),
        ({"input.question": "a\u0000b"}, "input.question", "Null characters are not allowed"),
        ({"temperature": "5"}, "temperature", "less than or equal to 2.0"),
        ({"temperature": "-1"}, "temperature", "greater than or equal to 0.0"),
        ({"temperature": "warm"}, "temperature", "Enter a number"),
        ({"model": "m" * 201}, "model", "at most 200 characters"),
    ],
)
def test_a_bad_form_is_400_with_the_error_and_creates_nothing(
    signed_in, rewind_settings, fields, field, message
):
    response = signed_in.post(URL, form(**fields))

    assert response.status_code == 400
    text = response.content.decode()
    assert message in text
    # the error sits with its field (``<p><label for="id_input.region">…<span class="error">``)
    paragraph = text[text.index(f'for="id_{field}"') :]
    paragraph = paragraph[: paragraph.index("</p>")]
    assert message in paragraph
    assert not Run.objects.exists()


def test_an_input_the_pipeline_does_not_declare_is_refused(signed_in, rewind_settings):
    response = signed_in.post(URL, form(**{"input.colour": "red"}))

    assert response.status_code == 400
    text = response.content.decode()
    assert (
        '<p class="error">unknown input &#x27;colour&#x27;; research takes question, region</p>'
        in text
    )
    assert not Run.objects.exists()


def test_an_unknown_pipeline_is_refused(signed_in, rewind_settings):
    response = signed_in.post(URL, form(pipeline="nope"))

    assert response.status_code == 400
    assert '<p class="error">pipeline: Select a valid choice.' in response.content.decode()
    assert not Run.objects.exists()


def test_a_bad_htmx_form_answers_the_form_fragment(signed_in, rewind_settings):
    response = signed_in.post(URL, form(temperature="5"), headers=HTMX)

    assert response.status_code == 400
    text = response.content.decode()
    assert "<html" not in text
    assert 'hx-post="/runs/new/"' in text
    assert 'value="5"' in text  # what was typed is kept
    assert not Run.objects.exists()


def test_a_bad_form_without_htmx_gets_the_whole_page(signed_in, rewind_settings, run_row):
    # Pages work without JavaScript: the form posts normally and must come back as a page.
    existing = run_row()

    response = signed_in.post(URL, form(temperature="5"))

    assert response.status_code == 400
    text = response.content.decode()
    assert "<html" in text
    assert f'href="/runs/{existing.pk}/"' in text  # the run table around the form
    assert "less than or equal to 2.0" in text and 'value="5"' in text
    assert Run.objects.count() == 1


def test_a_configuration_error_is_shown_and_creates_nothing(signed_in, rewind_settings):
    rewind_settings.REWIND_LLM_PRESET = "custom"  # custom needs a base URL: none is set

    response = signed_in.post(URL, form())

    assert response.status_code == 400
    assert "needs REWIND_LLM_BASE_URL" in response.content.decode()
    assert not Run.objects.exists()


COUNTER = "burr.examples.hello-world-counter.application.application"


@pytest.fixture
def counter_app(rewind_settings, monkeypatch, tmp_path):
    """Burr's shipped hello-world-counter, registered unchanged (its factory writes demos.db
    in the working directory and a tracker under ~/.burr: both go to the test's folder)."""
    from runs.engine.apps.registry import _load

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    rewind_settings.REWIND_PIPELINES = {**rewind_settings.REWIND_PIPELINES, "counter": COUNTER}
    _load.cache_clear()
    yield "counter"
    _load.cache_clear()


def test_a_burr_app_run_takes_halts_and_turns_from_the_form(signed_in, counter_app):
    response = signed_in.post(
        URL,
        {"pipeline": "counter", "halt_after": "result, counter", "turns": "{}\n\n{}"},
    )

    run = Run.objects.get()
    assert response.status_code == 302
    assert run.pipeline == "counter"
    assert run.halt == {"after": ["result", "counter"], "before": []}
    assert run.turns == [{"inputs": {}}, {"inputs": {}}, {"inputs": {}}]
    assert run.inputs == {"counter": 0}  # the app's own initial state


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"halt_after": "nowhere"}, "cannot halt at &#x27;nowhere&#x27;"),
        ({"input.prompt": "hi"}, "unknown input &#x27;prompt&#x27;"),
        ({"turns": "[1]"}, "line 1: must be a JSON object"),
        ({"turns": "{}"}, "several turns need --halt-after or --halt-before"),
    ],
)
def test_bad_burr_app_fields_are_a_400_and_write_nothing(signed_in, counter_app, fields, says):
    response = signed_in.post(URL, {"pipeline": "counter", **fields}, headers=HTMX)

    assert response.status_code == 400
    assert says in response.content.decode()
    assert not Run.objects.exists()
