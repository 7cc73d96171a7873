# What the 32-bit Linux toolchains run under qemu-user share (cmake/toolchains/armhf-linux.cmake,
# mips-linux.cmake). The including file sets CMAKE_SYSTEM_PROCESSOR, ZQ_CROSS_TRIPLET (the cross
# gcc's prefix), ZQ_QEMU (qemu-arm, qemu-mips) and ZQ_CROSS_NAME (its .deps/cmocka-<name>/).

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${ZQ_CROSS_TRIPLET}-gcc)

# ctest (and try_run) run target programs through qemu-user; no binfmt_misc needed. The
# dynamic loader and libc come from the cross libc package's tree.
set(CMAKE_CROSSCOMPILING_EMULATOR env QEMU_LD_PREFIX=/usr/${ZQ_CROSS_TRIPLET} ${ZQ_QEMU})

get_filename_component(_zq_repo "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
if(NOT ZQ_CROSS_CMOCKA_PREFIX)
  set(ZQ_CROSS_CMOCKA_PREFIX "${_zq_repo}/.deps/cmocka-${ZQ_CROSS_NAME}")
endif()
# pkg-config sees this target's .pc files only, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} "${ZQ_CROSS_CMOCKA_PREFIX}/lib/pkgconfig")

# Headers and libraries from the target's trees only, programs from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${ZQ_CROSS_TRIPLET} "${ZQ_CROSS_CMOCKA_PREFIX}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
