#!/usr/bin/env bash
# Installs everything Flockstep needs on Debian 12 (bookworm), starting from a bare system:
#   1. Debian packages (only the missing ones; `apt-get update` only when something is missing),
#   2. npm packages from package-lock.json (playwright-core; the browser is Debian's chromium),
#   3. libprotobuf-lite compiled with emcc for the wasm build (scripts/build-protobuf-wasm.sh, cached).
# Idempotent: a second run on a ready machine changes nothing and takes a second or two.
# Runs as root, or as a user with sudo (used for apt only).
#
# Environment:
#   FLOCKSTEP_CACHE          cache root (default: $HOME/.cache/flockstep)
#   FLOCKSTEP_SKIP_APT=1     skip step 1 (e.g. a machine you manage yourself)
#   FLOCKSTEP_SKIP_NPM=1     skip step 2
#   FLOCKSTEP_SKIP_WASM_PROTOBUF=1  skip step 3
#   FLOCKSTEP_SETUP_PROFILE  "all" (default: build, run and test) or "run" (only what building and
#                            serving need: scripts/run.sh; the test command installs the rest)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: ERROR: %s\n' "$*" >&2; exit 1; }

# --- Debian packages --------------------------------------------------------------------------
# One line per purpose; edit here when the project needs something new.
PACKAGES=(
  # native toolchain (git: the commit that --version and flockstep_build_info report)
  build-essential g++ cmake ninja-build ccache git ca-certificates
  # server: Boost.Beast/Asio are header-only, and libboost1.81-dev has the CMake config
  # (find_package(Boost)); nothing links a compiled Boost library. (libboost1.81-all-dev would
  # also pull MPI, Python and numpy: minutes of CI time for nothing.)
  libboost1.81-dev
  libprotobuf-dev protobuf-compiler nlohmann-json3-dev
  # server metrics: prometheus-cpp's registry and text format (only its core library is linked)
  prometheus-cpp-dev
  # server: HMAC-SHA256 of resume tokens kept at rest (OpenSSL's libcrypto)
  libssl-dev
  # tests and benchmarks (googletest = the sources in /usr/src/googletest the wasm build compiles)
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  # WebAssembly: emscripten 3.1.6 (uses Debian's clang-14/lld-14/binaryen); node-acorn for its JS
  # optimizer; dpkg-dev + xz-utils unpack the protobuf source package for the wasm runtime
  emscripten node-acorn dpkg-dev xz-utils
)
# What only the test suite needs (FLOCKSTEP_SETUP_PROFILE=run leaves these out, so a first start
# with scripts/run.sh does not wait for a browser, a second compiler and test servers).
TEST_PACKAGES=(
  # browser tests: Debian's chromium driven by playwright-core (never a downloaded browser);
  # fonts-liberation so screenshots have readable text
  chromium fonts-liberation
  # fuzzing (libFuzzer) and LeakSanitizer runtime
  clang libclang-rt-14-dev
  # python3-yaml: tests/docker/validate_manifests.py parses the Agones and Compose YAML, and the
  # OpenAPI test reads docs/openapi.yaml
  python3 python3-yaml
  # python3-protobuf + python3-websockets: tests/e2e/proto_client_py.py, a third independent decoder of the wire
  python3-protobuf python3-websockets
  # prometheus: promtool checks a real /metrics scrape and deploy/prometheus/alerts.yml
  prometheus
  # python3-jsonschema: every scenarios/*.json validates against schemas/scenario.schema.json
  python3-jsonschema
  # python3-editorconfig: which .editorconfig properties apply to a file (tests/deploy/check_editorconfig.py)
  python3-editorconfig
  # TLS test (tests/deploy): nginx terminates TLS in front of the server with a throw-away
  # self-signed certificate made by openssl
  nginx-light openssl
  # clang-format: the formatting check of every C++ file (ctest format_check)
  clang-format
)

case "${FLOCKSTEP_SETUP_PROFILE:-all}" in
  all) PACKAGES+=("${TEST_PACKAGES[@]}") ;;
  run) ;;
  *) die "FLOCKSTEP_SETUP_PROFILE must be 'all' or 'run', not '${FLOCKSTEP_SETUP_PROFILE}'" ;;
