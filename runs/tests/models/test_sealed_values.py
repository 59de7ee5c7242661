"""Content that looks like a secret is kept exactly and sealed at rest (issue 40, item 3): a blob
or a cache entry's value holding one is stored as a Fernet token, never as readable bytes, and
read back exactly; a value with none is stored as before; ``rewind_rekey`` re-encrypts every
sealed value under a new first key, after which the old key can go. Bytes are read straight
from the column, not through the field under test."""

from __future__ import annotations

import io
import json
import secrets

import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.db import connection

from runs.lib import sealing
from runs.lib.hashing import canonical_json
from runs.models import Blob, ToolCacheEntry
from runs.models.packed import Sealed, is_sealed
from runs.models.packed import unpack as read_column

pytestmark = pytest.mark.django_db


def private_key() -> str:
    lines = "\n".join(secrets.token_urlsafe(48) for _ in range(4))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{lines}\n-----END RSA PRIVATE KEY-----"


def column(table: str, column_name: str, key: str, value) -> bytes:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {column_name} FROM {table} WHERE {key} = %s", [value])
        return bytes(cursor.fetchone()[0])


@pytest.fixture
def keys(settings):
    """Two Fernet keys; the settings' list as the test sets it, the cache of keys forgotten."""
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()

    def use(*chosen: str) -> None:
        settings.REWIND_ENCRYPTION_KEYS = list(chosen)
        sealing.reset()

    use(old)
    yield old, new, use
    sealing.reset()


def test_a_blob_that_holds_a_private_key_is_sealed_and_read_back_exactly(keys):
    secret = private_key()
    value = {"answer": f"Here is what you pasted:\n{secret}\nDo not share it.", "n": 1}
    text = canonical_json(value)
    Blob.objects.store({Blob.key(text): text})
    raw = column("runs_blob", "body", "sha256", Blob.key(text))
    assert is_sealed(raw)
    assert secret.encode() not in raw and b"BEGIN RSA" not in raw and b"pasted" not in raw
    assert json.loads(Blob.objects.get(pk=Blob.key(text)).body) == value


def test_a_value_without_a_secret_stays_readable_as_before(keys):
    text = canonical_json({"plan": "Compare the three regions by cost per contact."})
    Blob.objects.store({Blob.key(text): text})
    raw = column("runs_blob", "body", "sha256", Blob.key(text))
    assert not is_sealed(raw) and b"three regions" in raw


def test_an_answer_handing_out_a_token_by_name_is_sealed_whatever_it_looks_like(keys):
    token = "opaque-session-value-42"  # no known shape: a credential by its name only
    answer = Sealed({"status": 200, "headers": {}, "text": json.dumps({"access_token": token})})
    entry = ToolCacheEntry.objects.create(
        key="k" * 64, tool="POST /oauth/token", tool_version="http", args={}, result=answer
    )
    raw = column("runs_toolcacheentry", "result", "id", entry.pk)
    assert is_sealed(raw) and token.encode() not in raw
    entry.refresh_from_db()
    assert json.loads(entry.result["text"]) == {"access_token": token}


def test_rewind_rekey_moves_every_sealed_value_to_the_new_key(keys):
    old, new, use = keys
    secret = private_key()
    text = canonical_json({"note": secret})
    plain = canonical_json({"note": "nothing to hide"})
    Blob.objects.store({Blob.key(text): text, Blob.key(plain): plain})
    before = column("runs_blob", "body", "sha256", Blob.key(text))

    use(new, old)  # the new key first, the old one still there to read what it sealed
    out = io.StringIO()
    call_command("rewind_rekey", "--json", stdout=out)
    assert json.loads(out.getvalue())["resealed"]["Blob.body"] == 1
    after = column("runs_blob", "body", "sha256", Blob.key(text))
    assert after != before and is_sealed(after)
    assert column("runs_blob", "body", "sha256", Blob.key(plain)) == plain.encode()

    use(new)  # the old key dropped: everything still reads
    assert json.loads(read_column(after)) == {"note": secret}
    use(old)  # and the old key alone no longer opens it
    with pytest.raises(sealing.Unreadable, match="REWIND_ENCRYPTION_KEYS"):
        read_column(after)


def test_a_key_that_is_not_a_fernet_key_is_refused_at_startup(monkeypatch):
    from rewind_site.settings import _fernet_keys

    monkeypatch.setenv("REWIND_ENCRYPTION_KEYS", f"{Fernet.generate_key().decode()},short")
    with pytest.raises(ImproperlyConfigured, match="key 2 is not a Fernet key") as refused:
        _fernet_keys("REWIND_ENCRYPTION_KEYS")
    assert "short" not in str(refused.value)


def test_fingerprints_are_keyed_distinct_and_stable(settings):
    settings.REWIND_FINGERPRINT_KEY = "k" * 40
    sealing.reset()
    try:
        one, again, other = sealing.mark("pw-1"), sealing.mark("pw-1"), sealing.mark("pw-2")
        assert one == again != other and "pw-1" not in one
        settings.REWIND_FINGERPRINT_KEY = "j" * 40
        sealing.reset()
        assert sealing.mark("pw-1") != one  # keyed: another install, another fingerprint
    finally:
        sealing.reset()
