"""What answered a call — the offline simulator or a model endpoint — is part of what is cached
and shown (issue 16, item 1): a simulator's answer is never stored or served as a real model's,
nor the reverse. A fork whose parent an endpoint answered, made where the simulator would answer
(a worker missing ``REWIND_LLM_BASE_URL``), says so and is refused unless it asks for the
simulator by name (``--provider simulator``).
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.engine.errors import ForkError
from runs.engine.execution.new_runs import create_run
from runs.engine.execution.runner import execute_run
from runs.engine.forking.forks import create_fork
from runs.engine.forking.replays import create_replay, replay_verdict
from runs.models import LLMCacheEntry, Node, Run
from runs.tests.conftest import LoopbackProvider
from runs.tests.helpers.fork_editor import current
from runs.tests.helpers.transport_apps import APPS

NEW_PROMPT = "Plan a study of phone outreach costs."


@pytest.fixture
def endpoint(rewind_settings):
    """A model endpoint on loopback ("gpt-real"; answered by the simulator's logic, but it does
    not say so, as a real provider would not), configured as REWIND_LLM_BASE_URL."""
    provider = LoopbackProvider()
    with provider.serve() as url:
        rewind_settings.REWIND_LLM_BASE_URL = url
        rewind_settings.REWIND_LLM_MODEL = "gpt-real"
        yield provider


@pytest.fixture
def endpoint_run(endpoint, db) -> Run:
    run = execute_run(create_run("research").pk)
    assert run.status == Run.Status.COMPLETED, run.error
    assert run.provider["simulator"] is False
    return run


def no_base_url(rewind_settings) -> None:
    """This process is configured as a worker missing the variable: the simulator answers."""
    rewind_settings.REWIND_LLM_BASE_URL = ""
    rewind_settings.REWIND_LLM_PRESET = ""


def test_an_endpoints_answers_are_stored_as_the_endpoints(endpoint_run):
    entries = LLMCacheEntry.objects.all()
    assert entries and {e.provider for e in entries} == {"endpoint"}
    assert {e.model_requested for e in entries} == {"gpt-real"}


def test_a_fork_of_an_endpoint_run_where_the_simulator_would_answer_is_refused(
    endpoint_run, rewind_settings
):
    no_base_url(rewind_settings)
    runs, entries = Run.objects.count(), LLMCacheEntry.objects.count()

    with pytest.raises(ForkError) as refused:
        create_fork(endpoint_run, "plan", "prompt", NEW_PROMPT)

    message = str(refused.value)
    assert f"run {endpoint_run.pk} was answered by a model endpoint" in message
    assert "--provider simulator" in message and "REWIND_LLM_BASE_URL" in message
    assert (Run.objects.count(), LLMCacheEntry.objects.count()) == (runs, entries)


def test_a_worker_without_the_base_url_refuses_the_call_and_stores_nothing(
    endpoint_run, rewind_settings
):
    """The fork is made where the endpoint is configured (the dashboard), and executed by a
    worker where it is not: the worker's configuration is the one that counts."""
    fork = create_fork(endpoint_run, "plan", "prompt", NEW_PROMPT)
    no_base_url(rewind_settings)
    entries = LLMCacheEntry.objects.count()

    fork = execute_run(fork.pk)

    assert fork.status == Run.Status.FAILED
    plan = fork.nodes.get(name="plan")
    assert plan.status == Node.Status.FAILED
    assert "the offline simulator would answer" in plan.error
    assert LLMCacheEntry.objects.count() == entries  # no simulator answer stored as gpt-real's


def test_an_unchanged_replay_of_an_endpoint_run_needs_no_provider(endpoint_run, rewind_settings):
    no_base_url(rewind_settings)
    replay = execute_run(create_replay(endpoint_run).pk)
    assert replay.status == Run.Status.COMPLETED, replay.error
    assert replay_verdict(endpoint_run, replay).verdict == "identical"


