#!/usr/bin/env bash
# Packs a built brrr into a self-contained folder that runs on a machine without the Debian
# libraries the collector links (Abseil, libdw/libelf, ...), e.g. a GPU machine reached through
# the device tool: lib/brrr, lib/libbrrr.so, lib/python/ (brrr's sitecustomize), and lib/deps/ with every non-glibc shared library
# `brrr` needs. brrr finds them through an RPATH of $ORIGIN/deps (DT_RPATH, so it also covers the
# libraries' own dependencies and wins over LD_LIBRARY_PATH).
#
# Usage (on the build machine, after `cmake --preset default && cmake --build --preset default`):
#   tools/gpu/bundle.sh [--build DIR] [--out DIR]     (defaults: build/default, build/gpu-bundle)
#
# Must never: set or rely on LD_LIBRARY_PATH (the app `brrr run` starts would inherit it and load
# our copies of libstdc++ & co.), put anything but libc into libbrrr.so's dependencies, modify the
# build directory, or leave a half-written bundle that looks complete (BUNDLE.txt is written last).
# '$ORIGIN' and the probe's '${LD_LIBRARY_PATH-unset}' are meant literally:
# shellcheck disable=SC2016
set -Eeuo pipefail
# Any command that fails under set -e says which one, where, and with what status: the script never
# dies in silence (a pipeline's SIGPIPE once ended it with only exit status 141).
on_error() { # STATUS LINE COMMAND
  echo "bundle.sh: failed (exit $1) at line $2: $3" >&2
}
trap 'on_error "$?" "$LINENO" "$BASH_COMMAND"' ERR

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build_dir="$repo_root/build/default"
out_dir="$repo_root/build/gpu-bundle"
max_mib=40      # what we aim for
hard_max_mib=60 # the device tool carries at most 64 MiB in all

die() {
  echo "bundle.sh: $*" >&2
  exit 1
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build_dir="$(cd "${2:?--build needs a directory}" && pwd)" || die "no such build dir: $2"; shift 2 ;;
    --out) out_dir="${2:?--out needs a directory}"; shift 2 ;;
    -h | --help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument: $1 (see --help)" ;;
  esac
