"""The offline provider simulator: Rewind's embedded default "model".

Why it exists: Rewind must run, fork and diff pipelines with no key and no network, and
its tests must exercise the real transport path (dead endpoint, a 400 on
``response_format``, model substitution) without a real provider. It must also answer
unchanged applications written on the ``openai`` SDK (Burr's shipped examples), so it
speaks enough of the OpenAI HTTP API for them. The simulator:

* answers, in-process (:meth:`Simulator.transport`) or as a real HTTP server on loopback
  (:meth:`Simulator.serve`, or ``python -m runs.engine.providers.simulator --port N``):

  - ``/chat/completions``: text, ``tools``/``tool_choice`` (one tool call whose
    arguments fill the tool's JSON schema; after a ``role: tool`` result, text quoting
    it), ``response_format`` ``json_schema`` (a JSON object valid for the schema) and
    ``stream: true`` (``text/event-stream`` chunks, then ``data: [DONE]``);
  - ``/embeddings`` (deterministic bag-of-words vectors, ``float`` or ``base64``);
  - ``/images/generations`` (a clearly fake placeholder URL or a 1x1 PNG, no network);
  - ``/responses`` (the Responses API: text, function calls, ``text.format``
    ``json_schema``, streaming) and the legacy ``/completions``;
  - ``GET /models``; any other path is a 404 in OpenAI's error format. Every endpoint is
    accepted under any base-URL prefix (``/v1/chat/completions``, ``/chat/completions``);
  - other providers' wire formats, each answered through the chat core (so the same
    model, messages and temperature get the same text and usage as ``/chat/completions``)
    and with errors in that provider's shape: Anthropic's ``/v1/messages`` (text,
    ``tool_use``, ``output_config`` JSON schema; ``stream: true`` as named SSE events) and
    ``/v1/messages/count_tokens``; Gemini's ``/models/{model}:generateContent``,
    ``:streamGenerateContent`` (SSE with ``?alt=sse``, else one JSON array) and
    ``:countTokens``; Ollama's ``/api/chat`` and ``/api/generate`` (NDJSON unless
    ``"stream": false``);

* derives its answer from the prompt: every number in the user message is quoted
  verbatim, together with the message's salient words, so a changed upstream number
  visibly changes downstream prose (which is what makes forks and diffs meaningful);
* recognises a few prompt shapes real apps use: a ``JSON keys: a, b, c`` line in the
  system message (a compact JSON object with exactly those keys), a "json object with
  these keys" bullet list, "respond with a single word, one of: a, b, c" or "the
  following modes: a, b, c" (exactly one of the listed words, the one that best matches
  the request), "questions joined by
  newlines", "respond with only code", a poem, an email draft;
* answers Rewind's own judge (``runs.engine.judging``: its system message carries
  ``JUDGE_MARKER``) with ``{"verdict": "same" | "different", "reason": ...}`` by a fixed,
  documented comparison of words (``judging``) — a stand-in so the judge's path is tested
  offline, not a judgement;
* is deterministic at temperature 0 (seeded from the sha256 of the canonical request;
  ``stream``/``stream_options`` do not count, so a streamed answer equals the plain one)
  and jitters at temperature > 0 (seeded from ``os.urandom``). An absent temperature is
  1, as with OpenAI. A one-word choice, a tool choice and an enum value vary above 0 only
  between equally good candidates, so routing on them stays stable.

It is a simulator, not a model, and says so: the response carries
``system_fingerprint: "rewind-simulator"``, image URLs point at ``simulator.invalid``.

The package (it imports nothing from the rest of Rewind, only the standard library and
``httpx``), in import order, each module using only those above it:

* ``prose``: reading a prompt (its numbers, salient words, last user turn) and writing
  prose about it (``_Writer``); ``JSON keys`` objects; :func:`compose`;
* ``matching``: scoring candidates (one-word choices, tools, enum values) against a
  request's words and the concepts they evoke (``_bag``, ``_best``);
* ``shapes``: the prompt shapes real apps use (one word out of a listed set, a "json
  object with these keys" bullet list, lines, code, a poem, an email draft) and
  :func:`compose_text`, the text answer;
* ``judging``: Rewind's judge's question recognised (``JUDGE_MARKER``) and answered
  (``judge_answer``: the candidate's words against the references');
* ``schemas``: a value valid for a JSON schema (``_SchemaFiller``, ``_schema_answer``);
* ``tools``: function tools: whether and which to call (``_tool_plan``, ``_tool_call``)
  and the prose that quotes a tool's result (``_tool_result_answer``);
* ``protocol``: OpenAI wire details: error bodies, token counts, the request seed, a
  ``response_format``'s schema;
* ``streaming``: one answer on the wire (``_Reply``), ``text/event-stream`` and NDJSON
  bytes (``_sse``, ``_ndjson``), a chat completion as chunks (``_chat_chunks``);
* ``responses``: the Responses API (``/responses``): its input as chat messages, its
  answer and its stream events (the ``_ResponsesAPI`` mixin of :class:`Simulator`);
* ``anthropic``: Anthropic's Messages API (``/v1/messages``, ``count_tokens``): request as
  chat, Message, stream events, Anthropic errors (the ``_AnthropicAPI`` mixin);
* ``gemini``: Gemini's ``generateContent``/``streamGenerateContent``/``countTokens``:
  request as chat, response, stream chunks, Google errors (the ``_GeminiAPI`` mixin);
* ``ollama``: Ollama's ``/api/chat`` and ``/api/generate``: request as chat, response,
  NDJSON lines, Ollama errors (the ``_OllamaAPI`` mixin);
* ``media``: embedding vectors and placeholder PNG images;
* ``server``: the identity constants, :class:`SimulatorOptions` and :class:`Simulator`
  (the chat, legacy completions, embeddings, images and models endpoints, routing, the
  in-process transport, for ``httpx`` or ``httpx2``, and the loopback HTTP server);
* ``cli``: :func:`main`, the ``python -m runs.engine.providers.simulator`` command
  (``__main__`` runs it).
"""

from __future__ import annotations

from .cli import main
from .judging import JUDGE_MARKER
from .prose import compose
from .server import (
    SIMULATOR_BASE_URL,
    SIMULATOR_EMBEDDING_DIMENSIONS,
    SIMULATOR_FINGERPRINT,
    SIMULATOR_HEADER,
    SIMULATOR_IMAGE_HOST,
    SIMULATOR_MODEL,
    Simulator,
    SimulatorOptions,
)
from .shapes import compose_text

__all__ = [
    "JUDGE_MARKER",
    "SIMULATOR_BASE_URL",
    "SIMULATOR_EMBEDDING_DIMENSIONS",
    "SIMULATOR_FINGERPRINT",
    "SIMULATOR_HEADER",
    "SIMULATOR_IMAGE_HOST",
    "SIMULATOR_MODEL",
    "Simulator",
    "SimulatorOptions",
    "compose",
    "compose_text",
    "main",
]
