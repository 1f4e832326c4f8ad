#!/usr/bin/env bash
# mpi-carry.sh - build a self-contained, relocatable Open MPI 4.1 runtime
# folder from this machine's Debian packages, for a Debian-12-like x86_64
# machine that has no MPI and no package registry (only glibc, zlib,
# libstdc++/libgcc from gcc, ...).
#
# Usage: bench/mpi-carry.sh [DEST]      (DEST defaults to <repo>/.carry/mpi)
#
# It fetches the run-time packages with `apt-get download` (same versions as
# installed here when the archive still has them; `apt-get update` only if a
# download fails), unpacks them with `dpkg -x` into DEST, drops docs, man
# pages, static/dev files, Fortran/Java bindings and every library or MCA
# component whose shared-library needs are not met by the carried libraries
# plus a plain Debian base system (UCX, libfabric/OFI, verbs/openib, PSM, ...),
# turns absolute symlinks into relative ones, and writes DEST/env.sh.
#
# On the target:   . DEST/env.sh && mpirun --allow-run-as-root -np 2 ./prog
# env.sh finds its own location, so DEST may be moved or copied anywhere.
# DEST is replaced wholesale; the script refuses to delete a non-empty DEST
# that it did not create (marker file DEST/.mpi-carry).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
dest=${1:-$repo/.carry/mpi}
multiarch=x86_64-linux-gnu

# Run-time packages of Open MPI 4.1.4 on Debian 12, found with ldd/readelf on
# libmpi.so.40, orterun/orted, libpmix.so.2 and the kept MCA components.
packages=(
    openmpi-bin openmpi-common libopenmpi3
    libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
    libmunge2 libudev1
)

# Sonames a bare Debian 12 with gcc is assumed to provide.
base_re='^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libanl|ld-linux-x86-64)\.so\.[0-9.]+$|^(libgcc_s\.so\.1|libstdc\+\+\.so\.6|libz\.so\.1|libatomic\.so\.1)$'

for tool in apt-get dpkg dpkg-query readelf; do
    command -v "$tool" >/dev/null || { echo "mpi-carry: $tool not found" >&2; exit 1; }
done

if [[ -e $dest ]]; then
    if [[ -n $(ls -A "$dest") && ! -e $dest/.mpi-carry ]]; then
        echo "mpi-carry: $dest is not empty and not made by this script" >&2
        exit 1
    fi
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"

# --- download ---------------------------------------------------------------
updated=0
apt_dl() {
    (cd "$tmp" && apt-get -q -o APT::Sandbox::User=root download "$@") >/dev/null
}
fetch() {
    local pkg=$1 ver
    ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
    if [[ -n $ver ]] && apt_dl "$pkg=$ver" 2>/dev/null; then return 0; fi
    if apt_dl "$pkg" 2>/dev/null; then return 0; fi
    if (( !updated )); then
        updated=1
        apt-get -q update >/dev/null
        if [[ -n $ver ]] && apt_dl "$pkg=$ver" 2>/dev/null; then return 0; fi
    fi
    apt_dl "$pkg"
}
for p in "${packages[@]}"; do
    fetch "$p"
done

# --- unpack -----------------------------------------------------------------
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$tmp"/*.deb; do
    dpkg -x "$deb" "$dest"
    basename "$deb" >>"$dest/.mpi-carry"
done

lib=$dest/usr/lib/$multiarch
ompilib=$lib/openmpi/lib

# Absolute symlinks would point into the target's /usr: make them relative.
while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    rel=$(realpath -m -s --relative-to="$(dirname "$link")" "$dest$target")
    ln -sfn "$rel" "$link"
done < <(find "$dest" -type l -lname '/*' -print0)
find "$dest" -xtype l -delete

# --- prune ------------------------------------------------------------------
rm -rf "$dest/usr/share/doc" "$dest/usr/share/man" "$dest/usr/share/lintian" \
    "$dest/usr/share/bug" "$dest/usr/share/java" "$dest/lib/udev" \
    "$dest/usr/lib/udev" "$ompilib/pkgconfig" "$lib/pkgconfig"
find "$dest" \( -name '*.a' -o -name '*.la' -o -name '*.jar' \) -delete
# Fortran and Java bindings, the compiler wrappers' Java/Perl helpers.
rm -f "$lib"/libmpi_mpifh* "$lib"/libmpi_usempi* "$lib"/libmpi_java* \
    "$dest"/usr/bin/mpijavac* "$dest"/usr/bin/aggregate_profile \
    "$dest"/usr/bin/profile2mat

