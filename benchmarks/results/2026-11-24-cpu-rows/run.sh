#!/bin/bash
# The log of this directory: bench_rows.py on main (OLD, built in place from
# `git archive main`) and on this branch (NEW), one thread, 40^3.
# usage: run.sh OLD_TREE NEW_TREE > bench.log
set -e
here=$(dirname "$(readlink -f "$0")")
echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; $(gcc --version | head -1)"
echo "# old: $1 (main at $(git -C "$2" rev-parse --short "$(git -C "$2" merge-base HEAD main)"), the branch point), new: $2 ($(git -C "$2" rev-parse --short HEAD))"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: OMP_NUM_THREADS=1 python bench_rows.py --trees $1 $2 --rounds 3 --seconds 2"
python "$here/bench_rows.py" --trees "$1" "$2" --rounds 3 --seconds 2 2>&1
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
