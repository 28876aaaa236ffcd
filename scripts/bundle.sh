#!/usr/bin/env bash
# `./jkompute bundle`: packs what jkompute needs to run on a bare x86-64 Linux GPU host that has a GPU driver but
# no Java and no Vulkan loader, into .bundle/ at the repository root (ignored by git):
#   .bundle/jre.txz   a jlink'd Java 25 runtime (modules: $JLINK_MODULES)
#   .bundle/deb/      the Vulkan loader and the glvnd libraries NVIDIA's Vulkan driver needs (libvulkan1,
#                     libglvnd0, libglx0, libegl1), unpacked on the host by env.sh
#   .bundle/lib/      jkompute's jars and their runtime dependencies (from ./jkompute build)
#   .bundle/env.sh    `source .bundle/env.sh` on the GPU host: unpacks the runtime and loader, sets JAVA_HOME,
#                     PATH, CP (the class path of everything in lib/) and the NVIDIA Vulkan driver file when the
#                     host has one.
# SKIP_BUILD=1 reuses an existing build. The runtime and the loader are cached in .bundle/ and made only when missing.
# The whole folder stays under 64 MB so that it travels with a working tree to the host.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jdk=${JDK_HOME:-${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}}
modules=${JLINK_MODULES:-java.base,java.logging,java.management,jdk.unsupported,jdk.zipfs,java.compiler,jdk.compiler,java.net.http,jdk.httpserver,jdk.crypto.ec}
b=.bundle
mkdir -p $b/deb $b/lib

if [ ! -f $b/jre.txz ]; then
  echo "bundle: jlink runtime ($modules)" >&2
  tmp=$(mktemp -d)
  "$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --compress=zip-9 \
    --output "$tmp/jre"
  tar -C "$tmp" -cJf $b/jre.txz jre
  rm -rf "$tmp"
fi

if ! ls $b/deb/libvulkan1_*.deb $b/deb/libegl1_*.deb >/dev/null 2>&1; then
  echo "bundle: Vulkan loader packages" >&2
  lists=$(mktemp -d); mkdir -p "$lists/partial"; chmod 755 "$lists" "$lists/partial"   # apt fetches as _apt
  o="-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=$lists"
  apt-get $o update -qq >/dev/null
  (cd $b/deb && apt-get $o download -qq libvulkan1 libglvnd0 libglx0 libegl1 2>/dev/null)
  rm -rf "$lists"
fi

# the jars: the launcher's own build output (.jkompute/lib holds every module jar and its runtime dependencies)
if [ "${SKIP_BUILD:-0}" != 1 ] || [ ! -d .jkompute/lib ]; then
  echo "bundle: ./jkompute build" >&2
  ./jkompute build
fi
rm -f $b/lib/*.jar
cp .jkompute/lib/*.jar $b/lib/
cat > $b/env.sh <<'ENV'
# source this on the GPU host, from the repository root
_b=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for f in "$_b"/deb/*.deb; do dpkg -x "$f" / ; done; ldconfig
if [ ! -x /tmp/jre/bin/java ]; then tar -C /tmp -xJf "$_b/jre.txz"; fi
export JAVA_HOME=/tmp/jre PATH=/tmp/jre/bin:$PATH
export CP=$(ls "$_b"/lib/*.jar | tr '\n' ':')
for j in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json; do
  if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$j" ]; then export VK_DRIVER_FILES=$j; fi
done
unset _b
ENV
kb=$(du -sk $b | cut -f1)
echo "bundle: $((kb / 1024)) MB in .bundle/" >&2
if [ "$kb" -gt $((64 * 1024)) ]; then
  echo "bundle: over 64 MB; too large to travel with the working tree" >&2
  exit 1
fi
