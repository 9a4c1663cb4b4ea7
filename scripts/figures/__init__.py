"""The figures of a run's tables (make figures) and their shared helper, plotting.py."""
