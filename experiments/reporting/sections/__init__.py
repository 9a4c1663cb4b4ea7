"""REPORT.md's sections, one module each."""
