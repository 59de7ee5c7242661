"""What every admin page here shares: read-only by default, and a changelist that costs the
same few queries whatever the table's size.

The cache and node tables grow to millions of rows, so every changelist follows
healthchecks' ``hc/api/admin.py``: no full-table ``COUNT(*)`` (``show_full_result_count =
False`` and ``CappedCountPaginator``), foreign keys joined in the list query
(``list_select_related``) and big JSON/text columns left out of it (``changelist_defer``,
applied by ``DeferringChangeList``); a filter's choices sampled from the newest rows
(``RecentValuesFilter``) rather than a ``SELECT DISTINCT`` over all of them.

Recorded content (a step's values, a cache entry's request and answer, a state, an error) is
shown masked (``runs.pages.masking``: what looks like a secret reads ``[redacted]``), by
``pretty`` and ``shown_text``; the row itself is never changed.

May import: Django and ``runs.pages.masking``; the row modules beside it import this, never
the reverse.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.safestring import SafeString

from runs.lib.jsontext import pretty_json
from runs.pages.masking import masked

# How much of a cache key a changelist shows (the detail page shows it whole).
SHORT_KEY_LENGTH = 12


class CappedCountPaginator(Paginator):
    """A paginator that counts at most ``cap`` rows.

    Django's paginator runs ``SELECT COUNT(*)`` over the whole filtered queryset on every
    changelist page, which on a table of millions of rows costs a full scan. healthchecks
    answers with a constant (``99999``) or, on PostgreSQL, the planner's ``reltuples``
    estimate. We count ``SELECT COUNT(*) FROM (SELECT … LIMIT cap)`` instead, because:

    - it works the same on SQLite and PostgreSQL (no ``pg_class`` query);
    - it is exact whenever fewer than ``cap`` rows match, which is the common case once a
      search or filter is applied (a key-prefix search says "1 result", not "99999"), so
      there are no phantom empty pages;
    - its cost is bounded: the scan stops after ``cap`` rows, ordering dropped.

    When the cap is hit the count reads ``cap`` (a floor, not the total) and the last page
    link stops there; narrow the list with search or a filter to reach older rows.
    """

    cap = 10_000

    @cached_property
    def count(self) -> int:
        object_list = self.object_list
        if isinstance(object_list, QuerySet):
            return object_list.order_by()[: self.cap].count()
        return super().count


class DeferringChangeList(ChangeList):
    """A changelist whose query skips the model admin's ``changelist_defer`` columns.

    Deferring in ``get_queryset()`` would also hit the detail page, which shows those
    columns and would then load each one with a query of its own.
    """

    def get_queryset(self, request: HttpRequest, exclude_parameters: Any = None) -> QuerySet:
        queryset = super().get_queryset(request, exclude_parameters)
        defer = getattr(self.model_admin, "changelist_defer", ())
        queryset = queryset.defer(*defer) if defer else queryset
        # Django applies list_select_related only to a query that joins nothing yet; a model
        # whose manager joins its blobs (runs.models.StoresBlobs) joins them.
        related = self.list_select_related
        if related and related is not True:
            queryset = queryset.select_related(*related)
        return queryset


class RecentValuesFilter(admin.SimpleListFilter):
    """Choices from the newest ``sample_size`` rows instead of ``SELECT DISTINCT`` over all.

    Django's default filter for a plain column (``AllValuesFieldListFilter``) scans the
    whole table on every changelist page to list its distinct values. Sampling the newest
    rows by primary key is bounded; a value only found in older rows still filters when put
    in the URL, and the selected value is always offered.
    """

    field_name: str
    sample_size = 2_000

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple]:
        recent = (
            model_admin.get_queryset(request)
            .order_by("-pk")
            .values_list(self.field_name, flat=True)[: self.sample_size]
        )
        values = set(recent)
        if self.value():
            values.add(self.value())
        return [(value, value) for value in sorted(v for v in values if v)]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet | None:
        if self.value():
            return queryset.filter(**{self.field_name: self.value()})
        return queryset


PRE = '<pre class="rewind-value">{}</pre>'  # styled by static/css/admin.css (CSP: no inline styles)


def pretty_html(value: Any, shown: Callable[[Any], Any] = masked) -> SafeString | None:
    """``value`` as the inspector shows it (masked, then ``runs.lib.jsontext.pretty_json``)
    in a ``<pre>``, escaped.

    ``None`` (an SQL NULL) shows as the admin's empty value. Cached answers and prompts are
    model output: anything in them (``<script>`` included) must reach the page as text.
    """
    if value is None:
        return None
    return format_html(PRE, pretty_json(shown(value)))


def pretty(
    field: str, shown: Callable[[Any], Any] = masked
) -> Callable[[Any, Any], SafeString | None]:
    """A read-only admin column showing the JSON field ``field`` masked (by ``shown``) and
    pretty-printed."""

    @admin.display(description=field)
    def show(self: Any, obj: Any) -> SafeString | None:
        return pretty_html(getattr(obj, field), shown)

    return show


def shown_text(field: str) -> Callable[[Any, Any], SafeString | str]:
    """A read-only admin column showing the text field ``field`` masked (an error, a raw
    output), in a ``<pre>`` when it spans lines."""

    @admin.display(description=field.replace("_", " "))
    def show(self: Any, obj: Any) -> SafeString | str:
        text = masked(getattr(obj, field) or "")
        return format_html(PRE, text) if "\n" in text else text

    return show


def admin_link(model: type, pk: int | str | None, label: object) -> SafeString | None:
    """A link to a row's admin page labelled ``label``; ``None`` (the admin's empty value)
    when there is no row to link to."""
    if pk is None:
        return None
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_change", args=[pk])
    return format_html('<a href="{}">{}</a>', url, label)


class ReadOnlyAdmin(admin.ModelAdmin):
    """View-only: no add, no change, no delete unless a subclass allows it.

    With ``has_change_permission`` False Django renders the change page as a view page;
    ``readonly_fields`` is also every field of ``fieldsets`` (set per subclass with
    ``flatten_fieldsets``) so it stays read-only if someone grants change later.
    """

    paginator = CappedCountPaginator
    show_full_result_count = False
    list_per_page = 50
    changelist_defer: tuple[str, ...] = ()
    deletable = False

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return DeferringChangeList

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Still subject to the user's own "delete" permission when a subclass allows it.
        return self.deletable and super().has_delete_permission(request, obj)
