#!/usr/bin/env bash
# On one H200 (no 2-GPU machine was lent), in four calls, `device.sh PART`
# with TREE naming a tree the carried .trees/try.tar.xz holds: M (main)
# against N (the device loop's forced instances their own, the members'
# forcing kernel through run_forcing_term), then L and P (below).
#   part 1: N's one-GPU tests, one round of the float32 sweeps of every
#           physics in both trees, the bench rows in both; beside them, on
#           the CPU, the SASS with source lines of the MHD+entropy float64
#           substep solo (device loop) and as a wide ensemble member, from a
#           cubin built with -lineinfo on the sandbox (no nvdisasm there);
#   part 2: Nsight Compute of a forced 256^3 float32 step in both trees, a
#           second float32 round and a float64 round of the sweeps;
#   part 3: L (main after this session's members' forcing change, built with
#           -lineinfo): its one-GPU tests, then Nsight Compute's instruction
#           counts by source line of the forced hydro 256^3 float32 substeps
#           and of the MHD signal-speed reduction, exported as CSV;
#   part 4: P (B = curl A's differences never fused on the GPU, and MHD with
#           entropy in float64 in shared launches) against M: P's ensemble
#           tests, the stored GPU runs compared, made again and every GPU
#           test with them; the sweeps in both precisions and the MHD bench
#           rows in both trees; the SASS of P's MHD+entropy float64 substep,
#           solo and as a member, as in part 1.
set -uo pipefail
cd "$(dirname "$0")/../../.."
. scripts/device-trees.sh  # device_start, header, in_tree
device_start ${TREE:-N}
PART=${1:-1}
PROFILES=$PWD/benchmarks/results/2026-11-28-gpu-last-substep  # forced_profile.py, mhd_profile.py
sweeps() { # dtype rounds
    for round in $(seq $2); do for t in M N; do
        TAIL=11 in_tree $t sweeps-$1.log 100 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $1 --methods 55p
    done; done
}
if [ "$PART" = 1 ]; then
    ( xz -dc /tmp/tryso/S/k64.cubin.xz > /tmp/k64.cubin
      NVDISASM=$(command -v nvdisasm || echo /usr/local/cuda/bin/nvdisasm)
      $NVDISASM -g -c /tmp/k64.cubin > /tmp/k64.sass 2> "$OUT/nvdisasm.err"
      for name in _Z25stream_substep_kernel_f64ILj7ELi32ELi8ELi1ELi0ELb1ELb0E _Z30stream_wide_members_kernel_f64ILj7ELi32ELi8ELi1ELi0ELb0E; do
          awk -v n="$name" '/^[[:space:]]*\.section/ {on = index($0, ".text." n) > 0} on' /tmp/k64.sass > "$OUT/sass-$name.txt"
      done ) &
    TAIL=25 in_tree N gpu-tests.log 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py
    sweeps float32 1
    for t in M N; do
        for args in "" "--physics mhd" "--energy entropy" "--walls" "--terms --physics all"; do
            TAIL=14 in_tree $t bench.log 60 python3 -m astaroth bench --backend cuda --sizes 256 --methods 55p $args
        done
    done
    wait
    tail -n 4 "$OUT/gpu-tests.log"
    grep -E "commit|M/s|ratio" "$OUT"/bench.log | cut -c1-150
    wc -l "$OUT"/sass-*.txt
elif [ "$PART" = 4 ]; then
    ( xz -dc /tmp/tryso/S/k64-P.cubin.xz > /tmp/k64.cubin
      NVDISASM=$(command -v nvdisasm || echo /usr/local/cuda/bin/nvdisasm)
      $NVDISASM -g -c /tmp/k64.cubin > /tmp/k64.sass 2> /dev/null
      for name in _Z25stream_substep_kernel_f64ILj7ELi32ELi8ELi1ELi0ELb1E _Z30stream_wide_members_kernel_f64ILj7ELi32ELi8ELi1ELi0ELb0E; do
          awk -v n="$name" '/^[[:space:]]*\.section/ {on = index($0, ".text." n) > 0} on' /tmp/k64.sass | grep -E "^\s*//## File|DFMA|DMUL|DADD" > "$OUT/sass-P-$name.txt"
      done ) &
    TAIL=30 in_tree P gpu-tests-P-ensemble.log 200 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_ensemble.py
    tail -n 3 "$OUT/gpu-tests-P-ensemble.log"
    TAIL=140 in_tree P bitwise-P.log 200 python3 scripts/make_bitwise_fixture.py cuda --compare tests/data/bitwise_cuda.npz
    TAIL=3 in_tree P bitwise-P.log 200 python3 scripts/make_bitwise_fixture.py cuda /tmp/bitwise_cuda.npz
    cp /tmp/bitwise_cuda.npz "$OUT/bitwise_cuda.npz" && cp /tmp/bitwise_cuda.npz /tmp/tryso/P/tests/data/bitwise_cuda.npz
    TAIL=25 in_tree P gpu-tests-P.log 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py
    tail -n 3 "$OUT/gpu-tests-P.log"
    for t in M P; do
        for args in "--physics mhd" "--energy entropy" "--terms --physics all"; do
            TAIL=14 in_tree $t bench-P.log 60 python3 -m astaroth bench --backend cuda --sizes 256 --methods 55p $args
        done
    done
    for dtype in float64 float32; do for t in M P; do
        TAIL=11 in_tree $t sweeps-P-$dtype.log 100 python3 -m astaroth bench --backend cuda --sweeps --physics all --sizes 32 64 256 --dtype $dtype --methods 55p
    done; done
    wait
    grep -E "commit|M/s|ratio|mhd" "$OUT"/bench-P.log | cut -c1-120
    grep -c DFMA "$OUT"/sass-P-*.txt
elif [ "$PART" = 3 ]; then
    TAIL=25 in_tree L gpu-tests-L.log 240 python3 -m pytest -q -rs -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py
    tail -n 3 "$OUT/gpu-tests-L.log"
    profile() { # name regex skip count script
        TAIL=60 in_tree L ncu-lines-$1.log 150 ncu --kernel-name regex:"$2" --launch-skip $3 --launch-count $4 --section SourceCounters --section InstructionStats --section SpeedOfLight --import-source yes -f -o /tmp/$1 python3 $PROFILES/$5 256 float32
        for page in cuda sass; do
            ncu -i /tmp/$1.ncu-rep --page source --csv --print-source $page > "$OUT/lines-$1-$page.csv" 2> "$OUT/lines-$1-$page.err"
            wc -c "$OUT/lines-$1-$page.csv"
        done
        xz -T4 -c /tmp/$1.ncu-rep > "$OUT/$1.ncu-rep.xz"
    }
    profile forced-hydro-f32 stream_substep 12 3 forced_profile.py
    profile mhd-reduction-f32 signal_reduce 2 1 mhd_profile.py
else
    for t in M N; do
        TAIL=400 in_tree $t ncu-forced-hydro-f32-$t.log 100 ncu --kernel-name regex:"stream_substep|forcing" --launch-skip 12 --launch-count 8 --section SpeedOfLight --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,dram__bytes.sum python3 $PROFILES/forced_profile.py 256 float32
    done
    grep -E "^  [a-z_ ]+.*\(|Duration|Registers Per|inst_executed" "$OUT"/ncu-*.log | cut -c1-110
    sweeps float32 1
    sweeps float64 1
fi
grep -vE "^# (device|date)" "$OUT"/sweeps-*.log | grep -E "commit|True|False"
true
