#!/bin/sh
# Grades a cohort on a Kubernetes cluster from this machine, start to end, with kubectl:
#   ci/kubernetes/run.sh N SUBMISSIONS GAUNTLET [RESULTS]
# N parts (the one place to set the number: the grading Job's completions, parallelism and
# SHARDS), SUBMISSIONS a local folder of one folder per student, GAUNTLET the gauntlet
# binary to run (statically linked: go build ./cmd/gauntlet), RESULTS the local folder the
# cohort's files come back to (default: results). Settings in the environment:
#   GAME           clue, dealer2310, referee, stlucia or stratego (default dealer2310)
#   STORAGE_CLASS  the volume's storage class (default: the cluster's default class)
#   BOX            privileged (default: root pods, boxed) or rootless (user 1000, no
#                  privileges: rootless boxes where the nodes allow them; docs/ci.md)
#   OLD_K8S=1      a cluster older than 1.29 (no backoffLimitPerIndex)
#   KUBECTL        the kubectl to run (default kubectl), with its flags (-n NAMESPACE)
# Run it again to rerun: the Jobs of the last run are deleted first (a Job cannot be
# changed once made) and the parts resume, skipping the reports already on the volume; to
# grade everything again, empty /cohort/reports first:
#   kubectl exec gauntlet-cohort-shell -- rm -rf /cohort/reports
# docs/ci.md, "Kubernetes".
set -eu
if [ $# -lt 3 ] || ! [ "$1" -ge 1 ] 2>/dev/null || [ ! -d "$2" ] || [ ! -f "$3" ]; then
	echo "usage: $0 N SUBMISSIONS GAUNTLET [RESULTS]   (N parts, at least 1; a folder of submissions; the gauntlet binary)" >&2
	exit 2
fi
parts=$1 subs=$2 bin=$3 results=${4:-results}
game=${GAME:-dealer2310}
k=${KUBECTL:-kubectl}
here=$(cd "$(dirname "$0")" && pwd)
shell=gauntlet-cohort-shell

# waitjob JOB: waits until the Job is Complete (0) or Failed (1), saying so.
waitjob() {
	while :; do
		state=$($k get job "$1" -o 'jsonpath={.status.conditions[?(@.status=="True")].type}')
		case "$state" in
		*Complete*) echo "run.sh: job $1 complete"; return 0 ;;
		*Failed*) echo "run.sh: job $1 failed (kubectl logs job/$1)"; return 1 ;;
		esac
		sleep "${POLL:-30}"
	done
}

# The volume, and a pod that holds it to fill it and read it back.
if [ -n "${STORAGE_CLASS:-}" ]; then
	sed "s|^  # storageClassName: .*|  storageClassName: $STORAGE_CLASS|" "$here/cohort-volume.yaml" | $k apply -f -
else
	$k apply -f "$here/cohort-volume.yaml"
fi
$k apply -f "$here/cohort-shell.yaml"
$k wait --for=condition=Ready "pod/$shell" --timeout=10m
$k exec -i "$shell" -- sh -c 'cat > /cohort/gauntlet.new && chmod 755 /cohort/gauntlet.new && mv /cohort/gauntlet.new /cohort/gauntlet' < "$bin"
tar -C "$subs" -cf - . | $k exec -i "$shell" -- tar -C /cohort/submissions -xf -

# The grading Job, N parts; an earlier run's Jobs go first.
$k delete job gauntlet-grade gauntlet-merge --ignore-not-found --wait
box='s|^            runAsUser: 0$|            runAsUser: 0|'
if [ "${BOX:-privileged}" = rootless ]; then
	box='s|^            runAsUser: 0$|            runAsUser: 1000|; s|^            privileged: true$|            privileged: false|'
fi
backoff='s|^  backoffLimitPerIndex: 2$|  backoffLimitPerIndex: 2|'
if [ "${OLD_K8S:-}" = 1 ]; then
	backoff='s|^  backoffLimitPerIndex: 2$|  backoffLimit: 16|'
fi
sed -e "s|^  completions: [0-9]*\(.*\)|  completions: $parts\1|" \
	-e "s|^  parallelism: [0-9]*\(.*\)|  parallelism: $parts\1|" \
	-e "s|^              value: \"[0-9]*\"\( *# = completions above\)|              value: \"$parts\"\1|" \
	-e "s|^              value: dealer2310 |              value: $game |" \
	-e "$box" -e "$backoff" "$here/grade-job.yaml" | $k apply -f -
graded=0
waitjob gauntlet-grade || graded=1
# The merge, even after a failed part: it says what is missing.
$k apply -f "$here/merge-job.yaml"
merged=0
waitjob gauntlet-merge || merged=1
$k logs job/gauntlet-merge || true

mkdir -p "$results"
for f in cohort.csv cohort.html cohort.json cohort.xml; do
	$k exec "$shell" -- cat "/cohort/$f" > "$results/$f" || rm -f "$results/$f"
done
$k delete pod "$shell" --wait=false
echo "run.sh: the cohort's files are in $results"
[ $graded = 0 ] && [ $merged = 0 ]
