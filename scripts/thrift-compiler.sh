#!/usr/bin/env bash
# Builds the Apache Thrift compiler this project's code is generated with (its Java generator
# only) and prints the path of the binary. The source comes from the Go module proxy, which serves
# Apache Thrift's whole repository as the module github.com/apache/thrift; Debian's
# thrift-compiler (0.17) generates Java that does not compile against libthrift 0.25.
#
# Needs go, cmake, g++, bison and flex (installed from Debian's packages when missing and run as
# root). The build is kept under ${THRIFTNIO_CACHE:-$HOME/.cache/thrift-nio}, so a second run
# prints the path at once. Usage: THRIFT=$(scripts/thrift-compiler.sh)
set -euo pipefail

version=0.24.0
cache=${THRIFTNIO_CACHE:-$HOME/.cache/thrift-nio}
bin=$cache/thrift-$version/bin/thrift

if [[ -x $bin ]] && "$bin" --version 2>/dev/null | grep -q "$version"; then
  echo "$bin"
  exit 0
fi

missing=()
for tool in bison flex; do
  command -v "$tool" > /dev/null || missing+=("$tool")
done
if (( ${#missing[@]} > 0 )); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "thrift-compiler.sh: ${missing[*]} missing; install them (Debian: apt-get install ${missing[*]})" >&2
    exit 1
  fi
  apt-get install -y -q "${missing[@]}" >&2
fi
for tool in go cmake g++; do
  command -v "$tool" > /dev/null || { echo "thrift-compiler.sh: $tool missing" >&2; exit 1; }
done

src=$(cd "$(mktemp -d)" && GOFLAGS=-mod=mod go mod download -json "github.com/apache/thrift@v$version" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -d $src/compiler/cpp ]] || { echo "thrift-compiler.sh: no compiler source in $src" >&2; exit 1; }

build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
# Every generator off but Java's: the project generates Java only, and it builds in a fraction of
# the time.
langs=$(sed -n 's/^THRIFT_ADD_COMPILER(\([a-z_]*\) .*/\1/p' "$src/compiler/cpp/CMakeLists.txt")
flags=()
for lang in $langs; do
  upper=$(echo "$lang" | tr '[:lower:]' '[:upper:]')
  if [[ $lang == java ]]; then flags+=("-DTHRIFT_COMPILER_$upper=ON"); else flags+=("-DTHRIFT_COMPILER_$upper=OFF"); fi
done
cmake -S "$src/compiler/cpp" -B "$build" -DCMAKE_BUILD_TYPE=Release "${flags[@]}" > "$build/cmake.log" 2>&1 \
  || { cat "$build/cmake.log" >&2; exit 1; }
cmake --build "$build" -j "$(nproc)" > "$build/build.log" 2>&1 || { tail -40 "$build/build.log" >&2; exit 1; }
mkdir -p "$(dirname "$bin")"
cp "$(find "$build" -type f -name thrift -perm -u+x | head -1)" "$bin"
"$bin" --version >&2
echo "$bin"
