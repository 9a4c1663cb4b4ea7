"""gcForest and DisDF on the full MNIST training set (60,000 x 784, T = 100): accuracy, time, memory.

Usage: python scripts/tools/mnist_full.py experiment=mnist_full [full_mnist.n_train=10000] [runtime.n_jobs=2]

Writes results/mnist_full.csv, results/mnist_full_history.csv and its section of
results/REPORT.md when run with the committed settings (`make mnist-full`); any other
run (a slice, another solver, fewer workers) writes build/mnist_full/ unless the command
sets runtime.output_dir, and is refused if that is results/. See experiments/drivers/full_mnist.py
for what is measured and how.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's disdf, experiments, scripts

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from experiments.drivers.full_mnist import run_full_mnist, run_output_dir
from experiments.running.command_line import refuse_bad_command_line
from experiments.running.composition import CONFIG_PATH


@hydra.main(version_base=None, config_path=CONFIG_PATH, config_name="config")
def main(cfg: DictConfig) -> None:
    cfg.runtime.output_dir = run_output_dir(cfg, list(HydraConfig.get().overrides.task))
    run_full_mnist(cfg)


if __name__ == "__main__":
    refuse_bad_command_line()  # a bad override: one line, exit 2, before Hydra starts
    main()
