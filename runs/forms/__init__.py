"""Forms: every query parameter of a fragment endpoint and every POST goes through one. A
module per page that uses them; every form is importable from here (``from runs.forms import
ForkForm``).

- ``fields``    a value as an input shows it (``field_text``), a posted text as compared
- ``runs``      the runs list's filters and page, the new-run form and its pipeline pick, the
                run page's live query
- ``forks``     the fork editor: one field per consumed value, exactly one changed
- ``compare``   the compare page's picker, search and filter; the bisect it starts
- ``outcomes``  an outcome added on the dashboard
- ``settings``  the provider defaults and the daily budget
- ``imports``   the Import page: a tracker directory or a persister database
- ``grids``     a what-if grid's values, the leaves a grid shows, the stored grids' page
- ``batches``   a batch counterfactual's change and selection; a regression replay's
- ``stability`` how many samples of a run, from which step
- ``exports``   "Export as test"'s ``?against=``

Validation belongs to the engine (overrides, inputs, outcomes, imports): a form builds its
fields, asks the engine and puts the engine's message next to the field it is about.

May import: ``runs.engine``, ``runs.models`` and ``runs.lib``; never ``runs.views`` or
``runs.pages`` (they import forms).
"""

from runs.forms.batches import BatchForm, RegressionForm
from runs.forms.compare import (
    BisectForm,
    CompareForm,
    ComparePickForm,
    PickedRunField,
    RunIdsField,
    RunSearchForm,
)
from runs.forms.exports import ExportForm
from runs.forms.fields import field_text
from runs.forms.forks import ForkForm
from runs.forms.grids import GridForm, GridListForm, GridViewForm
from runs.forms.imports import ImportForm
from runs.forms.outcomes import OutcomeForm
from runs.forms.runs import (
    INPUT_PREFIX,
    ORIGIN_CHOICES,
    STATUS_CHOICES,
    LiveForm,
    NewRunForm,
    PageForm,
    PipelinePickForm,
    RunFilterForm,
)
from runs.forms.settings import SettingsForm
from runs.forms.stability import SampleForm

__all__ = [
    "INPUT_PREFIX",
    "ORIGIN_CHOICES",
    "STATUS_CHOICES",
    "BatchForm",
    "RegressionForm",
    "BisectForm",
    "CompareForm",
    "ComparePickForm",
    "ExportForm",
    "ForkForm",
    "GridForm",
    "GridListForm",
    "GridViewForm",
    "ImportForm",
    "LiveForm",
    "NewRunForm",
    "OutcomeForm",
    "PageForm",
    "PickedRunField",
    "PipelinePickForm",
    "RunFilterForm",
    "RunIdsField",
    "RunSearchForm",
    "SampleForm",
    "SettingsForm",
    "field_text",
]
