#!/bin/bash
# make-image.sh OUT.tar [NAME:TAG]: an OCI image archive (oci-archive, one
# layer) of the suite's busybox rootfs (tests/lib/make-rootfs.sh), built
# offline: no registry. `podman load -i OUT.tar` and `ctr images import
# OUT.tar` both take it. The layer's files are owned by root and dated
# 2000-01-01, so the same rootfs always gives the same digests.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
        echo "usage: $0 OUT.tar [NAME:TAG]" >&2
        exit 2
fi
out=$1
ref=${2:-localhost/sbrun-busybox:latest}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/sbrun-image.XXXXXX")
trap 'rm -rf --one-file-system "$work"' EXIT

# The suite's rootfs when it is built already (SBRUN_ROOTFS): a copy is what
# make-rootfs.sh would make, without its ln per applet (most of a minute
# under the VM lane's TCG, for every engine file's image).
if [ -n "${SBRUN_ROOTFS:-}" ] && [ -f "$SBRUN_ROOTFS/.sbrun-rootfs-complete" ]; then
        cp -a "$SBRUN_ROOTFS" "$work/rootfs"
else
        "$here/../../lib/make-rootfs.sh" "$work/rootfs"
fi
rm -f "$work/rootfs/.sbrun-rootfs-complete"

blobs=$work/layout/blobs/sha256
mkdir -p "$blobs"
# blob FILE MEDIATYPE: move FILE into the layout; prints a descriptor.
blob() {
        local sum size
        sum=$(sha256sum "$1" | cut -d' ' -f1)
        size=$(stat -c %s "$1")
        mv "$1" "$blobs/$sum"
        jq -cn --arg t "$2" --arg d "sha256:$sum" --argjson s "$size" \
                '{mediaType: $t, digest: $d, size: $s}'
}

tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=2000-01-01 \
        -C "$work/rootfs" -cf "$work/layer.tar" .
diff_id=sha256:$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
gzip -n "$work/layer.tar"
layer=$(blob "$work/layer.tar.gz" application/vnd.oci.image.layer.v1.tar+gzip)

jq -n --arg id "$diff_id" '{
        architecture: "amd64", os: "linux",
        created: "2000-01-01T00:00:00Z",
        config: {Env: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"], Cmd: ["sh"], WorkingDir: "/"},
        rootfs: {type: "layers", diff_ids: [$id]},
        history: [{created: "2000-01-01T00:00:00Z", created_by: "tests/engines/lib/make-image.sh"}]
}' >"$work/config.json"
config=$(blob "$work/config.json" application/vnd.oci.image.config.v1+json)

jq -n --argjson c "$config" --argjson l "$layer" '{
        schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
        config: $c, layers: [$l]
}' >"$work/manifest.json"
manifest=$(blob "$work/manifest.json" application/vnd.oci.image.manifest.v1+json)

jq -n --argjson m "$manifest" --arg ref "$ref" --arg tag "${ref##*:}" '{
        schemaVersion: 2,
        manifests: [$m + {annotations: {
                "io.containerd.image.name": $ref,
                "org.opencontainers.image.ref.name": $tag}}]
}' >"$work/layout/index.json"
echo '{"imageLayoutVersion": "1.0.0"}' >"$work/layout/oci-layout"

tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=2000-01-01 \
        -C "$work/layout" -cf "$out.tmp" oci-layout index.json blobs
mv "$out.tmp" "$out"
