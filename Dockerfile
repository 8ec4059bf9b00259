# Flockstep: the game server serving the WebAssembly viewer, in one image.
#
#   docker build -t flockstep-server:local .            (or: docker compose up --build)
#
# Where Docker Hub is out of reach (this project's test machines), make a local Debian base and
# let every RUN reach the Debian mirror through the host network (scripts/docker-test.sh does both):
#
#   docker build --network host --build-arg BASE_IMAGE=flockstep-base:bookworm -t flockstep-server:local .
#
# Stages: `build` (compilers, emscripten; the `release` preset for the server and the bot, the
# `wasm` preset for the viewer) and `runtime` (the base image, libprotobuf-lite, the binaries, the
# viewer files, the scenarios; a non-root user). Layers are ordered by how often they change:
# packages, then the wasm protobuf runtime and emscripten's system libraries (minutes, built once),
# then the sources. Written for the classic builder too (Debian 12's docker.io has no buildx, so
# no BuildKit cache mounts).
ARG BASE_IMAGE=debian:bookworm-slim

# ---------------------------------------------------------------------------------------------
FROM ${BASE_IMAGE} AS build
ARG JOBS=2
ENV DEBIAN_FRONTEND=noninteractive \
    FLOCKSTEP_CACHE=/root/.cache/flockstep \
    CCACHE_DIR=/root/.cache/flockstep/ccache \
    CCACHE_MAXSIZE=2G \
    NODE_PATH=/usr/share/nodejs

# The subset of scripts/setup.sh's packages a build needs (no tests, browsers or fuzzers here);
# Boost.Beast/Asio are header-only here (libboost1.81-dev; no compiled Boost library is linked);
# emscripten brings clang/lld/binaryen and Debian's node; node-acorn is its JS optimizer's parser;
# dpkg-dev + xz-utils unpack protobuf's source package for the wasm runtime.
# force-unsafe-io: no fsync per unpacked file (a throw-away build layer; minutes saved on overlayfs).
RUN echo force-unsafe-io >/etc/dpkg/dpkg.cfg.d/flockstep-unsafe-io \
 && apt-get update -q \
 && apt-get install -y -q --no-install-recommends \
      build-essential cmake ninja-build ccache pkg-config ca-certificates \
      libboost1.81-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev \
      prometheus-cpp-dev libssl-dev \
      emscripten node-acorn dpkg-dev xz-utils \
 && rm -rf /var/lib/apt/lists/*

# libprotobuf-lite compiled with emcc from the Debian source of this very protoc (the repo's own
# script, cached in its own layer: it changes only when the script does).
WORKDIR /src
COPY scripts/build-protobuf-wasm.sh scripts/
RUN scripts/build-protobuf-wasm.sh
# emscripten builds its system libraries (libc, libc++, GL, ...) at the first link that needs them;
# link an empty program with the viewer's settings here so that happens in a cached layer.
RUN printf 'int main() { return 0; }\n' >/tmp/warm.cpp \
 && em++ -O2 /tmp/warm.cpp -o /tmp/warm.js -sENVIRONMENT=web -sMIN_WEBGL_VERSION=2 \
      -sMAX_WEBGL_VERSION=2 -sALLOW_MEMORY_GROWTH=1 -lwebsocket.js -lhtml5.js \
 && rm -f /tmp/warm.*

# Only the source the two builds read, so edits to tests, docs or scripts reuse the layers above.
COPY CMakeLists.txt CMakePresets.json VERSION ./
COPY cmake cmake
COPY shared shared
COPY proto proto
COPY server server
COPY tools tools
COPY client client

RUN cmake --preset release -DFLOCKSTEP_BUILD_TESTS=OFF -DFLOCKSTEP_BUILD_BENCH=OFF >/dev/null \
 && cmake --build --preset release -j"${JOBS}" --target flockstep-server flockstep-bot \
 && mkdir -p /out/bin \
 && cp build/release/server/flockstep-server build/release/tools/bot/flockstep-bot /out/bin/ \
 && strip --strip-debug /out/bin/*

# The viewer's lab offers the shipped scenario files from its own folder (web/scenarios/).
COPY scenarios scenarios
RUN cmake --preset wasm -DFLOCKSTEP_BUILD_TESTS=OFF -DFLOCKSTEP_BUILD_SDK=OFF >/dev/null \
 && cmake --build --preset wasm -j"${JOBS}" \
 && test -f build/wasm/client/web/viewer.wasm -a -f build/wasm/client/web/index.html \
 && test -f build/wasm/client/web/scenarios/arena.json \
 && mkdir -p /out && cp -a build/wasm/client/web /out/web

# ---------------------------------------------------------------------------------------------
FROM ${BASE_IMAGE} AS runtime
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends -o DPkg::Options::=--force-unsafe-io libprotobuf-lite32 libprometheus-cpp-core1.0 libssl3 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin flockstep

COPY --from=build /out/bin/ /usr/local/bin/
COPY --from=build /out/web/ /opt/flockstep/web/
COPY scenarios/ /opt/flockstep/scenarios/
# The default configuration; docker-compose.yml mounts ./config/flockstep.json over it read-only.
# Precedence: flags > FLOCKSTEP_* environment > this file > built-in defaults (docs/server.md).
COPY config/flockstep.json /etc/flockstep/flockstep.json
ENV FLOCKSTEP_CONFIG=/etc/flockstep/flockstep.json

WORKDIR /opt/flockstep
USER flockstep
EXPOSE 8080
# The binary probes its own /healthz (slim images have no curl); it reads the same configuration,
# so a changed port is probed too.
HEALTHCHECK --interval=10s --timeout=5s --start-period=5s --retries=3 \
  CMD ["flockstep-server", "--healthcheck"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["flockstep-server"]
