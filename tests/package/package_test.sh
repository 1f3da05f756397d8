#!/usr/bin/env bash
# brrr as installed (issue 49): `cmake --install` into a prefix that is then moved, the Debian
# package (`cpack -G DEB`, into a scratch directory), its contents, its Depends, the unpacked
# package, and the container recipe's copy-two-files path. Each profiles e2e_launch_bound on the
# simulated device with the build tree's brrr out of reach (the app records which shim it was
# given) and checks the report's launch count. lintian's errors, where lintian is installed.
# Usage: package_test.sh BUILD_DIR
# Must never: write into the build directory (cpack's scratch goes to a temporary one).
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH="$build/simcuda/lib"  # the simulated device, not brrr
app="$build/tests/e2e/e2e_launch_bound"
fail() { echo "package_test: FAIL: $*" >&2; exit 1; }

# Profiles 100 launches with BRRR (a brrr executable) and checks the report and the shim used.
profile() {
  local brrr=$1 want_shim=$2 out="$tmp/run.brrr"
  rm -f "$out" "$tmp/preload"
  "$brrr" run --quiet --output "$out" -- sh -c 'echo "$LD_PRELOAD" > "$0"; exec "$1" 100' \
    "$tmp/preload" "$app" > /dev/null || fail "$brrr run exited $?"
  grep -qx "$want_shim" "$tmp/preload" || fail "the app got LD_PRELOAD=$(cat "$tmp/preload"), not $want_shim"
  local launches
  launches=$("$brrr" report --json "$out" | python3 -c '
import json, sys
print(sum(a["calls"] for a in json.load(sys.stdin)["api"] if a["name"] == "__cudaLaunchKernel"))')
  [[ $launches == 100 ]] || fail "$brrr: the report says $launches launches, not 100"
}

echo "package_test: cmake --install, then the prefix moved"
cmake --install "$build" --prefix "$tmp/prefix" > /dev/null
mv "$tmp/prefix" "$tmp/moved"
p="$tmp/moved"
for f in bin/brrr lib/brrr/brrr lib/brrr/libbrrr.so lib/brrr/python/sitecustomize.py \
         share/man/man1/brrr.1.gz share/doc/brrr/README.md share/doc/brrr/copyright; do
  [[ -e $p/$f ]] || fail "not installed: $f"
done
[[ $(readlink "$p/bin/brrr") != /* ]] || fail "bin/brrr is an absolute link"
leftovers=$(cd "$p" && find . -type f | grep -Ei 'sim|test|bench|\.a$' || true)
[[ -z $leftovers ]] || fail "installed what is not brrr's: $leftovers"
[[ $("$p/bin/brrr" preload-path) == "$p/lib/brrr/libbrrr.so" ]] || fail "preload-path: $("$p/bin/brrr" preload-path)"
"$p/bin/brrr" --version | head -1 | grep -q "^brrr [0-9]" || fail "--version: $("$p/bin/brrr" --version)"
zcat "$p/share/man/man1/brrr.1.gz" | grep -q '^\.TH BRRR 1' || fail "the man page has no .TH"
profile "$p/bin/brrr" "$p/lib/brrr/libbrrr.so"

echo "package_test: the copy-two-files recipe (brrr and libbrrr.so in one directory)"
mkdir "$tmp/two"
cp "$p/lib/brrr/brrr" "$p/lib/brrr/libbrrr.so" "$tmp/two/"
profile "$tmp/two/brrr" "$tmp/two/libbrrr.so"

if ! command -v dpkg-deb > /dev/null || ! command -v dpkg-shlibdeps > /dev/null; then
  echo "package_test: no dpkg-deb or dpkg-shlibdeps here: the Debian package is not checked"
  exit 0
fi
echo "package_test: cpack -G DEB"
(cd "$tmp" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/deb" > "$tmp/cpack.log" 2>&1) \
  || { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB"; }
deb=$(ls "$tmp"/deb/brrr_*_amd64.deb 2>/dev/null | head -1)
[[ -n $deb ]] || fail "no brrr_*_amd64.deb"
listing=$(dpkg-deb -c "$deb")
for f in ./usr/bin/brrr ./usr/lib/brrr/brrr ./usr/lib/brrr/libbrrr.so ./usr/share/man/man1/brrr.1.gz; do
  grep -q " $f\( \|$\)" <<< "$listing" || fail "the package lacks $f"
done
depends=$(dpkg-deb -f "$deb" Depends)
grep -q libunwind8 <<< "$depends" || fail "Depends lacks libunwind8 (the shim dlopens it): $depends"
grep -qi cuda <<< "$depends" && fail "Depends names CUDA: $depends"
IFS=',' read -ra deps <<< "$depends"
for d in "${deps[@]}"; do
  name=$(awk '{print $1}' <<< "$d")
  policy=$(apt-cache policy "$name" 2>/dev/null)
  grep -Eq '(Installed|Candidate): [^(]' <<< "$policy" || fail "Depends names $name, which apt does not know"
done
dpkg-deb -x "$deb" "$tmp/root"
profile "$tmp/root/usr/bin/brrr" "$tmp/root/usr/lib/brrr/libbrrr.so"
if command -v lintian > /dev/null; then
  lintian --fail-on error "$deb" || fail "lintian errors"
else
  echo "package_test: lintian not installed: not run"
fi
echo "package_test: ok"
