#!/usr/bin/env bash
# Device calls for the device loop's deferred order (dt from the first
# substep: csrc/cuda/schedules.cuh), from the repository root, the trees
# prebuilt for the device's Python in .trees/try.tar.xz
# (scripts/device-trees.sh): MAIN (before) and NEW (the change; with
# ASTAROTH_PLAIN_ORDER=1 the same build in the plain order).  PARTS lists
# what a call runs, in order:
#   tests   the one-GPU suite on NEW
#   split   tests/test_mpi_gpu.py on NEW (ranks sharing the one GPU)
#   rates   run_rates.py $SIZE (default 256: sim.run against the fixed-dt
#           step) of MAIN, NEW and NEW in the plain order, ROUNDS times
#   sweeps  bench --sweeps --physics all of MAIN and NEW (DTYPE, default float32)
#   kernels kernel_times.py $SIZE (default 256) of NEW in the deferred and the
#           plain order (CASES, default MHD float32 and float64, MHD+entropy float32)
#   ncu     Nsight Compute of the three substeps of one sim.run step of MHD
#           float32 at 256^3 (mhd_steps.py) on NEW in the deferred and the plain order
#   bench   bench rows of MAIN and NEW at 256^3 (BENCH_ARGS, default --terms --physics all)
set -uo pipefail
. scripts/device-trees.sh
PROFILE=$PWD/benchmarks/results/2026-11-28-gpu-run-profile
HERE=$PWD/benchmarks/results/2026-11-29-gpu-deferred-order
MAIN=${MAIN:-main31}
NEW=${NEW:-def1}
ONE_GPU="tests/test_cfl_reduction_gpu.py tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py
 tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py"
device_start $NEW
for part in ${PARTS:-tests}; do
    case $part in
    tests)
        TAIL=8 in_tree $NEW gpu-tests-$NEW.log 400 python -m pytest -q -p no:cacheprovider -rf $ONE_GPU
        ;;
    split)
        TAIL=6 in_tree $NEW split-gpu-tests-$NEW.log 300 python -m pytest -q -p no:cacheprovider -rf \
            tests/test_mpi_gpu.py
        ;;
    rates)
        for round in $(seq ${ROUNDS:-1}); do
            TAIL=10 in_tree $MAIN run-rates${SIZE:+-$SIZE}.log 200 python $PROFILE/run_rates.py ${SIZE:-256} float32 float64
            TAIL=10 in_tree $NEW run-rates${SIZE:+-$SIZE}.log 200 python $PROFILE/run_rates.py ${SIZE:-256} float32 float64
            TAIL=10 in_tree $NEW run-rates${SIZE:+-$SIZE}.log 200 env ASTAROTH_PLAIN_ORDER=1 python $PROFILE/run_rates.py \
                ${SIZE:-256} float32 float64
        done
        ;;
    sweeps)
        for t in $MAIN $NEW; do
            TAIL=11 in_tree $t sweeps-${DTYPE:-float32}.log 280 python -m astaroth bench --backend cuda --sweeps \
                --physics all --sizes 32 64 256 --dtype ${DTYPE:-float32} --methods 55p
        done
        ;;
    kernels)
        for order in ${ORDERS:-0 1}; do
            TAIL=60 in_tree $NEW kernel-times.log 200 env ASTAROTH_PLAIN_ORDER=$order python $HERE/kernel_times.py \
                ${SIZE:-256} ${CASES:-mhd:float32 mhd+entropy:float32 mhd:float64}
        done
        ;;
    ncu)
        for order in 0 1; do
            {
                header $NEW "ASTAROTH_PLAIN_ORDER=$order ncu --set full --kernel-name regex:stream_substep --launch-skip 0 --launch-count 3 python mhd_steps.py 256 float32 2"
                (cd /tmp/tryso/$NEW && PYTHONPATH=$PWD ASTAROTH_PLAIN_ORDER=$order ncu --set full \
                    --kernel-name regex:stream_substep --launch-skip 0 --launch-count 3 -o "$OUT/ncu-mhd256-f32-order$order" \
                    python $HERE/mhd_steps.py 256 float32 2 2>&1 | tail -3)
                ncu --import "$OUT/ncu-mhd256-f32-order$order.ncu-rep" --print-summary none --page details 2>&1 |
                    grep -E "^  stream_substep|Duration|Registers Per|Issue Slots Busy|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Executed Instructions  |Achieved Occupancy|Warp Cycles Per Issued|Dynamic Shared" | head -60
            } > "$OUT/ncu-mhd256-f32-order$order.txt" 2>&1
            xz -9 "$OUT/ncu-mhd256-f32-order$order.ncu-rep"
        done
        ;;
    bench)
        for t in $MAIN $NEW; do
            TAIL=30 in_tree $t bench.log 280 python -m astaroth bench --backend cuda --sizes 256 --methods 55p \
                ${BENCH_ARGS:---terms --physics all}
        done
        ;;
    esac
done
