"""Tests mostly about what a page shows (``runs/pages/``): the run graph's layout and timeline,
the step a running run executes, a long override shown by what changed."""
