#!/bin/bash
# The logs of this directory: bench_fused.py on main (OLD, built in place
# from `git archive main`) and on this branch (NEW), 40^3 and 64^3, one
# thread (bench.log) and the default team (bench-team.log).
# usage: run.sh OLD_TREE NEW_TREE 1|default > LOG
set -e
here=$(dirname "$(readlink -f "$0")")
echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# machine: $(lscpu | grep 'Model name' | cut -d: -f2 | xargs), $(nproc) cores; $(gcc --version | head -1)"
echo "# old: $1 (main at $(git -C "$2" rev-parse --short main)), new: $2 ($(git -C "$2" rev-parse --short HEAD))"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: python bench_fused.py --trees $1 $2 --rounds 3 --seconds 1.5 --sizes 40 64 --threads $3"
python "$here/bench_fused.py" --trees "$1" "$2" --rounds 3 --seconds 1.5 --sizes 40 64 --threads "$3" 2>&1
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
