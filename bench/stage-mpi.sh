#!/usr/bin/env bash
# stage-mpi.sh - OpenMPI and METIS for a GPU machine without a package registry (for bench/run.sh
# mpi_spmv there, and partition --alg metis): downloads the Debian packages of OpenMPI, METIS and
# the runtime libraries an Ubuntu 24.04 image lacks into DIR/debs here, and writes DIR/env.sh,
# which there unpacks them once under /opt/rvsmpi (dpkg -x) and points PATH, the loader, FindMPI,
# CMake's search (metis.h, libmetis), Open MPI and PMIx at them. Copy DIR (about 10 MB) with the
# tree and `source DIR/env.sh` before mpirun or cmake.
#   bench/stage-mpi.sh [DIR]        [.deps/mpi, git-ignored]
set -euo pipefail
D=${1:-.deps/mpi}
mkdir -p "$D/debs"
pkgs=(openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libevent-core-2.1-7 libevent-pthreads-2.1-7
      libevent-2.1-7 libhwloc15 libpmix2 libfabric1 libucx0 libibverbs1 librdmacm1 libnl-3-200 libnl-route-3-200
      libpsm2-2 libpsm-infinipath1 libnuma1 libmunge2 libltdl7 libpciaccess0 libgfortran5 libxml2
      libmetis5 libmetis-dev)
(cd "$D/debs" && apt-get download "${pkgs[@]}" 2>&1 | grep -v '^Get:\|unsandboxed' || true)
cat > "$D/env.sh" <<'ENV'
# source me on the GPU machine: unpacks the staged OpenMPI packages (Debian 12) under
# /opt/rvsmpi once, then points PATH, the loader, CMake's FindMPI and Open MPI at them.
_m=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_p=/opt/rvsmpi
if [ ! -e $_p/.done ]; then
  mkdir -p $_p
  for f in "$_m"/debs/*.deb; do dpkg -x "$f" $_p; done
  for t in mpirun mpiexec mpicc; do ln -sf $t.openmpi $_p/usr/bin/$t; done
  for d in $_p/usr/lib/x86_64-linux-gnu $_p/lib/x86_64-linux-gnu $_p/usr/lib/x86_64-linux-gnu/openmpi/lib \
           $_p/usr/lib/x86_64-linux-gnu/pmix2/lib $_p/usr/lib/libpsm1; do
    [ -d $d ] || continue
    ldconfig -n $d # the soname links dpkg -x leaves to ldconfig
  done
  ln -sf ../lib/x86_64-linux-gnu/openmpi/lib/libmpi.so $_p/usr/lib/x86_64-linux-gnu/libmpi.so 2>/dev/null
  touch $_p/.done
fi
_l=$_p/usr/lib/x86_64-linux-gnu
export OPAL_PREFIX=$_p/usr
export PMIX_PREFIX=$_l/pmix2
# PMIx looks for plugins in its built-in /usr/lib/x86_64-linux-gnu/pmix2 too, where the image holds
# another PMIx's zlib compressor (refused, with a warning on every start); none is needed
export PMIX_MCA_pcompress=^zlib PMIX_MCA_pcompress_base_silence_warning=1
export PATH=$_p/usr/bin:$PATH
export CMAKE_PREFIX_PATH=$_p/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH} # metis.h, libmetis.so
export LD_LIBRARY_PATH=$_l/openmpi/lib:$_l:$_p/lib/x86_64-linux-gnu:$_l/pmix2/lib:$_p/usr/lib/libpsm1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export MPI_HOME=$_l/openmpi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
du -sh "$D" | sed 's/^/staged: /'
