"""Relays of 12 steps for bisect's tests (``runs/pipelines/relay.py``): ``relay12`` passes the
planted step's verdict on step by step (monotone); ``relay_skip`` has step 6 read step 3's
verdict directly, so a swap at 3 flips the end while a swap at 4 or 5 does not."""

from __future__ import annotations

from runs.pipelines import relay


def relay12():
    return relay.builder(12).build()


def relay_skip():
    return relay.builder(12, skip=(3, 6)).build()
