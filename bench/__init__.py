"""Benchmarks: each prints its figures beside a floor measured in the same run."""
