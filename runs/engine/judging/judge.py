"""The judge: a model that decides the text leaves the noise rule calls ``uncertain``.

A :class:`Judge` is a ``noise.Referee``: ``diff_runs(a, b, referee=judge)`` puts each such leaf
to it. It asks its model (``REWIND_JUDGE_MODEL``) through the configured provider the way a
declared LLM node asks: the request's content-addressed key (``calls.keys``), the cache first
(``calls.cache``: the key's first answer), identical questions in flight sent once
(``calls.inflight``), and a live answer that parses stored as an ``LLMCacheEntry`` — so a
compare page shown again, or ``rewind_diff`` run again, reads the same verdicts back at 0
tokens. Each live call is a ``JudgeCall`` row (its tokens and cost, whose page asked), which
the daily budget counts; ``gate`` refuses a live call the budget cannot pay for, and the leaf
stays uncertain saying so. A provider that fails or an answer that is not the verdict asked
for leaves the leaf uncertain too, logged on ``rewind.judge`` — never a crash, never a guess.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction

from runs.engine.analysis.noise import BEYOND, UNCERTAIN, WITHIN, Judgement
from runs.engine.calls import cache
from runs.engine.calls.inflight import call_lock
from runs.engine.calls.keys import llm_cache_key
from runs.engine.calls.pricing import cost_usd
from runs.engine.judging.question import (
    JUDGE_NODE,
    MAX_ANSWER_TOKENS,
    Answer,
    AnswerError,
    parse_answer,
    request,
)
from runs.engine.providers.client import ChatRequest, ChatResponse, ProviderError, redact
from runs.engine.providers.config import (
    ProviderConfig,
    ProviderConfigError,
    api_key,
    current_config,
    make_client,
)
from runs.models import JudgeCall

logger = logging.getLogger("rewind.judge")

# A live question's expected spend → why the budget refuses it, or None when it may be asked.
Gate = Callable[[int, Decimal | None], str | None]


class Judge:
    """Decides an uncertain text leaf by asking ``model`` (see the module's docstring).

    ``user`` is whose spend a live call is (None: a command's, the operator's); ``gate``, when
    given, may refuse a live call (the user's daily budget, ``runs.budgets.judge_for``). The
    provider is read at the first question, so a diff with nothing uncertain costs no query.
    """

    do_not_call_in_templates = True  # a template reads its model; calling it is a question

    def __init__(self, model: str, *, user: Any = None, gate: Gate | None = None) -> None:
        self.model, self.user, self.gate = model, user, gate
        self._config: ProviderConfig | None = None

    def __repr__(self) -> str:
        return f"Judge({self.model!r})"

    @property
    def by(self) -> str:
        """Who decided, as a verdict names it (``Verdict.by``)."""
        return f"judge:{self.model}"

    def __call__(
        self, candidate: str, references: list[str], uncertain: Judgement
    ) -> Judgement | None:
        if not references:
            return None  # nothing to compare the candidate with
        try:
            config = self._config = self._config or current_config()
        except ProviderConfigError as exc:
            logger.warning("judge %s not asked: %s", self.model, exc)
            return None
        asked = request(config.identity, self.model, candidate, references)
        key = llm_cache_key(asked)
        entry = cache.get_llm(key, 0)
        if entry is None:
            refused = self._refusal(asked)
            if refused:
                return Judgement(
                    UNCERTAIN, f"{uncertain.why}; the judge ({self.model}) was not asked: {refused}"
                )
            with call_lock(key):  # the same question in flight elsewhere is asked once
                entry = cache.get_llm(key, 0)  # answered while we waited?
                if entry is None:
                    return self._ask(config, asked, key)
        cache.count_hits(Counter({f"llm:{entry.pk}": 1}))  # read: kept by retention's sweep
        return self._read(entry.response.get("content", ""), key)

    def _refusal(self, asked: dict[str, Any]) -> str | None:
        """Why the gate refuses this live question (its prompt estimated at 4 characters a
        token, its answer at the most it may be), or None."""
        if self.gate is None:
            return None
        chars = sum(len(m["content"]) for m in asked["messages"])
        prompt = math.ceil(chars / 4)
        return self.gate(
            prompt + MAX_ANSWER_TOKENS, cost_usd(self.model, prompt, MAX_ANSWER_TOKENS)
        )

    def _ask(self, config: ProviderConfig, asked: dict[str, Any], key: str) -> Judgement | None:
        """One live call: its spend recorded; its answer stored when it is the verdict."""
        chat = ChatRequest(
            model=self.model,
            messages=asked["messages"],
            temperature=asked["temperature"],
            response_format=asked["response_format"],
            max_tokens=asked["max_tokens"],
        )
        try:
            response = make_client(config).complete(chat)
        except ProviderError as exc:
            logger.warning("judge %s not answered: %s", self.model, exc)
            return None
        answer, problem = self._parsed(response.content)
        with transaction.atomic():
            if answer is not None:  # errors are never cached: only the verdict asked for
                cache.put_llm(
                    key=key,
                    occurrence=0,
                    node_name=JUDGE_NODE,
                    provider=config.identity,
                    model_requested=self.model,
                    model_answered=response.model,
                    request=asked,
                    response={"content": response.content},
                    usage=_usage(response),
                )
            self._record(response, key, parsed=answer is not None)
        if answer is None:
            logger.warning("judge %s gave no verdict (key %s): %s", self.model, key[:12], problem)
            return None
        return self._judgement(answer)

    def _parsed(self, content: str) -> tuple[Answer | None, str]:
        secret = api_key()
        if secret and len(secret) >= 4 and secret in content:
            # Whatever echoed it, the key must not reach a cache entry, a page or a log.
            return None, "the answer contains the API key; it was not kept"
        try:
            return parse_answer(content), ""
        except AnswerError as exc:
            return None, f"{exc}: {redact(content[:200], secret)!r}"

    def _record(self, response: ChatResponse, key: str, *, parsed: bool) -> None:
        JudgeCall.objects.create(
            created_by=self.user,
            model=self.model,
            model_answered=response.model,
            key=key,
            prompt_tokens=response.prompt_tokens,
            completion_tokens=response.completion_tokens,
            total_tokens=response.total_tokens,
            cost_usd=cost_usd(
                response.model or self.model, response.prompt_tokens, response.completion_tokens
            ),
            parsed=parsed,
        )

    def _read(self, content: str, key: str) -> Judgement | None:
        """A stored answer's verdict (one stored is one that parsed when it was kept)."""
        try:
            return self._judgement(parse_answer(content))
        except AnswerError as exc:
            logger.warning("judge %s: stored answer %s unread: %s", self.model, key[:12], exc)
            return None

    def _judgement(self, answer: Answer) -> Judgement:
        verdict = WITHIN if answer.verdict == "same" else BEYOND
        return Judgement(verdict, f"judge ({self.model}): {answer.reason}", by=self.by)


def _usage(response: ChatResponse) -> dict[str, int]:
    return {
        "prompt_tokens": response.prompt_tokens,
        "completion_tokens": response.completion_tokens,
        "total_tokens": response.total_tokens,
    }


def configured_judge(*, user: Any = None, gate: Gate | None = None) -> Judge | None:
    """The judge ``REWIND_JUDGE_MODEL`` names, or None when it is empty (the default: off)."""
    model = settings.REWIND_JUDGE_MODEL.strip()
    return Judge(model, user=user, gate=gate) if model else None
