"""Hypothesis profiles: derandomised under CI, so a red build is a regression and not a lucky draw."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("TOOLFUZZ_HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))
