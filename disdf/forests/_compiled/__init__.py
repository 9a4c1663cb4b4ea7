"""The compiled forest engine (``engine="fast"``): tens to tens of thousands of examples."""

from disdf.forests._compiled.forest import FastForest, FastForestParams

#: Bump whenever a change to the kernels changes any tree grown from a given seed:
#: experiment records carry it (through the config hash), so records of two versions never mix.
KERNEL_VERSION = 2

__all__ = ["KERNEL_VERSION", "FastForest", "FastForestParams"]
