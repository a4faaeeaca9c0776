"""Imported by the fork server before it forks any worker (toolfuzz.engine.worker.PRELOAD): the planner of a run
of the bundled tools in the default dialect, built here once, so that each worker, and each restart of one after a
target took it down, forks with it built instead of building it again (two seconds a life)."""

from toolfuzz.engine.units import cases_for

cases_for(None, None, None)
