"""Embedding vectors and placeholder images, made here, with no network."""

from __future__ import annotations

import hashlib
import math
import struct
import zlib

from .matching import _TOKEN_RE, _stem


def _tiny_png(rgb: bytes) -> bytes:
    """A valid 1x1 PNG of colour ``rgb``: a placeholder image, made here, no network."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00" + rgb[:3]))
        + chunk(b"IEND", b"")
    )


def _embedding(text: str, dimensions: int) -> list[float]:
    """A unit vector from the text's words (feature hashing): deterministic, and texts
    that share words point the same way, so cosine similarity means something."""
    vector = [0.0] * dimensions
    features = [(w, 1.0) for w in (_stem(t) for t in _TOKEN_RE.findall(text.lower()))]
    features += [(f"#text:{text}", 0.25)]
    for feature, weight in features:
        digest = hashlib.sha256(feature.encode("utf-8")).digest()
        for k in range(2):
            index = int.from_bytes(digest[4 * k : 4 * k + 4], "big") % dimensions
            sign = 1.0 if digest[8 + k] & 1 else -1.0
            vector[index] += sign * weight
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    # Round through float32, so the float and the base64 encodings carry the same values.
    return [struct.unpack("<f", struct.pack("<f", v / norm))[0] for v in vector]
