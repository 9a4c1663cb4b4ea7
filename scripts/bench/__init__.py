"""Timing and memory benchmarks: how fast and how large, not which setting is right."""
