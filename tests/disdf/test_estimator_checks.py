"""Both estimators against scikit-learn's estimator checks (small T to keep them quick).

scikit-learn itself skips its array-API input check unless SCIPY_ARRAY_API is
set; the estimators work on NumPy arrays only and do not claim array-API
support, so that skip is expected. No other check is skipped or expected to fail.
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from disdf import CascadeForestClassifier, DisDFClassifier


@pytest.mark.slow
@parametrize_with_checks(
    [
        CascadeForestClassifier(n_trees=10),
        DisDFClassifier(n_trees=10),
        CascadeForestClassifier(n_trees=10, engine="fast"),
        DisDFClassifier(n_trees=10, engine="fast"),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
