"""Comparisons that back a configuration choice: equivalence tests and accuracy-against-setting sweeps."""
