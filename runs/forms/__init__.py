"""Forms: every query parameter of a fragment endpoint and every POST goes through one. A
module per page that uses them; every form is importable from here (``from runs.forms import
ForkForm``).

- ``fields``    a value as an input shows it (``field_text``), a posted text as compared
- ``runs``      the runs list's filters and page, the new-run form and its pipeline pick
- ``forks``     the fork editor: one field per consumed value, exactly one changed
- ``compare``   the compare page's picker, search and filter; the bisect it starts
- ``outcomes``  an outcome added on the dashboard
- ``settings``  the provider defaults and the daily budget
- ``imports``   the Import page: a tracker directory or a persister database

Validation belongs to the engine (overrides, inputs, outcomes, imports): a form builds its
fields, asks the engine and puts the engine's message next to the field it is about.

May import: ``runs.engine``, ``runs.models`` and ``runs.lib``; never ``runs.views`` or
``runs.pages`` (they import forms).
"""

from runs.forms.compare import (
    BisectForm,
    CompareForm,
    ComparePickForm,
    PickedRunField,
    RunIdsField,
    RunSearchForm,
)
from runs.forms.fields import field_text
from runs.forms.forks import ForkForm
from runs.forms.imports import ImportForm
from runs.forms.outcomes import OutcomeForm
from runs.forms.runs import (
    INPUT_PREFIX,
    ORIGIN_CHOICES,
    STATUS_CHOICES,
    NewRunForm,
    PageForm,
    PipelinePickForm,
    RunFilterForm,
)
from runs.forms.settings import SettingsForm

__all__ = [
    "INPUT_PREFIX",
    "ORIGIN_CHOICES",
    "STATUS_CHOICES",
    "BisectForm",
    "CompareForm",
    "ComparePickForm",
    "ForkForm",
    "ImportForm",
    "NewRunForm",
    "OutcomeForm",
    "PageForm",
    "PickedRunField",
    "PipelinePickForm",
    "RunFilterForm",
    "RunIdsField",
    "RunSearchForm",
    "SettingsForm",
    "field_text",
]
