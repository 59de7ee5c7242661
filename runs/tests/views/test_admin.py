"""The admin: read-only changelists and detail pages, search, filters, cache invalidation,
a query count that does not grow with the table, and escaped JSON."""

from __future__ import annotations

import itertools
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.db import connection
from django.shortcuts import resolve_url
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from runs.admin import CappedCountPaginator
from runs.engine.providers.config import KEY_VARIABLES
from runs.models import BurrState, LLMCacheEntry, Node, Run, ToolCacheEntry

pytestmark = pytest.mark.django_db

_serial = itertools.count(1)
XSS = "<script>alert('x')</script>"
ESCAPED_XSS = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;"


def hex_key(prefix: str = "") -> str:
    """A distinct 64-character lowercase hex key starting with ``prefix``."""
    return (prefix + f"{next(_serial):x}".rjust(64 - len(prefix), "0"))[:64]


def make_run(**fields: Any) -> Run:
    values = {"pipeline": "research", "status": Run.Status.COMPLETED, **fields}
    return Run.objects.create(**values)


def make_node(run: Run, sequence_id: int = 0, **fields: Any) -> Node:
    values = {
        "name": "summarize",
        "kind": Node.Kind.LLM,
        "status": Node.Status.COMPLETED,
        "cache_source": Node.CacheSource.LIVE,
        "src_run": run,
        "src_sequence_id": sequence_id,
        "cache_key": hex_key(),
        "model_requested": "gpt-4o-mini",
        "model_answered": "gpt-4o-mini",
        **fields,
    }
    return Node.objects.create(run=run, sequence_id=sequence_id, **values)


def make_llm_entry(**fields: Any) -> LLMCacheEntry:
    values = {
        "key": hex_key(),
        "occurrence": 0,
        "node_name": "summarize",
        "model_requested": "gpt-4o-mini",
        "request": {"messages": [{"role": "user", "content": "hi"}], "model": "gpt-4o-mini"},
        "response": {"content": "hello"},
        **fields,
    }
    return LLMCacheEntry.objects.create(**values)


def make_tool_entry(**fields: Any) -> ToolCacheEntry:
    values = {
        "key": hex_key(),
        "tool": "web_search",
        "tool_version": "1",
        "args": {"query": "rewind"},
        "result": {"hits": 3},
        **fields,
    }
    return ToolCacheEntry.objects.create(**values)


def make_burr_state(**fields: Any) -> BurrState:
    values = {
        "app_id": str(next(_serial)),
        "sequence_id": 0,
        "position": "summarize",
        "status": "completed",
        "state": '{"summary": "ok"}',
        **fields,
    }
    return BurrState.objects.create(**values)


def make_rows(model: type, count: int) -> None:
    """``count`` rows of ``model`` (nodes spread over runs so each list crosses its FK)."""
    for i in range(count):
        if model is Run:
            make_run(parent=make_run() if i % 2 else None)
        elif model is Node:
            make_node(make_run(), src_run=make_run())
        elif model is LLMCacheEntry:
            make_llm_entry(model_requested=f"model-{i % 4}")
        elif model is ToolCacheEntry:
            make_tool_entry(tool=f"tool-{i % 4}")
        else:
            make_burr_state(status=f"status-{i % 3}")


def changelist(model: type) -> str:
    return reverse(f"admin:runs_{model._meta.model_name}_changelist")


def change(obj: Any) -> str:
    return reverse(f"admin:runs_{obj._meta.model_name}_change", args=[obj.pk])


def delete(obj: Any) -> str:
    return reverse(f"admin:runs_{obj._meta.model_name}_delete", args=[obj.pk])


MODELS = [Run, Node, LLMCacheEntry, ToolCacheEntry, BurrState]


