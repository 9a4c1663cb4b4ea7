"""sample_weight and class_weight on the estimators: no weights and weights of 1 are the same fit bit
for bit, class_weight is the sample_weight it stands for, the level score is the weighted out-of-fold
accuracy, and bad weights are refused naming the parameter before any tree grows."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.class_weight import compute_sample_weight

import disdf.cascade._cascade
import disdf.cascade._cascade_base
from disdf import (
    CascadeForestClassifier,
    DisDFClassifier,
    InvalidParameterError,
    MultiGrainedScanner,
    PlainForestClassifier,
)

ENGINES = ("fast", "binned", "sklearn")
CASCADES = (CascadeForestClassifier, DisDFClassifier)


@pytest.fixture(scope="module")
def skewed_data():
    """90 examples of 6 features in 3 classes of 50, 28 and 12 examples (balanced weights differ)."""
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], [50, 28, 12])
    X = rng.normal(size=(90, 6)) + 0.7 * y[:, None]
    return X, y


def fitted_numbers(model, X) -> dict:
    """What a fit decides, to compare bit for bit: scores, depth, tree weights, probabilities, vectors."""
    numbers = {"proba": model.predict_proba(X)}
    if hasattr(model, "levels_"):
        numbers |= {
            "scores": np.array(model.level_scores_),
            "levels": model.n_levels_,
            "weights": [w for level in model.weights_ for forest in level for w in forest],
            "vectors": model.transform(X),
        }
    return numbers


def assert_same_numbers(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for name in a:
        if name == "weights":
            assert len(a[name]) == len(b[name])
            for wa, wb in zip(a[name], b[name], strict=True):
                np.testing.assert_array_equal(wa, wb)
        else:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def assert_not_same_numbers(a: dict, b: dict) -> None:
    assert not all(np.array_equal(a[name], b[name]) for name in ("proba", "scores") if name in a)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("estimator", CASCADES)
def test_weights_of_one_are_no_weights_bit_for_bit(skewed_data, estimator, engine):
    X, y = skewed_data
    options = {"n_trees": 6, "max_levels": 3, "engine": engine, "random_state": 0}
    unweighted = fitted_numbers(estimator(**options).fit(X, y), X)
    ones = fitted_numbers(estimator(**options).fit(X, y, sample_weight=np.ones(len(y))), X)
    assert_same_numbers(unweighted, ones)
    # and the weights do reach the fit: other weights, other numbers
    other = fitted_numbers(estimator(**options).fit(X, y, sample_weight=1.0 + (y == 2)), X)
    assert_not_same_numbers(unweighted, other)


@pytest.mark.parametrize("engine", ENGINES)
def test_the_plain_forest_and_the_scanner_take_weights_of_one_as_none(skewed_data, engine):
    X, y = skewed_data
    for estimator in (
        PlainForestClassifier(n_trees=5, engine=engine, random_state=0),
        MultiGrainedScanner(window_sizes=[3], n_trees=4, engine=engine, random_state=0),
    ):
        method = "predict_proba" if hasattr(estimator, "predict_proba") else "transform"
        unweighted = getattr(estimator.fit(X, y), method)(X)
        ones = getattr(estimator.fit(X, y, sample_weight=np.ones(len(y))), method)(X)
        np.testing.assert_array_equal(unweighted, ones)
        weighted = getattr(estimator.fit(X, y, sample_weight=1.0 + (y == 2)), method)(X)
        assert not np.array_equal(unweighted, weighted)


@pytest.mark.parametrize(
    "estimator",
    [
        CascadeForestClassifier(n_trees=6, max_levels=2, random_state=0),
        CascadeForestClassifier(n_trees=6, max_levels=2, engine="sklearn", random_state=0),
        DisDFClassifier(n_trees=6, max_levels=2, random_state=0),
        DisDFClassifier(n_trees=6, max_levels=2, solver="stochastic_frank_wolfe", random_state=0),
        PlainForestClassifier(n_trees=5, random_state=0),
        MultiGrainedScanner(window_sizes=[3], n_trees=4, random_state=0),
    ],
    ids=["gcForest", "gcForest-sklearn", "DisDF", "DisDF-stochastic", "plain", "scanner"],
)
@pytest.mark.parametrize("class_weight", ["balanced", {0: 1.0, 1: 2.5, 2: 0.5}])
def test_class_weight_is_the_sample_weight_it_stands_for(skewed_data, estimator, class_weight):
    """class_weight fits exactly what its compute_sample_weight passed as sample_weight fits, and
    it multiplies a given sample_weight."""
    X, y = skewed_data
    method = "transform" if isinstance(estimator, MultiGrainedScanner) else "predict_proba"
    by_class = estimator.set_params(class_weight=class_weight).fit(X, y)
    expected = getattr(by_class, method)(X)
    by_rows = estimator.set_params(class_weight=None).fit(
        X, y, sample_weight=compute_sample_weight(class_weight, y)
    )
    np.testing.assert_array_equal(getattr(by_rows, method)(X), expected)
    if hasattr(by_class, "level_scores_"):
        assert by_class.level_scores_ == by_rows.level_scores_
    rows = np.linspace(0.5, 2.0, len(y))
    both = getattr(estimator.set_params(class_weight=class_weight).fit(X, y, sample_weight=rows), method)(X)
    product = rows * compute_sample_weight(class_weight, y)
    by_product = estimator.set_params(class_weight=None).fit(X, y, sample_weight=product)
    np.testing.assert_array_equal(getattr(by_product, method)(X), both)


def test_class_weight_with_string_labels_names_labels(skewed_data):
    X, y = skewed_data
    labels = np.array(["a", "b", "c"])[y]
    options = {"n_trees": 6, "max_levels": 2, "random_state": 0}
    by_label = CascadeForestClassifier(**options, class_weight={"a": 1.0, "b": 2.0, "c": 3.0}).fit(X, labels)
    by_rows = CascadeForestClassifier(**options).fit(X, labels, sample_weight=1.0 + y)
    np.testing.assert_array_equal(by_label.predict_proba(X), by_rows.predict_proba(X))


@pytest.mark.parametrize("estimator", CASCADES)
def test_the_level_score_is_the_weighted_out_of_fold_accuracy(skewed_data, estimator):
    """The kept level's score is sum_i s_i [correct_i] / sum_i s_i over its out-of-fold vectors (those
    fit_transform returns), and every level's score is computed with the fit's weights (the depth
    test of test_cascade.py shows the score picks the depth)."""
    X, y = skewed_data
    weights = np.where(y == 2, 4.0, 1.0) * np.linspace(0.2, 1.0, len(y))
    model = estimator(n_trees=6, max_levels=3, random_state=0)
    vectors = model.fit_transform(X, y, sample_weight=weights)
    predicted = np.argmax(vectors.reshape(len(y), -1, 3).sum(axis=1), axis=1)
    weighted = np.sum(weights * (predicted == y)) / np.sum(weights)
    assert model.level_scores_[model.n_levels_ - 1] == pytest.approx(weighted, abs=1e-12)
    assert weighted != pytest.approx(np.mean(predicted == y), abs=1e-3)  # the weights matter here


def test_every_level_is_scored_with_the_fit_s_weights(monkeypatch, skewed_data):
    X, y = skewed_data
    weights = 1.0 + (y == 1)
    received = []
    scores = iter([0.5, 0.6, 0.55])

    def spy(vectors, y_code, sample_weight=None):
        received.append(sample_weight)
        return next(scores)

    monkeypatch.setattr(disdf.cascade._cascade, "level_accuracy", spy)
    model = CascadeForestClassifier(n_trees=4, max_levels=3, random_state=0).fit(X, y, sample_weight=weights)
    assert model.level_scores_ == [0.5, 0.6, 0.55] and model.n_levels_ == 2
    assert len(received) == 3 and all(np.array_equal(w, weights) for w in received)


class WeightRecordingLogisticRegression(LogisticRegression):
    """A predictor that keeps the sample_weight its fit received."""

    def fit(self, X, y, sample_weight=None):
        self.received_weight_ = sample_weight
        return super().fit(X, y, sample_weight=sample_weight)


def test_the_predictor_is_fitted_with_the_weights(skewed_data):
    X, y = skewed_data
    weights = np.where(y == 2, 5.0, 1.0)
    predictor = WeightRecordingLogisticRegression(max_iter=500)
    model = CascadeForestClassifier(n_trees=6, max_levels=2, random_state=0, predictor=predictor)
    np.testing.assert_array_equal(model.fit(X, y, sample_weight=weights).predictor_.received_weight_, weights)
    assert model.fit(X, y).predictor_.received_weight_ is None


def test_a_predictor_without_sample_weight_is_refused_before_any_work(skewed_data, monkeypatch):
    X, y = skewed_data
    monkeypatch.setattr(disdf.cascade._cascade_base, "grow_level_models", pytest.fail)
    model = CascadeForestClassifier(predictor=KNeighborsClassifier())
    with pytest.raises(ValueError, match=r"predictor KNeighborsClassifier\(\) takes no sample_weight"):
        model.fit(X, y, sample_weight=1.0 + y)
    with pytest.raises(ValueError, match=r"takes no sample_weight"):
        model.set_params(class_weight="balanced").fit(X, y)


BAD_SAMPLE_WEIGHTS = [
    (np.ones(5), r"sample_weight must be .*sample_weight.shape == \(5,\), expected \(90,\)"),
    (-np.ones(90), r"sample_weight must be .*Negative values in data passed to `sample_weight`"),
    (np.full(90, np.nan), r"sample_weight must be .*contains NaN"),
    (np.zeros(90), r"sample_weight must not be 0 for every example|sample_weight must be .*non-zero"),
    (np.ones((90, 2)), r"sample_weight must be .*1D array"),
]


@pytest.mark.parametrize(("weights", "message"), BAD_SAMPLE_WEIGHTS)
@pytest.mark.parametrize(
    "estimator",
    [
        CascadeForestClassifier(),
        DisDFClassifier(),
        PlainForestClassifier(),
        MultiGrainedScanner(window_sizes=[3]),
    ],
    ids=lambda estimator: type(estimator).__name__,
)
def test_bad_sample_weights_are_refused_naming_sample_weight_before_any_work(
    skewed_data, monkeypatch, estimator, weights, message
):
    X, y = skewed_data
    for module in ("disdf.forests._plain", "disdf.scanning._scanner", "disdf.cascade._cascade_base"):
        target = "grow_level_models" if module.endswith("_cascade_base") else "fit_fold_model"
        monkeypatch.setattr(f"{module}.{target}", pytest.fail)
    with pytest.raises(ValueError, match=rf"^{type(estimator).__name__}: {message}"):
        estimator.fit(X, y, sample_weight=weights)


BAD_CLASS_WEIGHTS = [
    ("balanced_subsample", InvalidParameterError, r"class_weight='balanced_subsample' is not supported"),
    ("uniform", InvalidParameterError, r"class_weight must be None, 'balanced' or a dict"),
    ([{0: 1.0}], InvalidParameterError, r"class_weight must be None, 'balanced' or a dict"),
    ({0: -1.0}, InvalidParameterError, r"class_weight\[0\] must be a finite number >= 0; got -1.0"),
    ({0: "heavy"}, InvalidParameterError, r"class_weight\[0\] must be a finite number >= 0"),
    ({0: True}, InvalidParameterError, r"class_weight\[0\] must be a finite number >= 0"),
    ({0: 1.0, 7: 2.0}, ValueError, r"class_weight does not fit the labels of y"),
    ({0: 0.0, 1: 0.0, 2: 0.0}, ValueError, r"sample_weight times class_weight is 0 for every example"),
]


@pytest.mark.parametrize(("class_weight", "error", "message"), BAD_CLASS_WEIGHTS)
@pytest.mark.parametrize(
    "estimator",
    [CascadeForestClassifier, DisDFClassifier, PlainForestClassifier, MultiGrainedScanner],
    ids=lambda estimator: estimator.__name__,
)
def test_bad_class_weights_are_refused_naming_class_weight(
    skewed_data, estimator, class_weight, error, message
):
    X, y = skewed_data
    with pytest.raises(error, match=rf"^{estimator.__name__}: {message}"):
        estimator(class_weight=class_weight).fit(X, y)


def test_a_shared_first_level_carries_the_class_weights(skewed_data):
    """The runner's fit_sharing_first_level grows level 1 once: with class weights it gives each
    estimator what its own fit gives, class_weight must agree (it decides level 1), and a level
    grown with other example weights is refused."""
    from sklearn.base import clone

    from disdf.cascade._shared_first_level import fit_sharing_first_level

    X, y = skewed_data
    class_weight = {0: 1.0, 1: 2.0, 2: 4.0}
    estimators = [
        estimator(n_trees=n_trees, max_levels=2, class_weight=class_weight, random_state=3)
        for n_trees in (4, 8)
        for estimator in CASCADES
    ]
    alone = [clone(estimator).fit(X, y) for estimator in estimators]
    fit_sharing_first_level(estimators, X, y)
    for shared, reference in zip(estimators, alone, strict=True):
        assert shared.level_scores_ == reference.level_scores_
        np.testing.assert_array_equal(shared.predict_proba(X), reference.predict_proba(X))
    with pytest.raises(ValueError, match=r"differs from estimators\[0\] in \['class_weight'\]"):
        fit_sharing_first_level([estimators[0], clone(estimators[0]).set_params(class_weight=None)], X, y)
    level = clone(estimators[0])._grow_first_level(X, y)
    with pytest.raises(ValueError, match="grown with other example weights than this fit's"):
        clone(estimators[0]).set_params(class_weight=None)._fit_with_first_level(X, y, level)


def test_weights_that_leave_a_fold_model_with_no_weight_are_named_in_the_users_terms():
    """One example of weight 100, every other 0: the fold that holds it out would train on nothing.
    The error counts the user's examples of weight > 0, not a forest's internal training rows."""
    from sklearn.datasets import load_iris

    from disdf import CascadeForestClassifier, DisDFClassifier

    X, y = load_iris(return_X_y=True)
    weights = np.zeros(len(y))
    weights[0] = 100.0
    for estimator in (CascadeForestClassifier, DisDFClassifier):
        with pytest.raises(ValueError, match=r"weight > 0 to only 1 of 150 examples.*held-out part of fold"):
            estimator(n_trees=3, random_state=0).fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("scale", [1e9, 1e30, 1e300])
def test_extreme_weights_fit_gcf_and_are_refused_by_disdf_in_one_line(scale):
    """gcF's trees and level score read only the weights' ratios: any finite scale fits, with the
    trees of weights 2. DisDF's pairs weigh s_i s_j against lambda_ (not scale-invariant): refused
    before any work, naming sample_weight and the remedy."""
    from sklearn.datasets import load_iris

    from disdf import CascadeForestClassifier, DisDFClassifier

    X, y = load_iris(return_X_y=True)
    scaled = CascadeForestClassifier(n_trees=5, random_state=0).fit(
        X, y, sample_weight=np.full(len(y), scale)
    )
    plain = CascadeForestClassifier(n_trees=5, random_state=0).fit(X, y, sample_weight=np.full(len(y), 2.0))
    np.testing.assert_array_equal(scaled.predict_proba(X), plain.predict_proba(X))
    with pytest.raises(
        ValueError, match=r"sample_weight .* reaches .* Divide sample_weight by its mean"
    ) as refused:
        DisDFClassifier(n_trees=5, random_state=0).fit(X, y, sample_weight=np.full(len(y), scale))
    assert "\n" not in str(refused.value)
    DisDFClassifier(n_trees=5, random_state=0).fit(
        X, y, sample_weight=np.full(len(y), 1e6)
    )  # the largest taken
