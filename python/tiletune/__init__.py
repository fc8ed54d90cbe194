"""TileTune: operator spaces and search strategies of the auto-tuner.

The compiled part lives in ``_tiletune``; ``tiletune.plot`` draws tuning
curves from a database export (``tiletune export``).
"""

from ._tiletune import (Space, Strategy, build_space, paper_matmul_space,
                        strategies)

__all__ = ["Space", "Strategy", "build_space", "paper_matmul_space",
           "strategies", "run_search"]


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
