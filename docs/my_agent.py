"""Your own program, recording every run in Rewind: Burr's multi-modal chatbot, built the way
its own application.py builds it, plus one line. Run it your way, with the variables of the
walkthrough (README, "Use Rewind with your own Burr app") set:

    .venv/bin/python docs/my_agent.py
"""

import importlib

from burr.core import ApplicationBuilder

from runs.recording import rewind_hooks

# The example ships inside the apache-burr package; its folder name has a hyphen, so it is
# imported by name rather than with an import statement. Your program imports its own graph.
chatbot = importlib.import_module("burr.examples.multi-modal-chatbot.application")

app = (
    ApplicationBuilder()
    .with_graph(chatbot.graph)
    .with_state(chat_history=[])
    .with_entrypoint("prompt")
    .with_hooks(*rewind_hooks("chatbot"))  # the one line: "chatbot" as in REWIND_PIPELINES
    .build()
)
app.run(halt_after=["response"], inputs={"prompt": "Draw a cat"})
print("the chatbot answered with:", app.state["chat_history"][-1]["type"])