def listed(response: Any) -> list:
    """The objects on the changelist page."""
    return list(response.context["cl"].result_list)


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_each_changelist_loads(admin_client, model):
    make_rows(model, 3)

    response = admin_client.get(changelist(model))

    assert response.status_code == 200
    assert len(listed(response)) == model.objects.count()


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_anonymous_user_is_redirected_to_login(client, model):
    url = changelist(model)

    response = client.get(url)

    # The admin's own login, or the site's when LoginRequiredMiddleware answers first;
    # either way the user comes back to the admin page after logging in.
    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert location.path in {reverse("admin:login"), resolve_url(settings.LOGIN_URL)}
    assert parse_qs(location.query)["next"] == [url]


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_changelist_query_count_does_not_grow_with_rows(admin_client, model):
    make_rows(model, 3)
    with CaptureQueriesContext(connection) as few:
        assert admin_client.get(changelist(model)).status_code == 200

    make_rows(model, 57)
    with CaptureQueriesContext(connection) as many:
        response = admin_client.get(changelist(model))
    assert response.status_code == 200
    assert response.context["cl"].multi_page  # 60 rows: a second page exists

    assert len(many) == len(few), [q["sql"] for q in many.captured_queries]


def test_node_changelist_query_count(admin_client, django_assert_num_queries):
    make_rows(Node, 20)
    # 1 session, 2 user, 3 capped count, 4 the page of nodes joined with their runs.
    with django_assert_num_queries(4):
        admin_client.get(changelist(Node))


def test_llm_changelist_query_count(admin_client, django_assert_num_queries):
    make_rows(LLMCacheEntry, 20)
    # 1 session, 2 user, 3 recent model names for the filter, 4 capped count, 5 the page.
    with django_assert_num_queries(5):
        admin_client.get(changelist(LLMCacheEntry))


def test_changelist_does_not_count_the_whole_table(admin_client, monkeypatch):
    monkeypatch.setattr(CappedCountPaginator, "cap", 5)
    make_rows(ToolCacheEntry, 8)

    with CaptureQueriesContext(connection) as queries:
        response = admin_client.get(changelist(ToolCacheEntry))

    assert response.context["cl"].result_count == 5  # the cap, a floor
    counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"].upper()]
    assert len(counts) == 1 and "LIMIT 5" in counts[0]


def test_changelist_counts_exactly_below_the_cap(admin_client):
    make_rows(ToolCacheEntry, 3)

    response = admin_client.get(changelist(ToolCacheEntry), {"q": "tool-1"})

    assert response.context["cl"].result_count == 1


def test_llm_entries_are_found_by_key_prefix_and_exact_key(admin_client):
    wanted = make_llm_entry(key=hex_key("abc123"))
    make_llm_entry(key=hex_key("def456"))

    by_prefix = admin_client.get(changelist(LLMCacheEntry), {"q": "abc123"})
    by_key = admin_client.get(changelist(LLMCacheEntry), {"q": wanted.key})

    assert listed(by_prefix) == [wanted]
    assert listed(by_key) == [wanted]
    assert wanted.key[:12] in by_prefix.content.decode()  # the short key column


@pytest.mark.parametrize(
    ("term", "field", "value"),
    [
        ("claude", "model_requested", "claude-3-haiku"),
        ("sonnet", "model_answered", "claude-3-sonnet"),
        ("critique", "node_name", "critique"),
    ],
)
def test_llm_entries_are_found_by_model_and_node_name(admin_client, term, field, value):
    wanted = make_llm_entry(**{field: value})
    make_llm_entry()

    response = admin_client.get(changelist(LLMCacheEntry), {"q": term})

    assert listed(response) == [wanted]


def test_tool_entries_are_found_by_key_prefix_and_tool(admin_client):
    wanted = make_tool_entry(key=hex_key("feed"), tool="calculator")
    make_tool_entry()

    assert listed(admin_client.get(changelist(ToolCacheEntry), {"q": "feed"})) == [wanted]
    assert listed(admin_client.get(changelist(ToolCacheEntry), {"q": "calcul"})) == [wanted]


def test_nodes_are_found_by_name_cache_key_and_run_id(admin_client):
    run, other = make_run(), make_run()
    wanted = make_node(run, name="critique", cache_key=hex_key("beef"))
    make_node(other)

    for term in ["critique", "beef", str(run.pk)]:
        response = admin_client.get(changelist(Node), {"q": term})
        assert listed(response) == [wanted], term