esac

if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  SUDO=()
fi

is_installed() {
  [[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" == "ii "* ]]
}

if [[ "${FLOCKSTEP_SKIP_APT:-0}" == 1 ]]; then
  say "[1/3] Debian packages: skipped (FLOCKSTEP_SKIP_APT=1)"
else
  [[ -r /etc/debian_version ]] || die "this script supports Debian 12 (bookworm) only"
  missing=()
  for p in "${PACKAGES[@]}"; do
    is_installed "$p" || missing+=("$p")
  done
  # node/npm: any working install will do (NodeSource's nodejs ships npm, Debian splits them);
  # asking apt for Debian's nodejs on top of NodeSource's would be a downgrade.
  command -v node >/dev/null 2>&1 || is_installed nodejs || missing+=(nodejs)
  # npm only serves the test suite's packages (playwright-core, esbuild for the SDK tarball), and
  # Debian's npm brings 335 node-* packages: on a bare Debian 12, 335 of the 501 packages a first
  # start installed, most of its 413 s of dpkg time. The run profile leaves it out.
  [[ "${FLOCKSTEP_SETUP_PROFILE:-all}" == run ]] || command -v npm >/dev/null 2>&1 || missing+=(npm)
  if ((${#missing[@]} == 0)); then
    say "[1/3] Debian packages: all ${#PACKAGES[@]} present"
  else
    if [[ $(id -u) -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
      die "missing packages (${missing[*]}) and not root, and sudo is not installed"
    fi
    say "[1/3] Debian packages: installing ${#missing[@]} missing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q \
      || die "apt-get update failed"
    # --no-install-recommends: chromium alone recommends upower, udev, mesa, printing tools...
    "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
      --no-install-recommends "${missing[@]}" || die "apt-get install failed for: ${missing[*]}"
    still=()
    for p in "${missing[@]}"; do
      case "$p" in nodejs|npm) command -v "${p/nodejs/node}" >/dev/null || still+=("$p") ;;
                   *) is_installed "$p" || still+=("$p") ;; esac
    done
    ((${#still[@]} == 0)) || die "still missing after apt-get install: ${still[*]}"
    say "[1/3] Debian packages: installed ${missing[*]}"
  fi
  node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
  if ((node_major < 20)); then
    say "       note: node $(node --version 2>/dev/null) < 20; playwright-core (browser tests) wants >= 20"
  fi
fi

# --- npm packages -----------------------------------------------------------------------------
if [[ "${FLOCKSTEP_SKIP_NPM:-0}" == 1 ]]; then
  say "[2/3] npm packages: skipped (FLOCKSTEP_SKIP_NPM=1)"
elif [[ ! -f "$ROOT/package.json" ]]; then
  say "[2/3] npm packages: no package.json, nothing to do"
else
  # Never let a package download a browser: the tests use /usr/bin/chromium.
  export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1
  stamp="$ROOT/node_modules/.flockstep-lock"
  want="$(cat "$ROOT/package.json" "$ROOT/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    say "[2/3] npm packages: node_modules up to date"
  else
    if [[ -f "$ROOT/package-lock.json" ]]; then
      say "[2/3] npm packages: npm ci"
      (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed"
    else
      say "[2/3] npm packages: npm install (no package-lock.json yet)"
      (cd "$ROOT" && npm install --no-audit --no-fund --loglevel=error) || die "npm install failed"
      want="$(cat "$ROOT/package.json" "$ROOT/package-lock.json" 2>/dev/null | sha256sum | cut -d' ' -f1)"
    fi
    printf '%s\n' "$want" >"$stamp"
    say "[2/3] npm packages: done"
  fi
fi

# --- libprotobuf-lite for wasm ----------------------------------------------------------------
if [[ "${FLOCKSTEP_SKIP_WASM_PROTOBUF:-0}" == 1 ]]; then
  say "[3/3] wasm protobuf-lite: skipped (FLOCKSTEP_SKIP_WASM_PROTOBUF=1)"
else
  "$ROOT/scripts/build-protobuf-wasm.sh" | sed 's/^/setup: [3\/3] /' \
    || die "scripts/build-protobuf-wasm.sh failed"
fi
say "ready"
