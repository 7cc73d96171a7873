# 32-bit little-endian Linux (ARMv7, hard float): gcc-arm-linux-gnueabihf, run under qemu-arm.
# Used to build and run the unit tests on a 32-bit target; see scripts/qemu-test.
#   cmake -S . -B build-qemu/armhf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/armhf-linux.cmake \
#         -DZQ_HOST=ON
# Debian packages: gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user (scripts/setup ci).
# cmocka for this target comes from .deps/cmocka-armhf/ (scripts/qemu-test builds it there), or
# from -DZQ_CROSS_CMOCKA_PREFIX=...

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(ZQ_CROSS_TRIPLET arm-linux-gnueabihf)

set(CMAKE_C_COMPILER ${ZQ_CROSS_TRIPLET}-gcc)

# ctest (and try_run) run target programs through qemu-user; no binfmt_misc needed. The
# dynamic loader and libc come from the cross libc package's tree.
set(CMAKE_CROSSCOMPILING_EMULATOR env QEMU_LD_PREFIX=/usr/${ZQ_CROSS_TRIPLET} qemu-arm)

get_filename_component(_zq_repo "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT ZQ_CROSS_CMOCKA_PREFIX)
  set(ZQ_CROSS_CMOCKA_PREFIX "${_zq_repo}/.deps/cmocka-armhf")
endif()
# pkg-config sees this target's .pc files only, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} "${ZQ_CROSS_CMOCKA_PREFIX}/lib/pkgconfig")

# Headers and libraries from the target's trees only, programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${ZQ_CROSS_TRIPLET} "${ZQ_CROSS_CMOCKA_PREFIX}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
