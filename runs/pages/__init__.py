"""What each page shows, built from rows: a page is ``runs/views/<page>.py`` (request →
response), ``runs/pages/<page>.py`` (this: never sees a request) and
``templates/runs/<page>.html``.

- ``runs``      a run's summary, totals, tokens avoided, the artifact's markdown
- ``timeline``  the run page's waterfall of steps (page and live update alike)
- ``graph``     the run graph's layout as SVG coordinates, and its overlay
- ``progress``  what a run that has not finished is doing
- ``nodes``     the inspector: a step's state before and after, its calls
- ``change``    what a run changed against its source (a long override's first changed words)
- ``compare``   two runs side by side: leaves, step deltas, artifacts line by line
- ``picker``    the compare page's run picker
- ``grids``     the what-if grid's matrix
- ``outcomes``  the Outcomes section and the runs list's outcome badges
- ``imports``   the import report, a step's spans, where an imported run came from

May import: ``runs.models``, ``runs.lib``, ``runs.engine``, ``runs.forms`` (a page may render a
form) and ``runs.templatetags``; never ``runs.views``."""
