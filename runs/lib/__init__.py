"""Helpers that import nothing of the app (no model, no engine, no view): canonical JSON and
content hashes (``hashing``), the JSON every edge parses (``jsontext``), word-level text
differences (``words``), whether the model that answered is the one asked for
(``model_names``), the values a program keeps live on replay (``live``), what a secret looks like
(``secret_shapes``: detect-secrets' rules), encryption at rest and keyed fingerprints
(``sealing``). Both the rows and
the engine use them; they may import only the
standard library, Django's utilities and settings, and the libraries named there."""
