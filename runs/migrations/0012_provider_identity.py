"""Issue 16 item 1: what answered a call is part of its cache identity.

An LLM cache entry records what answered it (the offline simulator or a model endpoint), and a
declared node's key takes it as a component (``rewind-llm-key/2``). Existing declared-node
entries are re-keyed under the identity of the run that stored them (the ``simulator`` flag of
its provider snapshot), and the steps that used them get the new key, so every run recorded
before this migration still replays from the cache. Captured calls (a Burr app's own client)
keep their keys: their answerer is recorded from now on.

The key function is copied here, as it was when this migration was written: a migration must
not change meaning when the code it once imported moves on.
"""

import hashlib
import json

from django.db import migrations, models

V2_COMPONENTS = (
    "provider",
    "model",
    "temperature",
    "messages",
    "response_format",
    "seed",
    "max_tokens",
    "stop",
    "top_p",
    "tools",
    "tool_choice",
    "tool_result",
    "code_version",
)
SIMULATOR_MODEL = "rewind-sim-1"


def _canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _v2_key(request, provider):
    parts = ["rewind-llm-key/2"]
    for name in V2_COMPONENTS:
        value = provider if name == "provider" else request.get(name)
        if name == "temperature":
            parts.append(repr(float(value if value is not None else 0.0)))
        elif name in {"provider", "model", "code_version"}:
            parts.append(str(value or ""))
        else:
            parts.append(_canonical(value))
    text = "|".join(f"{len(part.encode())}:{part}" for part in parts)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def rekey(apps, schema_editor):
    LLMCacheEntry = apps.get_model("runs", "LLMCacheEntry")
    Node = apps.get_model("runs", "Node")
    # Which runs used each entry, and what answered those runs (one pass over llm steps).
    identity_of_entry = {}
    steps_of_entry = {}
    rows = Node.objects.filter(kind="llm").values_list("pk", "cache_entries", "run__provider")
    for step, pins, provider in rows.iterator(chunk_size=2000):
        identity = "simulator" if (provider or {}).get("simulator") else "endpoint"
        for pin in pins or []:
            table, _, pk = str(pin).partition(":")
            if table == "llm" and pk.isdigit():
                identity_of_entry.setdefault(int(pk), identity)
                steps_of_entry.setdefault(int(pk), []).append(step)
    # Declared nodes' entries are those whose request has a code_version: looked for here,
    # not in SQL, since 0026 stores the request compressed (its function is tested on today's
    # model, too).
    entries = LLMCacheEntry.objects.only("pk", "key", "request", "model_requested")
    for entry in entries.iterator(chunk_size=2000):
        if "code_version" not in entry.request:
            continue
        identity = identity_of_entry.get(entry.pk) or (
            "simulator" if entry.model_requested == SIMULATOR_MODEL else "endpoint"
        )
        key = _v2_key(entry.request, identity)
        request = {**entry.request, "provider": identity}
        LLMCacheEntry.objects.filter(pk=entry.pk).update(
            key=key, provider=identity, request=request
        )
        # A declared llm step makes one call: its key is the key of the entry it read.
        Node.objects.filter(pk__in=steps_of_entry.get(entry.pk, []), cache_key=entry.key).update(
            cache_key=key
        )


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0011_run_network_and_warnings"),
    ]

    operations = [
        migrations.AddField(
            model_name="llmcacheentry",
            name="provider",
            field=models.CharField(
                blank=True,
                choices=[("simulator", "offline simulator"), ("endpoint", "model endpoint")],
                max_length=10,
            ),
        ),
        # Not reversible as a key change would be: backwards, the column goes and the v2 keys
        # stay (old code then misses them and asks again, never a wrong hit).
        migrations.RunPython(rekey, migrations.RunPython.noop),
    ]