def test_provider_simulator_lets_it_answer_and_keeps_its_answers_apart(
    endpoint_run, endpoint, rewind_settings
):
    endpoint_url = rewind_settings.REWIND_LLM_BASE_URL
    no_base_url(rewind_settings)
    simulated = execute_run(
        create_fork(endpoint_run, "plan", "prompt", NEW_PROMPT, provider="simulator").pk
    )
    assert simulated.status == Run.Status.COMPLETED, simulated.error
    assert simulated.provider["simulator"] is True  # labelled as what answered it
    assert simulated.provider["model"] == "gpt-real"  # the model requested is inherited
    plan = simulated.nodes.get(name="plan")
    assert plan.cache_source == "live"
    assert LLMCacheEntry.objects.get(pk=plan.cache_entries[0][4:]).provider == "simulator"

    # The same fork against the endpoint again: the simulator's answers are not served.
    rewind_settings.REWIND_LLM_BASE_URL = endpoint_url
    asked = len(endpoint.chat_calls())
    real = execute_run(create_fork(endpoint_run, "plan", "prompt", NEW_PROMPT).pk)
    assert real.status == Run.Status.COMPLETED, real.error
    assert real.provider["simulator"] is False
    real_plan = real.nodes.get(name="plan")
    assert real_plan.cache_source == "live" and real_plan.cache_key != plan.cache_key
    assert len(endpoint.chat_calls()) > asked
    pinned = LLMCacheEntry.objects.get(pk=real_plan.cache_entries[0][4:])
    assert pinned.provider == "endpoint"


def test_a_simulator_run_is_not_answered_by_an_endpoint_unless_asked(
    research_run, endpoint, rewind_settings
):
    with pytest.raises(ForkError, match="--provider endpoint"):
        create_fork(research_run, "plan", "prompt", NEW_PROMPT)

    fork = execute_run(
        create_fork(research_run, "plan", "prompt", NEW_PROMPT, provider="endpoint").pk
    )
    assert fork.status == Run.Status.COMPLETED, fork.error
    assert fork.provider["simulator"] is False  # not labelled "offline simulator"
    assert endpoint.chat_calls()


def test_rewind_fork_takes_provider_and_refuses_without_it(endpoint_run, rewind_settings):
    no_base_url(rewind_settings)
    with pytest.raises(CommandError, match="--provider simulator"):
        call_command("rewind_fork", str(endpoint_run.pk), "--node", "plan", "--set",
                     f"prompt={NEW_PROMPT}")  # fmt: skip
    out = StringIO()
    call_command("rewind_fork", str(endpoint_run.pk), "--node", "plan", "--set",
                 f"prompt={NEW_PROMPT}", "--provider", "simulator", "--json", stdout=out)  # fmt: skip
    data = json.loads(out.getvalue())
    assert data["status"] == "completed" and data["simulator"] is True


def test_the_api_takes_provider_and_names_a_wrong_one(endpoint_run, rewind_settings, client,
                                                      django_user_model):  # fmt: skip
    client.force_login(django_user_model.objects.create_user("ann", password="x"))
    no_base_url(rewind_settings)
    url = f"/api/runs/{endpoint_run.pk}/forks"

    def post(body):
        return client.post(url, body, content_type="application/json")

    refused = post({"node": "plan", "field": "prompt", "value": NEW_PROMPT})
    assert refused.status_code == 400 and "--provider simulator" in refused.json()["error"]
    wrong = post({"node": "plan", "field": "prompt", "value": NEW_PROMPT, "provider": "mock"})
    assert wrong.status_code == 400 and "provider must be" in wrong.json()["error"]
    made = post({"node": "plan", "field": "prompt", "value": NEW_PROMPT, "provider": "simulator"})
    assert made.status_code == 201, made.content
    assert Run.objects.get(pk=made.json()["run"]).provider["simulator"] is True


