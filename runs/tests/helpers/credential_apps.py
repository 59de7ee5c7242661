"""A Burr app whose tools reach services that take their credential under names and in places
an ``api_key`` filter never looks (issue 34, item 2), written as a user writes them with
``requests``: OpenWeather's ``?appid=``, ipstack's ``?access_key=``, Firebase's ``?auth=``, an
Azure Function's ``?code=``, a Discord webhook's token as a path segment, a login body's
``{"auth": {"pass": …}}``, a ``{"credentials": …}`` object, and a RapidAPI key in the
``X-RapidAPI-Key`` header that the service's answer quotes back. Beside them, ordinary values
that look like those names and must be kept: ``?code=fr``, ``{"key": "user:42"}``, the path
``/v1/users/42/orders``.

Each credential is a canary made afresh in each process (``CANARIES``); the services are
``LoopbackProvider`` answers on 127.0.0.1 (``answer``), the base URL is ``CREDENTIAL_BASE_URL``.
"""

from __future__ import annotations

import base64
import os
import secrets
from typing import Any

import requests
from burr.core import Application, ApplicationBuilder, State
from burr.core.action import action

# Shaped as the real ones are: OpenWeather's and ipstack's keys are 32 hex digits, a Firebase
# database secret 40 characters, an Azure Functions key base64 ending in "==", a Discord
# webhook token 68 URL-safe characters, a RapidAPI key 50 hex-like characters.
CANARIES = {
    "query appid": secrets.token_hex(16),
    "query access_key": secrets.token_hex(16),
    "query auth": secrets.token_hex(20),
    "query code": base64.b64encode(os.urandom(40)).decode(),
    "webhook path token": secrets.token_urlsafe(51),
    "body auth.pass": f"pw-{secrets.token_hex(10)}",
    "body credentials": f"cred-{secrets.token_hex(12)}",
    "answer quoting X-RapidAPI-Key": secrets.token_hex(25),
}
WEBHOOK_ID = "112233445566778899"
QUOTE = "Simplicity is prerequisite for reliability."


def base_url() -> str:
    return os.environ["CREDENTIAL_BASE_URL"].rstrip("/")


def answer(call: Any) -> tuple[int, Any]:
    """The services, on loopback: the quote service quotes the caller's key in its answer, as
    real ones do in a quota note or an error; every other service says it got the call."""
    path = call.path.split("?")[0]
    if path.endswith("/quotes/random"):
        key = call.headers.get("X-RapidAPI-Key", "")
        return 200, {"quote": QUOTE, "note": f"key {key} has 99 calls left this month"}
    return 200, {"ok": True, "path": path}


@action(reads=[], writes=["weather", "place", "profile", "greeting"])
def look_up(state: State) -> State:
    """Query-string credentials under four names, and an ordinary ``code``."""
    c = CANARIES
    with requests.Session() as http:
        weather = http.get(
            f"{base_url()}/data/2.5/weather",
            params={"q": "Paris", "appid": c["query appid"]},
            timeout=5,
        ).json()
        place = http.get(
            f"{base_url()}/134.201.250.155", params={"access_key": c["query access_key"]}, timeout=5
        ).json()
        profile = http.get(
            f"{base_url()}/users/ada.json", params={"auth": c["query auth"]}, timeout=5
        ).json()
        greeting = http.post(
            f"{base_url()}/api/HttpTrigger1",
            params={"code": c["query code"], "name": "Ada"},
            json={"greeting": "hello"},
            timeout=5,
        ).json()
        orders = http.get(f"{base_url()}/v1/users/42/orders", params={"code": "fr"}, timeout=5)
        orders.raise_for_status()
    return state.update(
        weather=weather["ok"], place=place["ok"], profile=profile["ok"], greeting=greeting["ok"]
    )


@action(reads=[], writes=["notified", "session", "connected", "quote", "cached"])
def notify(state: State) -> State:
    """A webhook token in the path, credentials in JSON bodies, a key an answer quotes; and a
    key-value store's ordinary ``key``."""
    c = CANARIES
    with requests.Session() as http:
        notified = http.post(
            f"{base_url()}/api/webhooks/{WEBHOOK_ID}/{c['webhook path token']}",
            json={"content": "the nightly report is ready"},
            timeout=5,
        ).json()
        session = http.post(
            f"{base_url()}/v1/login",
            json={"auth": {"user": "ada", "pass": c["body auth.pass"]}, "remember": True},
            timeout=5,
        ).json()
        connected = http.post(
            f"{base_url()}/v1/connect",
            json={"credentials": {"client_id": "rewind", "client_secret": c["body credentials"]},
                  "scope": "read"},
            timeout=5,
        ).json()  # fmt: skip
        quote = http.get(
            f"{base_url()}/quotes/random",
            headers={"X-RapidAPI-Key": c["answer quoting X-RapidAPI-Key"],
                     "X-RapidAPI-Host": "quotes.p.rapidapi.com"},
            timeout=5,
        ).json()  # fmt: skip
        cached = http.post(f"{base_url()}/kv/get", json={"key": "user:42"}, timeout=5).json()
    return state.update(
        notified=notified["ok"],
        session=session["ok"],
        connected=connected["ok"],
        quote=quote["quote"],  # the app keeps the quote, not the note that quotes its key
        cached=cached["ok"],
    )


def application() -> Application:
    return (
        ApplicationBuilder()
        .with_actions(look_up=look_up, notify=notify)
        .with_transitions(("look_up", "notify"))
        .with_entrypoint("look_up")
        .build()
    )


APPS = {"credential_tools": "runs.tests.helpers.credential_apps.application"}
