"""The benchmark report's collector and renderer; `scripts/bench-report.py` is their command
line."""
