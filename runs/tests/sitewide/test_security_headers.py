"""Every page sends a strict Content-Security-Policy, and every page obeys it (issue 7,
finding 9): scripts only from our own origin and only with the response's nonce, no inline
event handlers, no ``hx-on``, no inline styles, and htmx told not to inject its indicator
``<style>``. The browser tests (``runs/tests/browser``) prove the same in a real Chromium,
which fails a test on any CSP violation; this checks the header and the markup."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


class Markup(HTMLParser):
    """The tags of a page with their attributes, and whether any inline script is empty."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self._open: str | None = None
        self.inline: dict[str, list[str]] = {"script": [], "style": []}

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._open = tag

    def handle_data(self, data):
        if self._open in self.inline and data.strip():
            self.inline[self._open].append(data.strip())

    def handle_endtag(self, tag):
        self._open = None


def directives(header: str) -> dict[str, list[str]]:
    policy = {}
    for part in filter(None, (p.strip() for p in header.split(";"))):
        name, *values = part.split()
        policy[name] = values
    return policy


def parse(response) -> tuple[dict[str, list[str]], Markup]:
    assert "Content-Security-Policy" in response, (
        f"no CSP header on {response.request['PATH_INFO']}"
    )
    markup = Markup()
    markup.feed(response.content.decode())
    return directives(response["Content-Security-Policy"]), markup


@pytest.fixture
def pages(research_run, run_fork) -> dict[str, str]:
    fork = run_fork(research_run, "analyse", "args.cost_scale", "3")
    run, step = research_run.pk, research_run.nodes.get(name="analyse").sequence_id
    return {
        "list": "/runs/",
        "run": f"/runs/{run}/",
        "inspector": f"/runs/{run}/nodes/{step}/",
        "fork editor": f"/runs/{run}/nodes/{step}/fork/",
        "compare": f"/compare/{run}/{fork.pk}/",
        "settings": "/settings/",
    }


def test_the_policy_is_strict(client):
    policy, _ = parse(client.get("/login/"))

    assert policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["form-action"] == ["'self'"]
    for directive in ("script-src", "style-src", "connect-src", "img-src"):
        assert "'self'" in policy[directive], directive
    for values in policy.values():
        assert "'unsafe-inline'" not in values and "'unsafe-eval'" not in values
        assert "*" not in values and "http:" not in values and "https:" not in values


def check_page(response, name: str) -> None:
    assert response.status_code == 200, (name, response.status_code)
    policy, markup = parse(response)
    nonces = [v[len("'nonce-") : -1] for v in policy["script-src"] if v.startswith("'nonce-")]
    assert len(nonces) == 1, (name, policy["script-src"])
    scripts = [attrs for tag, attrs in markup.tags if tag == "script"]
    assert scripts, f"{name}: no htmx script"
    for attrs in scripts:
        assert attrs.get("nonce") == nonces[0], (name, attrs)
        assert attrs.get("src", "").startswith("/static/"), (name, attrs)
    assert not markup.inline["script"], f"{name}: inline script"
    assert not markup.inline["style"], f"{name}: inline <style>"
    for tag, attrs in markup.tags:
        handlers = [a for a in attrs if a.startswith("on") or a.startswith("hx-on")]
        assert not handlers, f"{name}: <{tag}> has inline handlers {handlers}"
        assert "style" not in attrs, f"{name}: <{tag}> has a style attribute"
        for value in attrs.values():
            assert not re.match(r"\s*javascript:", value or "", re.I), (name, tag, attrs)
    config = next(
        a["content"] for t, a in markup.tags if t == "meta" and a.get("name") == "htmx-config"
    )
    htmx_config = json.loads(config)
    assert htmx_config["includeIndicatorStyles"] is False  # else htmx injects a <style>
    assert htmx_config["allowEval"] is False


def test_every_page_sends_the_policy_and_obeys_it(pages, signed_in):
    for name, url in pages.items():
        check_page(signed_in.get(url), name)


def test_the_login_page_sends_the_policy_and_obeys_it(client):
    check_page(client.get("/login/"), "login")


def test_each_response_has_its_own_nonce(signed_in):
    first, _ = parse(signed_in.get("/runs/"))
    second, _ = parse(signed_in.get("/runs/"))

    assert first["script-src"] != second["script-src"]


def test_fragments_and_json_are_covered_too(pages, signed_in, research_run):
    for name in ("inspector", "fork editor", "compare"):
        assert "Content-Security-Policy" in signed_in.get(pages[name], headers=HTMX), name
    assert "Content-Security-Policy" in signed_in.get(f"/api/runs/{research_run.pk}")
    assert "Content-Security-Policy" in signed_in.get("/api/health")
