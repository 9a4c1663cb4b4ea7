"""The forests and the engines that grow them: scikit-learn's, and the compiled engine (``_compiled``).

A cascade level's forests are named by kind (:mod:`disdf.forests._specs`); one forest alone, with
the cascades' engines and tree budget, is :class:`PlainForestClassifier`.
"""

from disdf.forests._plain import PlainForestClassifier

__all__ = ["PlainForestClassifier"]
