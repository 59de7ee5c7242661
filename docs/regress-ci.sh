# The CI recipe of README "Regression replay", for real on one machine: a team's agent (Burr's
# multi-modal chatbot, copied into a git work tree of its own as if it were the team's code),
# runs recorded in the team's database, a fixture exported from it, and the CI job — a
# database of its own loaded from the fixture, then `rewind_regress` with a JUnit file — once
# on the code as recorded (provider stopped: 0 tokens, exit 0) and once on a pull request that
# edits the mode-choosing prompt (exit 1: the runs whose outcome now fails are named).
# Run it from the project directory: `bash docs/regress-ci.sh`. No key, no network: the
# offline simulator answers the agent's openai client on loopback. Everything it makes is in
# a temp directory it prints (or $REWIND_CI_WORK).
set -u
PY=${PY:-.venv/bin/python}
PORT=${REWIND_SIMULATOR_PORT:-8012}  # the simulator's port on 127.0.0.1
WORK=${REWIND_CI_WORK:-$(mktemp -d)}  # where it all goes
echo "working in $WORK"

# 0. The team's agent, in a git work tree of its own.
mkdir -p "$WORK/agent/support_agent"
CHATBOT=$("$PY" -c 'import burr, pathlib; print(pathlib.Path(burr.__file__).parent / "examples" / "multi-modal-chatbot" / "application.py")')
cp "$CHATBOT" "$WORK/agent/support_agent/app.py"
touch "$WORK/agent/support_agent/__init__.py"
git -C "$WORK/agent" init -q
git -C "$WORK/agent" add .
git -C "$WORK/agent" -c user.name=ci -c user.email=ci@example.com commit -qm "the support agent"
export PYTHONPATH="$WORK/agent"
export REWIND_PIPELINES="support=support_agent.app.application"
export REWIND_OUTCOMES='{"support": [{"name": "mode", "path": "state.mode", "check": {"one_of": ["answer_question", "generate_code", "generate_image"]}}]}'
export OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OPENAI_API_KEY=sk-anything

start_simulator() {
  "$PY" -m runs.engine.providers.simulator --port "$PORT" &
  SIMULATOR=$!
  until "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null; do
    kill -0 "$SIMULATOR" || exit 1  # it did not start (its error is above): the port is taken?
    sleep 0.2
  done
}
stop_simulator() { kill "$SIMULATOR"; wait "$SIMULATOR" 2>/dev/null; }

# 1. The team's database: the runs they recorded.
export DATABASE_URL="sqlite:///$WORK/team.sqlite3"
"$PY" manage.py migrate --verbosity 0
start_simulator
for prompt in "What is the capital of France?" "Write code to sort a list" \
  "Draw a picture of a lighthouse" "Who was Aaron Burr?"; do
  "$PY" manage.py rewind_run --pipeline support --input "prompt=$prompt" --halt-after response \
    --json >/dev/null || exit 1
done
stop_simulator

# 2. A fixture exported from it: the runs app holds the runs, their steps, stored values and
#    the cache entries that answer every unchanged call.
"$PY" manage.py dumpdata runs --output "$WORK/runs.json"

# 3. The CI job: a database of its own, loaded from the fixture.
export DATABASE_URL="sqlite:///$WORK/ci.sqlite3"
"$PY" manage.py migrate --verbosity 0
"$PY" manage.py loaddata "$WORK/runs.json"

# 4. The code as recorded, with the provider stopped: every call from the cache, exit 0.
"$PY" manage.py rewind_regress --pipeline support --junit "$WORK/main.xml"
echo "exit status on the code as recorded: $?"

# 5. A pull request stops offering the answer_question mode in the prompt that chooses the
#    mode; the job runs again (the changed calls go to the provider: the simulator, back on).
#    The default gate, --fail-on regress, fails on an outcome that passed and now fails.
sed -i "s/{', '.join(MODES)}/{', '.join(m for m in MODES if m != 'answer_question')}/" \
  "$WORK/agent/support_agent/app.py"
start_simulator
REWIND_BASE_URL=https://rewind.example.com \
  "$PY" manage.py rewind_regress --pipeline support --junit "$WORK/pr.xml"
echo "exit status on the pull request: $?"
stop_simulator
cat "$WORK/pr.xml"
