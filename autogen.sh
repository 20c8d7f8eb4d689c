#!/bin/sh
set -e
cd "$(dirname "$0")"
mkdir -p build-aux
autoreconf -fi
