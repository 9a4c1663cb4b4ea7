"""Records as the runner writes them, for tests of the readers (made up: only their form matters)."""

from experiments.running.records import signed


def a_record(**changes):
    """A valid record of ecoli (the fields the tables read), with ``changes``, signed as the runner
    signs what it writes."""
    record = {
        "dataset": "ecoli",
        "config_hash": "c",
        "N": 30,
        "T": 10,
        "method": "gcforest",
        "repetition": 0,
        "split_units": 2,
        "accuracy": 0.5,
        "n_test": 20,
        "n_levels": 1,
        "level_scores": [0.5],
        "fit_seconds": 0.1,
        "predict_seconds": 0.01,
    }
    return signed({**record, **changes})
