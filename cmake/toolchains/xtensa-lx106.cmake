# Xtensa LX106 (ESP8266; the Xtensa family of the ESP32): xtensa-lx106-elf-gcc with picolibc.
# Used to build the portable core (zq_core + zq_mbedtls) for size checks; see scripts/cross-size.
#   cmake -S . -B build-cross/xtensa-lx106 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/xtensa-lx106.cmake
# Debian packages: gcc-xtensa-lx106 picolibc-xtensa-lx106-elf (scripts/setup ci).

set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR xtensa)

set(CMAKE_C_COMPILER xtensa-lx106-elf-gcc)
# Bare metal: no crt0/linker script to link a test program, so try-compile a library instead.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# This gcc does not find picolibc.specs by name: Debian installs it outside gcc's search path.
set(ZQ_XTENSA_PICOLIBC_SPECS /usr/lib/xtensa-lx106-elf/picolibc.specs)
if(NOT EXISTS "${ZQ_XTENSA_PICOLIBC_SPECS}")
  message(FATAL_ERROR "${ZQ_XTENSA_PICOLIBC_SPECS} is missing: install picolibc-xtensa-lx106-elf "
                      "(scripts/setup ci)")
endif()

# -mlongcalls: code and callees can be further apart than a direct CALL reaches (IRAM vs flash).
# The specs file also picks picolibc's headers, so it belongs on the compile line too.
set(CMAKE_C_FLAGS_INIT
    "-mlongcalls --specs=${ZQ_XTENSA_PICOLIBC_SPECS} -ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")

# Look for headers and libraries in the target's sysroot only, programs on the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
