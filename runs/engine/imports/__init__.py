"""History a team already has, read into runs: Burr's tracker directories (``tracker``) and
Burr's state-persister tables (``persisters``), written as imported runs (``writing``), once
(``service``), or as they grow (``follow``). Reading never executes user code: nothing is
imported from the app, no state value is deserialised into its class, and no symlink is
followed out of the path given."""
