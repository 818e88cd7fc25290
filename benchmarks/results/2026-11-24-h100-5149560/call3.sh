#!/usr/bin/env bash
# Device call 3 (session 14): the SASS opcode mix of the MHD+entropy float32
# streaming instance (and MHD float32 for comparison), from a cubin of
# csrc/cuda/kernels_f32.cu at main.
set -u
nvcc -O3 -std=c++14 -Icsrc -arch=sm_90 -cubin -o /tmp/k32.cubin csrc/cuda/kernels_f32.cu || exit 1
cuobjdump -sass /tmp/k32.cubin > /tmp/k32.sass
python3 - <<'PY' | tee "$OUT/sass-mix.log"
import re, collections
text = open("/tmp/k32.sass").read()
funcs = re.split(r"\n\s*Function : ", text)
want = {"_Z25stream_substep_kernel_f32ILj7ELi32ELi4ELi1ELi0ELb0E": "MHD+entropy f32 {32,4,1}",
        "_Z25stream_substep_kernel_f32ILj3ELi32ELi8ELi2ELi0ELb0E": "MHD f32 {32,8,2}",
        "_Z25stream_substep_kernel_f32ILj5ELi32ELi8ELi2ELi0ELb0E": "hydro+entropy f32 {32,8,2}",
        "_Z25stream_substep_kernel_f32ILj1ELi32ELi8ELi2ELi0ELb0E": "hydro f32 {32,8,2}"}
for f in funcs[1:]:
    name = f.split("\n", 1)[0].strip()
    label = next((v for k, v in want.items() if name.startswith(k)), None)
    if not label:
        continue
    ops = re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(?:\.[A-Z0-9_.]+)?", f)
    c = collections.Counter(ops)
    total = sum(c.values())
    print(f"== {label}: {total} static instructions")
    for op, n in c.most_common(18):
        print(f"   {op:10s} {n:6d}  {100 * n / total:5.1f} %")
PY
# dynamic: executed instructions per opcode of one MHD+entropy float32 substep
T=$PWD/.trees
( cd "$T/main" && python3 setup.py build_ext --inplace > "$OUT/build3-main.log" 2>&1 )
{ echo "# device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); date: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); commit: 5149560"
  echo "# command: ncu --profile-from-start off -k regex:stream_substep --launch-count 1 --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum --print-metric-instances values python3 kernels_entropy.py mhd float32"
  (cd "$T/main" && PYTHONPATH=$PWD timeout 150 /usr/local/cuda/bin/ncu --profile-from-start off -k regex:stream_substep --launch-count 1 --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum --print-metric-instances values python3 "$T/kernels_entropy.py" mhd float32 2>&1 | grep -v "^==PROF==" | cut -c1-3000); } > "$OUT/ncu-opcodes.log" 2>&1
tail -5 "$OUT/ncu-opcodes.log" | cut -c1-1500
