"""The figure of docs/performance/scaling.md: GPU time of each part of a
split substep (hydro, float32, 256^3 a rank) for each step of the change,
from the phases logs beside this file.

    python3 phases_figure.py docs/figures/substep_phases.png
"""
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = [("run2", "messages in one round,\npacked (4 GPUs)"), ("run3-x2", "+ x and y read\nin place"),
        ("run4-x2", "+ field to field\nby the copy engine"), ("run5-x2", "+ shell beside\nthe inner part")]
PARTS = ["prefill", "pack", "unpack", "shell"]
COLOURS = {"prefill": "tab:red", "pack": "tab:orange", "unpack": "tab:purple", "shell": "tab:blue"}


def parts(run):
    """µs a substep of each part but the inner part, from the hydro line of the run's phases.log."""
    line = next(x for x in open(os.path.join(HERE, run, "phases.log")) if x.startswith("phases") and "hydro" in x)
    found = {name: float(us) for name, us in re.findall(r"(prefill|pack|inner|unpack|shell [\w ]+?) ([\d.]+)", line)}
    out = {p: found.get(p, 0.0) for p in PARTS[:3]}
    out["shell"] = sum(us for name, us in found.items() if name.startswith("shell"))
    return out, found["inner"]


fig, ax = plt.subplots(figsize=(6.4, 3.4))
for row, (run, label) in enumerate(RUNS):
    measured, inner = parts(run)
    left = 0.0
    for p in PARTS:
        ax.barh(row, measured[p], left=left, color=COLOURS[p], label=p if row == 0 else None)
        left += measured[p]
    ax.text(left + 2, row, f"{left:.0f} µs, and {inner:.0f} µs the inner part", va="center", fontsize=7)
ax.set_yticks(range(len(RUNS)), [label for _, label in RUNS], fontsize=7)
ax.invert_yaxis()
ax.set_xlim(0, 260)
ax.set_xlabel("GPU time a substep outside the inner part (µs), hydro float32, 256³ a GPU")
ax.legend(fontsize=7, loc="lower right")
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=130)
print(sys.argv[1])
