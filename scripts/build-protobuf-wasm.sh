#!/usr/bin/env bash
# Builds libprotobuf-lite with emcc from the Debian source package of the very version of the
# installed protoc, so the wasm viewer links the same generated C++ as the server.
#
# Result (cached per machine, outside any build tree; built once, then skipped):
#   ${FLOCKSTEP_CACHE:-$HOME/.cache/flockstep}/protobuf-wasm-<protoc version>/
#       include/google/protobuf/...   headers of that exact source
#       lib/libprotobuf-lite.a        wasm32 object archive
#       STAMP                         Debian source version + emcc version it was built from
# cmake/ProtobufWasm.cmake finds it (imported target flockstep::protobuf_lite_wasm).
#
# Needs: protobuf-compiler, emscripten, node-acorn, dpkg-dev, cmake, ninja-build (scripts/setup.sh).
# Network: the Debian source mirror, through a private apt source list (the system's apt
# configuration is not touched). FLOCKSTEP_FORCE=1 rebuilds.
set -euo pipefail

say() { printf 'protobuf-wasm: %s\n' "$*"; }
die() { printf 'protobuf-wasm: ERROR: %s\n' "$*" >&2; exit 1; }

command -v protoc >/dev/null || die "protoc not found: install protobuf-compiler (scripts/setup.sh)"
command -v emcc >/dev/null || die "emcc not found: install emscripten (scripts/setup.sh)"
# NodeSource's node does not look in /usr/share/nodejs, where Debian's node-acorn lives.
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

PROTOC_VERSION="$(protoc --version | awk '{print $2}')"          # e.g. 3.21.12
SRC_VERSION="$(dpkg-query -W -f='${source:Version}' protobuf-compiler 2>/dev/null || true)"
[[ -n "$SRC_VERSION" ]] || die "protobuf-compiler is not installed as a Debian package"
# emcc's whole output is read (no `| head -1`: under pipefail, head closing the pipe early can
# kill emcc with SIGPIPE and end this script without a word), and a failure says why.
EMCC_ERR="$(mktemp)"
EMCC_OUT="$(emcc --version 2>"$EMCC_ERR")" || die "emcc --version failed: $(tail -n 5 "$EMCC_ERR")"
rm -f "$EMCC_ERR"
EMCC_VERSION="$(sed -nE '1s/.* ([0-9]+\.[0-9]+\.[0-9]+).*/\1/p' <<<"$EMCC_OUT")"
[[ -n "$EMCC_VERSION" ]] || die "cannot read a version from 'emcc --version': $(head -c 200 <<<"$EMCC_OUT")"
CACHE="${FLOCKSTEP_CACHE:-$HOME/.cache/flockstep}"
PREFIX="$CACHE/protobuf-wasm-$PROTOC_VERSION"
WANT_STAMP="protobuf $SRC_VERSION emcc $EMCC_VERSION"

if [[ "${FLOCKSTEP_FORCE:-0}" != 1 && -f "$PREFIX/lib/libprotobuf-lite.a" && -f "$PREFIX/STAMP" \
      && "$(cat "$PREFIX/STAMP")" == "$WANT_STAMP" ]]; then
  say "cached: $PREFIX ($WANT_STAMP)"
  exit 0
fi

say "building libprotobuf-lite $SRC_VERSION with emcc $EMCC_VERSION into $PREFIX"
start=$SECONDS
WORK="$CACHE/.protobuf-wasm-work"
rm -rf "$WORK"
mkdir -p "$WORK/apt/lists/partial" "$WORK/src"

# A private deb-src list made from the system's deb lines: same mirrors, no system change.
if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >"$WORK/apt/src.sources"
fi
if [[ -f /etc/apt/sources.list ]]; then
  sed -n 's/^deb \(.*debian.*\)$/deb-src \1/p' /etc/apt/sources.list >"$WORK/apt/src.list"
