#!/usr/bin/env bats
# The release and the Debian package, as a distribution builds them: `make
# distcheck` (the tarball builds, passes --disable-suite's check, installs
# and uninstalls cleanly), `dpkg-buildpackage` from that tarball with
# lintian (tests/package/build.sh), and the package installed by apt into a
# clean Debian 12 tree and used there (tests/package/install-test.sh).
# Needs root, debhelper, lintian, mmdebstrap (tests/install-deps.sh) and
# Debian's archive.

setup_file() {
        # A distcheck and a package build each compile sbrun once more.
        export BATS_TEST_TIMEOUT=$((BATS_TEST_TIMEOUT > 600 ? BATS_TEST_TIMEOUT : 600))
        export BUILDDIR=${SBRUN_BUILDDIR:-$BATS_TEST_DIRNAME/../..}
        export SRCDIR=${SBRUN_SRCDIR:-$BATS_TEST_DIRNAME/../..}
}

fail() {
        echo "FAIL: $*" >&2
        return 1
}

# make's variables of the suite's own make (its jobserver's fds are not
# ours) must not reach the nested one.
nested_make() {
        env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$BUILDDIR" --no-print-directory "$@"
}

@test "make distcheck: the release tarball builds, checks, installs and uninstalls" {
        local start=$SECONDS
        run nested_make -j2 distcheck
        rm -f "$BUILDDIR"/sbrun-*.tar.gz
        [ "$status" -eq 0 ] || fail "make distcheck (status $status): ${output: -3000}"
        [[ $output == *"archives ready for distribution"* ]] || fail "no archive: ${output: -2000}"
        [[ $output == *"ok - sbrun policy explain on spec's config"* ]] ||
                fail "distcheck's check did not run tests/smoke.sh: ${output: -2000}"
        echo "# make distcheck: $((SECONDS - start)) s" >&3
}

@test "the Debian package builds from the tarball, lintian reports no error, and it ships what an operator needs" {
        local start=$SECONDS
        SBRUN_BUILDDIR=$BUILDDIR run "$SRCDIR/tests/package/build.sh" "$BATS_FILE_TMPDIR/pkg"
        [ "$status" -eq 0 ] || fail "build.sh (status $status): ${output: -3000}"
        deb=$(ls "$BATS_FILE_TMPDIR"/pkg/sbrun_*_amd64.deb)
        [[ $deb == */sbrun_0.2.0-1_amd64.deb ]] || fail "package file: $deb"
        run grep -c '^E: ' "$BATS_FILE_TMPDIR/pkg/lintian.txt"
        [ "$output" = 0 ] || fail "lintian errors: $(cat "$BATS_FILE_TMPDIR/pkg/lintian.txt")"
        run dpkg-deb -c "$deb"
        local f
        for f in ./usr/bin/sbrun ./usr/share/man/man8/sbrun.8.gz \
                ./usr/share/doc/sbrun/README.md.gz ./usr/share/doc/sbrun/policy.md.gz \
                ./usr/share/doc/sbrun/design.md.gz ./usr/share/doc/sbrun/copyright \
                ./usr/share/doc/sbrun/examples/policy.json ./usr/share/doc/sbrun/examples/containers.conf \
                ./usr/share/doc/sbrun/examples/containerd-config.toml \
                ./usr/share/doc/sbrun/examples/containerd-config-systemd.toml \
                ./usr/share/doc/sbrun/examples/runtimeclass.yaml \
                ./usr/share/bash-completion/completions/sbrun; do
                [[ $output == *" $f"$'\n'* || $output == *" $f" ]] || fail "dpkg -c lists no $f: $output"
        done
        run dpkg-deb -f "$deb" Depends Recommends
        [[ $output == *"Depends: bubblewrap"* ]] || fail "Depends: $output"
        [[ $output == *"Recommends: uidmap, criu"* ]] || fail "Recommends: $output"
        cp "$deb" "$BATS_FILE_TMPDIR/sbrun.deb"
        grep '^# package: ' <<<"$output" >&3 || true
        echo "# package build and lintian: $((SECONDS - start)) s" >&3
}

@test "the package installs with apt into a clean Debian 12 tree: --version, check and the demo there" {
        [ -f "$BATS_FILE_TMPDIR/sbrun.deb" ] || fail "no package: the build test failed"
        local start=$SECONDS
        run "$SRCDIR/tests/package/install-test.sh" "$BATS_FILE_TMPDIR/sbrun.deb"
        [ "$status" -eq 0 ] || fail "install-test.sh (status $status): $output"
        [[ $output == *"ready: this host can run confined containers"* ]] || fail "check: $output"
        [[ $output == *"hello from sbrun"* ]] || fail "demo: $output"
        [[ $output == *"/usr/bin/sbrun --root"* ]] || fail "the demo did not run /usr/bin/sbrun: $output"
        echo "# install test: $((SECONDS - start)) s" >&3
}
