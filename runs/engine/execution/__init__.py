"""Running and recording a run.

- ``new_runs``      ``create_run``: inputs (or a Burr app's turns and halts), provider snapshot
- ``actions``       ``NodeAction`` (a declared node as a Burr action), ``RunContext``,
                    ``StepRecord``, ``run_llm``, ``run_tool``
- ``application``   builds the Burr application of a run or a fork preview; ``source_pins``
- ``runner``        ``execute_run``, ``finish_run`` and the loop that steps an application
- ``recorder``      ``StepRecorder`` (a Burr hook): state row + step row + edge in one transaction
- ``persister``     ``DjangoPersister`` (Burr's ``BaseStatePersister`` on the ORM)
- ``leases``        ``Heartbeat``, ``mark_interrupted_runs``, ``resume_run``, ``cancel_run``
- ``watch``         ``run_steps``: the steps in a thread of their own, watched (the step
                    timeout, a cancel); ``step_timeout``
- ``fence``         ``Fence``: every write of a step passes it; once closed it refuses them
- ``artifacts``     writing the artifact atomically and finding it again
- ``program``       ``ProgramRecorder``: a Burr app run by the user's own program
- ``workers``       ``run_on_workers``: a batch of queued runs on N ``db_worker`` processes
- ``queue``         the run queue: ``execute_run_task``, ``enqueue_run``, ``recycle``,
                  ``reap_dead_runs``

May import: ``apps``, ``calls``, ``providers``, ``errors``, ``runs.models``, ``runs.lib.hashing``,
and ``runs.engine.forking.overrides`` (the value a fork hands to the run it executes),
``runs.engine.telemetry`` (``finish_run`` exports the run it ends);
Nothing here imports ``runs.tasks`` (which imports the engine): the queue is ``queue``.
"""
