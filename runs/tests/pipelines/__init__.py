"""Tests of the demo pipeline (``runs/pipelines/``): its pure computation and dataset."""
