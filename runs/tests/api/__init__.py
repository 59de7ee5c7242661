"""Tests of the JSON endpoints under ``/api/`` (``runs/api.py``): answers, errors, cancel."""
