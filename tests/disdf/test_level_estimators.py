"""Open levels: scikit-learn estimators as level members beside the forests (level_estimators)."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.model_selection import cross_val_predict, train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

from disdf import CascadeForestClassifier, CascadeForestRegressor, DisDFClassifier, InvalidParameterError


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return train_test_split(X, y, stratify=y, random_state=0)


def logistic():
    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=500))


@pytest.mark.parametrize("cls", [CascadeForestClassifier, DisDFClassifier])
def test_a_members_vectors_are_its_out_of_fold_probabilities(cancer, cls):
    """Level 1's member columns are the member cloned and fitted per fold on the level's folds (on the
    float32 values the trees read): the numbers of cross_val_predict over those folds."""
    X_train, _, y_train, _ = cancer
    model = cls(n_trees=10, random_state=0, max_levels=1, level_estimators=[("lr", logistic())])
    vectors = model.fit_transform(X_train, y_train)
    assert vectors.shape == (len(y_train), 5 * 2)  # 4 forests and the member, 2 classes each
    # the folds the level dealt: a forest-free cascade with the same seed deals the same ones
    members_only = cls(
        n_trees=10, random_state=0, max_levels=1, forests=[], level_estimators=[("lr", logistic())]
    )
    alone = members_only.fit_transform(X_train, y_train)
    np.testing.assert_array_equal(alone, vectors[:, 8:])
    folds = list(members_only._deal_folds(np.asarray(y_train), _split_seed(0), None))
    # the member reads the level's input as the trees read it, float32
    X32 = X_train.astype(np.float32)
    expected = cross_val_predict(logistic(), X32, y_train, cv=folds, method="predict_proba")
    np.testing.assert_allclose(alone, expected)


def _split_seed(random_state: int) -> int:
    """The first level's split seed: the first draw of the estimator's stream."""
    from disdf._utils.random_seeds import SEED_HIGH

    return int(np.random.RandomState(random_state).randint(SEED_HIGH))


def test_members_join_every_level_and_their_importances_count_where_they_have_them(cancer):
    X_train, X_test, y_train, y_test = cancer
    members = [
        ("lr", logistic()),
        ("knn", KNeighborsClassifier()),
        ("tree", DecisionTreeClassifier(max_depth=3)),
    ]
    model = CascadeForestClassifier(n_trees=20, random_state=0, level_estimators=members).fit(
        X_train, y_train
    )
    assert [forest.kind for forest in model.levels_[0].forests][-3:] == ["lr", "knn", "tree"]
    widths = [importances.shape for importances in model.level_feature_importances_]
    assert widths == [(X_train.shape[1] + 7 * 2 * q,) for q in range(model.n_levels_)]  # 7 members, 2 classes
    assert model.feature_importances_.sum() == pytest.approx(1.0)
    assert model.score(X_test, y_test) > 0.9
    loaded = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(loaded.predict_proba(X_test), model.predict_proba(X_test))


def test_an_unseeded_member_is_seeded_and_jobs_change_nothing(cancer):
    X_train, X_test, y_train, _ = cancer
    members = [("tree", DecisionTreeClassifier(max_features=3))]  # random feature draws, random_state None
    one, two = (
        CascadeForestClassifier(n_trees=10, random_state=1, n_jobs=jobs, level_estimators=members).fit(
            X_train, y_train
        )
        for jobs in (1, 2)
    )
    np.testing.assert_array_equal(one.predict_proba(X_test), two.predict_proba(X_test))


def test_disdf_weighs_a_member_one(cancer):
    X_train, _, y_train, _ = cancer
    model = DisDFClassifier(n_trees=10, random_state=0, level_estimators=[("lr", logistic())]).fit(
        X_train, y_train
    )
    for level in model.weights_:
        member_weights = level[-1]
        assert all(np.array_equal(w, [1.0]) for w in member_weights)


def test_a_regressor_takes_regressors(tmp_path):
    X, y = load_diabetes(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    model = CascadeForestRegressor(
        n_trees=20, random_state=0, level_estimators=[("ridge", Ridge())],
        keep_fitted_levels="disk", fitted_levels_dir=tmp_path,
    ).fit(X_train, y_train)  # fmt: skip
    assert model.transform(X_test).shape == (len(X_test), 5)
    assert model.score(X_test, y_test) > 0.25


def test_bad_members_are_refused_naming_level_estimators(cancer):
    X_train, _, y_train, _ = cancer
    bad = [
        ([LogisticRegression()], "not a \\(name, estimator\\) pair"),
        ([("lr", LogisticRegression), ("x", logistic())], "must be an estimator instance"),
        ([("a", logistic()), ("a", logistic())], "names 'a' twice"),
        ([("ridge", Ridge())], "predict_proba"),
    ]
    for members, message in bad:
        with pytest.raises(InvalidParameterError, match=message):
            CascadeForestClassifier(level_estimators=members).fit(X_train, y_train)
    with pytest.raises(InvalidParameterError, match="empty only with level_estimators"):
        CascadeForestClassifier(forests=[]).fit(X_train, y_train)
    with pytest.raises(ValueError, match="member 'knn' takes no sample_weight"):
        CascadeForestClassifier(level_estimators=[("knn", KNeighborsClassifier())]).fit(
            X_train, y_train, sample_weight=np.linspace(1.0, 2.0, len(y_train))
        )
