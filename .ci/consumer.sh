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
echo "consumer: module path"
# the module path resolves only what is required; LWJGL's natives jars are separate modules, so add them all
"$java_bin" --enable-native-access=ALL-MODULE-PATH -p target/jkompute-consumer-1.0.jar:target/lib \
  --add-modules ALL-MODULE-PATH -m org.example.consumer/org.example.consumer.Main
echo "consumer: class path"
"$java_bin" --enable-native-access=ALL-UNNAMED -cp "target/jkompute-consumer-1.0.jar:target/lib/*" \
  org.example.consumer.Main
