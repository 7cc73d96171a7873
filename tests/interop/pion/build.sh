#!/bin/sh
# Builds pion_peer offline against Debian 12's Pion: apt-get install golang-go
# golang-github-pion-webrtc.v3-dev. Usage: tests/interop/pion/build.sh OUT_DIR
#
# Debian installs Pion's sources under /usr/share/gocode as GOPATH trees, webrtc v3 at
# github.com/pion/webrtc (without the /v3 of its import path), and there is no module proxy.
# So: GOPATH mode, plus a one-link GOPATH in OUT_DIR that gives github.com/pion/webrtc/v3.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
mkdir -p "$out/gopath/src/github.com/pion/webrtc"
ln -sfn /usr/share/gocode/src/github.com/pion/webrtc "$out/gopath/src/github.com/pion/webrtc/v3"
cd "$src"
GO111MODULE=off GOPATH="$out/gopath:/usr/share/gocode" GOCACHE="$out/gocache" \
    go build -o "$out/pion_peer" .
