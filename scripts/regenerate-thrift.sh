#!/usr/bin/env bash
# Regenerates the checked-in Thrift code from testkit/src/main/thrift/*.thrift:
#   Java   -> testkit/src/main/gen-java (compiled into thrift-nio-testkit), with future_iface: each
#             service also gets a FutureIface (methods returning CompletableFuture) and a
#             FutureClient adapter, which the pools' futureIface proxies are tested with

#   Python -> testkit/src/main/gen-py   (imported by the Python interop peer in it/src/test/python)
# and Apache Thrift's own test/ThriftTest.thrift, which scripts/apache-thrift-tests.sh brings (its
# cross-test client runs against this library's servers in it):
#   Java   -> it/src/test/gen-java (the ThriftTest service the it module serves)
#   Python -> it/src/test/gen-py   (imported by Apache's TestClient.py)
#
# Usage: scripts/regenerate-thrift.sh [--check]
#   THRIFT=/path/to/thrift  the compiler to use (default: `thrift` on PATH); 0.24.0 or newer
#   --check                 regenerate into a temporary folder and fail if either language's output
#                           differs from the tree, byte for byte
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
py_out=$root/testkit/src/main/gen-py
it_java_out=$root/it/src/test/gen-java
it_py_out=$root/it/src/test/gen-py
apache_idl=$("$root/scripts/apache-thrift-tests.sh")/test/ThriftTest.thrift
check=false
[[ "${1:-}" == "--check" ]] && check=true

if $check; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  java_dest=$tmp/java
  py_dest=$tmp/py
  it_java_dest=$tmp/it-java
  it_py_dest=$tmp/it-py
else
  java_dest=$java_out
  py_dest=$py_out
  it_java_dest=$it_java_out
  it_py_dest=$it_py_out
  rm -rf "$java_out/io/thriftnio/testkit/gen"
  # The whole of gen-py is generated (the compiler also writes a top-level __init__.py).
  rm -rf "$py_out" "$it_java_out" "$it_py_out"
fi
mkdir -p "$java_dest" "$py_dest" "$it_java_dest" "$it_py_dest"

for idl in "$idl_dir"/*.thrift; do
  "$thrift" --gen java:future_iface,generated_annotations=suppress -out "$java_dest" "$idl"
  "$thrift" --gen py -out "$py_dest" "$idl"
done
# ThriftTest.thrift names namespaces of no generator (noexist) on purpose: the compiler warns on
# stdout about them, and about nothing else for this file.
"$thrift" --gen java:generated_annotations=suppress -out "$it_java_dest" "$apache_idl" > /dev/null
"$thrift" --gen py -out "$it_py_dest" "$apache_idl" > /dev/null

if $check; then
  status=0
  if ! diff -r "$java_dest/io" "$java_out/io"; then
    echo "regenerate-thrift: checked-in Java in ${java_out#"$root"/} differs" \
      "from thrift $version output" >&2
    status=1
  fi
  # __pycache__ is what running the Python peer may leave behind; it is not generated code.
  if ! diff -r -x __pycache__ "$py_dest" "$py_out"; then
    echo "regenerate-thrift: checked-in Python in ${py_out#"$root"/} differs" \
      "from thrift $version output" >&2
    status=1
  fi
  if ! diff -r "$it_java_dest" "$it_java_out" || ! diff -r -x __pycache__ "$it_py_dest" "$it_py_out"; then
    echo "regenerate-thrift: checked-in ThriftTest code in it/src/test differs" \
      "from thrift $version output" >&2
    status=1
  fi
  if [[ $status -eq 0 ]]; then
    echo "regenerate-thrift: checked-in Java and Python match thrift $version output"
  fi
  exit "$status"
else
  echo "regenerate-thrift: wrote Java to ${java_out#"$root"/} and ${it_java_out#"$root"/}," \
    "Python to ${py_out#"$root"/} and ${it_py_out#"$root"/} with thrift $version"
fi
