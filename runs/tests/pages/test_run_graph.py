"""The run graph as a picture and the timeline (issue 9, items 1 and 2, and "not reached").

The layout (``runs.pages.graph.layout``) is tested on graphs of every shape a registered app has: a
chain (the demo), branches with condition labels and edges that skip layers (Burr's
multi-modal chatbot), a loop back to the start (``response → prompt``) and a self-loop
(hello-world-counter's ``counter → counter``). The run page and the inspector are tested
through their views: the path a run took, visit counts, colours by status and cache source,
what never ran, the inspector beside the graph with the step highlighted and previous/next
links, the timeline's offsets — and a number of queries that is the same at 10 and 500 steps.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from runs.models import Node, Run
from runs.pages.graph import GraphSpec, layout, run_graph
from runs.pages.timeline import timeline
from runs.pipelines.research import ORDER
from runs.tests.helpers.burr_apps import TURN_1, TURN_2

HTMX = {"HX-Request": "true"}

CHATBOT = GraphSpec(
    nodes=(
        "prompt",
        "check_openai_key",
        "check_safety",
        "decide_mode",
        "generate_image",
        "generate_code",
        "answer_question",
        "prompt_for_more",
        "response",
    ),
    transitions=(
        ("prompt", "check_openai_key", "default"),
        ("check_openai_key", "check_safety", "has_openai_key=True"),
        ("check_openai_key", "response", "default"),
        ("check_safety", "decide_mode", "safe=True"),
        ("check_safety", "response", "default"),
        ("decide_mode", "generate_image", "mode=generate_image"),
        ("decide_mode", "generate_code", "mode=generate_code"),
        ("decide_mode", "answer_question", "mode=answer_question"),
        ("decide_mode", "prompt_for_more", "default"),
        ("generate_image", "response", "default"),
        ("answer_question", "response", "default"),
        ("generate_code", "response", "default"),
        ("prompt_for_more", "response", "default"),
        ("response", "prompt", "default"),
    ),
    entrypoint="prompt",
)
COUNTER = GraphSpec(
    nodes=("counter", "result"),
    transitions=(("counter", "counter", "counter < 10"), ("counter", "result", "default")),
    entrypoint="counter",
)

EXAMPLES = "burr.examples"
APPS = {
    "chatbot_graph": f"{EXAMPLES}.multi-modal-chatbot.application.graph",  # a module-level Graph
    "counter": f"{EXAMPLES}.hello-world-counter.application.application",  # the app's factory
}


def links(spec: GraphSpec) -> dict[tuple[str, str], object]:
    return {(link.source, link.target): link for link in layout(spec).links}


@pytest.fixture
def burr_examples(settings, monkeypatch, tmp_path):
    """Burr's example apps registered unchanged (their factories write ~/.burr and demos.db:
    both land in the test's temp directory)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-rewind-graph")
    settings.REWIND_PIPELINES = {**settings.REWIND_PIPELINES, **APPS}
    return settings


def steps_of(run: Run, names: list[str], node_row, **fields) -> list[Node]:
    return [node_row(run, seq, name, **fields) for seq, name in enumerate(names)]


def page(client, path: str, **kwargs) -> str:
    response = client.get(path, **kwargs)
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


def graph_svg(text: str) -> str:
    start = text.index('<section id="run-graph"')
    return text[start : text.index("</section>", start)]


def row(text: str, sequence_id: int) -> str:
    """The timeline's row of a step, from its opening ``<li`` to its end."""
    at = text.index(f'id="step-{sequence_id}"')
    start = text.rindex("<li ", 0, at)
    return text[start : text.index("</li>", at)]


def graph_node(text: str, name: str) -> str:
    """The markup of the graph's box for ``name`` (an <a> if it ran, a <g> if not)."""
    svg = graph_svg(text)
    match = re.search(rf'<(a|g) [^>]*data-node="{re.escape(name)}"[^>]*>.*?</\1>', svg, re.S)
    assert match, f"no box for {name}"
    return match.group(0)


# --- the layout ------------------------------------------------------------------------------