def test_runs_are_found_by_id_pipeline_and_fork_node(admin_client):
    parent = make_run(pipeline="triage")
    fork = make_run(pipeline="research", parent=parent, root=parent, fork_node="critique")

    assert listed(admin_client.get(changelist(Run), {"q": str(parent.pk)})) == [parent]
    assert listed(admin_client.get(changelist(Run), {"q": "triage"})) == [parent]
    assert listed(admin_client.get(changelist(Run), {"q": "critique"})) == [fork]


@pytest.mark.parametrize(
    ("model", "params", "wanted_fields"),
    [
        (Run, {"status__exact": "failed"}, {"status": Run.Status.FAILED}),
        (Run, {"pipeline": "triage"}, {"pipeline": "triage"}),
        (Run, {"mode__exact": "live"}, {"mode": Run.Mode.LIVE}),
        (Node, {"cache_source__exact": "cache"}, {"cache_source": Node.CacheSource.CACHE}),
        (Node, {"kind__exact": "tool"}, {"kind": Node.Kind.TOOL}),
        (Node, {"status__exact": "failed"}, {"status": Node.Status.FAILED}),
        (Node, {"model_substituted": "yes"}, {"model_answered": "gpt-4o"}),
        (
            LLMCacheEntry,
            {"model_requested": "claude-3-haiku"},
            {"model_requested": "claude-3-haiku"},
        ),
        (ToolCacheEntry, {"tool": "calculator"}, {"tool": "calculator"}),
    ],
)
def test_filters(admin_client, model, params, wanted_fields):
    if model is Run:
        wanted = make_run(**wanted_fields)
        make_run()
    elif model is Node:
        wanted = make_node(make_run(), **wanted_fields)
        make_node(make_run())
    elif model is LLMCacheEntry:
        wanted = make_llm_entry(**wanted_fields)
        make_llm_entry()
    else:
        wanted = make_tool_entry(**wanted_fields)
        make_tool_entry()

    response = admin_client.get(changelist(model), params)

    assert response.status_code == 200
    assert listed(response) == [wanted]


def test_filter_choices_list_recent_values(admin_client):
    make_llm_entry(model_requested="claude-3-haiku")

    text = admin_client.get(changelist(LLMCacheEntry)).content.decode()

    assert "?model_requested=claude-3-haiku" in text


def test_node_list_links_to_its_runs_and_flags_substitution(admin_client):
    run, source = make_run(), make_run(pipeline="triage")
    make_node(run, src_run=source, src_sequence_id=4, model_answered="gpt-4o")

    text = admin_client.get(changelist(Node)).content.decode()

    assert f'href="{change(run)}"' in text
    assert f'href="{change(source)}"' in text
    assert "icon-yes.svg" in text  # the model_substituted column


def test_run_detail_links_to_its_nodes(admin_client):
    run = make_run()
    node = make_node(run)
    make_node(make_run())

    response = admin_client.get(change(run))
    url = f"{changelist(Node)}?run__id__exact={run.pk}"

    assert url in response.content.decode()
    assert listed(admin_client.get(url)) == [node]


def detail_cases() -> list[tuple[str, Any]]:
    return [
        ("run", lambda: make_run(inputs={"question": XSS, "a": 1}, provider={"model": "m"})),
        ("node", lambda: make_node(make_run(), output={"text": XSS, "a": 1}, prompt=[{"x": 1}])),
        ("llm", lambda: make_llm_entry(response={"content": XSS, "a": 1}, usage={"t": 1})),
        ("tool", lambda: make_tool_entry(result={"text": XSS, "a": 1})),
        ("burr", lambda: make_burr_state(state='{"text": "' + XSS + '", "a": 1}')),
    ]


