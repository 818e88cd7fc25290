#!/usr/bin/env bash
# MHD in single precision with shock viscosity (the bench row at 0.968 of
# 74dd058 in ../2026-11-28-h100-shock-schedule) under six more trial
# schedules, interleaved with 74dd058 and main.  Every tree's extension was
# built elsewhere for the device's Python (nvcc 13.0, Python 3.12), stripped,
# and carried in .trees/try.tar.xz: A = 74dd058 (its astaroth package with
# it), B = main, V1..V6 = main with -DAC_TRY_SHOCK_ROW=1..6 (the rows of
# try-shock-rows.patch beside this script: 32 x 4 with the column below in
# shared memory; 32 x 4 with w late; 32 x 8 with w late; 32 x 4 with the
# profile read together; 32 x 4 three planes ahead; 32 x 8 one plane ahead).
#   rows: scripts/ab.py over the MHD float32 rows in every tree
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
OUT=${OUT:-device-logs}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
SO=_core.cpython-312-x86_64-linux-gnu.so
case ${1:-rows} in
rows)
    rm -rf /tmp/tryso /tmp/a-src /tmp/t-*
    tar -C /tmp -xJf .trees/try.tar.xz
    mkdir -p /tmp/t-A && cp -r /tmp/a-src/astaroth /tmp/t-A/ && cp /tmp/tryso/A.so /tmp/t-A/astaroth/$SO
    trees=/tmp/t-A
    for k in B V1 V2 V3 V4 V5 V6; do
        [ -e /tmp/tryso/$k.so ] || continue
        mkdir -p /tmp/t-$k && cp -r "$ROOT/astaroth" /tmp/t-$k/ && rm -f /tmp/t-$k/astaroth/_core*.so &&
            cp /tmp/tryso/$k.so /tmp/t-$k/astaroth/$SO && trees="$trees /tmp/t-$k"
    done
    { echo "# device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | head -1)"
      echo "# date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
      echo "# commit: A = 74dd058, B = ${COMMIT:-unknown}, V1..V6 = B with -DAC_TRY_SHOCK_ROW=1..6 (try-shock-rows.patch)"
      echo "# command: AB_GROUPS=terms:mhd:float32 python3 scripts/ab.py ${ROUNDS:-4} $trees"
      AB_GROUPS=terms:mhd:float32 timeout 300 python3 scripts/ab.py ${ROUNDS:-4} $trees 2>&1
    } > "$OUT/ab-mhd-f32-trials.log" 2>&1
    grep -v "^# worker" "$OUT/ab-mhd-f32-trials.log" | tail -8
    ;;
esac