def test_a_chain_is_one_column_of_layers_top_down():
    spec = GraphSpec(
        ORDER, tuple((a, b, "default") for a, b in zip(ORDER, ORDER[1:], strict=False)), "plan"
    )

    drawn = layout(spec)

    boxes = [drawn.boxes[name] for name in ORDER]
    assert [b.layer for b in boxes] == list(range(len(ORDER)))
    assert len({b.x for b in boxes}) == 1  # one column
    assert all(a.bottom < b.y for a, b in zip(boxes, boxes[1:], strict=False))
    assert {link.kind for link in drawn.links} == {"down"}
    assert all(link.label == "" for link in drawn.links)  # a lone default says nothing
    assert drawn.order == ORDER


def test_branches_share_a_layer_and_carry_their_conditions():
    drawn = layout(CHATBOT)
    drawn_links = links(CHATBOT)

    branches = ["generate_image", "generate_code", "answer_question", "prompt_for_more"]
    assert {drawn.boxes[b].layer for b in branches} == {4}
    xs = [drawn.boxes[b].x for b in branches]
    assert xs == sorted(xs)  # declared order, left to right
    assert drawn.boxes["response"].layer == 5  # after the longest path to it
    assert drawn_links[("decide_mode", "generate_code")].label == "mode=generate_code"
    assert drawn_links[("decide_mode", "prompt_for_more")].label == "default"  # one of several
    assert drawn_links[("check_safety", "decide_mode")].label == "safe=True"


def test_a_loop_back_to_the_start_is_a_back_edge_on_the_right():
    drawn = layout(CHATBOT)
    back = links(CHATBOT)[("response", "prompt")]

    assert back.kind == "back"
    lane = max(float(n) for n in re.findall(r"H(-?[\d.]+)", back.d))
    assert lane > max(b.right for b in drawn.boxes.values())  # around every node


def test_edges_that_skip_layers_take_lanes_on_the_left_that_do_not_cross():
    drawn = layout(CHATBOT)
    drawn_links = links(CHATBOT)
    outer = drawn_links[("check_openai_key", "response")]
    inner = drawn_links[("check_safety", "response")]

    def lane(link) -> float:
        return min(float(n) for n in re.findall(r"H(-?[\d.]+)", link.d))

    assert outer.kind == inner.kind == "skip"
    assert lane(inner) < min(b.x for b in drawn.boxes.values())
    assert lane(outer) < lane(inner)  # the longer edge goes around the shorter one


def test_a_self_loop_is_drawn_on_its_node():
    counter = links(COUNTER)[("counter", "counter")]

    assert counter.kind == "self"
    assert counter.label == "counter < 10"
    assert links(COUNTER)[("counter", "result")].kind == "down"


def test_the_layout_is_deterministic_and_fits_its_picture():
    first = layout.__wrapped__(CHATBOT)
    second = layout.__wrapped__(CHATBOT)

    assert first == second
    for box in first.boxes.values():
        assert 0 <= box.x and box.right <= first.width
        assert 0 <= box.y and box.bottom <= first.height
    for link in first.links:
        numbers = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", link.d)]
        assert min(numbers) >= 0
        if link.label:
            assert 0 <= link.label_x <= first.width


def test_a_graph_from_a_burr_app_is_its_own_actions_and_transitions(burr_examples):
    from runs.engine.apps.registry import get_pipeline

    spec = GraphSpec.of(get_pipeline("chatbot_graph"))

    assert spec.nodes == CHATBOT.nodes
    assert set(spec.transitions) == set(CHATBOT.transitions)
    assert spec.entrypoint == "prompt"
    assert links(spec)[("response", "prompt")].kind == "back"


def test_steps_the_graph_does_not_declare_are_added():
    spec = COUNTER.with_steps(["counter", "tally", "result"])

    assert spec.nodes == ("counter", "result", "tally")
    assert ("counter", "tally", "") in spec.transitions
    assert ("tally", "result", "") in spec.transitions
    assert COUNTER.with_steps(["counter", "counter", "result"]) is COUNTER


# --- the run over the graph ------------------------------------------------------------------


