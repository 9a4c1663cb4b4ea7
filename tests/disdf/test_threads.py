"""run_tasks: the tasks' results in order, whatever the number of jobs; in place with one job."""

import threading

import pytest

from disdf._utils.threads import run_tasks


def _task(value):
    return lambda: (value, threading.get_ident())


@pytest.mark.parametrize("n_jobs", [None, 1, 2, -1])
def test_results_come_in_the_order_of_the_tasks(n_jobs):
    results = run_tasks((_task(value) for value in range(20)), n_jobs)
    assert [value for value, _ in results] == list(range(20))


@pytest.mark.parametrize("n_jobs", [None, 1])
def test_one_job_calls_the_tasks_in_the_calling_thread(n_jobs):
    results = run_tasks([_task(value) for value in range(5)], n_jobs)
    assert {thread for _, thread in results} == {threading.get_ident()}


@pytest.mark.parametrize("n_jobs", [2, 3])
def test_more_jobs_run_the_tasks_at_once(n_jobs):
    release = threading.Barrier(2, timeout=10)

    def wait_for_the_other():  # breaks the barrier (an error) unless two tasks run at once
        release.wait()
        return threading.get_ident()

    assert len(set(run_tasks([wait_for_the_other, wait_for_the_other], n_jobs))) == 2


def test_an_error_in_a_task_reaches_the_caller():
    def failing():
        raise ValueError("task 3 failed")

    with pytest.raises(ValueError, match="task 3 failed"):
        run_tasks([_task(1), failing], 1)
    with pytest.raises(ValueError, match="task 3 failed"):
        run_tasks([_task(1), failing], 2)
