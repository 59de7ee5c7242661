"""How masked values read (issue 40): a secret's mark is one word to a word diff (two different
secrets are two different words, never ``[secret:`` then a few hex digits), a shape's span
stops before the full stop ending its sentence (the same token masks to the same mark wherever
it stands), and a multi-line text field of the fork editor keeps its newlines."""

from __future__ import annotations

import secrets

from runs.lib import sealing
from runs.lib.secret_shapes import redact_shapes
from runs.lib.words import word_diff


def mark(secret: str) -> str:
    return f"[secret:{sealing.fingerprint(secret)}]"


def test_two_different_secrets_marks_differ_as_two_whole_words(settings):
    one, two = mark("a" * 30), mark("b" * 30)
    diff = word_diff(f"the key is {one} for now", f"the key is {two} for now")
    assert f"<del>{one}</del>" in diff.old and f"<ins>{two}</ins>" in diff.new
    assert diff.passages == 1


def test_a_shape_at_the_end_of_a_sentence_leaves_its_full_stop():
    token = "ghp_" + secrets.token_hex(18)
    ends, inside = f"Use {token}.", f"Use {token} now"
    assert redact_shapes(ends, mark) == f"Use {mark(token)}."
    assert redact_shapes(inside, mark) == f"Use {mark(token)} now"


def test_a_multi_line_text_field_is_a_textarea_so_its_newlines_survive():
    from django import forms

    from runs.forms.forks import ForkForm

    def field(name: str, value: object) -> forms.Field:
        return ForkForm._field_for(_Stub(), name, value)

    assert isinstance(field("state.prompt", "line one\nline two").widget, forms.Textarea)
    assert not isinstance(field("state.topic", "one line").widget, forms.Textarea)


class _Stub:
    spec = None
