"""The forests and the engines that grow them: scikit-learn's, and the compiled engine.

A cascade level's forests are named by kind (:mod:`disdf.forests._specs`); one forest alone, with
the cascades' engines and tree budget, is :class:`PlainForestClassifier`. The compiled engine's
forest is :class:`FastForest` (its settings :class:`FastForestParams`, the engines that use it
:data:`COMPILED_ENGINES`, its kernels' version :data:`KERNEL_VERSION`); a fitted scikit-learn
forest's per-tree class distributions are :class:`SklearnFoldModel`.
"""

from disdf.forests._compiled import KERNEL_VERSION, FastForest, FastForestParams
from disdf.forests._plain import PlainForestClassifier
from disdf.forests._specs import COMPILED_ENGINES
from disdf.forests._tree_leaves import SklearnFoldModel

__all__ = [
    "COMPILED_ENGINES",
    "KERNEL_VERSION",
    "FastForest",
    "FastForestParams",
    "PlainForestClassifier",
    "SklearnFoldModel",
]
