"""A level's independent tasks, run in threads, or in place when there is one job."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from joblib import effective_n_jobs
from sklearn.utils.parallel import Parallel, delayed

Result = TypeVar("Result")


def run_tasks(tasks: Iterable[Callable[[], Result]], n_jobs: int | None) -> list[Result]:
    """Every task's result, in the tasks' order.

    With more than one job the tasks run in threads through scikit-learn's ``Parallel``, which
    carries the configuration and warning filters into them. With one (``n_jobs`` None or 1, or
    -1 on one core; ``Parallel(n_jobs=None)`` runs one job too) they are called in place: the
    same calls in the same order, so the same numbers, without ``Parallel``'s set-up per task
    (about 30 µs, more than some of a small split's tasks; the protocol fits its cascades with
    one job per process).
    """
    if n_jobs is None or effective_n_jobs(n_jobs) == 1:
        return [task() for task in tasks]
    return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(task)() for task in tasks)
