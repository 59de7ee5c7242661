"""Burr state as Rewind stores, hashes and diffs it: through Burr's own serialisation.

A state value that is JSON stays as it is (so a plain app's hashes are what they always
were). Anything else — a pydantic model (nested too), a langchain ``Document``, a type with a
serde registered through ``burr.core.serde`` or ``register_field_serde`` — is stored as Burr
serialises it, and comes back as the same type when Burr deserialises it (a fork starts from
it). A value no serde knows is not silently turned into its ``str()`` (Burr's fallback, which
would come back as a string): it is refused, naming the key and its type.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import dataclasses
import datetime
import importlib
from collections.abc import Mapping
from typing import Any

from burr.core import State, serde
from burr.core.state import FIELD_SERIALIZATION

from runs.engine.errors import NodeFailure
from runs.lib.hashing import FRAMEWORK_PREFIX

_FALLBACK = serde.serialize.dispatch(object)
_JSON_SCALARS = (str, bool, int, float, type(None))


class UnstorableValue(NodeFailure):
    """A state value neither JSON nor known to any Burr serde."""


def stored_state(state: State | Mapping[str, Any], *, framework: bool = False) -> dict[str, Any]:
    """The semantic keys of ``state`` (and Burr's ``__`` keys too with ``framework``: a state
    row needs them), each value as Burr serialises it."""
    values = state.get_all() if isinstance(state, State) else state
    return {
        key: stored_value(key, value)
        for key, value in values.items()
        if framework or not key.startswith(FRAMEWORK_PREFIX)
    }


def stored_value(key: str, value: Any) -> Any:
    if key in FIELD_SERIALIZATION:
        return FIELD_SERIALIZATION[key][0](value)
    return _serialised(key, value)


def _serialised(key: str, value: Any) -> Any:
    if isinstance(value, _JSON_SCALARS):
        return value
    if isinstance(value, list | tuple):
        return [_serialised(key, item) for item in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _serialised(key, item) for k, item in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            serde.KEY: "rewind.dataclass",
            "class": f"{type(value).__module__}.{type(value).__qualname__}",
            "fields": {
                f.name: _serialised(key, getattr(value, f.name)) for f in dataclasses.fields(value)
            },
        }
    serialise = serde.serialize.dispatch(type(value))
    if serialise is _FALLBACK:
        raise UnstorableValue(
            f"state key {key!r} holds a {type(value).__module__}.{type(value).__qualname__}, "
            "which is neither JSON nor known to a Burr serde: register one "
            "(burr.core.serde.serialize.register, or burr.core.state.register_field_serde)"
        )
    return _serialised(key, serialise(value))  # what a serde returns may hold more to do


def restored_state(stored: Mapping[str, Any]) -> dict[str, Any]:
    """Stored values back as their types (Burr's ``State.deserialize``), ``stored`` left as
    it was: Burr's deserialisers take their markers out of the dicts they are given (its
    pydantic one pops ``__burr_serde__``), and a run's stored inputs are read again by its
    forks and replays."""
    return State.deserialize(copy.deepcopy(dict(stored))).get_all()


# -- serdes Burr lacks, registered with Burr ------------------------------------------------------


@serde.serialize.register(datetime.datetime)
@serde.serialize.register(datetime.date)
@serde.serialize.register(datetime.time)
def _serialise_datetime(value: Any, **kwargs: Any) -> dict[str, Any]:
    return {serde.KEY: "rewind.datetime", "type": type(value).__name__, "iso": value.isoformat()}


@serde.deserializer.register("rewind.datetime")
def _deserialise_datetime(value: dict[str, Any], **kwargs: Any) -> Any:
    kind = {"datetime": datetime.datetime, "date": datetime.date, "time": datetime.time}
    return kind[value["type"]].fromisoformat(value["iso"])


@serde.serialize.register(bytes)
def _serialise_bytes(value: bytes, **kwargs: Any) -> dict[str, Any]:
    return {serde.KEY: "rewind.bytes", "base64": base64.b64encode(value).decode("ascii")}


@serde.deserializer.register("rewind.bytes")
def _deserialise_bytes(value: dict[str, Any], **kwargs: Any) -> bytes:
    return base64.b64decode(value["base64"])


@serde.deserializer.register("rewind.dataclass")
def _deserialise_dataclass(value: dict[str, Any], **kwargs: Any) -> Any:
    module, _, name = value["class"].rpartition(".")
    cls: Any = importlib.import_module(module)
    for part in name.split("."):
        cls = getattr(cls, part)
    fields = {k: serde.deserialize(v, **kwargs) for k, v in value["fields"].items()}
    return cls(**fields)


with contextlib.suppress(ImportError):  # pydantic, when it is installed: Burr's, in JSON mode
    import burr.integrations.pydantic  # noqa: F401  (its deserializer, "pydantic")
    import pydantic

    @serde.serialize.register(pydantic.BaseModel)
    def _serialise_pydantic(value: pydantic.BaseModel, **kwargs: Any) -> dict[str, Any]:
        data = value.model_dump(mode="json")
        data[serde.KEY] = "pydantic"
        data["__pydantic_class"] = f"{type(value).__module__}.{type(value).__name__}"
        return data
