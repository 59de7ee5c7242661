"""rewind_bench's redaction figures (issue 40, item 4): what it sends is dense with what the
secret rules match and new every round, and ``--redaction-only --json`` gives every row with its
size, throughput, anchor, goal and verdict (no timing is asserted)."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import call_command

from runs.bench.redaction import (
    SHORT_STRINGS,
    _token,
    _Words,
    credentials,
    dense_request,
    known_secrets_request,
    short_strings_request,
)
from runs.lib import secret_shapes

pytestmark = pytest.mark.django_db


def test_every_token_is_one_the_secret_rules_find():
    rng = random.Random(1)
    kinds = set()
    for _ in range(120):
        token = _token(rng)
        assert secret_shapes.found(f"see {token} here") == (token,), token
        kinds |= secret_shapes.kinds(token)
    assert len(kinds) == 6, kinds  # AWS, GitHub, OpenAI, Stripe, Slack keys and JWTs


def test_the_requests_are_their_size_dense_and_new_each_round():
    rng = random.Random(2)
    first, second = _Words(rng), _Words(rng)

    one, two = dense_request(100_000, first), dense_request(100_000, second)

    assert 95_000 <= len(one) <= 105_000
    assert first.tokens >= 400  # one every ~200 bytes
    contents = [{m["content"] for m in json.loads(r)["messages"]} for r in (one, two)]
    assert not contents[0] & contents[1]
    strings = json.loads(short_strings_request(_Words(rng)))["messages"]
    assert len(strings) == SHORT_STRINGS and all(len(m["content"]) < 200 for m in strings)
    keys = credentials(rng)
    known = json.loads(known_secrets_request(50_000, _Words(rng), keys))
    assert known["api_key"] == keys[0]
    quoted = " ".join(m["content"] for m in known["messages"])
    assert quoted.count(keys[0]) > 10 and quoted.count(keys[1]) > 10


def test_the_command_gives_every_redaction_row_with_its_fields():
    out = io.StringIO()

    call_command("rewind_bench", "--redaction-only", "--json", "--repeat", "1", stdout=out)

    rows = json.loads(out.getvalue())["figures"]
    by = {row["figure"].split(" (")[0]: row for row in rows}
    dense = "redaction and keying of a {} MB chat request dense with key-shaped tokens"
    timed = [
        dense.format(1),
        "redaction and keying of 10,000 short strings in one chat request",
        "redaction and keying of a 1 MB chat request whose credentials",
        "storing a 1 MB captured answer dense with key-shaped tokens and quoting the request's "
        "credentials",
        "live-call overhead: prepare + storing path, 5.0 KB chat request of words never seen "
        "before and a 1 KB answer",
    ]
    assert set(timed) | {dense.format(0.25), dense.format(0.5)} <= set(by), list(by)
    for name in timed:
        row = by[name]
        sign, bound, unit = row["goal"].split()
        assert (sign, unit) == ("≤", "s") and row["anchor"] > 0 and row["value"] > 0, row
        assert row["pass"] == (row["value"] <= float(bound)), row
        assert row["rounds"] >= 3 and row["note"], row
    for size, megabytes in ((0.25, 250_000), (0.5, 500_000), (1, 1_000_000)):
        row = by[dense.format(size)]
        assert abs(row["bytes"] - megabytes) < megabytes * 0.02, row
        assert row["matches"] >= megabytes / 250 and row["mb_per_s"] > 0, row
    assert by[dense.format(1)]["goal"] == "≤ 0.1 s"
    assert by[dense.format(0.25)]["pass"] is None and by[dense.format(0.25)]["note"]
    assert by[timed[3]]["parts_s"].keys() == {"recorded", "columns"}
    overhead = by[timed[4]]
    assert overhead["goal"] == "≤ 0.001 s" and 4_500 <= overhead["bytes"] <= 5_500
    assert overhead["parts_s"].keys() == {"prepare", "recorded", "columns"}
    linear = next(row for row in rows if row["figure"].startswith("redaction and keying is linear"))
    assert linear["goal"] == "≤ 5.0×" and linear["anchor"] == by[dense.format(0.25)]["value"]
    assert linear["pass"] == (linear["ratio"] <= 5.0)
