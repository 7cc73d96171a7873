# 32-bit big-endian Linux (MIPS32): gcc-mips-linux-gnu, run under qemu-mips.
# Used to build and run the unit tests on a 32-bit target; see scripts/qemu-test.
#   cmake -S . -B build-qemu/mips -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mips-linux.cmake \
#         -DZQ_HOST=ON
# Debian packages: gcc-mips-linux-gnu libc6-dev-mips-cross qemu-user (scripts/setup ci).
# cmocka for this target comes from .deps/cmocka-mips/ (scripts/qemu-test builds it there), or
# from -DZQ_CROSS_CMOCKA_PREFIX=...

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR mips)
set(ZQ_CROSS_TRIPLET mips-linux-gnu)

set(CMAKE_C_COMPILER ${ZQ_CROSS_TRIPLET}-gcc)

# ctest (and try_run) run target programs through qemu-user; no binfmt_misc needed. The
# dynamic loader and libc come from the cross libc package's tree.
set(CMAKE_CROSSCOMPILING_EMULATOR env QEMU_LD_PREFIX=/usr/${ZQ_CROSS_TRIPLET} qemu-mips)

get_filename_component(_zq_repo "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT ZQ_CROSS_CMOCKA_PREFIX)
  set(ZQ_CROSS_CMOCKA_PREFIX "${_zq_repo}/.deps/cmocka-mips")
endif()
# pkg-config sees this target's .pc files only, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} "${ZQ_CROSS_CMOCKA_PREFIX}/lib/pkgconfig")

# Headers and libraries from the target's trees only, programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${ZQ_CROSS_TRIPLET} "${ZQ_CROSS_CMOCKA_PREFIX}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