def test_a_captured_call_records_what_answered_it(served_apps, monkeypatch, db):
    """A Burr app's own client: the simulator says so in a header of every answer; anything
    else is an endpoint. The label survives a replay (it is on the cache entry)."""
    served = served_apps(APPS)
    served.start()
    source = execute_run(create_run("httpx_sync_plain", {}).pk)
    assert source.status == Run.Status.COMPLETED, source.error
    call = source.nodes.get(name="ask").calls[0]
    assert call["provider"] == "simulator"
    assert LLMCacheEntry.objects.get(pk=call["entry"][4:]).provider == "simulator"
    served.stop()
    replay = execute_run(create_replay(source).pk)
    assert replay.nodes.get(name="ask").calls[0]["provider"] == "simulator"

    provider = LoopbackProvider()  # answers like the simulator, without saying it is one
    with provider.serve() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        live = execute_run(create_run("httpx_sync_plain", {}, live=True).pk)
    assert live.status == Run.Status.COMPLETED, live.error
    assert live.nodes.get(name="ask").calls[0]["provider"] == "endpoint"


def test_migration_0012_rekeys_recorded_runs_so_they_still_replay_at_zero_tokens(research_run):
    """Entries and steps recorded under the v1 key (no provider) are re-keyed under the
    identity of the run that stored them, and the run still replays from the cache."""
    from importlib import import_module

    from django.apps import apps

    from runs.engine.calls.keys import LLM_KEY_COMPONENTS, llm_key_parts
    from runs.lib.hashing import length_prefixed, sha256_text

    def v1_key(request):
        parts = llm_key_parts(request)
        return sha256_text(
            length_prefixed(["rewind-llm-key/1", *(parts[n] for n in LLM_KEY_COMPONENTS[1:])])
        )

    current = {e.pk: e.key for e in LLMCacheEntry.objects.all()}
    for entry in LLMCacheEntry.objects.all():  # as 0011 left them
        old = {k: v for k, v in entry.request.items() if k != "provider"}
        Node.objects.filter(cache_key=entry.key).update(cache_key=v1_key(old))
        LLMCacheEntry.objects.filter(pk=entry.pk).update(key=v1_key(old), request=old, provider="")
    assert not set(current.values()) & set(LLMCacheEntry.objects.values_list("key", flat=True))

    import_module("runs.migrations.0012_provider_identity").rekey(apps, None)

    assert {e.pk: e.key for e in LLMCacheEntry.objects.all()} == current
    assert set(LLMCacheEntry.objects.values_list("provider", flat=True)) == {"simulator"}
    replay = execute_run(create_replay(research_run).pk)
    assert replay_verdict(research_run, replay).verdict == "identical"
    assert sum(n.total_tokens for n in replay.nodes.all()) == 0


def test_the_inspector_says_what_answered_a_step(endpoint_run, rewind_settings, client,
                                                 django_user_model):  # fmt: skip
    client.force_login(django_user_model.objects.create_user("ann", password="x"))
    no_base_url(rewind_settings)
    simulated = execute_run(create_fork(endpoint_run, "plan", provider="simulator").pk)
    plan = endpoint_run.nodes.get(name="plan").sequence_id

    real = client.get(f"/runs/{endpoint_run.pk}/nodes/{plan}/").content.decode()
    sim = client.get(f"/runs/{simulated.pk}/nodes/{plan}/").content.decode()

    assert "a model endpoint" in real and "offline simulator</span> <span" not in real
    assert 'offline simulator</span> <span class="muted">(cached apart' in sim


def test_the_fork_editor_offers_the_other_provider_only_when_it_would_answer(
    endpoint_run, rewind_settings, client, django_user_model
):
    client.force_login(django_user_model.objects.create_user("ann", password="x"))
    plan = endpoint_run.nodes.get(name="plan").sequence_id
    url = f"/runs/{endpoint_run.pk}/nodes/{plan}/fork/"
    assert 'name="provider"' not in client.get(url).content.decode()  # the same endpoint

    no_base_url(rewind_settings)
    page = client.get(url).content.decode()
    assert 'name="provider" value="simulator"' in page
    data = {**current(endpoint_run, plan), "prompt": NEW_PROMPT}  # as a browser sends it
    refused = client.post(url, data)
    assert refused.status_code == 400 and "answered by a model endpoint" in refused.content.decode()
    assert not endpoint_run.forks.exists()

    made = client.post(url, {**data, "provider": "simulator"})
    assert made.status_code == 302
    (fork,) = endpoint_run.forks.all()
    assert fork.provider["simulator"] is True
