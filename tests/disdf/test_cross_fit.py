"""Cross-fitted DisDF weights: no example's out-of-fold class vector uses weights fitted on its label."""

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.cascade._shared_first_level import fit_sharing_first_level

#: Declared before measuring: cross-fitted DisDF's optimism (out-of-fold score of the kept level
#: minus test accuracy) within this many points of gcForest's, paired on the same splits ...
HONEST_MARGIN_PP = 3.0
#: ... while weights fitted on the same examples leak: at least this many points above gcForest's.
LEAK_AT_LEAST_PP = 5.0


def optimism(estimator, X_test, y_test) -> float:
    return 100 * (estimator.level_scores_[estimator.n_levels_ - 1] - estimator.score(X_test, y_test))


@pytest.mark.slow
def test_cross_fitted_vectors_do_not_leak_and_same_example_vectors_do(data_dir):
    """Parkinsons, N = 120, 10 splits (measured: gcF 1.2, same_examples 9.6, cross_fit 0.7 points).

    The honest side is the estimator's *default*: it fails if the default leaks again."""
    from disdf.datasets._loaders import load_dataset

    X, y = load_dataset("parkinsons", data_dir)
    cross, same = [], []
    for rep in range(10):
        X_tr, X_te, y_tr, y_te = train_test_split(
            X, y, train_size=120, test_size=70, random_state=rep, stratify=y
        )
        common = {"n_trees": 100, "engine": "fast", "random_state": rep}
        gcf = optimism(CascadeForestClassifier(**common).fit(X_tr, y_tr), X_te, y_te)
        cross.append(optimism(DisDFClassifier(**common).fit(X_tr, y_tr), X_te, y_te) - gcf)
        same.append(
            optimism(DisDFClassifier(**common, weight_fitting="same_examples").fit(X_tr, y_tr), X_te, y_te)
            - gcf
        )
    assert abs(np.mean(cross)) <= HONEST_MARGIN_PP, cross
    assert np.mean(same) >= LEAK_AT_LEAST_PP, same


@pytest.mark.parametrize("solver", ["frank_wolfe_away", "stochastic_frank_wolfe"])
def test_cross_fitting_is_deterministic_independent_of_n_jobs_and_shares_level_one(three_class_data, solver):
    X, y = three_class_data
    options = {"max_iter": 50} if solver == "stochastic_frank_wolfe" else None
    make = lambda **kw: DisDFClassifier(  # noqa: E731
        n_trees=8, random_state=3, weight_fitting="cross_fit", solver=solver, solver_options=options, **kw
    )
    one, two = make(n_jobs=1).fit(X, y), make(n_jobs=2).fit(X, y)
    assert one.level_scores_ == two.level_scores_
    np.testing.assert_array_equal(one.predict_proba(X), two.predict_proba(X))
    (shared,) = fit_sharing_first_level([make()], X, y)
    assert shared.level_scores_ == one.level_scores_
    np.testing.assert_array_equal(shared.predict_proba(X), one.predict_proba(X))


def test_new_examples_use_the_whole_set_weights_and_only_the_training_vectors_change(three_class_data):
    """Level 1 of both variants has the same trees and the same (whole held-out set) weights."""
    X, y = three_class_data
    same = DisDFClassifier(n_trees=8, random_state=0, max_levels=1).fit(X, y)
    cross = DisDFClassifier(n_trees=8, random_state=0, max_levels=1, weight_fitting="cross_fit").fit(X, y)
    for w_same, w_cross in zip(same.weights_[0], cross.weights_[0], strict=True):
        for a, b in zip(w_same, w_cross, strict=True):
            np.testing.assert_allclose(a, b)
    np.testing.assert_allclose(same.predict_proba(X), cross.predict_proba(X))


@pytest.mark.parametrize(
    ("params", "message"),
    [({"weight_fitting": "leaky"}, "weight_fitting"), ({"cross_fit_parts": 1}, "cross_fit_parts")],
)
def test_bad_cross_fit_parameters_are_refused(three_class_data, params, message):
    X, y = three_class_data
    with pytest.raises(ValueError, match=message):
        DisDFClassifier(n_trees=3, **params).fit(X, y)
