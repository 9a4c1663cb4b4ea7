"""The cascade regressor and its compiled squared-error trees."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_friedman1
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

import disdf.forests._compiled.regression_forest as regression_forest
from disdf import CascadeForestRegressor, InsufficientMemoryError, InvalidParameterError
from disdf.forests._compiled.forest import FastForestParams
from disdf.forests._compiled.regression_forest import FastRegressionForest, bin_edges

ENGINES = ["fast", "binned", "sklearn"]
BEST_SPLITS_ALL_FEATURES = FastForestParams(random_splits=False, max_features=None, bootstrap=False)


def tree_data(seed: int, n: int = 1000, d: int = 4):
    """Continuous features and one of few values (coded, histogram splits on n > 256)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, -1] = np.round(X[:, -1] * 4)
    y = 2 * X[:, 0] + np.sin(X[:, 1]) + X[:, -1] + rng.normal(scale=0.5, size=n)
    return X, y, rng


@pytest.mark.parametrize("weighted", [False, True])
def test_a_compiled_tree_with_every_feature_is_scikit_learns_tree(weighted):
    """Best splits over every feature, no bootstrap: DecisionTreeRegressor's tree (its random feature order
    only breaks exact ties: two features that part a node alike, which nodes of 60 examples or more on
    continuous features do not have; deeper, small nodes do)."""
    X, y, rng = tree_data(0)
    weights = rng.uniform(0.5, 2.0, size=len(y)) if weighted else None
    params = FastForestParams(random_splits=False, max_features=None, bootstrap=False, max_depth=4)
    ours = FastRegressionForest(params, 1, 0, 1).fit(X, y, sample_weight=weights)
    theirs = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y, sample_weight=weights)
    X_new = rng.normal(size=(500, X.shape[1])).astype(np.float32)
    X_new[:, -1] = np.round(X_new[:, -1] * 4)
    np.testing.assert_allclose(ours.weighted_probabilities(X_new, np.ones(1))[:, 0], theirs.predict(X_new))
    np.testing.assert_allclose(ours.feature_importances(), theirs.feature_importances_, atol=1e-9)


def test_a_fully_grown_multi_output_tree_is_scikit_learns_tree():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 1)).astype(np.float32)
    Y = np.c_[X[:, 0] + rng.normal(size=400), np.exp(X[:, 0])]
    ours = FastRegressionForest(BEST_SPLITS_ALL_FEATURES, 1, 0, 2).fit(X, Y)
    theirs = DecisionTreeRegressor(random_state=0).fit(X, Y)
    X_new = rng.normal(size=(300, 1)).astype(np.float32)
    np.testing.assert_allclose(ours.weighted_probabilities(X_new, np.ones(1)), theirs.predict(X_new))


def test_histogram_splits_of_coded_features_are_the_sorts_splits(monkeypatch):
    """A feature of few values coded by value splits by its histogram on large nodes: the same tree."""
    X, y, rng = tree_data(2)
    X_new = rng.normal(size=(300, X.shape[1])).astype(np.float32)
    X_new[:, -1] = np.round(X_new[:, -1] * 4)
    coded = FastRegressionForest(BEST_SPLITS_ALL_FEATURES, 1, 0, 1).fit(X, y)
    monkeypatch.setattr(regression_forest, "CODING_MIN_EXAMPLES", 10**9)
    sorted_only = FastRegressionForest(BEST_SPLITS_ALL_FEATURES, 1, 0, 1).fit(X, y)
    np.testing.assert_array_equal(
        coded.weighted_probabilities(X_new, np.ones(1)), sorted_only.weighted_probabilities(X_new, np.ones(1))
    )


def test_bin_edges_fall_between_distinct_values_and_make_bins_of_about_equal_counts():
    values = np.random.default_rng(3).exponential(size=5000)
    distinct = np.unique(values)
    edges = bin_edges(values, distinct, 16)
    assert len(edges) == 15 and np.all(np.diff(edges) > 0)
    assert not np.isin(edges, distinct).any()
    counts = np.bincount(np.searchsorted(edges, values, side="left"))
    assert counts.min() > 0.8 * len(values) / 16 and counts.max() < 1.2 * len(values) / 16


@pytest.mark.parametrize("random_splits", [False, True])
def test_the_first_trees_of_a_forest_are_the_smaller_forest_of_its_seed(random_splits):
    X, y, _ = tree_data(4, n=300)
    params = FastForestParams(random_splits=random_splits, max_features="sqrt", bootstrap=not random_splits)
    large = FastRegressionForest(params, 12, 7, 1).fit(X, y)
    small = FastRegressionForest(params, 5, 7, 1).fit(X, y)
    np.testing.assert_array_equal(large.first(5).probabilities(X), small.probabilities(X))


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return train_test_split(X, y, random_state=0)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_regressor_learns_on_every_engine(diabetes, engine):
    """Out-of-sample R^2 well above the mean's 0 (a random forest reaches about 0.3 on this split)."""
    X_train, X_test, y_train, y_test = diabetes
    model = CascadeForestRegressor(n_trees=50, engine=engine, random_state=0).fit(X_train, y_train)
    assert model.score(X_test, y_test) > 0.25
    assert model.predict(X_test).shape == (len(X_test),)
    assert len(model.level_scores_) >= model.n_levels_ >= 1
    assert model.level_scores_[model.n_levels_ - 1] == max(model.level_scores_)
    importances = model.feature_importances_
    assert importances.shape == (X_train.shape[1],) and importances.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("engine", ["fast", "sklearn"])
