from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_not_required
from django.urls import path
from django.views.generic import RedirectView

from runs import api
from runs.views import (
    batches,
    bisect,
    compare,
    exports,
    grids,
    imports,
    listing,
    nodes,
    outcomes,
    runs,
    stability,
)
from runs.views import settings as settings_views

urlpatterns = [
    path("", RedirectView.as_view(url="/runs/", permanent=False)),
    path(
        "login/",
        login_not_required(auth_views.LoginView.as_view(template_name="registration/login.html")),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("runs/", listing.run_list, name="run-list"),
    path("runs/new/", listing.run_create, name="run-create"),
    path("runs/<int:run_id>/", runs.run_detail, name="run-detail"),
    path("runs/<int:run_id>/lineage/", listing.run_lineage, name="run-lineage"),
    path("runs/<int:run_id>/status/", runs.run_status, name="run-status"),
    path("runs/<int:run_id>/events/", runs.run_events, name="run-events"),
    path("runs/<int:run_id>/artifact/", runs.run_artifact, name="run-artifact"),
    path("runs/<int:run_id>/replay/", runs.run_replay, name="run-replay"),
    path("runs/<int:run_id>/resume/", runs.run_resume, name="run-resume"),
    path("runs/<int:run_id>/cancel/", runs.run_cancel, name="run-cancel"),
    path("runs/<int:run_id>/export/", exports.run_export, name="run-export"),
    path("runs/<int:run_id>/outcomes/", outcomes.outcome_add, name="outcome-add"),
    path(
        "runs/<int:run_id>/outcomes/<int:outcome_id>/remove/",
        outcomes.outcome_remove,
        name="outcome-remove",
    ),
    path("runs/<int:run_id>/nodes/<int:sequence_id>/", nodes.node_detail, name="node-detail"),
    path("runs/<int:run_id>/nodes/<int:sequence_id>/fork/", nodes.node_fork, name="node-fork"),
    path("runs/<int:run_id>/nodes/<int:sequence_id>/grid/", grids.grid_new, name="node-grid"),
    path("runs/<int:run_id>/stability/", stability.run_stability, name="run-stability"),
    path("runs/<int:run_id>/nodes/<int:sequence_id>/batch/", batches.batch_new, name="node-batch"),
    path("grids/", grids.grid_list, name="grid-list"),
    path("grids/<int:grid_id>/", grids.grid_detail, name="grid-detail"),
    path("batches/", batches.batch_list, name="batch-list"),
    path("pipelines/<str:pipeline>/regress/", batches.regression_new, name="regression-new"),
    path("batches/<int:batch_id>/", batches.batch_detail, name="batch-detail"),
    path("batches/<int:batch_id>/export/", exports.batch_export, name="batch-export"),
    path("compare/", compare.compare_pick, name="compare-pick"),
    path("compare/runs/", compare.compare_runs, name="compare-runs"),
    path("compare/<int:run_a>/<int:run_b>/", compare.compare, name="compare"),
    path("compare/<int:run_a>/<int:run_b>/bisect/", bisect.bisect_page, name="compare-bisect"),
    path("settings/", settings_views.provider_settings, name="settings"),
    path("import/", imports.import_page, name="import"),
    path("api/health", api.health, name="health"),
    path("api/runs", api.run_create, name="api-run-create"),
    path("api/runs/<int:run_id>", api.run_detail, name="api-run"),
    path("api/runs/<int:run_id>/forks", api.fork_create, name="api-fork-create"),
    path("api/runs/<int:run_id>/cancel", api.run_cancel, name="api-run-cancel"),
]
