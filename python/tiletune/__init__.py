"""TileTune: the auto-tuner's operator spaces, search strategies and tuning
flows.

* ``tune``, ``apply``, ``default_config``, ``problems``: the flows of the
  ``tiletune`` CLI on MLIR text (the same C++ code; results go to the same
  tuning database). ``tune`` returns ``ProblemResult`` objects and calls a
  ``callback`` with a ``Progress`` object after every measured variant.
* ``Space``, ``Strategy``, ``build_space``, ``paper_matmul_space``,
  ``strategies``, ``run_search``: the search core, for custom objectives.
* ``__version__`` (and ``__git_revision__``): the version of the build.

The compiled part lives in ``_tiletune``; ``tiletune.plot`` draws tuning
curves from a database export (``tiletune export``).
"""

import dataclasses
from typing import Optional

from . import _tiletune
from ._tiletune import (Space, Strategy, apply, build_space, default_config,
                        paper_matmul_space, problems, strategies)

__version__ = _tiletune.__version__
__git_revision__ = _tiletune.__git_revision__

__all__ = ["ProblemResult", "Progress", "Space", "Strategy", "apply",
           "build_space", "default_config", "paper_matmul_space", "problems",
           "strategies", "tune", "tune_model", "run_search", "__version__"]


class _Record:
    """Attributes of a plain record, also readable as ``r["name"]``."""

    def __getitem__(self, name):
        if name not in self.keys():
            raise KeyError(name)
        return getattr(self, name)

    def keys(self):
        return [f.name for f in dataclasses.fields(self)]

    def to_dict(self):
        """The fields as a dict (the same as ``dataclasses.asdict``)."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class ProblemResult(_Record):
    """What tuning one problem (a set of identical ops) gave.

    Times are the median per call in seconds; times and GFLOP/s are None
    when not measured correctly.
    """
    problem: str             # problem key, as in the database
    ops: int                 # ops of the module with this problem
    run: int                 # database id of the run
    status: str              # "finished" or "interrupted" (resumable)
    stop_reason: str         # "budget", "time", "exhausted", "stopped", ...
    trials: int              # default + search measurements of the run
    replayed: int            # of them read back from the database (resume)
    best_key: str            # config key of the winner ("" when none)
    best_config: str         # the winner's #tiletune.config ("" when none)
    best_seconds: Optional[float]
    best_gflops: Optional[float]
    default_seconds: Optional[float]
    default_gflops: Optional[float]
    best_is_default: bool
    seconds: float           # tuning time of the run

    @property
    def tuned(self):
        """Whether a variant ran correctly (its config is on the ops)."""
        return bool(self.best_config)


@dataclasses.dataclass(frozen=True)
class Progress(_Record):
    """One measured variant, as ``tune``'s callback sees it."""
    problem: str             # the problem being tuned
    problem_index: int       # its index among the module's problems
    num_problems: int
    config: str              # config key of the variant
    role: str                # "default", "search" or "final"
    status: str              # "ok" or why it failed ("compile_error", ...)
    message: str             # the failure's reason
    seconds: Optional[float]  # median time per call, None unless ok
    gflops: Optional[float]
    replayed: bool           # read back from the database (resume)
    trials: int              # measurements of this problem so far
    max_trials: int          # the trial budget (0: none)
    best_config: str         # the best config key so far ("" before one)
    best_seconds: Optional[float]
    best_gflops: Optional[float]
    elapsed: float           # tuning time of this problem so far


def tune(mlir, *args, callback=None, **kwargs):
    """Tunes every tunable op of `mlir` (MLIR text) by measuring real
    variants, exactly as ``tiletune tune`` does, and records every
    measurement in the database `db` (default: the user's tuning database).

    Options (keywords; the defaults are the CLI's): ``algorithm``,
    ``trials``, ``seconds``, ``threads``, ``seed``, ``db``, ``fix``,
    ``paired``, ``resume``, ``target``, ``progress`` (the CLI's progress
    bar on stderr) and ``algorithm_options``: the algorithm's options as a
    dict (``{"rho": 3}``) or a ``"name=value,..."`` string (``tiletune
    algorithms`` lists them), and ``warm_start``: ``"db"`` (default) seeds
    each problem's search with the adapted best configs of similar problems
    in the database, ``"none"`` does not (as ``--warm-start``), and
    ``protocol``: ``"default"``, or ``"paper"`` to run every algorithm as
    its paper's experiments did (as ``--protocol``), and ``weights``:
    ``"model"`` (default) times each op's weights where a run of the module
    has them, pushed out of the caches by the other ops' weights,
    ``"warm"`` where the previous call left them (as ``--weights``).

    `callback(progress)`: called with a ``Progress`` after every measured
    variant; returning False stops the run (what was measured stays in the
    database; ``resume=True`` continues it). An exception raised by the
    callback (or Ctrl-C) stops the run and propagates.

    Returns ``(annotated module text, [ProblemResult, ...])``. Bad options
    raise ValueError before anything is measured; a problem of which every
    measurement failed gives a RuntimeWarning.
    """
    wrapped = None
    if callback is not None:
        if not callable(callback):
            raise TypeError("callback must be callable")

        def wrapped(event):
            return callback(Progress(**event))
    text, results, model = _tiletune.tune(mlir, *args, callback=wrapped,
                                          **kwargs)
    if model is not None:
        return text, [ProblemResult(**r) for r in results], model
    return text, [ProblemResult(**r) for r in results]


def tune_model(mlir, time_budget, *args, **kwargs):
    """Tunes the whole model `mlir` within `time_budget` (seconds, or a
    duration such as ``"90s"``, ``"10m"``, ``"1h"``), as ``tiletune tune
    --time-budget`` does: rounds of trials go to the op that matters most
    for the model's end-to-end time and is still improving, and the whole
    model is run before and after. Other options as for ``tune``.

    Returns ``(annotated module text, [ProblemResult, ...], model)`` where
    `model` is a dict: ``seconds_before`` and ``seconds_after`` (the whole
    model's median time per call, the two measured in alternation; None when
    it could not be run, ``error`` says why), ``ratio`` (the median of each
    tuned sample's time over the untuned samples around it; below 1: faster),
    ``kept_previous`` (True when the tuned configs ran slower end to end,
    ratio above 1 twice, and the module kept the configs it had), ``untuned``
    (problems the budget left unmeasured) and ``skipped`` (ops that were not
    tuned, with their share of the FLOPs).
    """
    return tune(mlir, *args, time_budget=time_budget, **kwargs)


def run_search(strategy, objective, budget, batch=8):
    """Runs `strategy` against a Python `objective(key) -> cost or None`.

    None means the config failed (it is observed as a runtime error). Returns
    the list of (key, cost) in measurement order.
    """
    history = []
    while len(history) < budget and not strategy.done:
        trials = strategy.propose(min(batch, budget - len(history)))
        if not trials:
            break
        for trial_id, key in trials:
            cost = objective(key)
            if cost is None:
                strategy.observe(trial_id, key, status="runtime_error")
            else:
                strategy.observe(trial_id, key, cost)
            history.append((key, cost))
    return history
