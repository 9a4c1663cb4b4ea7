"""Drivers: whole runs around the runner (full MNIST, the committed records' sample, the
kill-and-resume soak)."""
