"""Tuning curves: best value found so far against the number of trials."""

import json


def best_so_far(values, higher_is_better=True):
    """Running best of a sequence (None entries are failed trials)."""
    best, out = None, []
    for v in values:
        if v is not None and (best is None or
                              (v > best if higher_is_better else v < best)):
            best = v
        out.append(best)
    return out


def load_jsonl(path):
    """Records of a `tiletune export` JSON Lines file."""
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def curves_from_records(records, value="gflops", group="algorithm"):
    """Groups exported measurements into per-`group` sequences of `value`
    (None for failed trials), in the order they were recorded."""
    curves = {}
    for r in records:
        ok = r.get("status", "ok") == "ok"
        curves.setdefault(str(r.get(group, "?")), []).append(
            r.get(value) if ok else None)
    return curves


def plot_curves(curves, path, ylabel="best GFLOP/s", title=None):
    """Writes a PNG with one best-so-far line per entry of `curves`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for name, values in sorted(curves.items()):
        ys = best_so_far(values)
        ax.plot(range(1, len(ys) + 1), [y if y is not None else float("nan")
                                        for y in ys], label=name)
    ax.set_xlabel("trials")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend()
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
