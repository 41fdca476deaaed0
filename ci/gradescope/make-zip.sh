#!/bin/sh
# Builds the autograder zip to upload to Gradescope: setup.sh and run_autograder at its top,
# and the gauntlet sources (this repository) under gauntlet/. Run from anywhere:
#   sh ci/gradescope/make-zip.sh [OUT.zip]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:-$PWD/autograder.zip}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/setup.sh" "$here/run_autograder" "$work/"
mkdir "$work/gauntlet"
(cd "$repo" && git ls-files -z | xargs -0 tar cf -) | (cd "$work/gauntlet" && tar xf -)
rm -f "$out"
(cd "$work" && zip -qr "$out" .)
echo "$out"
