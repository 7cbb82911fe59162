"""Where `train`, `bench`, batch `review` and `pc --percent` do their work: this machine, or a Ray cluster.

A job is a list of tasks (whole games, whole replays, chunks of queues), and a module-level function that does one
(`fn(task) -> value`, picklable by reference). Every backend returns the values **in task order**, whatever order
they finish in, so a job's result depends only on its tasks: the same seeds give the same weights, the same bench
numbers, reviews and PC counts on either backend.

- `local` (the default, nothing to install): this process for one worker, else a spawn process pool whose workers
  load the compiled kernels once and ignore Ctrl+C (the parent stops them).
- `ray`: one actor per worker (`num_cpus=1` each) on a Ray cluster (`--address auto`, `host:port`,
  `ray://host:port`) or on a local Ray instance started for the run (no `--address`). Each actor loads the
  compiled kernels once and plays many batches; two batches are in flight per actor so none waits for the
  driver. Ray is the optional extra `cluster` and is imported only here, only when asked for.

`close(abort=True)` (Ctrl+C, an error) kills the actors or terminates the pool, and stops a Ray instance the run
started, so nothing is left running.
"""

from __future__ import annotations

import argparse
import importlib.util
import logging
import math
import os
import signal
import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, Protocol

BACKENDS = ("local", "ray")
INSTALL_HINT = 'pip install -e ".[cluster]" (or pip install "ray>=2.9")'
MAX_LOCAL_WORKERS = max(4, os.cpu_count() or 1)  # more processes than cores only slow each other down
MAX_RAY_WORKERS = 10_000
ACTOR_RESTARTS = 3  # a lost actor is restarted (elsewhere if its node is gone) and its unfinished calls retried
IN_FLIGHT = 2  # batches queued per actor: the next one is there when the current one ends
BATCHES_PER_WORKER = 4  # automatic batch size: about this many batches per worker and job
PROBE_SECONDS = 5.0


class BackendError(RuntimeError):
    """The backend could not start (the address, the workers asked for); one line for the CLI."""

    exit_status = 2  # the commands' exit status for it


class WorkerFailed(BackendError):
    """A worker failed beyond what restarts cover; one line for the CLI."""

    exit_status = 1


def add_arguments(parser: argparse.ArgumentParser, *, with_workers: bool = False) -> None:
    """--backend and --address; with `with_workers` also --workers (train and bench word their own)."""
    if with_workers:
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            help="local: processes, 1 (default: this one) to the number of CPUs; ray: actors (default one per free "
            "CPU of the cluster); never more than there are tasks",
        )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="local",
        help="local: this machine (default); ray: actors on a Ray cluster (pip extra 'cluster')",
    )
    parser.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: a running cluster (auto, host:port or ray://host:port); "
        "default: start a local Ray instance for this run",
    )


def ray_available() -> bool:
    return importlib.util.find_spec("ray") is not None


def check_arguments(args: argparse.Namespace, *, max_local_workers: int) -> str | None:
    """The first problem with --backend, --address and --workers (None: a backend default), without importing Ray."""
    if args.backend == "local":
        if args.address is not None:
            return "--address needs --backend ray"
        if args.workers is not None and not 1 <= args.workers <= max_local_workers:
            return f"--workers must be 1..{max_local_workers:,}, got {args.workers}"
        return None
    if args.workers is not None and not 1 <= args.workers <= MAX_RAY_WORKERS:
        return f"--workers must be 1..{MAX_RAY_WORKERS:,} with --backend ray, got {args.workers}"
    if args.address is not None:
        problem = _check_address(args.address)
        if problem:
            return problem
    if not ray_available():
        return f"--backend ray needs Ray, which is not installed: {INSTALL_HINT}"
    return None


def _split_address(address: str) -> tuple[str, int] | None:
    """(host, port) of host:port or ray://host:port; None for auto."""
    if address == "auto":
        return None
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isascii() or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"--address must be auto, host:port or ray://host:port, got {address!r}")
    return host.strip("[]"), int(port)


def _check_address(address: str) -> str | None:
    try:
        _split_address(address)
    except ValueError as error:
        return str(error)
    return None


def warm_kernels() -> None:
    """Load the compiled move generator and evaluator (numba's cache; compiled the first time after an install)."""
    from ai.search import accelerated_modules

    for module in accelerated_modules():
        module.warm_up()


