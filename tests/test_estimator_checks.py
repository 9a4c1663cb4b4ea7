"""Both estimators against scikit-learn's estimator checks (small T to keep them quick)."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from disdf import CascadeForestClassifier, DisDFClassifier


@pytest.mark.slow
@parametrize_with_checks([CascadeForestClassifier(n_trees=10), DisDFClassifier(n_trees=10)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
