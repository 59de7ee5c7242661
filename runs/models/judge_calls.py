"""What the judge spent: ``JudgeCall``, one row per question a judge model was asked live."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class JudgeCall(models.Model):
    """One live call of the judge (``runs.engine.judging``): the tokens and dollars it cost and
    whose page asked it. Its answer, when it parsed, is an ``LLMCacheEntry`` under ``key``: a
    question asked again is read from there and makes no row. The daily budget counts these
    rows beside a user's runs (``runs.budgets.spent_today``)."""

    created_at = models.DateTimeField(auto_now_add=True)
    # Whose page asked (their daily budget counts it); null for a command's (the operator's).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # the index below leads with it: a user's calls of a day
    )
    model = models.CharField(max_length=200)  # the model asked (REWIND_JUDGE_MODEL)
    model_answered = models.CharField(max_length=200, blank=True)
    # The LLM cache key of the question: not a foreign key, so a pruned entry keeps its spend.
    key = models.CharField(max_length=64)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    total_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    # False: the answer was not the verdict asked for (not stored; the leaf stayed uncertain).
    parsed = models.BooleanField(default=True)

    class Meta:
        indexes = [models.Index(fields=["created_by", "created_at"], name="judge_call_user_day")]

    def __str__(self) -> str:
        return f"judge {self.model}: {self.total_tokens} tokens"
