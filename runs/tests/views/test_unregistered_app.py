"""A server that does not know a run's app says so (issue 16, item 10): the run page names the
app and what to set, and the inspector offers no "Fork from here" that would only be a 404."""

from __future__ import annotations

import pytest

from runs.models import Node, Run


@pytest.fixture
def stranger(db) -> Run:
    """A run recorded by another server, whose app this one does not register."""
    run = Run.objects.create(pipeline="elsewhere_app", status=Run.Status.COMPLETED)
    Node.objects.create(
        run=run, sequence_id=0, name="ask", kind=Node.Kind.CODE, status=Node.Status.COMPLETED,
        cache_source=Node.CacheSource.LIVE, src_run=run, src_sequence_id=0, output={"a": 1},
    )  # fmt: skip
    return run


def test_the_run_page_says_the_app_is_not_registered_and_what_to_set(signed_in, stranger):
    page = signed_in.get(f"/runs/{stranger.pk}/").content.decode()
    assert "This server does not know the app &#x27;elsewhere_app&#x27;" in page
    assert "REWIND_PIPELINES=&quot;elsewhere_app=your.module.app_factory&quot;" in page
    assert 'disabled title="this server does not know the app">Replay unchanged' in page
    assert "Sample k times" not in page
    assert "at temperature" not in page  # no model recorded: no "model  at temperature "


@pytest.mark.parametrize("htmx", [False, True])
def test_the_inspector_offers_no_fork_for_an_unknown_app(signed_in, stranger, htmx):
    headers = {"HX-Request": "true"} if htmx else {}
    page = signed_in.get(f"/runs/{stranger.pk}/nodes/0/", headers=headers).content.decode()
    assert page.count("Fork from here") == 0
    assert f"/runs/{stranger.pk}/nodes/0/fork/" not in page


def test_a_registered_runs_page_says_nothing_of_it(signed_in, research_run):
    page = signed_in.get(f"/runs/{research_run.pk}/").content.decode()
    assert "does not know the app" not in page
    assert "Fork from here" in signed_in.get(f"/runs/{research_run.pk}/nodes/0/").content.decode()