def _run_batch(job: tuple[Callable[[Any], Any], int, Sequence[Any]]) -> tuple[int, list[Any]]:
    fn, start, tasks = job
    return start, [fn(task) for task in tasks]


def _batches(count: int, size: int) -> list[tuple[int, int]]:
    return [(start, min(count, start + size)) for start in range(0, count, size)]


def auto_batch(count: int, workers: int) -> int:
    return max(1, math.ceil(count / (workers * BATCHES_PER_WORKER)))


class Backend(Protocol):
    name: str
    workers: int

    def map(
        self,
        fn: Callable[[Any], Any],
        tasks: Sequence[Any],
        *,
        on_result: Callable[[int, Any], None] | None = None,
        batch: int | None = None,
    ) -> list[Any]: ...

    def close(self, *, abort: bool = False) -> None: ...


def _start_local_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the parent's: it terminates the pool
    warm_kernels()


class LocalBackend:
    """This process (one worker) or a spawn process pool (several). A pool process that dies (killed, out of
    memory) is a WorkerFailed, not a wait for ever."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._pool: Any = None
        if workers > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_local_worker
            )

    def map(
        self,
        fn: Callable[[Any], Any],
        tasks: Sequence[Any],
        *,
        on_result: Callable[[int, Any], None] | None = None,
        batch: int | None = None,
    ) -> list[Any]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        results: list[Any] = [None] * len(tasks)
        if self._pool is None:
            for index, task in enumerate(tasks):
                results[index] = fn(task)
                if on_result:
                    on_result(index, results[index])
            return results
        size = batch or auto_batch(len(tasks), self.workers)
        pending = {
            self._pool.submit(_run_batch, (fn, start, tasks[start:end])) for start, end in _batches(len(tasks), size)
        }
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    start, values = future.result()
                except BrokenProcessPool:
                    raise WorkerFailed("a worker process died (killed, or out of memory?)") from None
                for offset, value in enumerate(values):
                    results[start + offset] = value
                    if on_result:
                        on_result(start + offset, value)
        return results

    def close(self, *, abort: bool = False) -> None:
        """Wait for the processes to leave; with `abort`, cancel what has not started and terminate them."""
        if self._pool is None:
            return
        if abort:
            processes = list((getattr(self._pool, "_processes", None) or {}).values())  # no public way before 3.14
            self._pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            for process in processes:
                process.join(timeout=10)
        self._pool.shutdown(wait=True)
        self._pool = None


class GameActor:
    """A Ray actor: loads the kernels once, then plays batches of tasks."""

    def __init__(self) -> None:
        warm_kernels()

    def ready(self) -> int:
        return os.getpid()

    def run(self, fn: Callable[[Any], Any], tasks: Sequence[Any]) -> list[Any]:
        return [fn(task) for task in tasks]


def _ray_failure(error: BaseException) -> WorkerFailed:
    cause = getattr(error, "cause", None) or error
    text = str(cause).strip().splitlines()
    return WorkerFailed(f"a Ray worker failed: {type(cause).__name__}: {text[-1] if text else ''}".rstrip(": "))


class RayBackend:
    """Actors on a Ray cluster (`address`), or on a local Ray instance started for the run (`address` None)."""

    name = "ray"

    def __init__(
        self,
        workers: int | None = None,
        address: str | None = None,
        *,
        num_cpus: int | None = None,
        at_most: int | None = None,
    ) -> None:
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # nothing leaves the machine unless asked
        if address is not None:
            _token_auth_if_token()  # read by Ray at import
        try:
            import ray
        except ImportError:
            raise BackendError(f"--backend ray needs Ray, which is not installed: {INSTALL_HINT}") from None
        self._ray = ray
        self.actors: list[Any] = []
        self.actor_pids: list[int] = []
        self.started_here = address is None
        self.address = address
        if address is not None:
            _probe(address)
        try:
            if address is None:
                cpus = num_cpus or workers or os.cpu_count() or 1
                with _sigint_blocked_for_children():
                    ray.init(
                        address="local",
                        num_cpus=cpus,
                        include_dashboard=False,
                        log_to_driver=False,
                        logging_level=logging.ERROR,
                    )
            else:
                ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise BackendError(
                f"cannot start Ray at {address or 'a local instance'}: "
                f"{str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__}"
            ) from None
        except BaseException:  # Ctrl+C while Ray starts: stop what it started
            if ray.is_initialized():
                ray.shutdown()
            raise
        try:
            # One actor per CPU: an actor asking for a CPU that no node has free would wait for ever.
            self.cluster_cpus = int(ray.cluster_resources().get("CPU", 0))
            free = int(ray.available_resources().get("CPU", 0))
            self.workers = workers or free
            if not 1 <= self.workers <= free:
                raise BackendError(
                    f"--workers {self.workers} is more than the {free} free CPUs of the Ray cluster "
                    f"({self.cluster_cpus} in all; one actor per CPU)"
                    if workers
                    else f"no free CPU in the Ray cluster ({self.cluster_cpus} in all)"
                )
            if at_most is not None:  # a job of few tasks: an actor with nothing to do would only load the kernels
                self.workers = max(1, min(self.workers, at_most))
            # Tasks are pure functions of their arguments, so a call that a lost actor (a dead node) did not finish
            # is simply played again on the actor Ray restarts.
            options = {"num_cpus": 1, "max_restarts": ACTOR_RESTARTS, "max_task_retries": ACTOR_RESTARTS}
            actor_class = ray.remote(**options)(GameActor)  # type: ignore[call-overload]  # ray's stubs lack these keywords
            self.actors = [actor_class.remote() for _ in range(self.workers)]
            try:
                self.actor_pids = ray.get([actor.ready.remote() for actor in self.actors])
            except ray.exceptions.RayError as error:
                raise _ray_failure(error) from None
        except BaseException:
            self.close(abort=True)
            raise

    def map(
        self,
        fn: Callable[[Any], Any],
        tasks: Sequence[Any],
        *,
        on_result: Callable[[int, Any], None] | None = None,
        batch: int | None = None,
    ) -> list[Any]:
        ray = self._ray
        results: list[Any] = [None] * len(tasks)
        waiting = deque(_batches(len(tasks), batch or auto_batch(len(tasks), self.workers)))
        pending: dict[Any, tuple[Any, int]] = {}

        def submit(actor: Any) -> None:
            start, end = waiting.popleft()
            pending[actor.run.remote(fn, list(tasks[start:end]))] = (actor, start)

        for _ in range(IN_FLIGHT):
            for actor in self.actors:
                if waiting:
                    submit(actor)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                actor, start = pending.pop(ref)
                try:
                    values = ray.get(ref)
                except ray.exceptions.RayError as error:
                    raise _ray_failure(error) from None
                for offset, value in enumerate(values):
                    results[start + offset] = value
                    if on_result:
                        on_result(start + offset, value)
                if waiting:
                    submit(actor)
        return results

    def close(self, *, abort: bool = False) -> None:
        """Kill the actors (their work is the run's: nothing else may use them) and disconnect; a Ray instance the
        run started stops with it."""
        ray = self._ray
        for actor in self.actors:
            with suppress(Exception):  # already gone: its node died, or the cluster is shutting down
                ray.kill(actor)
        self.actors = []
        if ray.is_initialized():
            ray.shutdown()


@contextmanager
def _sigint_blocked_for_children() -> Iterator[None]:
    """SIGINT blocked in this thread while Ray starts its processes, which inherit the block: a terminal's Ctrl+C
    (sent to the whole process group) then reaches only this process, which stops them in order (a raylet killed
    by it mid-start left its agents running). A Ctrl+C meanwhile is delivered as the block ends."""
    try:
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    except (AttributeError, OSError, ValueError):  # no POSIX signal masks here
        yield
        return
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _probe(address: str) -> None:
    """A quick TCP connect to host:port (Ray itself retries an unreachable address for minutes)."""
    where = _split_address(address)
    if where is None:
        return
    try:
        with socket.create_connection(where, timeout=PROBE_SECONDS):
            pass
    except OSError as error:
        raise BackendError(
            f"cannot reach a Ray cluster at {address}: {error.strerror or error} (start one with `ray start --head`)"
        ) from None


def _token_auth_if_token() -> None:
    """Connect with token authentication when this machine has a Ray token and RAY_AUTH_MODE is unset, as
    `ray start` does for the nodes (a cluster started where a token exists requires it)."""
    if "RAY_AUTH_MODE" in os.environ:
        return
    from pathlib import Path

    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or str(Path.home() / ".ray" / "auth_token")
    if os.environ.get("RAY_AUTH_TOKEN") or os.path.isfile(path):
        os.environ["RAY_AUTH_MODE"] = "token"


def open_backend(name: str, workers: int | None, address: str | None = None, *, at_most: int | None = None) -> Backend:
    """Start a backend; BackendError (one line) if it cannot start. `at_most`: the job has only that many tasks, so
    no more workers than that are started (whatever --workers or the cluster's size would give)."""
    if name == "local":
        count = workers or 1
        return LocalBackend(count if at_most is None else max(1, min(count, at_most)))
    if name == "ray":
        return RayBackend(workers, address, at_most=at_most)
    raise BackendError(f"unknown backend {name!r}")


@contextmanager
def opened(
    name: str, workers: int | None, address: str | None = None, *, at_most: int | None = None, progress: Any = None
) -> Iterator[Backend]:
    """open_backend for a `with` block. When the block ends the progress bar (if any) and the backend close; on any
    exception (Ctrl+C included) they close at once, the backend aborted and a second Ctrl+C held meanwhile, and the
    exception goes on."""
    backend = open_backend(name, workers, address, at_most=at_most)
    try:
        yield backend
    except BaseException:
        with sigint_ignored():
            if progress is not None:
                progress.close()
            backend.close(abort=True)
        raise
    if progress is not None:
        progress.close()
    backend.close()


class InOrder:
    """An `on_result` callback that hands the values on in task order as soon as every earlier task is done: a
    long job's output can be printed as it goes and still be the same on every backend."""

    def __init__(self, emit: Callable[[int, Any], None]) -> None:
        self._emit = emit
        self._waiting: dict[int, Any] = {}
        self.emitted = 0  # tasks handed on so far (all of them before index `emitted`)

    def __call__(self, index: int, value: Any) -> None:
        self._waiting[index] = value
        while self.emitted in self._waiting:
            self._emit(self.emitted, self._waiting.pop(self.emitted))
            self.emitted += 1


@contextmanager
def sigint_ignored() -> Iterator[None]:
    """Hold a second Ctrl+C while the first one's clean-up runs (main thread only)."""
    try:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class Progress:
    """A progress bar with ETA on stderr, only when stderr is a terminal: tqdm when installed, else a plain one."""

    def __init__(self, total: int, description: str = "", *, enabled: bool = True, unit: str = "game") -> None:
        stream = sys.stderr
        self.enabled = enabled and total > 0 and stream.isatty()
        self.total, self.done, self.unit, self.description = total, 0, unit, description
        self._postfix = ""
        self._tqdm = None
        self._started = time.perf_counter()
        self._drawn = 0.0
        if self.enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                return
            self._tqdm = tqdm(total=total, desc=description, unit=unit, file=stream, dynamic_ncols=True, smoothing=0.05)

    def update(self, count: int = 1) -> None:
        self.done += count
        if not self.enabled:
            return
        if self._tqdm is not None:
            self._tqdm.update(count)
        elif time.perf_counter() - self._drawn > 0.2 or self.done == self.total:
            self._draw()

    def describe(self, description: str, postfix: str = "") -> None:
        self.description, self._postfix = description, postfix
        if self._tqdm is not None:
            self._tqdm.set_description_str(description, refresh=False)
            self._tqdm.set_postfix_str(postfix)
        elif self.enabled:
            self._draw()

    def write(self, line: str) -> None:
        """A line above the bar (or just the line, without a terminal)."""
        if self._tqdm is not None:
            self._tqdm.write(line, file=sys.stderr)
            return
        if self.enabled:
            print("\r\x1b[K", end="", file=sys.stderr)
        print(line, file=sys.stderr, flush=True)
        if self.enabled:
            self._draw()

    def _draw(self) -> None:
        self._drawn = time.perf_counter()
        elapsed = self._drawn - self._started
        eta = elapsed / self.done * (self.total - self.done) if self.done else float("nan")
        filled = 30 * self.done // self.total
        text = (
            f"\r{self.description} [{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} {self.unit}s "
            f"{_clock(elapsed)} ETA {_clock(eta)} {self._postfix}"
        )
        print(text.rstrip() + "\x1b[K", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()
        elif self.enabled:
            print(file=sys.stderr, flush=True)
        self.enabled = False


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "--:--"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes:02d}:{secs:02d}"
