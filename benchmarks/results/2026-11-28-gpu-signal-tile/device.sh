#!/usr/bin/env bash
# One device call: the CFL reduction through a shared-memory tile (tree C =
# the working tree, its extension carried) against main (tree B, from
# .trees/try.tar.xz): the GPU suite on C; sim.run against the fixed-dt step
# and the reduction's GPU time (run_rates.py) of both; Nsight Compute of
# C's MHD reduction; the sweep rows of both.  RATES: the precisions of
# run_rates.py (default both); NCU=0: no profile; DTYPES: the sweeps'.
set -uo pipefail
ROOT=$PWD
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
tar -xJf .trees/try.tar.xz -C /tmp
PROFILE=$ROOT/benchmarks/results/2026-11-28-gpu-run-profile
header() {
    echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
    echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "# commit: ${COMMIT:-unknown}"
    echo "# command: $*"
}
{
    header "PYTHONPATH=$ROOT python3 -m pytest -q -rfs -m gpu tests (C)"
    PYTHONPATH=$ROOT timeout 300 python3 -m pytest -q -rfs -p no:cacheprovider -m gpu tests 2>&1 | tail -30
} > "$OUT/gpu-tests-C.log" 2>&1
for t in B C; do
    path=/tmp/tryso/$t
    [ "$t" = C ] && path=$ROOT
    {
        header "PYTHONPATH=$path python3 run_rates.py 256 ${RATES:-float32 float64} (tree $t)"
        cd /tmp && PYTHONPATH=$path python3 "$PROFILE/run_rates.py" 256 ${RATES:-float32 float64} 2>&1 | grep -v -i warn | tail -12
        cd "$ROOT"
    } > "$OUT/run-rates-$t.log" 2>&1
done
[ "${NCU:-1}" = 1 ] && {
    header "ncu --set full --kernel-name regex:signal_reduce --launch-skip 2 --launch-count 1 python3 reduce_once.py mhd float32 (C)"
    cd /tmp && PYTHONPATH=$ROOT ncu --set full --kernel-name regex:signal_reduce --launch-skip 2 --launch-count 1 \
        -o "$OUT/ncu-signal-reduce-mhd-f32-C" python3 "$PROFILE/reduce_once.py" mhd float32 > /dev/null 2>&1
    ncu --import "$OUT/ncu-signal-reduce-mhd-f32-C.ncu-rep" --print-summary none --page details 2>&1 |
        grep -E "Duration|Registers|Executed Ipc|Issue Slots|Memory Throughput|DRAM Throughput|L1/TEX Hit|Executed Instructions |Achieved Occupancy|Theoretical Occupancy|Compute \(SM\)" | head -20
    cd "$ROOT"
} > "$OUT/ncu-signal-reduce-mhd-f32-C.txt" 2>&1 && xz -9 "$OUT/ncu-signal-reduce-mhd-f32-C.ncu-rep" 2>/dev/null
for dtype in ${DTYPES:-float32}; do
    for t in B C; do
        path=/tmp/tryso/$t
        [ "$t" = C ] && path=$ROOT
        {
            header "PYTHONPATH=$path python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p (tree $t)"
            cd /tmp && PYTHONPATH=$path python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p 2>&1 | tail -12
            cd "$ROOT"
        } > "$OUT/sweeps-$dtype-$t.log" 2>&1
    done
done
