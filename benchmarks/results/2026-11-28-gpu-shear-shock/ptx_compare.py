"""Whether a change leaves every existing GPU function's code as it was:
compares two PTX files function by function (labels and local depots
renumbered), listing functions that differ, vanished or are new.
  usage: python3 ptx_compare.py BEFORE.ptx AFTER.ptx
(PTX from: nvcc -O3 -std=c++14 -Xcompiler -fPIC -Icsrc -arch=sm_90 -ptx csrc/cuda/kernels_f32.cu)"""
import re
import sys


def functions(path):
    found = {}
    for part in re.split(r"\n(?=(?:\.visible |\.weak )?\.(?:entry|func) )", open(path).read()):
        m = re.match(r"(?:\.visible |\.weak )?\.(?:entry|func) (?:\([^)]*\) )?(\S+?)\(", part)
        if m:
            body = re.sub(r"\n\s*// \.globl.*", "", part)  # the next function's marker
            found[m.group(1)] = re.sub(r"\$L__BB\d+_", "$L__BB_", re.sub(r"__local_depot\d+", "__local_depot", body))
    return found


before, after = functions(sys.argv[1]), functions(sys.argv[2])
differ = [f for f in before if f in after and before[f] != after[f]]
print(f"{sys.argv[1]} -> {sys.argv[2]}: {len(before)} functions before, {len(after)} after; "
      f"{len(before) - len(differ) - len(set(before) - set(after))} identical, {len(differ)} differ, "
      f"{len(set(before) - set(after))} gone, {len(set(after) - set(before))} new")
for f in differ:
    print("  differs:", f)
for f in sorted(set(after) - set(before)):
    print("  new:", f[:100])
