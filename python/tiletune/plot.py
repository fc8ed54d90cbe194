"""Tuning curves: best value found so far against the number of trials.

One curve per problem and algorithm: measurements of different problems (or
of different tuning runs) are never pooled into one curve, since their
GFLOP/s are not comparable trial by trial. The input is what
`tiletune export` writes (one JSON object per measurement and line).
"""

import json

# The fields a curve is keyed by, by default.
DEFAULT_GROUP = ("problem", "algorithm")


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
    """Records of a `tiletune export` JSON Lines file. A line that is not a
    JSON object is a ValueError naming the file and line."""
    records = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError("%s:%d: not JSON: %s" % (path, number, e.msg))
            if not isinstance(record, dict):
                raise ValueError("%s:%d: not a JSON object" % (path, number))
            records.append(record)
    return records


def curves_from_records(records, value="gflops", group=DEFAULT_GROUP):
    """Groups exported measurements into one sequence of `value` (None for a
    failed trial) per distinct combination of the `group` fields, each in
    trial order.

    The keys are tuples of the `group` fields' values (by default
    `(problem, algorithm)`); a single field name as `group` gives plain
    string keys. When one key has measurements from several tuning runs
    (the same problem tuned twice with one algorithm, on two machines, ...),
    each run is a curve of its own, keyed with "run N" appended.
    """
    single = isinstance(group, str)
    fields = (group,) if single else tuple(group)
    runs = {}
    for index, r in enumerate(records):
        key = tuple(str(r.get(f, "?")) for f in fields)
        ok = r.get("status", "ok") == "ok"
        trial = r.get("trial", index)
        runs.setdefault(key, {}).setdefault(r.get("run"), []).append(
            (trial, index, r.get(value) if ok else None))
    curves = {}
    for key, by_run in runs.items():
        for run, points in by_run.items():
            points.sort(key=lambda p: (p[0], p[1]))
            name = key if len(by_run) == 1 else key + ("run %s" % run,)
            if single:
                name = " / ".join(name)
            curves[name] = [p[2] for p in points]
    return curves


def curve_label(key):
    """The legend entry of a curve key: "problem / algorithm"."""
    return key if isinstance(key, str) else " / ".join(key)


def plot_curves(curves, path, ylabel="best GFLOP/s", title=None):
    """Writes a PNG with one best-so-far line per entry of `curves` (as made
    by curves_from_records) and returns the matplotlib Figure. With the
    default keys the colour names the algorithm and the line style the
    problem."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = sorted(curves, key=lambda k: (k,) if isinstance(k, str) else k)
    problems, algorithms = [], []
    for k in keys:
        if not isinstance(k, str) and len(k) >= 2:
            if k[0] not in problems:
                problems.append(k[0])
            if k[1] not in algorithms:
                algorithms.append(k[1])
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = ["-", "--", ":", "-."]

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, key in enumerate(keys):
        ys = best_so_far(curves[key])
        style = {}
        if not isinstance(key, str) and len(key) >= 2:
            style["color"] = colors[algorithms.index(key[1]) % len(colors)]
            style["linestyle"] = styles[problems.index(key[0]) % len(styles)]
        ax.plot(range(1, len(ys) + 1),
                [y if y is not None else float("nan") for y in ys],
                label=curve_label(key), **style)
    ax.set_xlabel("trials")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if keys:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return fig


def plot_export(jsonl_path, png_path, value="gflops", group=DEFAULT_GROUP,
                **kwargs):
    """Reads a `tiletune export` file and writes its tuning curves (one per
    problem and algorithm) to `png_path`; returns the curves drawn."""
    curves = curves_from_records(load_jsonl(jsonl_path), value=value,
                                 group=group)
    plot_curves(curves, png_path, **kwargs)
    return curves
