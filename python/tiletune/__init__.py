"""TileTune: the auto-tuner's operator spaces, search strategies and tuning
flows.

* ``tune``, ``apply``, ``default_config``, ``problems``: the flows of the
  ``tiletune`` CLI on MLIR text (the same C++ code; results go to the same
  tuning database).
* ``Space``, ``Strategy``, ``build_space``, ``paper_matmul_space``,
  ``strategies``, ``run_search``: the search core, for custom objectives.

The compiled part lives in ``_tiletune``; ``tiletune.plot`` draws tuning
curves from a database export (``tiletune export``).
"""

from ._tiletune import (Space, Strategy, apply, build_space, default_config,
                        paper_matmul_space, problems, strategies, tune)

__all__ = ["Space", "Strategy", "apply", "build_space", "default_config",
           "paper_matmul_space", "problems", "strategies", "tune",
           "run_search"]


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
