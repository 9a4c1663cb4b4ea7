"""Reporting: cell tables and their statistics, REPORT.md and its sections, the paper's claims."""
