"""What the forced last substep issues beyond the unforced second substep,
instruction by instruction: Nsight Compute's SASS page of the three
substeps of one forced 256^3 float32 step (the same kernel: the forcing and
the reduction run where the step's last substep is given them), per grid
point, by opcode, with the warp-stall samples in those instructions:

    python3 forced_extra.py call3/lines-forced-hydro-f32-sass.csv.xz
"""
import collections
import csv
import lzma
import sys

path = sys.argv[1]
rows = list(csv.reader((lzma.open if path.endswith(".xz") else open)(path, "rt")))
kernels, current = [], None
for row in rows:
    if row and row[0] == "Kernel Name":
        current = {"rows": []}
        kernels.append(current)
    elif row and row[0] == "Address":
        current["header"] = row
    elif current is not None and row and row[0].startswith("0x"):
        current["rows"].append(row)
launches = kernels[::2]  # the export repeats each launch
plain, forced = launches[1], launches[2]  # the second substep, and the last one (forced, reducing)
header = plain["header"]
executed, samples = header.index("Instructions Executed"), header.index("Warp Stall Sampling (All Samples)")
warps = 256 ** 3 / 32
by_op, extra_samples = collections.Counter(), 0
for a, b in zip(plain["rows"], forced["rows"]):
    more = int(b[executed]) - int(a[executed])
    if more:
        words = b[1].split()
        by_op[words[1] if words[0].startswith("@") else words[0]] += more / warps
        extra_samples += int(b[samples])
print(f"instructions a point beyond the second substep: {sum(by_op.values()):.1f}")
for op, n in by_op.most_common():
    if n >= 0.5:
        print(f"  {op:16s} {n:5.1f}")
total = [sum(int(r[samples]) for r in k["rows"]) for k in (plain, forced)]
print(f"warp-stall samples: second substep {total[0]}, last {total[1]}, in its extra instructions {extra_samples}")
