"""Per-round medians and ratios from compare.sh's log: python summary.py LOG"""
import re
import statistics
import sys
from collections import defaultdict

rows = defaultdict(lambda: ([], []))
for line in open(sys.argv[1]):
    m = re.match(r"round \d+ (\S+) (\S+): pencil (\S+) ours (\S+)", line)
    if m:
        phys, label, p, a = m.groups()
        rows[(label, phys)][0].append(float(p))
        rows[(label, phys)][1].append(float(a))
print(f"| build | physics | Pencil us/pt/step | ours us/pt/step | Pencil / ours | rounds |")
print(f"| --- | --- | --- | --- | --- | --- |")
for (label, phys), (p, a) in rows.items():
    ratios = [x / y for x, y in zip(p, a)]
    print(f"| {label} | {phys} | {statistics.median(p):.3f} | {statistics.median(a):.4f} | "
          f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}) | {len(p)} |")