# Drop every shared object whose NEEDED sonames are neither carried nor in the
# base system; repeat until nothing changes (dropping libmca_common_ucx then
# drops the components that use it).
have_soname() {
    [[ $1 =~ $base_re ]] && return 0
    [[ -e $lib/$1 || -e $dest/lib/$multiarch/$1 || -e $ompilib/$1 \
        || -e $lib/pmix2/lib/$1 ]]
}
dropped=()
changed=1
while (( changed )); do
    changed=0
    while IFS= read -r -d '' so; do
        while read -r need; do
            if ! have_soname "$need"; then
                dropped+=("${so#"$dest"/} (needs $need)")
                rm -f "$so"
                changed=1
                break
            fi
        done < <(readelf -d "$so" 2>/dev/null \
            | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    done < <(find "$dest" -type f \( -name '*.so' -o -name '*.so.*' \) -print0)
done
# Remove the symlinks left dangling by the removals.
find "$dest" -xtype l -delete

# PMIx's config file names the /usr component path; env.sh sets it instead.
sed -i 's|^mca_base_component_path *=|# mpi-carry: set by env.sh: &|' \
    "$lib/pmix2/share/pmix-mca-params.conf"

# The alternatives (mpirun, mpiexec, mpicc) are made by postinst: recreate them.
for alt in mpirun mpiexec mpicc; do
    [[ -e $dest/usr/bin/$alt.openmpi ]] && ln -sfn "$alt.openmpi" "$dest/usr/bin/$alt"
done

# --- env.sh -----------------------------------------------------------------
cat >"$dest/env.sh" <<'EOF'
# Source this file (bash) to use the carried Open MPI runtime in this folder.
# Made by bench/mpi-carry.sh. Set MPI_CARRY_DIR first if sourcing from a shell
# without BASH_SOURCE.
MPI_CARRY_DIR=${MPI_CARRY_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
export MPI_CARRY_DIR
_mc_lib=$MPI_CARRY_DIR/usr/lib/x86_64-linux-gnu

# Open MPI was configured with prefix /usr, libdir /usr/lib/<arch>/openmpi/lib
# and sysconfdir /etc/openmpi: relocate all of them.
export OPAL_PREFIX=$MPI_CARRY_DIR/usr
export OPAL_EXEC_PREFIX=$OPAL_PREFIX
export OPAL_BINDIR=$OPAL_PREFIX/bin
export OPAL_LIBDIR=$_mc_lib/openmpi/lib
export OPAL_PKGLIBDIR=$_mc_lib/openmpi/lib/openmpi3
export OPAL_DATAROOTDIR=$OPAL_PREFIX/share
export OPAL_DATADIR=$OPAL_PREFIX/share
export OPAL_PKGDATADIR=$OPAL_PREFIX/share/openmpi
export OPAL_INCLUDEDIR=$_mc_lib/openmpi/include
export OPAL_SYSCONFDIR=$MPI_CARRY_DIR/etc/openmpi

# External PMIx 4.2 (prefix /usr/lib/<arch>/pmix2): help files, components.
export PMIX_INSTALL_PREFIX=$_mc_lib/pmix2
export PMIX_SYSCONFDIR=$_mc_lib/pmix2/share
export PMIX_MCA_mca_base_component_path=$_mc_lib/pmix2/lib/pmix
# A host with a PMIx of its own at the same path (the GPU machine has one) still offers its
# zlib component, which the carried PMIx cannot load: every rank then printed a warning
# that it compresses nothing, which a single node does not need.
export PMIX_MCA_pcompress_base_silence_warning=1
# hwloc: use only carried plugins (none), same behaviour on every host.
export HWLOC_PLUGINS_PATH=$_mc_lib/hwloc

export PATH=$OPAL_BINDIR${PATH:+:$PATH}
export LD_LIBRARY_PATH=$_mc_lib:$_mc_lib/pmix2/lib:$OPAL_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# One node, shared memory only; UCX/OFI/verbs/PSM components are not carried.
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
export OMPI_MCA_mtl=${OMPI_MCA_mtl:-^ofi,psm,psm2}
export OMPI_MCA_osc=${OMPI_MCA_osc:-^ucx,pt2pt}
export OMPI_MCA_btl_base_warn_component_unused=0
# Without an ssh/rsh program mpirun's rsh launcher aborts even on one node:
# then use the local-only launcher.
_mc_ssh=$(command -v ssh || command -v rsh || true)
if [ ! -f "$_mc_ssh" ] || [ ! -x "$_mc_ssh" ]; then
    export OMPI_MCA_plm=${OMPI_MCA_plm:-isolated}
fi
unset _mc_lib _mc_ssh
EOF

echo "mpi-carry: $(du -sh "$dest" | cut -f1) in $dest"
if (( ${#dropped[@]} )); then
    printf 'mpi-carry: dropped %s\n' "${dropped[@]}"
fi
