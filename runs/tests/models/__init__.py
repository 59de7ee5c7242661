"""Tests of the rows (``runs/models/``): content-addressed storage, the hand-written SQL
statements, migrations, and the order a transactional test's rows are deleted in."""
