#!/bin/bash
# A/B of astaroth builds on a loaded machine: ours.py's CPU time (us per
# point and step), the trees interleaved round by round, one line per tree
# (a group of PHYSICS figures per round).
# usage: ab.sh ROUNDS STEPS "PHYSICS..." TREE...   (each TREE on PYTHONPATH in turn)
here=$(cd "$(dirname "$0")" && pwd)
r=$1; n=$2; phys=$3; shift 3
for i in $(seq "$r"); do for t in "$@"; do
    echo "$t $(for p in $phys; do cd / && OURS_CPU_TIME=1 OMP_NUM_THREADS=1 PYTHONPATH=$t /tmp/venv/bin/python "$here/ours.py" $p $n; done | xargs)"
done; done | sort -s -k1,1 | awk '{k=$1; $1=""; a[k]=a[k] " |" $0} END {for (k in a) print k a[k]}'
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