@pytest.mark.parametrize(("name", "factory"), detail_cases(), ids=[c[0] for c in detail_cases()])
def test_detail_page_shows_pretty_escaped_json_read_only(admin_client, name, factory):
    obj = factory()

    response = admin_client.get(change(obj))

    assert response.status_code == 200
    text = response.content.decode()
    # Indented by 2, keys sorted ("a" before "question"/"text"/"content"), escaped.
    assert "<pre" in text
    assert "{\n  &quot;a&quot;: 1,\n  &quot;" in text
    assert ESCAPED_XSS in text
    assert XSS not in text
    # View-only: no form fields, no save button.
    assert "<textarea" not in text
    assert 'name="_save"' not in text


def test_detail_shows_raw_burr_state_when_it_is_not_json(admin_client):
    row = make_burr_state(state="not json " + XSS)

    text = admin_client.get(change(row)).content.decode()

    assert "not json " + ESCAPED_XSS in text


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_add_page_is_forbidden(admin_client, model):
    response = admin_client.get(reverse(f"admin:runs_{model._meta.model_name}_add"))

    assert response.status_code == 403


def test_change_post_is_forbidden(admin_client):
    entry = make_llm_entry(response={"content": "good"})

    response = admin_client.post(change(entry), {"response": '{"content": "bad"}'})

    assert response.status_code == 403
    entry.refresh_from_db()
    assert entry.response == {"content": "good"}


@pytest.mark.parametrize("factory", [make_llm_entry, make_tool_entry])
def test_deleting_a_cache_entry_invalidates_it(admin_client, factory):
    entry, kept = factory(), factory()

    assert admin_client.get(delete(entry)).status_code == 200  # the confirmation page
    response = admin_client.post(delete(entry), {"post": "yes"})

    assert response.status_code == 302
    assert not type(entry).objects.filter(pk=entry.pk).exists()
    assert type(entry).objects.filter(pk=kept.pk).exists()


def test_cache_entries_can_be_deleted_in_bulk_from_the_list(admin_client):
    entries = [make_tool_entry() for _ in range(3)]

    response = admin_client.post(
        changelist(ToolCacheEntry),
        {
            "action": "delete_selected",
            "_selected_action": [e.pk for e in entries[:2]],
            "post": "yes",
        },
    )

    assert response.status_code == 302
    assert list(ToolCacheEntry.objects.all()) == [entries[2]]


def test_runs_nodes_and_burr_state_cannot_be_deleted(admin_client):
    run = make_run()
    node = make_node(run)
    row = make_burr_state()

    for obj in [run, node, row]:
        assert admin_client.post(delete(obj), {"post": "yes"}).status_code == 403
    assert Run.objects.filter(pk=run.pk).exists()
    assert Node.objects.filter(pk=node.pk).exists()
    assert BurrState.objects.filter(pk=row.pk).exists()
    text = admin_client.get(changelist(Run)).content.decode()
    assert "delete_selected" not in text


def test_no_admin_page_shows_an_api_key(admin_client, monkeypatch):
    secret = "sk-test-do-not-show-0123456789"
    for name in KEY_VARIABLES:
        monkeypatch.setenv(name, secret)
    run = make_run(provider={"model": "gpt-4o-mini", "base_url": "http://127.0.0.1:1/v1"})
    objects = [run, make_node(run), make_llm_entry(), make_tool_entry(), make_burr_state()]

    pages = [reverse("admin:index")]
    pages += [changelist(m) for m in MODELS] + [change(o) for o in objects]
    for url in pages:
        response = admin_client.get(url)
        assert response.status_code == 200, url
        assert secret not in response.content.decode(), url


def test_a_run_page_names_who_started_it_and_what_the_budget_reserved(
    admin_client, django_user_model
):
    ana = django_user_model.objects.create_user("ana")
    run = Run.objects.create(
        pipeline="research", created_by=ana, projected_tokens=1598, projected_cost_usd="0.0014"
    )

    text = admin_client.get(change(run)).content.decode()

    assert (
        f'<div class="readonly"><a href="/admin/auth/user/{ana.pk}/change/">ana</a></div>' in text
    )
    assert '<div class="readonly">1598</div>' in text
