"""The command-line scripts, by role (index: scripts/README.md).

A package so that a script imports another's module as ``scripts.<folder>.<module>``: each
script puts the checkout on ``sys.path`` first, whatever folder it is run from.
"""
