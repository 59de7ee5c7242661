"""The new-run form is built from the chosen pipeline's declarations: one typed field per
declared input (its domain's choices as a select, bounds as min/max), one text field per
runtime input of a Burr app's actions (plus halts and turns); choosing another pipeline
rebuilds it — htmx gets the form fragment, a browser without JavaScript the whole page."""

from __future__ import annotations

import pytest
from burr.core import ApplicationBuilder, State
from burr.core.action import action

from runs.engine.apps.domains import Choice, Number
from runs.engine.apps.specs import Pipeline, chain
from runs.models import Run
from runs.tests.helpers.pipelines import ask, done, tick

pytestmark = pytest.mark.django_db

URL = "/runs/new/"
HTMX = {"HX-Request": "true"}

# A declared pipeline whose inputs have every type a default can have.
typed = Pipeline(
    name="typed",
    description="Inputs of every type (test pipeline)",
    nodes=(ask, tick, done),
    transitions=chain("ask", "tick", "done"),
    entrypoint="ask",
    inputs={
        "topic": "tidal energy",
        "rounds": 2,
        "scale": 1.5,
        "strict": False,
        "tags": ["a", "b"],
        "mode": "fast",
    },
    input_domains={"rounds": Number(int, 1, 5), "mode": Choice(("fast", "slow"))},
)


@action(reads=[], writes=["greeting"])
def greet(state: State, name: str, punctuation: str = "!") -> State:
    return state.update(greeting=f"hello {name}{punctuation}")


@action(reads=["greeting"], writes=["reply"])
def answer(state: State, question: str) -> State:
    return state.update(reply=f"{state['greeting']} you asked {question}")


def chat_application():
    return (
        ApplicationBuilder()
        .with_actions(greet=greet, answer=answer)
        .with_transitions(("greet", "answer"), ("answer", "greet"))
        .with_entrypoint("greet")
        .build()
    )


@pytest.fixture
def registered(rewind_settings):
    from runs.engine.apps.registry import _load

    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "typed": f"{__name__}.typed",
        "chat": f"{__name__}.chat_application",
    }
    _load.cache_clear()
    yield rewind_settings
    _load.cache_clear()


def new_run_form(text: str) -> str:
    start = text.index('<form method="post" action="/runs/new/"')
    return text[start : text.index("</form>", start)]


def field(text: str, name: str) -> str:
    """The ``<p class="field">`` holding the field ``name``."""
    start = text.rindex("<p", 0, text.index(f'for="id_{name}"'))
    return text[start : text.index("</p>", start)]


# --- access ----------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client, registered):
    response = client.get(URL, {"pipeline": "typed"}, headers=HTMX)

    assert response.status_code == 302
    assert response["Location"] == "/login/?next=/runs/new/%3Fpipeline%3Dtyped"


# --- a declared pipeline -----------------------------------------------------------------------


def test_the_research_form_has_typed_fields_not_a_json_textarea(signed_in, rewind_settings):
    text = signed_in.get("/runs/").content.decode()

    form = new_run_form(text)
    assert 'name="inputs"' not in form
    assert '<input type="hidden" name="pipeline" value="research"' in form
    question = field(form, "input.question")
    assert '<textarea name="input.question"' in question
    assert "Which outreach policy gives the lowest cost per conversion" in question
    region = field(form, "input.region")
    assert '<select name="input.region"' in region
    assert '<option value="all" selected>all</option>' in region
    for other in ("east", "north", "south", "west"):
        assert f'<option value="{other}">{other}</option>' in region
    assert 'name="model"' in form and 'name="temperature"' in form
    assert 'name="halt_after"' not in form and 'name="turns"' not in form


