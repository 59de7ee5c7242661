"""Property tests for the content-addressed cache keys (DESIGN.md, "LLM cache key").

No database: ``runs.engine.calls.keys`` is pure.
"""

from __future__ import annotations

import inspect
import random
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from runs.engine.calls.keys import (
    LLM_KEY_COMPONENTS,
    explain_llm_miss,
    explain_tool_miss,
    llm_cache_key,
    llm_key_parts,
    tool_cache_key,
)
from runs.lib.hashing import canonical_json, length_prefixed

HEX64 = "0123456789abcdef"

# --- strategies -----------------------------------------------------------------------------

text = st.text(max_size=40)  # arbitrary unicode (hypothesis leaves out lone surrogates)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**12), max_value=10**12)
    | st.floats(allow_nan=False, allow_infinity=False)
    | text
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(text, children, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(text, json_values, max_size=5)
messages = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "user", "assistant", "tool"]), "content": text}
    ),
    min_size=1,
    max_size=4,
)
tool_specs = st.lists(
    st.fixed_dictionaries(
        {
            "type": st.just("function"),
            "function": st.fixed_dictionaries(
                {"name": text, "description": text, "parameters": json_objects}
            ),
        }
    ),
    max_size=2,
)

COMPONENT_STRATEGIES: dict[str, st.SearchStrategy] = {
    "provider": st.sampled_from(["simulator", "endpoint"]),
    "model": text,
    "temperature": st.floats(min_value=0.0, max_value=2.0) | st.integers(0, 2),
    "messages": messages,
    "response_format": st.none() | st.just({"type": "json_object"}) | json_objects,
    "seed": st.none() | st.integers(min_value=-(2**63), max_value=2**63 - 1),
    "max_tokens": st.none() | st.integers(min_value=1, max_value=10**6),
    "stop": st.none() | st.lists(text, max_size=3),
    "top_p": st.none() | st.floats(min_value=0.0, max_value=1.0),
    "tools": st.none() | tool_specs,
    "tool_choice": st.none() | st.sampled_from(["auto", "none", "required"]) | json_objects,
    "tool_result": json_values,
    "code_version": text,
}
assert set(COMPONENT_STRATEGIES) == set(LLM_KEY_COMPONENTS)

requests = st.fixed_dictionaries(COMPONENT_STRATEGIES)


def is_sha256(key: str) -> bool:
    return len(key) == 64 and set(key) <= set(HEX64)


