from __future__ import annotations

from django.urls import path
from django.views.generic import RedirectView

from runs import views

urlpatterns = [
    path("", RedirectView.as_view(url="/runs/", permanent=False)),
    path("runs/", views.run_list, name="run-list"),
    path("api/health", views.health, name="health"),
    path("api/runs/<int:run_id>", views.api_run, name="api-run"),
]
