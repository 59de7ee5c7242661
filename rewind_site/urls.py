from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.urls import include, path
from django.views import defaults

from runs.api import error, is_api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("runs.urls")),
]


# Errors Django answers itself (no view matched, a view raised): JSON under /api/, the site's
# pages elsewhere — templates/404.html (rendered with the request: the navigation of a
# signed-in user) and templates/500.html (rendered without one, so it renders whatever failed,
# the database included). A 500 has been logged on ``django.request`` before handler500 runs.


def handler400(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return error(400, "bad request")
    return defaults.bad_request(request, exception)


def handler403(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return error(403, "forbidden")
    return defaults.permission_denied(request, exception)


def handler404(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return error(404, f"no API endpoint {request.path}")
    return defaults.page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        return error(500, "internal error; the server log has the details")
    return defaults.server_error(request)
