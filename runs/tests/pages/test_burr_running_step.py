"""A running Burr app's page names the step it is executing, not the branches it may never take
(issue 16, item 11): "running: answer_question" once ``decide_mode`` chose it, with
``generate_image``, ``generate_code`` and ``prompt_for_more`` "not run yet" — never "waiting".
Right through loops (a counter running again, then its exit) and forks (the fork step right
after the inherited ones). A declared linear pipeline keeps its list of steps to come.

The pages are read while the run really executes: ``execute_run(on_step=…)`` calls back after
each step is written, and the test asks the run page and its polling endpoint right there.
Burr's shipped chatbot runs unchanged against the simulator on loopback (``test_burr_apps``'
fixtures); the counter is ``runs/tests/helpers/route_apps.py``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from runs.engine.apps import registry
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.models import Node, Run
from runs.tests.helpers import burr_examples as burr_apps
from runs.tests.helpers.burr_examples import QUESTION

# The shipped examples' fixtures (simulator on loopback, the apps registered), shared.
apps, provider = burr_apps.apps, burr_apps.provider

HTMX = {"HX-Request": "true"}
BRANCHES = ("generate_image", "generate_code", "answer_question", "prompt_for_more")


@pytest.fixture
def counter_app(rewind_settings, db):
    rewind_settings.REWIND_PIPELINES = {
        **rewind_settings.REWIND_PIPELINES,
        "routes": "runs.tests.helpers.route_apps.counter_application",
    }
    registry._load.cache_clear()
    yield
    registry._load.cache_clear()


def watch(client, pages: dict[int, str], url: Callable[[Node], str]) -> Callable[[Node], None]:
    """An ``on_step`` callback: after each step is written, the page at ``url(step)``."""

    def seen(node: Node) -> None:
        response = client.get(url(node), headers=HTMX)
        assert response.status_code == 200
        pages[node.sequence_id] = response.content.decode()

    return seen


def status_url(node: Node) -> str:
    return f"/runs/{node.run_id}/status/?after=-1"


def graph_node(text: str, name: str) -> str:
    """The opening tag of ``name``'s box in the graph (an ``<a>`` once it ran, else a ``<g>``)."""
    return re.search(rf'<(?:a|g) [^>]*data-node="{name}"[^>]*>', text).group(0)


def status_line(text: str) -> str:
    return re.search(r'<p class="status-line">(.*?)</p>', text, re.S).group(1)


def unvisited_rows(text: str) -> list[tuple[str, str]]:
    """The timeline's rows of steps that have not run: (name, note)."""
    block = re.search(r'<ol id="timeline-unvisited".*?</ol>', text, re.S).group(0)
    return re.findall(
        r'<span class="name">([^<]+)</span></span>\s*<span class="unvisited-note">([^<]+)<', block
    )


# --- a branch ----------------------------------------------------------------------------------


def test_the_chatbot_names_the_branch_it_is_executing_and_lists_no_branch_as_waiting(
    apps, provider, signed_in
):
    provider.start()
    pages: dict[int, str] = {}
    run = create_run("chatbot", {"prompt": QUESTION}, halt_after=["response"])

    execute_run(run.pk, on_step=watch(signed_in, pages, status_url))

    decided = [n for n in Run.objects.get(pk=run.pk).nodes.all() if n.name == "decide_mode"][0]
    assert decided.output == {"mode": "answer_question"}
    text = pages[decided.sequence_id]
    line = status_line(text)
    assert "running: <strong" in line and "answer_question" in line
    assert "waiting" not in line
    for branch in BRANCHES:
        if branch != "answer_question":
            assert branch not in line
    assert "state-running" in graph_node(text, "answer_question")
    for branch in ("generate_image", "generate_code", "prompt_for_more"):
        assert "state-not-run-yet" in graph_node(text, branch)
        assert "state-pending" not in graph_node(text, branch)
    assert unvisited_rows(text) == [("answer_question", "running")]


def test_each_step_of_the_chatbot_names_the_one_after_it(apps, provider, signed_in):
    provider.start()
    pages: dict[int, str] = {}
    run = create_run("chatbot", {"prompt": QUESTION}, halt_after=["response"])

    execute_run(run.pk, on_step=watch(signed_in, pages, status_url))

    order = list(Run.objects.get(pk=run.pk).nodes.order_by("sequence_id"))
    for done, running in zip(order, order[1:], strict=False):
        line = status_line(pages[done.sequence_id])
        assert f'running: <strong class="running-step">{running.name}</strong>' in line, done.name


