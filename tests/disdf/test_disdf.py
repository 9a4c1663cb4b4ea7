"""DisDF: weights learned on held-out predictions, uniform weights = gcForest, tuning."""

import numpy as np
import pytest

from disdf import CascadeForestClassifier, DisDFClassifier
from disdf.weights import PairStatistics, WeightProblem, solve_weights


def test_uniform_solver_is_exactly_gcforest(three_class_data):
    X, y = three_class_data
    gcf = CascadeForestClassifier(n_trees=10, random_state=3).fit(X, y)
    uniform = DisDFClassifier(n_trees=10, random_state=3, solver="uniform").fit(X, y)
    np.testing.assert_array_equal(gcf.predict_proba(X), uniform.predict_proba(X))
    assert gcf.level_scores_ == uniform.level_scores_


def test_weights_lie_on_the_simplex(three_class_data):
    X, y = three_class_data
    model = DisDFClassifier(n_trees=10, random_state=0).fit(X, y)
    assert len(model.weights_) == model.n_levels_
    for level in model.weights_:
        assert len(level) == 4
        for forest in level:
            assert len(forest) == 3
            for w in forest:
                assert w.shape == (10,)
                assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    for level in model.solver_diagnostics_:
        for forest in level:
            for d in forest:
                assert d["status"] == "converged" and d["relative_gap"] <= 1e-6


def test_weights_are_fit_on_the_held_out_examples(three_class_data):
    """Recompute one fold model's problem from its held-out examples: same optimum as stored."""
    X, y = three_class_data
    model = DisDFClassifier(
        n_trees=10, random_state=0, lambda_=0.5, tau=1.2, max_levels=1, engine="sklearn"
    ).fit(X, y)
    from sklearn.model_selection import StratifiedKFold

    rng = np.random.RandomState(0)
    split_seed = rng.randint(np.iinfo(np.int32).max)
    folds = list(StratifiedKFold(3, shuffle=True, random_state=split_seed).split(X, y))
    for k, (_, test) in enumerate(folds):
        table = model.levels_[0].forests[1].models[k]
        assert table.forest.n_features_in_ == X.shape[1]
        stats = PairStatistics.from_tree_probabilities(table.probabilities(X[test]), y[test])
        expected = solve_weights(WeightProblem(stats, 0.5, 1.2), "qp")
        stored = model.weights_[0][1][k]
        assert WeightProblem(stats, 0.5, 1.2).objective(stored) == pytest.approx(expected.objective, rel=1e-6)


def test_learned_weights_differ_from_uniform_and_change_the_vectors(three_class_data):
    X, y = three_class_data
    model = DisDFClassifier(n_trees=10, random_state=0, lambda_=0.1).fit(X, y)
    gcf = CascadeForestClassifier(n_trees=10, random_state=0).fit(X, y)
    assert not np.allclose(model.weights_[0][0][0], 0.1)
    assert not np.allclose(model.predict_proba(X), gcf.predict_proba(X))


def test_solvers_agree_inside_the_estimator(three_class_data):
    X, y = three_class_data
    away = DisDFClassifier(n_trees=10, random_state=0, max_levels=2).fit(X, y)
    exact = DisDFClassifier(n_trees=10, random_state=0, max_levels=2, solver="qp").fit(X, y)
    np.testing.assert_allclose(away.weights_[0][0][0], exact.weights_[0][0][0], atol=1e-3)
    assert np.mean(away.predict(X) == exact.predict(X)) >= 0.98


def test_printed_gradient_ablation_is_reachable(three_class_data):
    X, y = three_class_data
    model = DisDFClassifier(
        n_trees=6,
        random_state=0,
        max_levels=1,
        solver="frank_wolfe",
        solver_options={"max_iter": 50, "gradient": "printed"},
    ).fit(X, y)
    assert model.solver_diagnostics_[0][0][0]["solver"] == "frank_wolfe_printed_gradient"


def test_tune_picks_the_best_grid_point_by_out_of_fold_accuracy(three_class_data):
    X, y = three_class_data
    grid = {"lambda_": [0.1, 100.0], "tau": [0.5, 1.5]}
    model = DisDFClassifier(n_trees=8, random_state=0, tune=True, tune_grid=grid).fit(X, y)
    for level, params in enumerate(model.tuned_params_):
        accuracies = [point["accuracy"] for point in params["grid"]]
        assert len(accuracies) == 4
        chosen = next(
            p for p in params["grid"] if (p["lambda_"], p["tau"]) == (params["lambda_"], params["tau"])
        )
        assert chosen["accuracy"] == max(accuracies)
        assert model.level_scores_[level] == max(accuracies)