def test_results_do_not_depend_on_the_number_of_jobs(diabetes, engine):
    X_train, X_test, y_train, _ = diabetes
    one, two = (
        CascadeForestRegressor(n_trees=20, engine=engine, random_state=3, n_jobs=jobs).fit(X_train, y_train)
        for jobs in (1, 2)
    )
    np.testing.assert_array_equal(one.predict(X_test), two.predict(X_test))
    assert one.level_scores_ == two.level_scores_


def test_the_informative_features_carry_the_importances():
    """Every one of Friedman's 5 informative features above every noise feature (the completely-random
    trees split on any feature alike, so the noise keeps a share)."""
    X, y = make_friedman1(n_samples=600, n_features=10, random_state=0)  # features 5..9 are noise
    model = CascadeForestRegressor(n_trees=30, random_state=0).fit(X, y)
    importances = model.feature_importances_
    assert importances[:5].min() > importances[5:].max()


@pytest.mark.parametrize("engine", ["fast", "sklearn"])
def test_multi_output_targets_give_one_column_per_output(diabetes, engine):
    X_train, X_test, y_train, _ = diabetes
    Y_train = np.c_[y_train, -2 * y_train + 5, np.sqrt(y_train)]
    model = CascadeForestRegressor(n_trees=20, engine=engine, random_state=0).fit(X_train, Y_train)
    predicted = model.predict(X_test)
    assert model.n_outputs_ == 3 and predicted.shape == (len(X_test), 3)
    assert model.transform(X_test).shape == (len(X_test), 4 * 3)
    # the second output is an affine map of the first: so are the trees' means (same splits, same leaves)
    np.testing.assert_allclose(predicted[:, 1], -2 * predicted[:, 0] + 5, rtol=1e-9)
    column = CascadeForestRegressor(n_trees=20, engine=engine, random_state=0).fit(X_train, y_train[:, None])
    assert column.predict(X_test).shape == (len(X_test), 1)


def test_sample_weights_enter_and_weights_of_one_are_no_weights(diabetes):
    X_train, X_test, y_train, _ = diabetes
    plain = CascadeForestRegressor(n_trees=20, random_state=0).fit(X_train, y_train)
    ones = CascadeForestRegressor(n_trees=20, random_state=0).fit(
        X_train, y_train, sample_weight=np.ones(len(y_train))
    )
    np.testing.assert_array_equal(plain.predict(X_test), ones.predict(X_test))
    weights = np.where(y_train > np.median(y_train), 10.0, 1.0)
    weighted = CascadeForestRegressor(n_trees=20, random_state=0).fit(X_train, y_train, sample_weight=weights)
    assert np.mean(weighted.predict(X_test)) > np.mean(plain.predict(X_test)) + 5  # the large targets pull


def test_a_predictor_on_top_is_a_regressor(diabetes):
    X_train, X_test, y_train, _ = diabetes
    model = CascadeForestRegressor(
        n_trees=20, random_state=0, predictor=HistGradientBoostingRegressor(max_iter=20)
    ).fit(X_train, y_train)
    assert model.predictor_.n_features_in_ == X_train.shape[1] + 4
    assert model.predict(X_test).shape == (len(X_test),)
    with pytest.raises(InvalidParameterError, match="predictor must be a regressor instance"):
        CascadeForestRegressor(predictor=HistGradientBoostingRegressor).fit(X_train, y_train)


def test_bad_input_is_refused_naming_the_parameter(diabetes):
    X_train, _, y_train, _ = diabetes
    with pytest.raises(TypeError, match="class_weight"):
        CascadeForestRegressor(class_weight="balanced")
    with pytest.raises(InvalidParameterError, match="criterion='squared_error'"):
        CascadeForestRegressor(forests=[{"kind": "random_forest", "criterion": "gini"}]).fit(X_train, y_train)
    squared = CascadeForestRegressor(
        n_trees=5, forests=[{"kind": "random_forest", "criterion": "squared_error"}]
    )
    assert squared.fit(X_train, y_train).n_levels_ >= 1  # the regressors' criterion, named, is taken
    with pytest.raises(ValueError, match="n_samples=2 is fewer than n_folds=3"):
        CascadeForestRegressor().fit(X_train[:2], y_train[:2])
    with pytest.raises(ValueError, match=r"could not convert|numeric|dtype"):
        CascadeForestRegressor().fit(X_train[:10], np.array(list("abcdefghij"), dtype=object))


def test_saved_disk_mode_and_refit_models_predict_as_the_fitted_one(diabetes, tmp_path):
    X_train, X_test, y_train, _ = diabetes
    memory = CascadeForestRegressor(n_trees=20, random_state=0).fit(X_train, y_train)
    disk = CascadeForestRegressor(
        n_trees=20, random_state=0, keep_fitted_levels="disk", fitted_levels_dir=tmp_path
    ).fit(X_train, y_train)
    np.testing.assert_array_equal(memory.predict(X_test), disk.predict(X_test))
    loaded = pickle.loads(pickle.dumps(memory))
    np.testing.assert_array_equal(memory.predict(X_test), loaded.predict(X_test))
    refit = CascadeForestRegressor(n_trees=20, random_state=0, test_vectors="refit").fit(X_train, y_train)
    assert refit.level_scores_ == memory.level_scores_  # the same fold models choose the depth


def test_the_memory_check_refuses_before_any_tree_grows(diabetes, monkeypatch):
    X_train, _, y_train, _ = diabetes
    monkeypatch.setenv("DISDF_MEMORY_LIMIT", "100M")
    with pytest.raises(InsufficientMemoryError, match=r"10 features and 1 output\(s\)"):
        CascadeForestRegressor().fit(X_train, y_train)
