#!/bin/sh
# Grades a cohort on a Slurm cluster in N parts: a job array of N tasks (grade.sbatch),
# then the merge (merge.sbatch) once every task has ended. Settings go in the environment:
#   GAME=stlucia COHORT=$HOME/cohort GAUNTLET=$HOME/bin/gauntlet ci/slurm/submit.sh 8 [sbatch options...]
# The sbatch options (a partition, an account) apply to both jobs. docs/ci.md, "Slurm".
set -e
if [ $# -lt 1 ] || ! [ "$1" -ge 1 ] 2>/dev/null; then
	echo "usage: $0 N [sbatch options...]   (N: the number of parts, at least 1)" >&2
	exit 2
fi
parts=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
array=$(sbatch --parsable --array=1-"$parts" "$@" "$here/grade.sbatch")
array=${array%%;*}
merge=$(sbatch --parsable --dependency=afterany:"$array" "$@" "$here/merge.sbatch")
merge=${merge%%;*}
echo "gauntlet: grading in job array $array ($parts parts); the merge is job $merge"
