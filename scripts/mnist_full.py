"""gcForest and DisDF on the full MNIST training set (60,000 x 784, T = 100): accuracy, time, memory.

Usage: python scripts/mnist_full.py experiment=mnist_full [full_mnist.n_train=10000] [runtime.n_jobs=2]

Writes results/mnist_full.csv and its section of results/REPORT.md; see
experiments/full_mnist.py for what is measured and how.
"""

from __future__ import annotations

import hydra
from omegaconf import DictConfig

from experiments.composition import CONFIG_PATH
from experiments.full_mnist import run_full_mnist


@hydra.main(version_base=None, config_path=CONFIG_PATH, config_name="config")
def main(cfg: DictConfig) -> None:
    run_full_mnist(cfg)


if __name__ == "__main__":
    main()
