"""Multi-grained scanning: folds of whole examples, output shapes, refusals, determinism, estimator checks.

scikit-learn's estimator checks pass with no declared deviation. ``check_transformer_general``
compares ``fit_transform(X, y)`` (out-of-fold vectors) with ``fit(X, y).transform(X)`` (in-sample)
within 0.01: on its well-separated blobs the two agree; on harder data they need not (the cascades
declare that check an expected failure, tests/disdf/test_estimator_checks.py).
"""

import numpy as np
import pytest
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import disdf.scanning._scanner as scanner_module
from disdf import CascadeForestClassifier, DisDFClassifier
from disdf._utils.parameters import InvalidParameterError
from disdf.scanning import MultiGrainedScanner, scanning_pipeline
from disdf.scanning._windows import WindowGeometry, default_window_sizes

SMALL = {"n_trees": 4, "random_state": 0}


def images(n=30, side=8, seed=0):
    """n side x side images of 3 classes: a bright square whose corner depends on the class."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = rng.random((n, side, side)) * 0.3
    for i, label in enumerate(y):
        r = (side - 3) * (label % 2)
        c = (side - 3) * (label // 2)
        X[i, r : r + 3, c : c + 3] += 1.0
    return X.reshape(n, -1), y


def test_every_window_of_a_held_out_example_is_unseen_by_its_fold_models(monkeypatch):
    """Each example's pixels all equal its index, so a training window's values name its example:
    the windows each fold model trained on come from its fold's training examples only, and every
    example is held out of exactly one fold."""
    n, side = 24, 6
    X = np.repeat(np.arange(n, dtype=float)[:, None], side * side, axis=1)
    y = np.arange(n) % 2
    seen = []
    real_fit = scanner_module.fit_fold_model

    def recording_fit(kind, params, engine, windows, labels, **options):
        seen.append(np.unique(windows))
        return real_fit(kind, params, engine, windows, labels, **options)

    monkeypatch.setattr(scanner_module, "fit_fold_model", recording_fit)
    model = MultiGrainedScanner(image_shape=(side, side), window_sizes=[2, 3], n_folds=3, **SMALL).fit(X, y)
    trains = model.fold_train_examples_
    assert len(seen) == 2 * 2 * 3  # window sizes x forests x folds, in that order
    for index, values in enumerate(seen):
        train = trains[index % 3]
        assert set(values.astype(int)) == set(train)  # every training example's windows, no other
    held_out = [np.setdiff1d(np.arange(n), train) for train in trains]
    assert sorted(np.concatenate(held_out)) == list(range(n))  # each example held out exactly once


def test_output_shapes_1d_and_2d():
    X, y = images(n=24, side=8)
    two_d = MultiGrainedScanner(image_shape=(8, 8), window_sizes=[3, 5], strides=[1, 2], **SMALL)
    Z = two_d.fit_transform(X, y)
    # 3 x 3 windows: 6 x 6 positions; 5 x 5 with stride 2: 2 x 2; 2 forests, 3 classes
    assert Z.shape == (24, 2 * 3 * (36 + 4)) == (24, two_d.n_features_out_)
    assert two_d.transform(X[:5]).shape == (5, Z.shape[1])
    one_d = MultiGrainedScanner(window_sizes=[4, 16], strides=3, **SMALL)
    Z = one_d.fit_transform(X, y)  # 64 features: (64-4)//3+1 = 21 and (64-16)//3+1 = 17 positions
    assert Z.shape == (24, 2 * 3 * (21 + 17))
    # each forest's block is a class distribution per position
    np.testing.assert_allclose(Z.reshape(24, -1, 3).sum(axis=2), 1.0)


def test_windows_read_the_image_row_by_row():
    X = np.arange(2 * 16, dtype=np.float32).reshape(2, 16)
    windows = WindowGeometry(16, (4, 4), size=2, stride=2).instances(X)
    assert windows.shape == (2 * 4, 4)
    np.testing.assert_array_equal(windows[0], [0, 1, 4, 5])
    np.testing.assert_array_equal(windows[3], [10, 11, 14, 15])
    np.testing.assert_array_equal(windows[4], [16, 17, 20, 21])  # the second image's first window


def test_default_windows_are_gcforests():
    assert default_window_sizes(784, (28, 28)) == [7, 10, 14]
    assert default_window_sizes(400, None) == [25, 50, 100]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"window_sizes": [3, 9]}, "window_sizes"),  # larger than the 8 x 8 image
        ({"window_sizes": [0]}, "window_sizes"),
        ({"window_sizes": [2.5]}, "window_sizes"),
        ({"window_sizes": [True]}, "window_sizes"),
        ({"window_sizes": []}, "window_sizes"),
        ({"strides": 0}, "strides"),
        ({"strides": [1, 2, 3]}, "strides"),
        ({"image_shape": (8,)}, "image_shape"),
        ({"n_trees": 0}, "n_trees"),
    ],
)
def test_bad_parameters_are_refused_by_name_before_any_work(monkeypatch, params, message):
    monkeypatch.setattr(scanner_module, "fit_fold_model", pytest.fail)  # no forest may be grown
    X, y = images(n=12, side=8)
    scanner = MultiGrainedScanner(**{"image_shape": (8, 8), "window_sizes": [3], **params})
    with pytest.raises(InvalidParameterError, match=message):
        scanner.fit(X, y)


def test_an_image_shape_that_is_not_the_features_is_refused():
    X, y = images(n=12, side=8)
    with pytest.raises(ValueError, match=r"image_shape=\(7, 7\) has 49 pixels but X has 64 features"):
        MultiGrainedScanner(image_shape=(7, 7), window_sizes=[3]).fit(X, y)


def test_a_window_longer_than_a_vector_is_refused():
    X, y = images(n=12, side=4)
    with pytest.raises(InvalidParameterError, match=r"window_sizes.*larger than the input.*16 features"):
        MultiGrainedScanner(window_sizes=[17]).fit(X, y)


def test_deterministic_under_a_seed_and_independent_of_n_jobs():
    X, y = images(n=24, side=8)
    params = {"image_shape": (8, 8), "window_sizes": [3, 4], **SMALL}
    one = MultiGrainedScanner(**params, n_jobs=1)
    two = MultiGrainedScanner(**params, n_jobs=2)
    np.testing.assert_array_equal(one.fit_transform(X, y), two.fit_transform(X, y))
    np.testing.assert_array_equal(one.transform(X[:7]), two.transform(X[:7]))
    other = MultiGrainedScanner(**{**params, "random_state": 1}).fit_transform(X, y)
    assert not np.array_equal(other, one.fit_transform(X, y))


def test_transform_in_batches_is_the_same():
    X, y = images(n=24, side=8)
    params = {"image_shape": (8, 8), "window_sizes": [3], **SMALL}
    whole = MultiGrainedScanner(**params, batch_size=100).fit(X, y).transform(X)
    batched = MultiGrainedScanner(**params, batch_size=5).fit(X, y).transform(X)
    np.testing.assert_array_equal(whole, batched)


@pytest.mark.parametrize("cascade", [CascadeForestClassifier, DisDFClassifier])
def test_in_front_of_both_cascades(cascade):
    X, y = images(n=36, side=8)
    pipeline = scanning_pipeline(
        MultiGrainedScanner(image_shape=(8, 8), window_sizes=[3]), cascade(), n_trees=5, random_state=3
    )
    assert isinstance(pipeline, Pipeline)
    assert pipeline.named_steps["cascade"].n_trees == 5
    assert pipeline.named_steps["scan"].random_state == pipeline.named_steps["cascade"].random_state == 3
    pipeline.fit(X[:24], y[:24])
    assert pipeline.score(X[24:], y[24:]) > 0.5  # the class is where the bright square is


def test_the_cascade_is_grown_on_the_out_of_fold_scan():
    X, y = images(n=24, side=8)
    scanner = MultiGrainedScanner(image_shape=(8, 8), window_sizes=[3], **SMALL)
    pipeline = Pipeline([("scan", scanner), ("cascade", CascadeForestClassifier(**SMALL))]).fit(X, y)
    direct = CascadeForestClassifier(**SMALL).fit(
        MultiGrainedScanner(image_shape=(8, 8), window_sizes=[3], **SMALL).fit_transform(X, y), y
    )
    np.testing.assert_array_equal(pipeline.predict_proba(X), direct.predict_proba(scanner.transform(X)))


@pytest.mark.slow
@parametrize_with_checks(
    [MultiGrainedScanner(n_trees=3, random_state=0)],
    # as for the cascades (test_estimator_checks.py): the K folds of repeated examples are not those
    # of weighted ones, and copies of one example straddle folds
    expected_failed_checks=lambda estimator: {
        "check_sample_weight_equivalence_on_dense_data": "repeated examples are split into other folds"
    },
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_the_default_windows_of_a_short_vector_are_each_listed_once():
    """d = 10 gave gcForest's divisors the windows 1, 1 and 2: two scanners of one window."""
    from disdf.scanning._windows import default_window_sizes

    assert default_window_sizes(10, None) == [1, 2]
    assert default_window_sizes(784, (28, 28)) == [7, 10, 14]  # MNIST's, as the committed runs used
