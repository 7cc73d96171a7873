# Cortex-M4F (e.g. STM32F4, nRF52): arm-none-eabi-gcc with newlib-nano.
# Used to build the portable core (zq_core + zq_mbedtls) for size checks; see scripts/cross-size.
#   cmake -S . -B build-cross/cortex-m4 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/cortex-m4.cmake
# Debian packages: gcc-arm-none-eabi libnewlib-arm-none-eabi (scripts/setup ci).

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
# Bare metal: no crt0/linker script to link a test program, so try-compile a library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# nano.specs also picks newlib-nano's headers, so it belongs on the compile line too.
set(CMAKE_C_FLAGS_INIT
    "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 --specs=nano.specs -ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")

# Look for headers and libraries in the target's sysroot only, programs on the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
