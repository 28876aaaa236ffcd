#!/usr/bin/env bash
# Builds .ci/consumer (copied to DIR, outside the source tree) against the jkompute artifacts in the Maven
# repository REPO and runs it on the module path and on the class path.  Usage: .ci/consumer.sh REPO DIR
set -euo pipefail
repo=$1 dir=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/consumer" && pwd)
rm -rf "$dir" && mkdir -p "$dir" && cp -r "$src"/. "$dir"/
cd "$dir"
mvn -B -q -Dstyle.color=never -Dmaven.repo.local="$repo" package dependency:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory=target/lib
java_bin=${JAVA_HOME:+$JAVA_HOME/bin/}java
# the JVM flags the README gives: native access for the modules that call native code (LWJGL's, jkompute-core), and
# LWJGL's use of sun.misc.Unsafe allowed; a warning on stderr fails this check, as a user would see it on every run
native=org.lwjgl,org.lwjgl.vulkan,org.lwjgl.shaderc,org.lwjgl.spvc,org.lwjgl.vma,io.jkompute.core
check() {
  local err rc=0
  err=$(mktemp)
  "$@" 2>"$err" || rc=$?
  cat "$err" >&2
  if [ $rc -eq 0 ] && grep -q WARNING "$err"; then echo "consumer: the JVM warned (above)" >&2; rc=1; fi
  rm -f "$err"
  return $rc
}
echo "consumer: module path"
# the module path resolves only what is required; LWJGL's natives jars are modules nobody requires, so add them all
check "$java_bin" --enable-native-access=$native --sun-misc-unsafe-memory-access=allow \
  -p target/jkompute-consumer-1.0.jar:target/lib --add-modules ALL-MODULE-PATH \
  -m org.example.consumer/org.example.consumer.Main
echo "consumer: class path"
check "$java_bin" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  -cp "target/jkompute-consumer-1.0.jar:target/lib/*" org.example.consumer.Main
