# RV32IMC, the instruction set of the ESP32-C3 (and C6): riscv64-unknown-elf-gcc with picolibc.
# Used to build the portable core (zq_core + zq_mbedtls) for size checks; see scripts/cross-size.
#   cmake -S . -B build-cross/rv32imc -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/rv32imc.cmake
# Debian packages: gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf (scripts/setup ci).

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)

set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
# Bare metal: no crt0/linker script to link a test program, so try-compile a library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# picolibc.specs also picks picolibc's headers, so it belongs on the compile line too.
set(CMAKE_C_FLAGS_INIT
    "-march=rv32imc -mabi=ilp32 --specs=picolibc.specs -ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")

# Look for headers and libraries in the target's sysroot only, programs on the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
