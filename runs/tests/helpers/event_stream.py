"""Reading a server-sent event stream the way a browser's EventSource does (``blocks``). Used by
``live/test_run_events_view.py`` and ``live/test_live_deltas.py``."""

from __future__ import annotations


def blocks(stream: str) -> list[dict[str, str]]:
    """The stream's events the way an EventSource reads them: ``{"id", "event", "data"}``
    each; comment lines (``: ...``) are skipped, as a browser skips them."""
    parsed = []
    for block in stream.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        event: dict[str, str] = {}
        data = []
        for line in lines:
            name, _, value = line.partition(": ")
            assert name in {"id", "event", "data"}, block
            if name == "data":
                data.append(value)
            else:
                event[name] = value
        event["data"] = "\n".join(data)
        parsed.append(event)
    return parsed
