"""Encryption at rest and keyed fingerprints (DESIGN.md, "Exact and private").

- ``seal`` / ``unseal``: bytes encrypted with Fernet (AES-128-CBC and HMAC-SHA256, from the
  ``cryptography`` library) under the first key of ``REWIND_ENCRYPTION_KEYS``; every key of
  that list decrypts (MultiFernet), so a key is rotated by putting the new one first, running
  ``manage.py rewind_rekey`` and then dropping the old one. What Rewind keeps exactly but must
  not store readable — content that looks like a secret — goes through here.
- ``fingerprint``: an HMAC-SHA256 of a value under ``REWIND_FINGERPRINT_KEY``: a credential
  found by its position (a header, a field named ``api_key``, a password on a command line) is
  never stored; its fingerprint stands in for it, in the stored request and in the cache key,
  so two different credentials never give one key and the value cannot be read back.

Unset, both keys are derived from ``SECRET_KEY`` (HKDF with a label of their own), so a small
install needs nothing. Changing ``SECRET_KEY`` without setting them first makes sealed values
unreadable and fingerprints new (a call keyed with one misses once).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac

from django.conf import settings

SEAL_LABEL = b"rewind sealing key"
FINGERPRINT_LABEL = b"rewind fingerprint key"
FINGERPRINT_HEX = 20  # 80 bits: no two values of one install meet
MARK = "[credential:{}]"  # a credential, where it stood


class Unreadable(ValueError):
    """A sealed value none of the configured keys opens."""


def _derived(label: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=label)
    return hkdf.derive(str(settings.SECRET_KEY).encode("utf-8"))


@functools.cache
def _fernet():
    from cryptography.fernet import Fernet, MultiFernet

    keys = list(getattr(settings, "REWIND_ENCRYPTION_KEYS", None) or [])
    if not keys:
        keys = [base64.urlsafe_b64encode(_derived(SEAL_LABEL)).decode("ascii")]
    return MultiFernet([Fernet(key) for key in keys])


@functools.cache
def _fingerprint_key() -> bytes:
    configured = getattr(settings, "REWIND_FINGERPRINT_KEY", "") or ""
    return configured.encode("utf-8") if configured else _derived(FINGERPRINT_LABEL)


def reset() -> None:
    """Forget the keys read from settings (a test that changes them, a rotation)."""
    _fernet.cache_clear()
    _fingerprint_key.cache_clear()


def seal(data: bytes) -> bytes:
    """``data`` encrypted (a Fernet token, ASCII)."""
    return _fernet().encrypt(data)


def unseal(token: bytes) -> bytes:
    """What ``seal`` was given; ``Unreadable`` when no configured key opens it."""
    from cryptography.fernet import InvalidToken

    try:
        return _fernet().decrypt(token)
    except InvalidToken as exc:
        raise Unreadable(
            "a sealed value could not be decrypted: REWIND_ENCRYPTION_KEYS (or SECRET_KEY) "
            "is not the key it was sealed with"
        ) from exc


def reseal(token: bytes) -> bytes:
    """``token`` encrypted again under the first key (rotation)."""
    return _fernet().rotate(token)


def fingerprint(value: str | bytes) -> str:
    """The keyed fingerprint of ``value``: hex, ``FINGERPRINT_HEX`` digits."""
    data = value.encode("utf-8") if isinstance(value, str) else value
    return hmac.new(_fingerprint_key(), data, hashlib.sha256).hexdigest()[:FINGERPRINT_HEX]


def mark(value: str | bytes) -> str:
    """What stands in for a credential: ``[credential:<fingerprint>]``."""
    return MARK.format(fingerprint(value))
