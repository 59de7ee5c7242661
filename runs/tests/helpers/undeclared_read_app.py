"""An app written for the old ``burr`` package (0.40), as Burr's own ``recursive`` example was:
``final_results`` reads ``poem_types`` without declaring it. apache-burr (0.42 on) refuses the
action when it is defined, so importing this module raises — under Burr alone too.

Never imported by test collection (no ``test_`` prefix): a test imports it on purpose. No
``from __future__ import annotations`` here, as in the example: Burr looks for the parameter
annotated ``State`` itself, and a postponed annotation (a string) would skip its check.
"""

from burr.core import ApplicationBuilder, State, action


@action(reads=[], writes=["proposals", "poem_types"])
def user_input(state: State) -> State:
    return state.update(proposals=["a sonnet"], poem_types=["sonnet"])


@action(reads=["proposals", "prompts"], writes=["final_results"])
def final_results(state: State) -> State:
    proposals = state["proposals"]
    results = "\n\n".join(
        f"{kind}:\n{text}" for kind, text in zip(state["poem_types"], proposals, strict=False)
    )
    return state.update(final_results=results)


def application():
    return (
        ApplicationBuilder()
        .with_actions(user_input, final_results)
        .with_transitions(("user_input", "final_results"))
        .with_entrypoint("user_input")
        .build()
    )