def test_each_input_is_typed_like_its_default_and_bounded_by_its_domain(signed_in, registered):
    text = signed_in.get(URL, {"pipeline": "typed"}, headers=HTMX).content.decode()

    assert '<input type="text" name="input.topic" value="tidal energy"' in text
    assert ('<input type="number" name="input.rounds" value="2" step="1" min="1" max="5"') in text
    assert '<input type="number" name="input.scale" value="1.5" step="any"' in text
    strict = field(text, "input.strict")
    assert '<select name="input.strict"' in strict
    assert '<option value="false" selected>false</option>' in strict
    tags = field(text, "input.tags")
    assert '<textarea name="input.tags"' in tags and "&quot;a&quot;" in tags
    mode = field(text, "input.mode")
    assert '<option value="fast" selected>fast</option>' in mode
    assert '<option value="slow">slow</option>' in mode


def test_typed_values_become_the_runs_inputs(signed_in, registered):
    response = signed_in.post(
        URL,
        {
            "pipeline": "typed",
            "input.topic": "wave power",
            "input.rounds": "4",
            "input.scale": "0.25",
            "input.strict": "true",
            "input.tags": '["x"]',
            "input.mode": "slow",
        },
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    run = Run.objects.get()
    assert run.inputs == {
        "topic": "wave power",
        "rounds": 4,
        "scale": 0.25,
        "strict": True,
        "tags": ["x"],
        "mode": "slow",
    }


def test_an_input_not_sent_takes_its_default(signed_in, registered):
    response = signed_in.post(URL, {"pipeline": "typed", "input.rounds": "3"})

    assert response.status_code == 302
    assert Run.objects.get().inputs == {**typed.inputs, "rounds": 3}


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("input.rounds", "9", "must be an integer ≥ 1 and ≤ 5"),
        ("input.rounds", "two", "expected int like 2"),
        ("input.scale", "fast", "expected float like 1.5"),
        ("input.strict", "maybe", "expected bool"),
        ("input.tags", "[not json", "not valid JSON"),
        ("input.mode", "medium", "must be one of &#x27;fast&#x27;, &#x27;slow&#x27;"),
    ],
)
def test_a_bad_value_is_a_400_next_to_its_field(signed_in, registered, name, value, says):
    response = signed_in.post(URL, {"pipeline": "typed", name: value}, headers=HTMX)

    assert response.status_code == 400
    text = response.content.decode()
    assert "<html" not in text  # htmx gets the form fragment
    assert says in field(text, name)
    assert not Run.objects.exists()


@pytest.mark.parametrize(
    "text",
    [
        "Growth 📈 of 10 % — 👩‍👩‍👧 families ✓",
        "מה המדיניות הזולה ביותר؟",
        "e\u0301\u200b\u2066x\u2069",
    ],
)
def test_odd_unicode_round_trips_through_a_text_input(signed_in, rewind_settings, text):
    response = signed_in.post(URL, {"pipeline": "research", "input.question": text})

    assert response.status_code == 302
    assert Run.objects.get().inputs["question"] == text


def test_a_textarea_s_crlf_line_endings_are_plain_newlines(signed_in, rewind_settings):
    signed_in.post(URL, {"pipeline": "research", "input.question": "one\r\ntwo"})

    assert Run.objects.get().inputs["question"] == "one\ntwo"


def test_a_posted_json_inputs_field_is_refused_by_name(signed_in, rewind_settings):
    # The old form's JSON textarea: never silently ignored (the run would take the defaults).
    response = signed_in.post(URL, {"pipeline": "research", "inputs": '{"region": "east"}'})

    assert response.status_code == 400
    assert "unknown field &#x27;inputs&#x27;" in response.content.decode()
    assert "(each input is its own field)" in response.content.decode()
    assert not Run.objects.exists()


# --- a Burr app ----------------------------------------------------------------------------------


