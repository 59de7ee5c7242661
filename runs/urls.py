from __future__ import annotations

from django.urls import path

from runs import views

urlpatterns = []
