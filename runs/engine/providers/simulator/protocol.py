"""OpenAI wire details: error bodies, token counts, the request seed, a response format's
schema."""

from __future__ import annotations

import json
import math
from typing import Any


def _canonical(body: Any) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _error(
    status: int, message: str, kind: str = "invalid_request_error", code: Any = None
) -> tuple[int, dict]:
    """An error body in OpenAI's shape: ``{"error": {message, type, param, code}}``."""
    return status, {
        "error": {
            "message": message,
            "type": kind,
            "param": None,
            "code": status if code is None else code,
        }
    }


def _tokens(chars: int) -> int:
    return max(1, math.ceil(chars / 4))


def _seed_body(body: dict) -> dict:
    """What the answer depends on: the request without its transport-only keys."""
    return {k: v for k, v in body.items() if k not in ("stream", "stream_options")}


def _json_schema_of(response_format: Any) -> Any:
    """The schema of a ``json_schema`` response format, or None for any other format."""
    if not isinstance(response_format, dict) or response_format.get("type") != "json_schema":
        return None
    spec = response_format.get("json_schema")
    spec = spec if isinstance(spec, dict) else response_format  # Responses API: flat
    schema = spec.get("schema")
    return schema if isinstance(schema, dict) else {"type": "object"}