def test_a_burr_app_gets_one_text_field_per_runtime_input_and_halts(signed_in, registered):
    text = signed_in.get(URL, {"pipeline": "chat"}, headers=HTMX).content.decode()

    form = new_run_form(text)
    assert "Runtime inputs of the first turn" in form
    for name, taker in (("name", "greet"), ("punctuation", "greet"), ("question", "answer")):
        block = field(form, f"input.{name}")
        assert f'<textarea name="input.{name}"' in block
        assert f"runtime input of {taker}; blank: not given" in block
    assert 'name="halt_after"' in form and "greet, answer" in field(form, "halt_after")
    assert 'name="halt_before"' in form and 'name="turns"' in form
    assert 'name="model"' not in form and 'name="temperature"' not in form


def test_a_burr_app_run_takes_its_runtime_inputs_and_turns(signed_in, registered):
    response = signed_in.post(
        URL,
        {
            "pipeline": "chat",
            "input.name": "Ada",
            "input.punctuation": "",  # blank: not given
            "input.question": "why?",
            "halt_after": "answer",
            "turns": '{"name": "Bob", "question": "how?"}',
        },
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    run = Run.objects.get()
    assert run.turns == [
        {"inputs": {"name": "Ada", "question": "why?"}},
        {"inputs": {"name": "Bob", "question": "how?"}},
    ]
    assert run.halt == {"after": ["answer"], "before": []}


def test_a_burr_app_refuses_model_and_temperature_fields(signed_in, registered):
    response = signed_in.post(URL, {"pipeline": "chat", "model": "gpt-4o"})

    assert response.status_code == 400
    assert "unknown field &#x27;model&#x27;" in response.content.decode()
    assert not Run.objects.exists()


# --- switching pipelines ---------------------------------------------------------------------


def test_htmx_switching_the_pipeline_gets_only_the_form(signed_in, registered):
    response = signed_in.get(URL, {"pipeline": "chat"}, headers=HTMX)

    assert response.status_code == 200
    text = response.content.decode()
    assert "<html" not in text and 'class="runs"' not in text
    assert '<option value="chat" selected>chat</option>' in text
    assert '<input type="hidden" name="pipeline" value="chat"' in text
    assert 'hx-get="/runs/new/"' in text  # the select swaps the form again on change


def test_without_javascript_the_pipeline_comes_as_a_get_parameter(signed_in, registered, run_row):
    existing = run_row()

    response = signed_in.get(URL, {"pipeline": "typed"})

    assert response.status_code == 200
    text = response.content.decode()
    assert "<html" in text and f'href="/runs/{existing.pk}/"' in text  # the whole runs page
    assert 'name="input.rounds"' in text
    # the picker is a GET form to this URL, with a button for browsers without JavaScript
    picker = text[text.index('<form method="get" action="/runs/new/"') :]
    picker = picker[: picker.index("</form>")]
    assert "<noscript><button" in picker and 'name="pipeline"' in picker


def test_the_page_shows_the_default_pipeline_form(signed_in, registered):
    text = signed_in.get(URL).content.decode()

    assert '<input type="hidden" name="pipeline" value="research"' in text


@pytest.mark.parametrize("params", [{"pipeline": "nope"}, {"pipeline": "x" * 300}])
def test_an_unknown_pipeline_to_switch_to_is_400(signed_in, registered, params):
    response = signed_in.get(URL, params, headers=HTMX)

    assert response.status_code == 400
    assert "bad parameter" in response.content.decode()


def test_a_pipeline_that_cannot_be_loaded_says_why(signed_in, rewind_settings):
    from runs.engine.apps.registry import _load

    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "broken": "runs.tests.helpers.burr_apps.broken_application",
    }
    _load.cache_clear()
    try:
        response = signed_in.get(URL, {"pipeline": "broken"}, headers=HTMX)
        posted = signed_in.post(URL, {"pipeline": "broken"}, headers=HTMX)
    finally:
        _load.cache_clear()

    assert response.status_code == 200
    assert '<button type="submit" disabled>Start run</button>' in response.content.decode()
    assert posted.status_code == 400
    assert "no config file at ~/.myagent.toml" in posted.content.decode()
    assert not Run.objects.exists()
