"""Tests of the dashboard's pages through their views (``runs/views/`` and the admin), one file
per page or view."""
