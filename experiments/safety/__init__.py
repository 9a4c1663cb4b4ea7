"""Keeping runs safe: crash-proof files, one writer per folder, interrupts, the guards of a command,
backends, provenance, the outputs' manifest and the kill-and-resume harness."""
