# 32-bit little-endian Linux (ARMv7, hard float): gcc-arm-linux-gnueabihf, run under qemu-arm.
# Used to build and run the unit tests on a 32-bit target; see scripts/qemu-test.
#   cmake -S . -B build-qemu/armhf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/armhf-linux.cmake \
#         -DZQ_HOST=ON
# Debian packages: gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-user (scripts/setup ci).
# cmocka for this target comes from .deps/cmocka-armhf/ (scripts/qemu-test builds it there), or
# from -DZQ_CROSS_CMOCKA_PREFIX=...

set(CMAKE_SYSTEM_PROCESSOR arm)
set(ZQ_CROSS_TRIPLET arm-linux-gnueabihf)
set(ZQ_QEMU qemu-arm)
set(ZQ_CROSS_NAME armhf)
include("${CMAKE_CURRENT_LIST_DIR}/../qemu-linux-toolchain.cmake")
