"""The model group's YAML is the schema of ``model``: no third copy of the methods' values. A new
estimator parameter is the estimator plus two YAML lines (its value in configs/model/disdf.yaml, its
wiring in configs/method/disdf.yaml), and adding it at the estimator's default changes no hash."""

import pytest

from experiments.running.composition import compose_config, config_hash
from experiments.running.config import check_known_keys, model_defaults


def test_the_model_keys_are_the_yamls():
    assert set(compose_config("experiment=smoke").model) == set(model_defaults())
    with pytest.raises(ValueError, match=r"model\.lamda_; the keys of model are .*'lambda_'"):
        check_known_keys(compose_config("experiment=smoke", "+model.lamda_=1"))


def test_a_parameter_added_at_its_estimator_default_moves_every_hash():
    """min_samples_leaf (a DisDFClassifier parameter, default 1) stands for a parameter added later: the
    hash covers the whole model, so even at the default it is another hash (the committed records are
    then moved by experiments.drivers.rehash_records, CONTRIBUTING.md recipe (d))."""
    smoke = config_hash(compose_config("experiment=smoke"))
    at_default = config_hash(compose_config("experiment=smoke", "+model.min_samples_leaf=1"))
    assert (
        len({smoke, at_default, config_hash(compose_config("experiment=smoke", "+model.min_samples_leaf=2"))})
        == 3
    )
    assert at_default == config_hash(compose_config("experiment=smoke", "+model.min_samples_leaf=1"))


def test_a_value_takes_the_yamls_type():
    """model.tau=1 on the command line is the YAML's 1.0: the same units, the same hash."""
    smoke = config_hash(compose_config("experiment=smoke"))
    assert config_hash(compose_config("experiment=smoke", "model.tau=1", "model.lambda_=1")) == smoke
    assert config_hash(compose_config("experiment=smoke", "model.tau=2")) != smoke
