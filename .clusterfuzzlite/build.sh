#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build script, run inside the builder image of
# .clusterfuzzlite/Dockerfile: builds every native Go fuzz target under fuzz/
# (func FuzzX(f *testing.F), as `make fuzz` runs them) into $OUT as a
# libFuzzer target named <package>_<FuzzX>, the standard way for native Go
# fuzzers: base-builder-go's compile_native_go_fuzzer_v2 (or, in an older
# image, compile_native_go_fuzzer), which rewrites the harness onto
# go-118-fuzz-build's testing package and links it with
# $LIB_FUZZING_ENGINE. .ci/fuzzbuild checks the Go part of this in CI.
cd "$SRC/anchorage"

# The harness's testing package. This edits only the build container's copy
# of go.mod.
go get github.com/AdamKorcz/go-118-fuzz-build/testing

# The package comments under fuzz/ name the targets, and the compile scripts
# take every file of the package that holds the target's name for the
# harness: the comments stay out of the build container's copy.
rm -f fuzz/*/doc.go

compile=compile_native_go_fuzzer
if command -v compile_native_go_fuzzer_v2 >/dev/null 2>&1; then
  compile=compile_native_go_fuzzer_v2
fi
.clusterfuzzlite/targets | while read -r pkg fn name; do
  "$compile" "$pkg" "$fn" "$name"
done
