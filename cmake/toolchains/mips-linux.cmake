# 32-bit big-endian Linux (MIPS32): gcc-mips-linux-gnu, run under qemu-mips.
# Used to build and run the unit tests on a 32-bit target; see scripts/qemu-test.
#   cmake -S . -B build-qemu/mips -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mips-linux.cmake \
#         -DZQ_HOST=ON
# Debian packages: gcc-mips-linux-gnu libc6-dev-mips-cross qemu-user (scripts/setup ci).
# cmocka for this target comes from .deps/cmocka-mips/ (scripts/qemu-test builds it there), or
# from -DZQ_CROSS_CMOCKA_PREFIX=...

set(CMAKE_SYSTEM_PROCESSOR mips)
set(ZQ_CROSS_TRIPLET mips-linux-gnu)
set(ZQ_QEMU qemu-mips)
set(ZQ_CROSS_NAME mips)
include("${CMAKE_CURRENT_LIST_DIR}/../qemu-linux-toolchain.cmake")
