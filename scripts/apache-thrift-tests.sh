#!/usr/bin/env bash
# Brings Apache Thrift's cross-language test files that the it module's Apache cross-test runs
# (test/ThriftTest.thrift, test/py/TestClient.py, test/py/util.py) and prints the directory that
# holds their test/ folder. They come unmodified from Apache Thrift's release tarball as Debian
# ships it in its source package "thrift" (Apache License 2.0, as this project; see NOTICE there),
# fetched with apt-get source from the deb-src twins of this machine's own Debian sources, through
# a private sources list and state directory: the machine's apt configuration does not change.
#
# Needs apt-get (Debian and its derivatives). Kept under ${THRIFTNIO_CACHE:-$HOME/.cache/thrift-nio}
# so that a second run prints the path at once. Usage: dir=$(scripts/apache-thrift-tests.sh)
set -euo pipefail

version=0.17.0-2 # Debian bookworm's; TestClient.py has --protocol header since 0.13
upstream=${version%-*}
cache=${THRIFTNIO_CACHE:-$HOME/.cache/thrift-nio}
out=$cache/apache-thrift-tests-$version
files=(test/ThriftTest.thrift test/py/TestClient.py test/py/util.py LICENSE NOTICE)

complete() {
  local f
  for f in "${files[@]}"; do
    [[ -f $out/$f ]] || return 1
  done
}

if complete; then
  echo "$out"
  exit 0
fi
command -v apt-get > /dev/null || { echo "apache-thrift-tests.sh: apt-get missing" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/parts" "$work/src"
# The deb-src twin of every deb entry this machine has (deb822 and one-line files).
for f in /etc/apt/sources.list.d/*.sources; do
  [[ -f $f ]] && sed 's/^Types:.*/Types: deb-src/' "$f" > "$work/parts/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [[ -f $f ]] && sed -n 's/^deb \(.*\)$/deb-src \1/p' "$f" >> "$work/parts/sources.list"
done
apt=(apt-get -q -o "Dir::Etc::SourceParts=$work/parts" -o "Dir::Etc::SourceList=$work/parts/sources.list"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root")
touch "$work/parts/sources.list"
"${apt[@]}" update > "$work/update.log" 2>&1 || { cat "$work/update.log" >&2; exit 1; }
(cd "$work/src" && "${apt[@]}" source --download-only "thrift=$version") > "$work/source.log" 2>&1 \
  || { cat "$work/source.log" >&2; exit 1; }
tarball=$work/src/thrift_${upstream}.orig.tar.gz
[[ -f $tarball ]] || { echo "apache-thrift-tests.sh: no $tarball" >&2; ls "$work/src" >&2; exit 1; }

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
tar -xzf "$tarball" -C "$out.tmp" --strip-components=1 "${files[@]/#/thrift-$upstream/}"
rm -rf "$out"
mv "$out.tmp" "$out"
complete || { echo "apache-thrift-tests.sh: $out lacks some of ${files[*]}" >&2; exit 1; }
echo "apache-thrift-tests.sh: Apache Thrift $upstream test files in $out" >&2
echo "$out"
