# Rewind with your own Burr app: Burr's multi-modal chatbot, unchanged, against Rewind's offline
# simulator (no key, no network). Paste this into a shell in the project directory, or run it
# with `bash docs/walkthrough.sh`. It keeps its runs in a database of its own, beside the
# demo's: walkthrough.sqlite3.
PY=.venv/bin/python
PORT=${REWIND_SIMULATOR_PORT:-8011}  # the simulator's port on 127.0.0.1
run_id() { "$PY" -c 'import json, sys; print(json.load(sys.stdin)["run"])'; }

# 0. A fresh database for the walkthrough, migrated.
export DATABASE_URL="sqlite:///$PWD/walkthrough.sqlite3"
"$PY" manage.py migrate --verbosity 0

# 1. Register the app by dotted path (hyphenated module names work), and point its openai
#    client at the simulator, served on loopback.
export REWIND_PIPELINES="chatbot=burr.examples.multi-modal-chatbot.application.application"
export OPENAI_BASE_URL="http://127.0.0.1:$PORT/v1" OPENAI_API_KEY=sk-anything
"$PY" -m runs.engine.providers.simulator --port "$PORT" &
SIMULATOR=$!
until "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null; do
  kill -0 "$SIMULATOR" || break  # it did not start (its error is above): the port is taken?
  sleep 0.2
done

# 2. Run it: two turns, each ending after the `response` step. --json prints the run (its id
#    under "run", each step's fields) on stdout.
RUN=$("$PY" manage.py rewind_run --pipeline chatbot \
  --input "prompt=What is the capital of France?" --halt-after response \
  --turn "prompt=Write code to sort a list" --json | run_id)
echo "recorded run $RUN"

# 3. Fork it: on the second turn, flip the route the model chose, and diff the two runs.
FORK=$("$PY" manage.py rewind_fork "$RUN" --node 'decide_mode#2' \
  --set writes.mode=answer_question --json | run_id)
echo "forked run $FORK"
"$PY" manage.py rewind_diff "$RUN" "$FORK"  # first divergence: decide_mode, then the branch

# 4. Record from your own program: docs/my_agent.py builds the chatbot its own way and adds
#    one line, with_hooks(*rewind_hooks("chatbot")); it runs in its own process.
"$PY" docs/my_agent.py

# 5. Stop the simulator, then replay every run unchanged: nothing is called (0 tokens), and
#    each replay is identical to its source (exit status 1 if one is not).
kill "$SIMULATOR"
wait "$SIMULATOR" 2>/dev/null || true  # it ended by our signal
"$PY" manage.py rewind_replay --all

# 6. The dashboard: a server started before these variables were set knows neither this
#    database nor the app. Stop it (Ctrl-C) and start one with them (and the simulator again,
#    for forks that call the model); its first start here prints the password of user rewind:
echo "To browse these runs at http://127.0.0.1:8000/runs/ run:"
echo "  $PY -m runs.engine.providers.simulator --port $PORT &"
echo "  DATABASE_URL=$DATABASE_URL REWIND_PIPELINES=$REWIND_PIPELINES \\"
echo "  OPENAI_BASE_URL=$OPENAI_BASE_URL OPENAI_API_KEY=sk-anything $PY manage.py rewind_serve"