fi
[[ -s "$WORK/apt/src.sources" || -s "$WORK/apt/src.list" ]] \
  || die "no Debian apt sources found in /etc/apt to derive a deb-src list from"
APT_OPTS=(-o "Dir::Etc::SourceParts=$WORK/apt" -o "Dir::Etc::SourceList=$WORK/apt/src.list"
          -o "Dir::State::Lists=$WORK/apt/lists" -o "Dir::Cache=$WORK/apt/cache"
          -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
touch "$WORK/apt/src.list"
say "fetching source package protobuf=$SRC_VERSION"
apt-get "${APT_OPTS[@]}" -q update >"$WORK/apt-update.log" 2>&1 \
  || { cat "$WORK/apt-update.log" >&2; die "apt-get update (deb-src) failed"; }
(cd "$WORK/src" && apt-get "${APT_OPTS[@]}" -q source --download-only "protobuf=$SRC_VERSION") \
  >"$WORK/apt-source.log" 2>&1 || { cat "$WORK/apt-source.log" >&2; die "apt-get source failed"; }
dsc="$(find "$WORK/src" -maxdepth 1 -name 'protobuf_*.dsc' | head -1)"
[[ -n "$dsc" ]] || die "apt-get source downloaded no protobuf .dsc (log: $WORK/apt-source.log)"
# dpkg-source applies Debian's patches, so this is exactly the source of the installed protoc.
(cd "$WORK/src" && dpkg-source --no-check -x "$dsc" protobuf) >"$WORK/dpkg-source.log" 2>&1 \
  || { cat "$WORK/dpkg-source.log" >&2; die "dpkg-source -x failed"; }
SRC="$WORK/src/protobuf"
# protobuf 3.21 keeps its CMakeLists.txt in cmake/ (3.21.x moved it to the top; accept both).
if [[ -f "$SRC/CMakeLists.txt" ]]; then CMSRC="$SRC"; else CMSRC="$SRC/cmake"; fi

say "configuring with emcmake"
emcmake cmake -S "$CMSRC" -B "$WORK/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -Dprotobuf_BUILD_TESTS=OFF -Dprotobuf_BUILD_PROTOC_BINARIES=OFF -Dprotobuf_BUILD_LIBPROTOC=OFF \
  -Dprotobuf_WITH_ZLIB=OFF -Dprotobuf_BUILD_SHARED_LIBS=OFF -Dprotobuf_INSTALL=OFF \
  -DCMAKE_CXX_FLAGS="-ffp-contract=off" >"$WORK/configure.log" 2>&1 \
  || { tail -40 "$WORK/configure.log" >&2; die "emcmake cmake failed (log: $WORK/configure.log)"; }
say "compiling libprotobuf-lite (-j${FLOCKSTEP_JOBS:-2})"
cmake --build "$WORK/build" --target libprotobuf-lite -j"${FLOCKSTEP_JOBS:-2}" >"$WORK/build.log" 2>&1 \
  || { tail -40 "$WORK/build.log" >&2; die "build failed (log: $WORK/build.log)"; }

# Install by hand: protobuf's install rules expect the full library and protoc to be built.
rm -rf "$PREFIX.tmp" && mkdir -p "$PREFIX.tmp/lib" "$PREFIX.tmp/include"
cp "$(find "$WORK/build" -name libprotobuf-lite.a | head -1)" "$PREFIX.tmp/lib/"
(cd "$SRC/src" && find google \( -name '*.h' -o -name '*.inc' \) -exec cp --parents -t "$PREFIX.tmp/include/" {} +)
printf '%s\n' "$WANT_STAMP" >"$PREFIX.tmp/STAMP"
rm -rf "$PREFIX" && mv "$PREFIX.tmp" "$PREFIX"
rm -rf "$WORK"
say "built in $((SECONDS - start)) s: $PREFIX/lib/libprotobuf-lite.a ($(du -h "$PREFIX/lib/libprotobuf-lite.a" | cut -f1))"
