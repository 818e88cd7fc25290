#!/usr/bin/env bash
# Device calls for the ensemble rows and the deferred order's second
# substep, from the repository root, the trees prebuilt for the device's
# Python in .trees/try.tar.xz (scripts/device-trees.sh): MAIN (before) and
# NEW (the change).  PARTS lists what a call runs, in order:
#   tests    the one-GPU suite on NEW (with NEW_ENV, default none)
#   split    tests/test_mpi_gpu.py on NEW (ranks sharing the one GPU)
#   narrow   tests/test_device_cfl.py on NEW with ASTAROTH_FORM_NARROW=1, then
#            kernel_times.py 256 of NEW without and with it, then run_rates.py
#            256 of NEW without and with it
#   members  ensemble_times.py of MAIN for the rows in ROWS
#            (PHYSICS:N:COUNT:DTYPE[:forced]), and kernel_times.py 256 of MAIN
#            for CASES (PHYSICS:DTYPE)
#   host     host_share.py (and with CALLS=1 host_calls.py) of the trees in
#            HOST_TREES (default MAIN) for the rows in ROWS
#   rates    run_rates.py 256 of MAIN and NEW (with NEW_ENV), ROUNDS times
#   sweeps   bench --sweeps --physics all of MAIN and NEW (DTYPE, default float32)
#   bench    bench rows of MAIN and NEW at 256^3 (BENCH_ARGS, default --terms --physics all)
set -uo pipefail
. scripts/device-trees.sh
PROFILE=$PWD/benchmarks/results/2026-11-28-gpu-run-profile
DEFER=$PWD/benchmarks/results/2026-11-29-gpu-deferred-order
HERE=$PWD/benchmarks/results/2026-11-29-gpu-ensemble-rows
MAIN=${MAIN:-main32}
NEW=${NEW:-narrow}
NEW_ENV=${NEW_ENV:-}
ONE_GPU="tests/test_cfl_reduction_gpu.py tests/test_gpu.py tests/test_device_cfl.py tests/test_run_in_c.py tests/test_ensemble.py tests/test_bitwise.py
 tests/test_forcing.py tests/test_configurations_gpu.py tests/test_shock.py tests/test_shear_gpu.py"
device_start $NEW
for part in ${PARTS:-tests}; do
    case $part in
    tests)
        TAIL=8 in_tree $NEW gpu-tests-$NEW.log 400 env $NEW_ENV python -m pytest -q -p no:cacheprovider -rf $ONE_GPU
        ;;
    split)
        TAIL=6 in_tree $NEW split-gpu-tests-$NEW.log 300 python -m pytest -q -p no:cacheprovider -rf tests/test_mpi_gpu.py
        ;;
    narrow)
        TAIL=6 in_tree $NEW narrow-tests.log 200 env ASTAROTH_FORM_NARROW=1 python -m pytest -q -p no:cacheprovider \
            -rf tests/test_device_cfl.py
        for narrow in 0 1; do
            TAIL=40 in_tree $NEW kernel-times.log 200 env ASTAROTH_FORM_NARROW=$narrow python $DEFER/kernel_times.py \
                256 mhd:float32 mhd:float64
        done
        for narrow in 0 1; do
            TAIL=10 in_tree $NEW run-rates.log 200 env ASTAROTH_FORM_NARROW=$narrow python $PROFILE/run_rates.py \
                256 float32 float64
        done
        ;;
    members)
        for row in ${ROWS:-}; do
            IFS=: read -r physics n count dtype forced <<< "$row"
            TAIL=30 in_tree $MAIN ensemble-times.log 200 python $HERE/ensemble_times.py $physics $n $count $dtype $forced
        done
        [ -n "${CASES:-}" ] && TAIL=80 in_tree $MAIN kernel-times.log 200 python $DEFER/kernel_times.py 256 $CASES
        ;;
    host)
        for t in ${HOST_TREES:-$MAIN}; do
            for row in ${ROWS:-}; do
                IFS=: read -r physics n count dtype forced <<< "$row"
                TAIL=40 in_tree $t host-share.log 200 python $HERE/host_share.py $physics $n $count $dtype $forced
                [ "${CALLS:-0}" = 1 ] &&
                    TAIL=30 in_tree $t host-calls.log 200 python $HERE/host_calls.py $physics $n $count $dtype $forced
            done
        done
        ;;
    rates)
        for round in $(seq ${ROUNDS:-1}); do
            TAIL=10 in_tree $MAIN run-rates.log 200 python $PROFILE/run_rates.py 256 float32 float64
            TAIL=10 in_tree $NEW run-rates.log 200 env $NEW_ENV python $PROFILE/run_rates.py 256 float32 float64
        done
        ;;
    sweeps)
        for t in $MAIN $NEW; do
            [ $t = $NEW ] && e=$NEW_ENV || e=
            TAIL=11 in_tree $t sweeps-${DTYPE:-float32}.log 280 env $e python -m astaroth bench --backend cuda \
                --sweeps --physics all --sizes 32 64 256 --dtype ${DTYPE:-float32} --methods 55p
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
