#!/usr/bin/env bash
# Regenerates the checked-in Thrift code from testkit/src/main/thrift/*.thrift.
#
# Usage: scripts/regenerate-thrift.sh [--check]
#   THRIFT=/path/to/thrift  the compiler to use (default: `thrift` on PATH); 0.24.0 or newer
#   --check                 regenerate into a temporary folder and fail if it differs from the tree
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
thrift=${THRIFT:-thrift}
min_version=0.24.0

if ! command -v "$thrift" >/dev/null 2>&1; then
  echo "regenerate-thrift: no Thrift compiler: set THRIFT or put thrift ${min_version}+ on PATH" >&2
  exit 2
fi
version=$("$thrift" --version | awk '{print $NF}')
if [[ "$(printf '%s\n%s\n' "$min_version" "$version" | sort -V | head -n1)" != "$min_version" ]]; then
  echo "regenerate-thrift: $thrift is version $version (expected: >= $min_version)" >&2
  exit 2
fi

idl_dir=$root/testkit/src/main/thrift
java_out=$root/testkit/src/main/gen-java
check=false
[[ "${1:-}" == "--check" ]] && check=true

out=$java_out
if $check; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
else
  rm -rf "$java_out/io/thriftnio/testkit/gen"
  mkdir -p "$java_out"
fi

for idl in "$idl_dir"/*.thrift; do
  "$thrift" --gen java:generated_annotations=suppress -out "$out" "$idl"
done

if $check; then
  if diff -r "$out/io" "$java_out/io"; then
    echo "regenerate-thrift: checked-in code matches thrift $version output"
  else
    echo "regenerate-thrift: checked-in code differs from thrift $version output" >&2
    exit 1
  fi
else
  echo "regenerate-thrift: wrote Java to ${java_out#"$root"/} with thrift $version"
fi