@pytest.mark.django_db
def test_visits_and_taken_transitions_are_counted(run_row, node_row):
    run = run_row(pipeline="retired")
    nodes = steps_of(run, TURN_1 + TURN_2, node_row)

    graph = run_graph(run, nodes)

    by_name = {node.box.name: node for node in graph.nodes}
    assert by_name["prompt"].visit_count == 2
    assert by_name["answer_question"].visit_count == 1
    assert by_name["prompt"].last == nodes[6]  # a click opens its latest visit
    taken = {(e.link.source, e.link.target): e.taken for e in graph.edges}
    assert taken[("response", "prompt")] == 1
    assert taken[("prompt", "check_openai_key")] == 2
    assert graph.unvisited == ()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "status, state",
    [
        (Run.Status.FAILED, "not reached"),
        (Run.Status.INTERRUPTED, "not reached"),
        (Run.Status.RUNNING, "pending"),
        (Run.Status.QUEUED, "pending"),
        (Run.Status.COMPLETED, "not taken"),
    ],
)
def test_nodes_that_never_ran_say_why(run_row, node_row, status, state):
    run = run_row(status=status)
    nodes = steps_of(run, list(ORDER[:3]), node_row)

    graph = run_graph(run, nodes)

    assert graph.unvisited == ORDER[3:]
    assert graph.unvisited_state == state
    assert {n.state for n in graph.nodes if n.box.name in ORDER[3:]} == {state}


# --- the run page ----------------------------------------------------------------------------


def test_the_page_draws_the_declared_graph_with_the_path_taken(signed_in, research_run):
    text = page(signed_in, f"/runs/{research_run.pk}/")

    svg = graph_svg(text)
    assert "<svg" in svg and 'role="group"' in svg
    for node in research_run.nodes.all():
        box = graph_node(text, node.name)
        assert box.startswith("<a ")
        assert f'href="/runs/{research_run.pk}/nodes/{node.sequence_id}/"' in box
        assert f'hx-get="/runs/{research_run.pk}/nodes/{node.sequence_id}/"' in box
        assert 'hx-target="#inspector"' in box and 'hx-push-url="true"' in box
        assert f"src-{node.cache_source}" in box and f"kind-{node.kind}" in box
    assert svg.count('class="edge down taken"') == len(ORDER) - 1
    assert "style=" not in svg  # the Content Security Policy allows no inline style


def test_colours_follow_each_steps_cache_source_and_status(signed_in, run_row, node_row):
    run = run_row(status=Run.Status.FAILED, error="critique: boom")
    node_row(run, 0, "plan", cache_source=Node.CacheSource.INHERITED)
    node_row(run, 1, "research", kind=Node.Kind.TOOL, cache_source=Node.CacheSource.TOOL_CACHE)
    node_row(run, 2, "analyse", kind=Node.Kind.TOOL, cache_source=Node.CacheSource.OVERRIDE)
    node_row(run, 3, "critique", status=Node.Status.FAILED, error="boom")

    text = page(signed_in, f"/runs/{run.pk}/")

    assert "src-inherited" in graph_node(text, "plan")
    assert "src-tool-cache" in graph_node(text, "research")
    assert "src-override" in graph_node(text, "analyse")
    critique = graph_node(text, "critique")
    assert "state-failed" in critique and "llm · failed" in critique


def test_a_failed_run_shows_the_steps_it_never_reached(signed_in, run_row, node_row):
    run = run_row(status=Run.Status.FAILED, error="analyse: the dataset is missing")
    node_row(run, 0, "plan")
    node_row(run, 1, "research", kind=Node.Kind.TOOL)
    node_row(run, 2, "analyse", kind=Node.Kind.TOOL, status=Node.Status.FAILED)

    text = page(signed_in, f"/runs/{run.pk}/")

    for name in ORDER[3:]:
        box = graph_node(text, name)
        assert box.startswith("<g ") and "href" not in box  # nothing to open
        assert "state-not-reached" in box and ">not reached</text>" in box
    timeline_part = text[text.index('<section id="run-timeline"') :]
    rows = re.findall(
        r'<li class="step unvisited state-not-reached" data-status="not-reached">\s*'
        r'<span class="what"><span class="name">(\w+)</span></span>\s*'
        r'<span class="unvisited-note">not reached</span>',
        timeline_part,
    )
    assert rows == list(ORDER[3:])


