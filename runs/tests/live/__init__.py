"""Tests of the run page's live updates (``runs/live/`` and the views that serve them): deltas,
the event stream, the polling fallback, the stream slots."""
