"""One fit across a Dask cluster: under joblib's Dask backend a cascade's tasks (its fold models, their
held-out leaf rows, DisDF's weight problems) run on the cluster's workers, and the fit is the local one."""

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.datasets import make_classification

from disdf import CascadeForestClassifier, DisDFClassifier

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


@pytest.mark.parametrize("estimator", [CascadeForestClassifier, DisDFClassifier])
def test_a_fit_on_a_two_worker_cluster_has_the_local_trees(client, estimator):
    X, y = make_classification(n_samples=400, n_features=10, n_informative=5, n_classes=3, random_state=0)
    params = {"n_trees": 12, "random_state": 3, "engine": "binned", "n_jobs": 2}
    local = estimator(**params).fit(X, y)
    with distributed.get_task_stream(client) as stream, parallel_config(backend="dask"):
        remote = estimator(**params).fit(X, y)
    # the level's fold models (4 forests x 3 folds per level) ran as tasks on both workers
    assert len(stream.data) >= 12 * local.n_levels_
    assert len({task["worker"] for task in stream.data}) == 2
    np.testing.assert_array_equal(remote.predict_proba(X), local.predict_proba(X))
    assert remote.level_scores_ == local.level_scores_