done
[[ "$out_dir" = /* ]] || out_dir="$PWD/$out_dir"
out_dir="${out_dir%/}"

brrr_bin="$build_dir/lib/brrr"
shim="$build_dir/lib/libbrrr.so"
[[ -x "$brrr_bin" && -f "$shim" ]] ||
  die "$brrr_bin or $shim missing: build first (cmake --preset default && cmake --build --preset default)"
for tool in ldd readelf; do command -v "$tool" >/dev/null || die "$tool not found"; done

# glibc's own libraries are on every Linux machine and must match its ld.so: never bundled.
is_system_lib() {
  case "$1" in
    linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | \
      librt.so.* | libutil.so.* | libresolv.so.* | libmvec.so.*) return 0 ;;
  esac
  return 1
}

# The shim goes into the app's process: its NEEDED list must stay glibc only (DESIGN.md fact 6).
while read -r needed; do
  is_system_lib "$needed" || die "libbrrr.so needs $needed: the shim must need only libc"
done < <(readelf -d "$shim" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')

has_bundle_rpath() { # DT_RPATH (not DT_RUNPATH) of exactly $ORIGIN/deps
  local dynamic
  dynamic="$(readelf -d "$1")" # not piped into grep -q: pipefail would see readelf's SIGPIPE
  [[ "$dynamic" =~ \(RPATH\)[^$'\n']*\[\$ORIGIN/deps\] ]]
}

rm -rf "$out_dir.tmp"
mkdir -p "$out_dir.tmp/lib/deps"
stage="$out_dir.tmp"

# 1. brrr with RPATH $ORIGIN/deps: already linked so (BRRR_BUNDLE_RPATH), patched by patchelf, or
# relinked from the build's own link command with the flag added (output outside the build dir).
how=""
if has_bundle_rpath "$brrr_bin"; then
  cp "$brrr_bin" "$stage/lib/brrr"
  how="linked with RPATH \$ORIGIN/deps"
elif command -v patchelf >/dev/null; then
  cp "$brrr_bin" "$stage/lib/brrr"
  patchelf --force-rpath --set-rpath '$ORIGIN/deps' "$stage/lib/brrr"
  how="patchelf --force-rpath"
else
  [[ -f "$build_dir/build.ninja" ]] ||
    die "brrr has no RPATH \$ORIGIN/deps, patchelf is missing and $build_dir is not a Ninja build"
  link_cmd="$(ninja -C "$build_dir" -t commands lib/brrr | tail -n 1)"
  [[ "$link_cmd" == *" -o lib/brrr "* ]] || die "unexpected link command for lib/brrr: $link_cmd"
  rpath_flag="-Wl,--disable-new-dtags,-rpath,'\$ORIGIN/deps'" # quoted for the eval below
  new_output=" -o $(printf '%q' "$stage/lib/brrr") $rpath_flag "
  link_cmd="${link_cmd/" -o lib/brrr "/"$new_output"}"
  (cd "$build_dir" && eval "$link_cmd") || die "relinking brrr failed"
  how="relinked with -Wl,--disable-new-dtags,-rpath,'\$ORIGIN/deps'"
fi
has_bundle_rpath "$stage/lib/brrr" || die "the bundled brrr has no DT_RPATH \$ORIGIN/deps"
cp "$shim" "$stage/lib/libbrrr.so"
# brrr's sitecustomize (PyTorch's record_function labels), which brrr run finds next to itself.
[[ -f "$build_dir/lib/python/sitecustomize.py" ]] ||
  die "no $build_dir/lib/python/sitecustomize.py (rebuild: it is copied there by the build)"
cp -r "$build_dir/lib/python" "$stage/lib/python"
# Debug sections are most of a RelWithDebInfo brrr (46 of 48 MB) and nothing on the GPU machine
# reads them; the symbol tables stay, so backtraces still name functions.
if command -v strip >/dev/null; then
  strip --strip-debug "$stage/lib/brrr" "$stage/lib/libbrrr.so"
  has_bundle_rpath "$stage/lib/brrr" || die "strip lost brrr's DT_RPATH"
fi

# 2. Every non-glibc library brrr loads, transitively (ldd lists the closure), by soname.
# libstdc++/libgcc_s are included: the target's may be older than the one brrr was built against.
# They are seen by brrr only: the app keeps its own (the shim needs libc alone).
while read -r soname arrow path _; do
  [[ "$arrow" == "=>" ]] || continue
  is_system_lib "$soname" && continue
  [[ "$path" == /* && -f "$path" ]] || die "brrr needs $soname, which ldd cannot find ($path)"
  cp -L "$path" "$stage/lib/deps/$soname"
done < <(ldd "$brrr_bin")
# libunwind, which libbrrr.so dlopens from lib/deps/ for stacks of driver-API and static-cudart
# calls (shim/unwinder.cc), with what it needs.
# The cache is read whole first: awk stopping at the first match must not SIGPIPE ldconfig (under
# pipefail that failed the script once the cache was large, e.g. after python3-torch).
ld_cache="$(ldconfig -p)" || die "ldconfig -p failed (exit $?)"
unwind="$(awk '/libunwind\.so\.8 .*x86-64/ { print $NF; exit }' <<<"$ld_cache")"
[[ -n "$unwind" && -f "$unwind" ]] || die "libunwind.so.8 not found (apt-get install libunwind-dev)"
cp -L "$unwind" "$stage/lib/deps/libunwind.so.8"
while read -r soname arrow path _; do
  [[ "$arrow" == "=>" ]] || continue
  is_system_lib "$soname" && continue
  [[ -f "$stage/lib/deps/$soname" ]] || cp -L "$path" "$stage/lib/deps/$soname"
done < <(ldd "$unwind")

# 3. Facts the target machine must meet: the newest glibc symbol version the files need, with and
# without our libstdc++/libgcc_s (acceptance.sh falls back to the target's own if ours cannot load).
newest_glibc() {
  local f
  for f in "$@"; do readelf -V "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*' || true; done |
    sed 's/GLIBC_//' | sort -V -u | tail -n 1
}
glibc_needed="$(newest_glibc "$stage"/lib/brrr "$stage"/lib/libbrrr.so "$stage"/lib/deps/*)"
mapfile -t not_cxx_runtime < <(find "$stage/lib" -type f ! -name 'libstdc++.so.*' ! -name 'libgcc_s.so.*')
glibc_needed_own_cxx="$(newest_glibc "${not_cxx_runtime[@]}")"
shim_glibc="$(newest_glibc "$stage/lib/libbrrr.so")"

# 4. Check before publishing: runs with an empty environment from another directory, and every
# non-glibc library resolves into the bundle.
if ! (cd / && env -i PATH=/usr/bin:/bin "$stage/lib/brrr" --help >/dev/null); then
  die "the bundled brrr does not run with an empty environment"
fi
while read -r soname arrow path _; do
  [[ "$arrow" == "=>" ]] || continue
  is_system_lib "$soname" && continue
  [[ "$path" == "$stage/lib/deps/$soname" ]] || die "$soname resolves to $path, not into the bundle"
done < <(cd / && env -i PATH=/usr/bin:/bin ldd "$stage/lib/brrr")
# brrr run must not hand any library path to the app.
scratch="$(mktemp -d)"
leaked="$(cd "$scratch" && env -i PATH=/usr/bin:/bin "$stage/lib/brrr" run --quiet \
  --output "$scratch/probe.brrr" -- /bin/sh -c 'printf "%s" "${LD_LIBRARY_PATH-unset}"' 2>/dev/null)" ||
  true
rm -rf "$scratch"
[[ "$leaked" == "unset" ]] || die "the app saw LD_LIBRARY_PATH='$leaked' under the bundled brrr"

commit="$(git -C "$repo_root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty="$(git -C "$repo_root" status --porcelain 2>/dev/null | wc -l)"
[[ "$dirty" == 0 ]] && dirty=""
{
  echo "brrr GPU bundle"
  echo "commit=$commit${dirty:+ (working tree had changes)}"
  echo "build_dir=$build_dir"
  echo "created=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "rpath=$how"
  echo "glibc_min=${glibc_needed:-unknown}"
  echo "glibc_min_with_system_libstdcxx=${glibc_needed_own_cxx:-unknown}"
  echo "glibc_min_shim=${shim_glibc:-unknown}"
  echo "files:"
  (cd "$stage" && find lib -type f -printf '  %p %s\n' | sort)
} >"$stage/BUNDLE.txt"

rm -rf "$out_dir"
mv "$stage" "$out_dir"

size_kib="$(du -sk "$out_dir" | cut -f1)"
size_mib=$(((size_kib + 1023) / 1024))
echo "bundle: $out_dir ($(find "$out_dir/lib/deps" -type f | wc -l) libraries in lib/deps, ${size_mib} MiB, needs glibc >= ${glibc_needed:-?}, or >= ${glibc_needed_own_cxx:-?} with the target's libstdc++)"
echo "brrr: $how"
if ((size_mib > hard_max_mib)); then
  die "the bundle is ${size_mib} MiB: too big to carry (limit ${hard_max_mib} MiB)"
elif ((size_mib > max_mib)); then
  echo "bundle.sh: warning: ${size_mib} MiB is over the ${max_mib} MiB aim" >&2
fi