def test_the_run_page_itself_names_the_running_step(apps, provider, signed_in):
    provider.start()
    pages: dict[int, str] = {}
    run = create_run("chatbot", {"prompt": QUESTION}, halt_after=["response"])

    execute_run(run.pk, on_step=watch(signed_in, pages, lambda n: f"/runs/{n.run_id}/"))

    text = pages[3]  # decide_mode, the fourth step
    assert 'running: <strong class="running-step">answer_question</strong>' in status_line(text)
    assert "state-running" in graph_node(text, "answer_question")
    assert "running now" in text  # the legend


# --- a loop ------------------------------------------------------------------------------------


def test_a_loop_names_the_counter_again_and_then_its_exit(counter_app, signed_in):
    pages: dict[int, str] = {}
    run = create_run("routes", {})

    execute_run(run.pk, on_step=watch(signed_in, pages, status_url))

    names = list(
        Run.objects.get(pk=run.pk).nodes.order_by("sequence_id").values_list("name", flat=True)
    )
    assert names == ["start", "counter", "counter", "counter", "report"]
    assert 'running-step">counter<' in status_line(pages[0])
    # After counter#1 (counter 1 < counter_limit 3): counter again, marked on its visited box.
    again = graph_node(pages[1], "counter")
    assert 'running-step">counter<' in status_line(pages[1])
    assert "state-visited" in again and " running" in again
    assert "running · visit 2" in pages[1]
    # After counter#3 (3 < 3 is false): the default transition, report.
    assert 'running-step">report<' in status_line(pages[3])
    assert "state-running" in graph_node(pages[3], "report")


def test_a_fork_names_its_fork_step_right_after_what_it_inherited(counter_app, signed_in):
    source = execute_run(create_run("routes", {}).pk)
    fork = create_fork(source, "counter#2", "state.counter_limit", "4")
    Run.objects.filter(pk=fork.pk).update(status=Run.Status.RUNNING)  # claimed, nothing ran

    text = signed_in.get(f"/runs/{fork.pk}/status/?after=-1", headers=HTMX).content.decode()

    assert 'running-step">counter<' in status_line(text)


def test_a_finished_run_names_nothing_running(counter_app, signed_in):
    run = execute_run(create_run("routes", {}).pk)

    text = signed_in.get(f"/runs/{run.pk}/").content.decode()

    assert "running:" not in status_line(text) and "waiting" not in status_line(text)
    assert "state-running" not in text


# --- what it costs -----------------------------------------------------------------------------


def queries_for(client, run_id: int) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/runs/{run_id}/status/?after=-1", headers=HTMX)
    assert response.status_code == 200
    return [q["sql"] for q in queries.captured_queries]


def test_the_running_step_costs_one_query_and_only_where_a_condition_decides(
    counter_app, signed_in
):
    counted: dict[int, list[str]] = {}
    run = create_run("routes", {})

    execute_run(
        run.pk,
        on_step=lambda n: counted.setdefault(n.sequence_id, queries_for(signed_in, n.run_id)),
    )

    # 1. the session  2. the signed-in user  3. the run (its parent joined)  4. its steps
    # 5. the state the last step left: a condition on the way out of it reads state.
    after_first_counter, after_third_counter = counted[1], counted[3]
    assert len(after_first_counter) == len(after_third_counter) == 5, "\n".join(after_third_counter)
    assert '"runs_burrstate"' in after_first_counter[-1], after_first_counter[-1]
    # The page stays the same cost however many steps the run has taken.
    assert len(counted[1]) == len(counted[3])


def test_a_step_left_by_a_default_transition_costs_no_query_for_it(apps, provider, signed_in):
    provider.start()
    counted: dict[int, int] = {}
    run = create_run("chatbot", {"prompt": QUESTION}, halt_after=["response"])

    execute_run(
        run.pk,
        on_step=lambda n: counted.setdefault(n.sequence_id, len(queries_for(signed_in, n.run_id))),
    )

    # prompt → check_openai_key is ``default``: session, user, run, steps.
    assert counted[0] == 4
    # check_openai_key → check_safety when has_openai_key: the state is read.
    assert counted[1] == 5


# --- access ------------------------------------------------------------------------------------


def test_anonymous_user_is_sent_to_login(client, counter_app):
    run = execute_run(create_run("routes", {}).pk)

    response = client.get(f"/runs/{run.pk}/status/?after=-1", headers=HTMX)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