def shuffled(value: Any, rng: random.Random) -> Any:
    """The same JSON value with the key order of every dict in it shuffled."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [shuffled(v, rng) for v in value]
    return value


# --- LLM keys -------------------------------------------------------------------------------


@settings(max_examples=300)
@given(requests, requests)
def test_distinct_llm_requests_never_share_a_key(a, b):
    assume(llm_key_parts(a) != llm_key_parts(b))
    key_a, key_b = llm_cache_key(a), llm_cache_key(b)
    assert is_sha256(key_a) and is_sha256(key_b)
    assert key_a != key_b


@given(requests)
def test_llm_key_is_a_function_of_the_request(request):
    assert llm_cache_key(request) == llm_cache_key(dict(request))


@given(requests, st.randoms(use_true_random=False))
def test_json_key_order_never_changes_an_llm_key(request, rng):
    reordered = {name: shuffled(value, rng) for name, value in request.items()}
    order = list(reordered.items())
    rng.shuffle(order)  # the order of the request's own keys does not matter either
    assert llm_cache_key(dict(order)) == llm_cache_key(request)


@pytest.mark.parametrize("component", LLM_KEY_COMPONENTS)
@settings(max_examples=60)
@given(data=st.data())
def test_changing_any_single_component_is_a_miss(component, data):
    request = data.draw(requests)
    other = data.draw(COMPONENT_STRATEGIES[component])
    changed = {**request, component: other}
    assume(llm_key_parts(changed)[component] != llm_key_parts(request)[component])
    assert llm_cache_key(changed) != llm_cache_key(request)
    # Only that component differs, and a miss names it.
    diff = [n for n in LLM_KEY_COMPONENTS if llm_key_parts(changed)[n] != llm_key_parts(request)[n]]
    assert diff == [component]
    assert explain_llm_miss(changed, request) == f"updated input: {component}"


@pytest.mark.parametrize(
    ("component", "before", "after"),
    [
        ("model", "rewind-sim-1", "rewind-sim-2"),
        ("temperature", 0.0, 0.7),
        ("messages", [{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]),
        ("response_format", {"type": "json_object"}, None),
        ("seed", None, 7),
        ("max_tokens", None, 256),
        ("stop", None, ["\n\n"]),
        ("top_p", None, 0.9),
        ("tools", None, [{"type": "function", "function": {"name": "lookup"}}]),
        ("tool_choice", None, "auto"),
        ("tool_result", {"total": 562.17}, {"total": 1686.51}),
        ("code_version", "plan@1", "plan@2"),
    ],
)
def test_each_component_is_part_of_the_key(component, before, after):
    base = {
        "model": "rewind-sim-1",
        "temperature": 0.0,
        "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
        "code_version": "plan@1",
    }
    a, b = {**base, component: before}, {**base, component: after}
    assert llm_cache_key(a) != llm_cache_key(b)
    assert explain_llm_miss(b, a) == f"updated input: {component}"


def test_temperature_zero_int_float_and_text_are_one_key():
    base = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    keys = {llm_cache_key({**base, "temperature": t}) for t in (0, 0.0, "0", None)}
    assert len(keys) == 1
    assert llm_cache_key({**base, "temperature": 1}) == llm_cache_key({**base, "temperature": 1.0})


def test_length_prefixing_defeats_a_concatenation_collision():
    """Two requests whose parts, naively joined with "|", give the same string.

    B's parts are A's shifted one place to the right (B.messages is the JSON text of A's
    temperature, ... B.code_version swallows A's last two parts), so a plain join would hash
    both to one key.
    """
    a = {
        "model": "a|1.0",
        "temperature": 0.0,
        "messages": [{"role": "user", "content": "x"}],
        "response_format": {"type": "json_object"},
        "seed": 1,
        "max_tokens": 2,
        "stop": ["s"],
        "top_p": 0.5,
        "tools": [],
        "tool_choice": "auto",
        "tool_result": {"n": 3},
        "code_version": "plan@1",
    }
    b = {
        "model": "a",
        "temperature": 1.0,
        "messages": 0.0,
        "response_format": a["messages"],
        "seed": a["response_format"],
        "max_tokens": a["seed"],
        "stop": a["max_tokens"],
        "top_p": a["stop"],
        "tools": a["top_p"],
        "tool_choice": a["tools"],
        "tool_result": a["tool_choice"],
        "code_version": canonical_json(a["tool_result"]) + "|" + a["code_version"],
    }
    naive_a = "|".join(llm_key_parts(a).values())
    naive_b = "|".join(llm_key_parts(b).values())
    assert naive_a == naive_b  # the collision a plain join would have
    assert llm_cache_key(a) != llm_cache_key(b)


def test_length_prefixing_separates_a_split_model_name():
    base = {"messages": [{"role": "user", "content": "q"}]}
    a = {**base, "model": "a|b", "code_version": "c"}
    b = {**base, "model": "a", "code_version": "b|c"}
    assert llm_cache_key(a) != llm_cache_key(b)


@given(st.lists(text, max_size=5), st.lists(text, max_size=5))
def test_length_prefixed_is_injective(a, b):
    assume(a != b)
    assert length_prefixed(a) != length_prefixed(b)


@given(requests)
def test_api_key_base_url_and_metadata_are_not_part_of_an_llm_key(request):
    noisy = {
        **request,
        "api_key": "sk-canary-0123456789",
        "base_url": "http://127.0.0.1:9/v1",
        "authorization": "Bearer sk-canary-0123456789",
        "run_id": 42,
        "timestamp": "2024-01-01T00:00:00Z",
        "latency_ms": 123.4,
        "metadata": {"user": "alice"},
    }
    assert llm_cache_key(noisy) == llm_cache_key(request)


def test_no_key_function_accepts_credentials():
    for function in (llm_cache_key, llm_key_parts, tool_cache_key):
        names = set(inspect.signature(function).parameters)
        assert not names & {"api_key", "key", "base_url", "url", "secret"}, function


def test_explain_llm_miss_without_a_neighbour_and_for_a_new_occurrence():
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert explain_llm_miss(request, None) == "no cached call for this node yet"
    assert explain_llm_miss(request, dict(request)) == "same request, new occurrence in this run"
    assert explain_llm_miss({**request, "model": "n"}, request) == "updated input: model"
    both = {**request, "model": "n", "temperature": 0.5}
    assert explain_llm_miss(both, request) == "updated input: model, temperature"


# --- tool keys ------------------------------------------------------------------------------

tool_args = st.dictionaries(text, json_values, max_size=5)


@settings(max_examples=300)
@given(text, text, tool_args, text, text, tool_args)
def test_distinct_tool_calls_never_collide(name_a, version_a, args_a, name_b, version_b, args_b):
    assume(
        (name_a, version_a, canonical_json(args_a)) != (name_b, version_b, canonical_json(args_b))
    )
    key_a = tool_cache_key(name_a, version_a, args_a)
    key_b = tool_cache_key(name_b, version_b, args_b)
    assert is_sha256(key_a) and key_a != key_b


@given(text, text, tool_args, st.randoms(use_true_random=False))
def test_tool_arg_key_order_is_irrelevant(name, version, args, rng):
    assert tool_cache_key(name, version, shuffled(args, rng)) == tool_cache_key(name, version, args)


def test_tool_name_and_version_cannot_bleed_into_each_other():
    assert tool_cache_key("a|b", "c", {}) != tool_cache_key("a", "b|c", {})
    assert tool_cache_key("a", "1", {}) != tool_cache_key("a1", "", {})


DATA_SHA_A = "a" * 64
DATA_SHA_B = "b" * 64


@given(tool_args)
def test_a_changed_data_file_is_a_miss(args):
    before = {"args": args, "data": {"outreach.csv": DATA_SHA_A}}
    after = {"args": args, "data": {"outreach.csv": DATA_SHA_B}}
    assert tool_cache_key("analyse", "1", before) != tool_cache_key("analyse", "1", after)


@given(tool_args)
def test_a_bumped_tool_version_is_a_miss(args):
    assert tool_cache_key("analyse", "1", args) != tool_cache_key("analyse", "2", args)


def test_explain_tool_miss_names_version_and_args():
    args = {"region": "all", "cost_scale": 1.0}
    assert explain_tool_miss("1", args, None, None) == "no cached result for this tool yet"
    assert explain_tool_miss("2", args, "1", args) == "updated input: tool version"
    changed = {**args, "cost_scale": 3.0}
    assert explain_tool_miss("1", changed, "1", args) == "updated input: args.cost_scale"
    assert explain_tool_miss("1", dict(reversed(list(args.items()))), "1", args) == "same call"
