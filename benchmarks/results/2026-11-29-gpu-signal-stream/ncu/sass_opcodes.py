"""Executed SASS instructions by opcode, per grid point, from an Nsight
Compute source page exported as CSV (on the device:
ncu --import REPORT --page source --print-source sass --csv
--kernel-name regex:signal_members > sass-TREE.csv).  The export lists
the kernel's instructions twice, and each report holds LAUNCHES launches,
so the counts are divided by both.

    python sass_opcodes.py sass-main30.csv.xz POINTS LAUNCHES"""
import collections
import csv
import lzma
import re
import sys

path, points, launches = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = list(csv.reader(lzma.open(path, "rt") if path.endswith(".xz") else open(path)))
header = rows[1]
source, executed = header.index("Source"), header.index("Instructions Executed")
by_opcode = collections.Counter()
for row in rows[2:]:
    try:
        count = int(row[executed].replace(",", ""))
    except (IndexError, ValueError):
        continue
    text = re.sub(r"^@!?U?P\w+\s+", "", row[source].strip())  # the predicate
    by_opcode[text.split()[0].split(".")[0] if text else "?"] += count
scale = 32 / points / launches / 2  # warp instructions to thread instructions a point; the listing twice
print(f"{sum(by_opcode.values()) * scale:.0f} instructions a point")
for opcode, count in by_opcode.most_common(24):
    print(f"  {opcode:10s} {count * scale:7.1f}")
