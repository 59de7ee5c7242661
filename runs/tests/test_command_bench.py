from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_it_reports_ratios_and_an_identical_zero_token_replay(rewind_settings):
    out = io.StringIO()
    call_command("rewind_bench", "--json", "--repeat", "1", stdout=out, stderr=io.StringIO())
    figures = json.loads(out.getvalue())

    assert figures["replay_identical"] is True
    assert figures["replay_tokens"] == 0
    for name in ("replay_to_cold_ratio", "fork_to_cold_ratio", "diff_to_cold_ratio"):
        assert figures[name] > 0
    assert figures["cold_peak_bytes"] > 0 and figures["replay_peak_bytes"] > 0
    assert figures["simulator"] is True
