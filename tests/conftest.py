import ipaddress
import os
import socket
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_classification


def shared_data_dir() -> Path | None:
    """DISDF_DATA_DIR (set by `make test` to ../shared/data when it exists)."""
    chosen = os.environ.get("DISDF_DATA_DIR")
    return Path(chosen) if chosen and Path(chosen).is_dir() else None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    path = shared_data_dir()
    if path is None:
        pytest.skip("real-data test: set DISDF_DATA_DIR to the shared data folder (make test does)")
    return path


@pytest.fixture(scope="session")
def three_class_data() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_classification(
        n_samples=90, n_features=6, n_informative=4, n_redundant=0, n_classes=3, random_state=0
    )
    return X, y


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Nothing in a test may reach the network: a connection to a non-loopback address fails."""
    connect = socket.socket.connect

    def guarded(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6):
            host = address[0]
            try:
                loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
            except ValueError:
                loopback = False
            if not loopback:
                raise ConnectionError(f"tests must not use the network (tried to connect to {address})")
        return connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
