#!/bin/sh
# Gradescope runs this once when it builds the autograder image (Ubuntu, as root): it
# installs Go, gcc and make, and builds gauntlet from the sources in the autograder zip
# (/autograder/source/gauntlet) into /autograder/source/bin.
set -eu
GO_VERSION=${GO_VERSION:-1.26.8}
apt-get update
apt-get install -y gcc make curl ca-certificates
curl -fsSL "https://dl.google.com/go/go${GO_VERSION}.linux-amd64.tar.gz" | tar -C /usr/local -xz
export PATH=/usr/local/go/bin:$PATH
mkdir -p /autograder/source/bin
cd /autograder/source/gauntlet
go build -o /autograder/source/bin/gauntlet ./cmd/gauntlet
