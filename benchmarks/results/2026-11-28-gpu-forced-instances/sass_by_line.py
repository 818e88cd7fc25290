"""FP64 operations (DFMA, DMUL, DADD) of two kernels' SASS by source line,
and the lines where the counts differ:

    python3 sass_by_line.py solo.txt member.txt

The inputs: `nvdisasm -g -c` of a cubin built with -lineinfo, cut to one
kernel each (device.sh, parts 1 and 4; .xz files are read as they are).
"""
import collections
import lzma
import re
import sys


def counts(path):
    opener = lzma.open if path.endswith(".xz") else open
    found, where = collections.Counter(), None
    with opener(path, "rt") as text:
        for line in text:
            at = re.search(r'//## File "([^"]+)", line (\d+)', line)
            if at:
                where = (at.group(1).split("/")[-1], int(at.group(2)))
                continue
            op = re.search(r"\b(DFMA|DMUL|DADD)\b", line)
            if op and where:
                found[where + (op.group(1),)] += 1
    return found


a, b = counts(sys.argv[1]), counts(sys.argv[2])
for op in ("DFMA", "DMUL", "DADD"):
    print(op, sum(n for k, n in a.items() if k[2] == op), sum(n for k, n in b.items() if k[2] == op))
for key in sorted(set(a) | set(b)):
    if a[key] != b[key]:
        print(*key, a[key], b[key])
