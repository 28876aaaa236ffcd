#!/usr/bin/env bash
# Packs every module's compiled tests and JUnit's console launcher into .gputest/ (ignored by git), so that the GPU host,
# which has no Maven, can run the whole suite of every module in ONE JVM, as a user's program would:
#   .gputest/junit.jar      junit-platform-console-standalone (JUnit Jupiter, params, the launcher)
#   .gputest/tests/*.jar    one jar of test classes and test resources per module
# Run from the repository root after ./jkompute bundle (which builds the main jars).
set -euo pipefail
root=$(git rev-parse --show-toplevel); cd "$root"
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64} PATH=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin:$PATH
ex=$(git rev-parse --git-path info/exclude); mkdir -p "$(dirname "$ex")"
grep -qx "/.gputest/" "$ex" 2>/dev/null || echo "/.gputest/" >> "$ex"
junit=$(sed -n 's:.*<junit.version>5\.\([0-9.]*\)</junit.version>.*:1.\1:p' pom.xml)
MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow mvn -B -q -o test-compile -DskipTests
rm -rf .gputest && mkdir -p .gputest/tests
MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow mvn -B -q dependency:copy \
  -Dartifact=org.junit.platform:junit-platform-console-standalone:$junit -DoutputDirectory=.gputest -Dmdep.stripVersion=true
mv .gputest/junit-platform-console-standalone.jar .gputest/junit.jar
for d in jkompute-*/target/test-classes; do
  m=${d%%/*}
  jar --create --file ".gputest/tests/$m-tests.jar" -C "$d" .
done
ls -la .gputest .gputest/tests