def test_a_completed_run_greys_the_branches_it_did_not_take(
    signed_in, burr_examples, run_row, node_row
):
    run = run_row(pipeline="chatbot_graph", provider={"preset": "app"})
    steps_of(run, TURN_1 + TURN_2, node_row)

    text = page(signed_in, f"/runs/{run.pk}/")

    for name in ("generate_image", "prompt_for_more"):
        assert "state-not-taken" in graph_node(text, name)
    assert "not reached" not in text  # nothing is missing from a completed run
    svg = graph_svg(text)
    assert re.search(
        r'class="edge back taken"[^>]*><title>response → prompt when default; taken</title>', svg
    )
    assert ">×2</text>" in graph_node(text, "prompt")  # visited once per turn
    assert ">×2</text>" not in graph_node(text, "generate_code")
    assert ">mode=generate_code</text>" in svg


def test_a_self_loop_shows_how_often_it_ran(signed_in, burr_examples, run_row, node_row):
    run = run_row(pipeline="counter", provider={"preset": "app"})
    steps_of(run, ["counter"] * 10 + ["result"], node_row, kind=Node.Kind.CODE)

    text = page(signed_in, f"/runs/{run.pk}/")

    counter = graph_node(text, "counter")
    assert ">×10</text>" in counter
    assert f'href="/runs/{run.pk}/nodes/9/"' in counter  # its latest visit
    svg = graph_svg(text)
    assert re.search(r'class="edge self taken"', svg)
    assert ">counter &lt; 10 ×9</text>" in svg


def test_a_run_of_an_unregistered_pipeline_draws_its_own_steps(signed_in, run_row, node_row):
    run = run_row(pipeline="retired")
    steps_of(run, ["gather", "judge", "gather", "judge", "report"], node_row)

    text = page(signed_in, f"/runs/{run.pk}/")

    assert ">×2</text>" in graph_node(text, "gather")
    assert 'class="edge back taken"' in graph_svg(text)  # judge → gather closes the loop
    assert "report" in graph_node(text, "report")


# --- the timeline ----------------------------------------------------------------------------


def at(node: Node, when) -> None:
    Node.objects.filter(pk=node.pk).update(created_at=when)


def test_the_timeline_places_each_step_where_it_ran(signed_in, run_row, node_row):
    start = timezone.now() - timedelta(minutes=5)
    run = run_row(started_at=start, finished_at=start + timedelta(milliseconds=1000))
    # plan ran 0–400 ms, research 400–500 ms, analyse 600–1000 ms (written when each ended)
    at(
        node_row(run, 0, "plan", latency_ms=400, total_tokens=300),
        start + timedelta(milliseconds=400),
    )
    at(
        node_row(run, 1, "research", latency_ms=100, kind="tool"),
        start + timedelta(milliseconds=500),
    )
    at(
        node_row(run, 2, "analyse", latency_ms=400, kind="tool"),
        start + timedelta(milliseconds=1000),
    )

    text = page(signed_in, f"/runs/{run.pk}/")

    def row(seq: int) -> str:
        part = text[text.index(f'id="step-{seq}"') :]
        return part[: part.index("</li>")]

    assert ">+0.0 ms</span>" in row(0) and '<span class="num duration">400 ms</span>' in row(0)
    assert '<rect class="span src-live status-completed" x="0.0" width="400.0"' in row(0)
    assert ">+400 ms</span>" in row(1) and 'x="400.0" width="100.0"' in row(1)
    assert ">+600 ms</span>" in row(2) and 'x="600.0" width="400.0"' in row(2)
    assert '<span class="num tokens">300 tok</span>' in row(0)
    assert "<span>1.00 s</span>" in text  # the axis: the whole run


def test_inherited_steps_are_shown_as_inherited_with_no_width(signed_in, research_run, run_fork):
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    nodes = list(fork.nodes.order_by("sequence_id"))

    text = page(signed_in, f"/runs/{fork.pk}/")

    for node in nodes[:2]:  # plan, research: copied from the parent
        part = row(text, node.sequence_id)
        assert part.startswith('<li class="step kind-') and " inherited" in part.split(">")[0]
        assert '<rect class="span inherited" x="0" width="3"' in part
        assert ">inherited</span>" in part
        assert '<span class="num duration">0 ms</span>' in part
    executed = timeline(fork, nodes).steps[2:]
    assert all(
        not step.inherited and step.duration_ms == n.latency_ms
        for step, n in zip(executed, nodes[2:], strict=True)
    )


