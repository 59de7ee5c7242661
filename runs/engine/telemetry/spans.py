"""A finished run as the spans of one trace: the run, a span per step, a child per call.

Attributes follow the OpenTelemetry GenAI semantic conventions on call spans
(``gen_ai.system``, ``gen_ai.request.model``, ``gen_ai.response.model``,
``gen_ai.usage.input_tokens``, ``gen_ai.usage.output_tokens``) and add Rewind's own
(``rewind.run``, ``rewind.parent``, ``rewind.override``, ``rewind.cache_source``,
``rewind.output_sha256``). Prompt and completion text are added only when ``content`` is
asked for, as ``gen_ai.prompt.N.role/content`` and ``gen_ai.completion.0.role/content`` (what
Burr's OpenTelemetry integration and openllmetry write, and what an import reads back).

Never a credential: Rewind stores none (headers are never kept; the capture redacts credentials
by name and by shape before anything is written), and every text that goes out here passes
``redaction.redact_text`` once more — a row written before a rule existed is cleaned on its way
out by today's rules.

Times: a step's row is written when it ends (``Node.created_at``) and records how long it
took (``latency_ms``), so a step spans ``[created_at - latency, created_at]``, kept inside the
run and after the step before it. A step a fork inherited did not execute in this run: it is a
zero-length span at the run's start with ``rewind.cache_source = inherited``. Calls carry no
clock of their own, only their latency: they are laid out one after another from the step's
start, clipped to its end.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from runs.engine.calls.capture.redaction import redact_text
from runs.lib.hashing import canonical_json
from runs.models import LLMCacheEntry, Node, Run

# The GenAI convention's ``gen_ai.system`` per captured wire format; a declared node speaks
# the OpenAI-compatible chat format whatever its preset.
SYSTEMS = {"openai": "openai", "anthropic": "anthropic", "gemini": "gcp.gemini", "ollama": "ollama"}
CONTENT_MAX_CHARS = 65536  # one attribute's text; the rest is cut, and says so


@dataclass
class Planned:
    """One span to emit: its name, times (ns since the epoch), attributes, whether it failed,
    and a stable id (``key``: the same run exported twice gives the same trace and span ids)."""

    name: str
    key: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    children: list[Planned] = field(default_factory=list)


def trace_key(run: Run) -> str:
    """What names a run's trace: its id and when it was created (two databases' run 1 differ)."""
    return f"rewind-run:{run.pk}:{run.created_at.isoformat()}"


def stable_id(key: str, bits: int) -> int:
    """A non-zero id of ``bits`` bits derived from ``key`` (OpenTelemetry refuses zero)."""
    value = int.from_bytes(hashlib.sha256(key.encode()).digest()[: bits // 8], "big")
    return value or 1


def plan_run(run_id: int, *, content: bool = False) -> Planned | None:
    """The run's trace, read in at most three queries (run, steps, and — with content — the
    cache entries holding its answers); None when there is no such run."""
    run = Run.objects.filter(pk=run_id).first()
    if run is None:
        return None
    deferred = ("inputs",) if content else ("inputs", "output", "prompt", "raw_output")
    steps = list(run.nodes.order_by("sequence_id").defer(*deferred))
    answers = _answers(steps) if content else {}

    run_start = _ns(run.started_at or run.created_at)
    root = Planned(
        name=f"rewind.run {run.pipeline}",
        key=trace_key(run),
        start_ns=run_start,
        end_ns=run_start,
        attributes=_run_attributes(run),
        error=redact_text(run.error) if run.status == Run.Status.FAILED else "",
    )
    cursor = run_start
    for step in steps:
        planned = _plan_step(run, step, root.key, run_start, cursor, content, answers)
        cursor = planned.start_ns
        root.children.append(planned)
        root.end_ns = max(root.end_ns, planned.end_ns)
    if run.finished_at is not None:
        root.end_ns = max(root.end_ns, _ns(run.finished_at))
    return root


def _run_attributes(run: Run) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        "rewind.run": run.pk,
        "rewind.pipeline": run.pipeline,
        "rewind.status": run.status,
        "rewind.mode": run.mode,
    }
    if run.parent_id is not None:
        attributes["rewind.parent"] = run.parent_id
        attributes["rewind.fork_node"] = run.fork_node
        if run.fork_sequence_id is not None:
            attributes["rewind.fork_sequence_id"] = run.fork_sequence_id
    if run.override is not None:
        attributes["rewind.override"] = redact_text(canonical_json(run.override))
    if run.sample_of_id is not None:
        attributes["rewind.sample_of"] = run.sample_of_id
    if run.trajectory_sha256:
        attributes["rewind.trajectory_sha256"] = run.trajectory_sha256
    preset = (run.provider or {}).get("preset")
    if preset:
        attributes["rewind.provider"] = str(preset)
    return attributes


def _plan_step(
    run: Run,
    step: Node,
    trace: str,
    run_start: int,
    previous_start: int,
    content: bool,
    answers: dict[int, str],
) -> Planned:
    inherited = step.cache_source == Node.CacheSource.INHERITED
    if inherited:
        start = end = run_start
    else:
        end = max(_ns(step.created_at), run_start)
        start = max(end - int(step.latency_ms * 1e6), run_start, previous_start)
        end = max(end, start)
    attributes: dict[str, Any] = {
        "rewind.run": run.pk,
        "rewind.step": step.name,
        "rewind.sequence_id": step.sequence_id,
        "rewind.kind": step.kind,
        "rewind.status": step.status,
        "rewind.cache_source": step.cache_source,
        "rewind.output_sha256": step.output_sha256,
        "rewind.latency_ms": float(step.latency_ms),
    }
    if step.src_run_id != run.pk:
        attributes["rewind.src_run"] = step.src_run_id
        attributes["rewind.src_sequence_id"] = step.src_sequence_id
    if step.total_tokens:
        attributes["gen_ai.usage.input_tokens"] = step.prompt_tokens
        attributes["gen_ai.usage.output_tokens"] = step.completion_tokens
    key = f"{trace}:step:{step.sequence_id}"
    planned = Planned(
        name=step.name,
        key=key,
        start_ns=start,
        end_ns=end,
        attributes=attributes,
        error=redact_text(step.error) if step.status == Node.Status.FAILED else "",
    )
    calls = [c for c in step.calls or [] if isinstance(c, dict) and c.get("kind")]
    if not calls and step.kind == Node.Kind.LLM:
        calls = [_declared_call(run, step)]
    cursor = start
    for index, call in enumerate(calls):
        length = int(float(call.get("latency_ms") or 0) * 1e6)
        call_start = min(cursor, end)
        call_end = min(call_start + length, end)
        cursor = call_end
        planned.children.append(
            _plan_call(
                step, call, index, f"{key}:call:{index}", call_start, call_end, content, answers
            )
        )
    return planned


def _declared_call(run: Run, step: Node) -> dict[str, Any]:
    """A declared LLM node's call, from the step's own fields (it keeps no calls list)."""
    entry = next((e for e in step.cache_entries or [] if str(e).startswith("llm:")), "")
    return {
        "kind": "llm",
        "format": "openai",
        "endpoint": "chat/completions",
        "cache_source": step.cache_source,
        "entry": entry,
        "model_requested": step.model_requested,
        "model_answered": step.model_answered,
        "temperature": step.temperature,
        "prompt_tokens": step.prompt_tokens,
        "completion_tokens": step.completion_tokens,
        "latency_ms": step.latency_ms,
        "provider": (run.provider or {}).get("preset", ""),
        "declared": True,
    }


def _plan_call(
    step: Node,
    call: dict[str, Any],
    index: int,
    key: str,
    start: int,
    end: int,
    content: bool,
    answers: dict[int, str],
) -> Planned:
    attributes: dict[str, Any] = {
        "rewind.call": index,
        "rewind.cache_source": str(call.get("cache_source") or ""),
    }
    if call.get("provider"):
        attributes["rewind.provider"] = str(call["provider"])
    if call.get("entry"):
        attributes["rewind.cache_entry"] = str(call["entry"])
    if call.get("kind") != "llm":
        method = str(call.get("method") or "")
        path = redact_text(str(call.get("endpoint") or ""))
        attributes.update({"http.request.method": method, "url.path": path})
        if call.get("status"):
            attributes["http.response.status_code"] = int(call["status"])
        name = f"{method} {path}".strip() or "call"
        return Planned(name, key, start, end, attributes, _call_error(call))

    requested = str(call.get("model_requested") or "")
    answered = str(call.get("model_answered") or "")
    attributes.update(
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": SYSTEMS.get(str(call.get("format") or ""), "openai"),
            "gen_ai.request.model": requested,
            "gen_ai.response.model": answered or requested,
            "gen_ai.usage.input_tokens": int(call.get("prompt_tokens") or 0),
            "gen_ai.usage.output_tokens": int(call.get("completion_tokens") or 0),
        }
    )
    if call.get("temperature") is not None:
        attributes["gen_ai.request.temperature"] = float(call["temperature"])
    if call.get("cached_tokens"):
        attributes["gen_ai.usage.cache_read_input_tokens"] = int(call["cached_tokens"])
    if content:
        attributes.update(_content(step, call, index, answers))
    name = f"chat {requested}".strip()
    return Planned(name, key, start, end, attributes, _call_error(call))


def _call_error(call: dict[str, Any]) -> str:
    return redact_text(str(call.get("error") or ""))


# -- content (REWIND_OTLP_CONTENT=1) ----------------------------------------------------------


def _answers(steps: list[Node]) -> dict[int, str]:
    """The text each LLM cache entry the steps read or wrote answered, by entry id (one query)."""
    ids = set()
    for step in steps:
        pins = [c.get("entry", "") for c in step.calls or [] if isinstance(c, dict)]
        for pin in [*pins, *(step.cache_entries or [])]:
            if str(pin).startswith("llm:") and str(pin)[4:].isdigit():
                ids.add(int(str(pin)[4:]))
    rows = LLMCacheEntry.objects.filter(pk__in=ids).values_list("pk", "response")
    return {pk: _answer_text(response) for pk, response in rows}


def _answer_text(response: Any) -> str:
    """A stored answer as text: a declared node's ``content``; a captured call's body, reduced
    to the model's words where its shape is known (OpenAI chat and responses, Anthropic,
    Gemini, Ollama), else the body as it came (a stream, say)."""
    if not isinstance(response, dict):
        return ""
    if "content" in response and isinstance(response["content"], str):
        return response["content"]
    body = response.get("text")
    if not isinstance(body, str):
        return ""
    try:
        doc = json.loads(body)
    except ValueError:
        return body
    return _words(doc) if isinstance(doc, dict) else body


def _words(doc: dict[str, Any]) -> str:
    texts: list[str] = []
    for choice in doc.get("choices") or []:  # OpenAI chat completions
        message = choice.get("message") if isinstance(choice, dict) else None
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            texts.append(message["content"])
    for item in doc.get("output") or []:  # OpenAI responses
        for part in (item.get("content") or []) if isinstance(item, dict) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
    for part in doc.get("content") or [] if isinstance(doc.get("content"), list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):  # Anthropic
            texts.append(part["text"])
    for candidate in doc.get("candidates") or []:  # Gemini
        parts = ((candidate or {}).get("content") or {}).get("parts") or []
        texts.extend(p["text"] for p in parts if isinstance(p, dict) and "text" in p)
    message = doc.get("message")  # Ollama chat
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        texts.append(message["content"])
    if isinstance(doc.get("response"), str):  # Ollama generate
        texts.append(doc["response"])
    return "".join(texts) if texts else canonical_json(doc)


def _content(
    step: Node, call: dict[str, Any], index: int, answers: dict[int, str]
) -> dict[str, Any]:
    """``gen_ai.prompt.N.*`` and ``gen_ai.completion.0.*`` of one call. The step keeps the
    messages of its first LLM call (``Node.prompt``); a later call's are in its cache entry."""
    attributes: dict[str, Any] = {}
    first_llm = index == next(
        (
            i
            for i, c in enumerate(step.calls or [])
            if isinstance(c, dict) and c.get("kind") == "llm"
        ),
        index,
    )
    messages = step.prompt if first_llm or call.get("declared") else None
    if messages is None and call.get("entry"):
        messages = _entry_prompt(str(call["entry"]))
    if isinstance(messages, str):
        messages = [{"role": "user", "content": messages}]
    for n, message in enumerate(messages if isinstance(messages, list) else []):
        message = message if isinstance(message, dict) else {"content": message}
        text = message.get("content", message.get("parts", ""))
        attributes[f"gen_ai.prompt.{n}.role"] = str(message.get("role") or "user")
        attributes[f"gen_ai.prompt.{n}.content"] = _text(text)
    entry = str(call.get("entry") or "")
    answer = answers.get(int(entry[4:])) if entry[4:].isdigit() else None
    if answer is None and call.get("declared"):
        answer = step.raw_output or (canonical_json(step.output) if step.output is not None else "")
    if answer:
        attributes["gen_ai.completion.0.role"] = "assistant"
        attributes["gen_ai.completion.0.content"] = _text(answer)
    return attributes


def _entry_prompt(pin: str) -> Any:
    if not pin.startswith("llm:") or not pin[4:].isdigit():
        return None
    request = (
        LLMCacheEntry.objects.filter(pk=int(pin[4:])).values_list("request", flat=True).first()
    )
    body = request.get("body") if isinstance(request, dict) else None
    if not isinstance(body, dict):
        return None
    return next((body[k] for k in ("messages", "contents", "input", "prompt") if k in body), None)


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else canonical_json(value)
    text = redact_text(text)
    if len(text) > CONTENT_MAX_CHARS:
        text = text[:CONTENT_MAX_CHARS] + f"… [{len(text) - CONTENT_MAX_CHARS} characters cut]"
    return text


def _ns(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000_000)
