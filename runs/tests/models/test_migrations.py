from __future__ import annotations

import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_models_and_the_migrations_agree():
    # A model change without its migration would pass every other test on a fresh test
    # database and then fail on a team's real one.
    call_command("makemigrations", "--check", "--dry-run", stdout=io.StringIO())
