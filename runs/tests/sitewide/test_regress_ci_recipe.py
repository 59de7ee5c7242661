"""README, "Regression replay" → "A CI recipe": ``docs/regress-ci.sh`` runs the recipe for real
(a team's database, a fixture exported from it, the CI job's own database, ``rewind_regress``
with a JUnit file), and this test runs exactly that script in a fresh shell, the way the
walkthrough's test does (``test_walkthrough``: its project layout and environment).

What the script's two jobs must say is known before it runs: on the code as recorded, with the
provider stopped, every run is answered from the cache (0 tokens) and the job passes (exit 0);
on the pull request that stops offering ``answer_question`` in the prompt that chooses the
mode, exactly the runs recorded with that mode fail their ``mode`` outcome — the simulator can
no longer answer it — and the job fails (exit 1), each of them a JUnit failure linking its
diff, the others passing.
"""

from __future__ import annotations

import re
from xml.etree import ElementTree

from runs.tests.conftest import PROJECT_ROOT
from runs.tests.sitewide.test_walkthrough import free_port, project, run, shell_env

__all__ = ["project"]  # the fixture, shared with the walkthrough's test

SCRIPT = PROJECT_ROOT / "docs" / "regress-ci.sh"


def test_the_readme_names_the_script_and_the_recipe_runs_rewind_regress_with_junit():
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert "docs/regress-ci.sh" in readme and "rewind_regress --pipeline support" in readme
    assert "--junit" in SCRIPT.read_text() and "dumpdata runs" in SCRIPT.read_text()


def test_the_ci_recipe_passes_unchanged_code_and_fails_the_pull_request(project):
    env = {**shell_env(project, free_port()), "REWIND_CI_WORK": str(project / "ci")}

    done = run(project, env, "bash", str(project / "docs" / "regress-ci.sh"))

    out = done.stdout
    assert "exit status on the code as recorded: 0" in out, out[-3000:] + done.stderr[-3000:]
    assert "exit status on the pull request: 1" in out, out[-3000:] + done.stderr[-3000:]
    work = project / "ci"
    assert f"working in {work}" in out
    first, second = out.split("exit status on the code as recorded")
    # Unchanged code, provider stopped: every run from the cache, nothing flipped.
    rows = re.findall(r"^\s+(\d+)\s+(\d+)\s+completed\s+(\d+)\s+(\S+)", first, re.M)
    assert len(rows) == 4 and {tokens for *_, tokens, _ in rows} == {"0"}
    assert {divergence for *_, divergence in rows} == {"none"}
    # The pull request: the runs recorded as answer_question are the ones that fail.
    recorded = dict(
        re.findall(r'^\s+(\d+)\s+\d+\s+completed\s+0\s+none · mode: "(\w+)"', first, re.M)
    )
    expected = {run for run, mode in recorded.items() if mode == "answer_question"}
    assert expected and len(expected) < 4  # a real subset
    suite = ElementTree.parse(f"{work}/pr.xml").getroot()
    failed = {
        case.get("name").removeprefix("run "): case.find("failure")
        for case in suite.iter("testcase")
        if case.find("failure") is not None
    }
    assert set(failed) == expected
    for source, failure in failed.items():
        assert 'mode: "answer_question" (pass) →' in failure.get("message")
        assert f"https://rewind.example.com/compare/{source}/" in failure.text
    assert suite.get("tests") == "4" and suite.get("failures") == str(len(expected))
    main = ElementTree.parse(f"{work}/main.xml").getroot()
    assert main.get("tests") == "4" and main.get("failures") == "0"
    assert "code changed: decide_mode" in second