def test_a_running_run_lists_its_pending_steps(signed_in, run_row, node_row):
    run = run_row(status=Run.Status.RUNNING, started_at=timezone.now())
    node_row(run, 0, "plan")

    text = page(signed_in, f"/runs/{run.pk}/")

    assert text.count('data-status="pending"') == len(ORDER) - 1
    assert "state-pending" in graph_node(text, "research")


# --- the inspector beside the graph ----------------------------------------------------------


def test_the_step_page_is_the_run_page_with_the_inspector_beside_the_graph(signed_in, research_run):
    text = page(signed_in, f"/runs/{research_run.pk}/nodes/2/")

    graph_at = text.index('<section id="run-graph"')
    inspector = text[text.index('<aside id="inspector"') :]
    assert graph_at < text.index('<aside id="inspector"')
    assert "<h2>analyse <small" in inspector
    assert 'class="ring"' in graph_node(text, "analyse")  # the step is highlighted
    assert 'aria-current="step"' in graph_node(text, "analyse")
    assert text.count('class="ring"') == 1
    assert " selected" in row(text, 2).split(">")[0]
    assert text.count('aria-current="step"') == 2  # its box and its timeline row


def test_previous_and_next_step_links_have_keys_and_work_without_javascript(
    signed_in, research_run
):
    run = research_run.pk

    middle = page(signed_in, f"/runs/{run}/nodes/3/")
    first = page(signed_in, f"/runs/{run}/nodes/0/")
    last = page(signed_in, f"/runs/{run}/nodes/{len(ORDER) - 1}/")

    prev_link = re.search(r'<a rel="prev" href="([^"]+)"[^>]*accesskey="p"', middle)
    next_link = re.search(r'<a rel="next" href="([^"]+)"[^>]*accesskey="n"', middle)
    assert prev_link and prev_link.group(1) == f"/runs/{run}/nodes/2/"
    assert next_link and next_link.group(1) == f"/runs/{run}/nodes/4/"
    assert f'hx-get="/runs/{run}/nodes/4/" hx-target="#inspector"' in middle
    assert 'rel="prev"' not in first and "first step" in first
    assert 'rel="next"' not in last and "last step" in last


def test_a_loop_step_says_which_visit_it_is(signed_in, run_row, node_row):
    run = run_row(pipeline="retired")
    steps_of(run, ["counter"] * 3 + ["result"], node_row, kind=Node.Kind.CODE)

    text = page(signed_in, f"/runs/{run.pk}/nodes/1/")

    assert "step 1 · code · completed · visit 2 of 3</small>" in text
    assert "visit 2/3" in graph_node(text, "counter")


def test_a_click_swaps_the_inspector_and_highlights_the_step_out_of_band(signed_in, research_run):
    response = signed_in.get(f"/runs/{research_run.pk}/nodes/4/", headers=HTMX)

    text = response.content.decode()
    assert "<html" not in text and "<h1" not in text
    assert text.lstrip().startswith('<div class="inspector-head">')
    assert (
        '<section id="run-graph" class="run-graph" aria-labelledby="run-graph-title" hx-swap-oob="true">'
        in text
    )
    assert (
        '<section id="run-timeline" class="run-timeline" aria-labelledby="run-timeline-title" hx-swap-oob="true">'
        in text
    )
    assert 'class="ring"' in graph_node(text, "revise")
    assert '<div id="run-stream" class="run-stream" hx-swap-oob="true">' in text
    assert "sse-connect" not in text  # a finished run streams nothing
    assert "HX-Request" in response["Vary"]


def test_a_click_on_a_running_run_moves_the_stream_to_the_new_step(signed_in, run_row, node_row):
    run = run_row(status=Run.Status.RUNNING)
    node_row(run, 0, "plan")
    node_row(run, 1, "research", kind="tool")

    text = page(signed_in, f"/runs/{run.pk}/nodes/1/", headers=HTMX)

    where = "?after=1&amp;status=running&amp;step=1"
    assert f'sse-connect="/runs/{run.pk}/events/{where}"' in text
    assert f'hx-get="/runs/{run.pk}/status/{where}" hx-trigger="every 3s"' in text


