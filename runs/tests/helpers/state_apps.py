"""Burr apps for ``test_step_state.py``, written the way Burr users write them.

- ``undeclared``: an action declared ``writes=[]`` that writes ``content`` anyway (a clock
  reading), as Burr's openai-compatible-agent example does.
- ``appender``: two actions append to ``history`` without declaring it read, as Burr's
  simple-chatbot-intro does; the first takes its line from a runtime-free state key.
- ``typed``: a nested pydantic model in the initial state and in what a step writes, a
  dataclass, a datetime and bytes; the second step checks it got them back as their types.
- ``unstorable``: a step that writes a ``set``.
"""

from __future__ import annotations

import dataclasses
import datetime
import time

import pydantic
from burr.core import ApplicationBuilder, State
from burr.core.action import action
from burr.core.state import register_field_serde

from runs.recording import live_values


@action(reads=["question"], writes=[])
def answer(state: State) -> State:
    with live_values():  # a clock a replay does not give back: its writes differ
        now = time.time()
    return state.update(content=f"{state['question']} at {now}")


@action(reads=["content"], writes=["length"])
def measure(state: State) -> State:
    return state.update(length=len(state.get("content") or ""))


def undeclared():
    return (
        ApplicationBuilder()
        .with_actions(answer=answer, measure=measure)
        .with_transitions(("answer", "measure"))
        .with_state(question="What time is it?")
        .with_entrypoint("answer")
        .build()
    )


@action(reads=["greeting"], writes=["history"])
def greet(state: State) -> State:
    return state.append(history=state["greeting"])


@action(reads=[], writes=["history"])
def sign(state: State) -> State:
    return state.append(history="-- signed")


def appender():
    return (
        ApplicationBuilder()
        .with_actions(greet=greet, sign=sign)
        .with_transitions(("greet", "sign"))
        .with_state(greeting="hello", history=[])
        .with_entrypoint("greet")
        .build()
    )


class Section(pydantic.BaseModel):
    title: str
    due: datetime.date


class Outline(pydantic.BaseModel):
    topic: str
    sections: list[Section]


@dataclasses.dataclass
class Stamp:
    at: datetime.datetime
    raw: bytes


@action(reads=["outline"], writes=["outline", "stamp"])
def extend(state: State) -> State:
    outline = state["outline"]
    assert isinstance(outline, Outline), type(outline)
    more = Section(title=f"after {len(outline.sections)}", due=datetime.date(2026, 12, 2))
    extended = outline.model_copy(update={"sections": [*outline.sections, more]})
    return state.update(
        outline=extended, stamp=Stamp(datetime.datetime(2026, 12, 1, 9), b"\x00\xff")
    )


@action(reads=["outline", "stamp"], writes=["summary"])
def summarise(state: State) -> State:
    outline, stamp = state["outline"], state["stamp"]
    assert isinstance(outline, Outline) and isinstance(outline.sections[-1], Section)
    assert isinstance(stamp, Stamp) and isinstance(stamp.at, datetime.datetime)
    assert stamp.raw == b"\x00\xff"
    return state.update(summary=f"{outline.topic}: {len(outline.sections)} sections")


def typed():
    first = Outline(
        topic="outreach", sections=[Section(title="intro", due=datetime.date(2026, 12, 1))]
    )
    return (
        ApplicationBuilder()
        .with_actions(extend=extend, summarise=summarise)
        .with_transitions(("extend", "summarise"))
        .with_state(outline=first)
        .with_entrypoint("extend")
        .build()
    )


@action(reads=[], writes=["tags"])
def tag(state: State) -> State:
    return state.update(tags={"b", "a"})


def unstorable():
    return ApplicationBuilder().with_actions(tag=tag).with_entrypoint("tag").build()


class Document:
    """A type of the app's own, with a field serde registered for the key that holds it (as
    Burr's custom-serde example does)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _to_json(value: Document, **kwargs: object) -> dict:
    return {"text": value.text}


def _from_json(value: dict, **kwargs: object) -> Document:
    return Document(value["text"])


register_field_serde("document", _to_json, _from_json)


@action(reads=[], writes=["document"])
def keep(state: State) -> State:
    return state.update(document=Document("hello"))


@action(reads=["document"], writes=["said"])
def use(state: State) -> State:
    assert isinstance(state["document"], Document), type(state["document"])
    return state.update(said=f"kept: {state['document'].text}")


def custom():
    return (
        ApplicationBuilder()
        .with_actions(keep=keep, use=use)
        .with_transitions(("keep", "use"))
        .with_entrypoint("keep")
        .build()
    )


@action(reads=[], writes=["greeting"])
def chatty(state: State) -> State:
    print("the app talks on stdout")  # noqa: T201 — what Burr's examples do
    return state.update(greeting="hi")


def printer():
    return ApplicationBuilder().with_actions(chatty=chatty).with_entrypoint("chatty").build()


@action(reads=[], writes=["tags"])
async def tag_later(state: State) -> State:
    return state.update(tags={"b", "a"})


def unstorable_async():
    return ApplicationBuilder().with_actions(tag=tag_later).with_entrypoint("tag").build()
