"""Whether the model that answered is the one asked for (DESIGN.md, "Provider identity").

Providers answer with the dated snapshot of the alias you asked for — ``gpt-3.5-turbo`` is
answered by ``gpt-3.5-turbo-0125``, ``gpt-4`` by ``gpt-4-0613``, ``gpt-4o`` by
``gpt-4o-2024-08-06``, ``claude-3-5-sonnet-latest`` by ``claude-3-5-sonnet-20241022``,
``gemini-1.5-flash`` by ``gemini-1.5-flash-002``, Ollama's ``llama3`` by ``llama3:latest``;
a router names the provider first (``openai/gpt-4o``, ``models/gemini-…``). None of that is a
substitution, and a warning on every real step would teach users to ignore warnings. A
substitution is another family or size: ``gpt-4o-mini`` for ``gpt-4o``, ``gpt-3.5-turbo`` for
``gpt-4``, ``claude-3-haiku`` for ``claude-3-5-sonnet``.

A name is reduced to its model — lower case, no provider prefix, no tag, no ``latest``, no
trailing date or version (``-0125``, ``-2024-08-06``, ``-20241022``, ``@20241022``, ``-002``,
``-v2``) — and two names are the same model when what is left is equal.
"""

from __future__ import annotations

import re

# A snapshot's suffix: a date (2024-08-06, 20241022, 0613/0125 as OpenAI writes them), a
# three-digit revision (Gemini's -001), a version (-v1, -v2.1), "latest"; after "-" or "@".
_SNAPSHOT = re.compile(
    r"[-@](?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4}|\d{3}|v\d+(?:[.:]\d+)*|latest)$", re.IGNORECASE
)


def model_of(name: str) -> str:
    """``name`` reduced to the model it names (see the module docstring)."""
    model = name.strip().lower().rsplit("/", 1)[-1]
    model = model.removesuffix(":latest")
    while True:
        shorter = _SNAPSHOT.sub("", model)
        if shorter == model or not shorter:
            return model
        model = shorter


def substitution(requested: str, answered: str) -> str:
    """How the answering model differs from the one asked for ("" when it does not: no answer
    named, nothing asked, or a snapshot of the same model)."""
    if not requested or not answered or model_of(requested) == model_of(answered):
        return ""
    return f"answered by {answered}, not {requested}"
