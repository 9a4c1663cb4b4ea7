"""The project's tests: a package, so that no installed top-level `tests` package (baycomp ships
one) shadows them."""