def test_htmx_restoring_history_gets_the_whole_page(signed_in, research_run):
    text = page(
        signed_in,
        f"/runs/{research_run.pk}/nodes/1/",
        headers={**HTMX, "HX-History-Restore-Request": "true"},
    )

    assert "<html" in text and '<aside id="inspector"' in text


def test_the_live_region_keeps_the_step_it_was_asked_for(signed_in, run_row, node_row):
    run = run_row(status=Run.Status.RUNNING)
    node_row(run, 0, "plan")
    node_row(run, 1, "research", kind="tool")

    text = page(signed_in, f"/runs/{run.pk}/status/?step=0", headers=HTMX)

    assert 'class="ring"' in graph_node(text, "plan")
    assert 'class="ring"' not in graph_node(text, "research")


@pytest.mark.parametrize("step", ["x", "-1", "1.5"])
def test_a_bad_step_in_the_live_query_is_a_400(signed_in, run_row, step):
    run = run_row(status=Run.Status.RUNNING)

    assert signed_in.get(f"/runs/{run.pk}/status/?step={step}").status_code == 400


def test_anonymous_user_is_sent_to_login(client, run_row, node_row):
    run = run_row()
    node_row(run, 0)

    response = client.get(f"/runs/{run.pk}/nodes/0/", headers=HTMX)

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


# --- queries ---------------------------------------------------------------------------------


def run_with_steps(run_row, node_row, count: int, **run_fields) -> Run:
    """``count`` steps looping over the demo pipeline's nodes, every visit counted."""
    run = run_row(started_at=timezone.now(), **run_fields)
    Node.objects.bulk_create(
        Node(
            run=run,
            sequence_id=seq,
            name=ORDER[seq % len(ORDER)],
            kind=Node.Kind.LLM,
            status=Node.Status.COMPLETED,
            cache_source=Node.CacheSource.LIVE,
            output={"n": seq},
            output_sha256=f"{seq:064x}",
            latency_ms=10.0,
            total_tokens=seq,
            src_run=run,
            src_sequence_id=seq,
        )
        for seq in range(count)
    )
    return run


@pytest.mark.parametrize("steps", [10, 500])
def test_the_run_page_costs_the_same_queries_at_any_length(
    signed_in, run_row, node_row, django_assert_num_queries, steps
):
    run = run_with_steps(run_row, node_row, steps)

    # 1. the session  2. the user  3. the run (its parent joined)  4. its steps, at once
    # (graph and timeline read the steps already loaded; no step was served from the cache)
    # 5. the dashboard's outcomes of its pipeline  6. the steps its outcomes read
    with django_assert_num_queries(6):
        text = page(signed_in, f"/runs/{run.pk}/")

    assert text.count('<li class="step kind-llm') == steps
    assert f">×{len(range(0, steps, len(ORDER)))}</text>" in graph_node(text, "plan")


@pytest.mark.parametrize("steps", [10, 500])
def test_the_live_fragment_costs_the_same_queries_at_any_length(
    signed_in, run_row, node_row, django_assert_num_queries, steps
):
    run = run_with_steps(run_row, node_row, steps, status=Run.Status.RUNNING)

    # 1. the session  2. the user  3. the run  4. its steps
    with django_assert_num_queries(4):
        text = page(signed_in, f"/runs/{run.pk}/status/?step={steps - 1}", headers=HTMX)

    assert '<section id="run-graph"' in text and text.count('class="ring"') == 1


@pytest.mark.parametrize("steps", [10, 500])
@pytest.mark.parametrize("htmx", [False, True])
def test_the_step_page_costs_the_same_queries_at_any_length(
    signed_in, run_row, node_row, django_assert_num_queries, steps, htmx
):
    run = run_with_steps(run_row, node_row, steps)

    # 1. the session  2. the user  3. the run  4. the step (every column)  5. the run's steps
    # 6. the state rows after the step and after the one before (runs.pages.nodes)
    # 7. the dashboard's outcomes of its pipeline  8. the steps its outcomes read (the page;
    # an htmx swap of the inspector shows no outcomes)
    with django_assert_num_queries(6 if htmx else 8):
        text = page(signed_in, f"/runs/{run.pk}/nodes/{steps // 2}/", headers=HTMX if htmx else {})

    assert f"step {steps // 2} · llm" in text
    assert text.count('class="ring"') == 1
