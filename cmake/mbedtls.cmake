# The static library zq_mbedtls, one of two ways:
# - mbedTLS 3.6 (what CI and scripts/setup use): built here from a source tree with zq's own
#   configuration header. The tree comes from ZQ_MBEDTLS_SOURCE_DIR (a cache variable or the
#   environment); scripts/setup fetches Debian's mbedTLS 3.6 source package into .deps/.
# - mbedTLS 4 with TF-PSA-Crypto: ZQ_MBEDTLS4_PREFIX names an mbedTLS 4 already built and
#   installed with zq's two configuration headers (config/zq_mbedtls4_config.h and
#   config/zq_tfpsa_config.h; README.md, "mbedTLS 4", says how); zq_mbedtls wraps its libraries.
# On the host, zq_mbedtls also carries PSA Crypto's random generator (port/posix/psa_random.c),
# which every program linking mbedTLS needs.
#
# The library's sources are compiled directly (not through mbedTLS's own CMake project), so the
# very same lines serve the host build and every cross toolchain; modules our config leaves out
# compile to empty objects.

set(ZQ_MBEDTLS4_PREFIX "" CACHE PATH "an installed mbedTLS 4 built with zq's configuration")

# The kernel's randomness for PSA Crypto, on the host; a firmware's port brings its own.
function(zq_mbedtls_add_host_rng)
  if(NOT ZQ_HOST)
    return()
  endif()
  add_library(zq_psa_random STATIC "${PROJECT_SOURCE_DIR}/port/posix/psa_random.c")
  target_include_directories(zq_psa_random PRIVATE "${PROJECT_SOURCE_DIR}"
    $<TARGET_PROPERTY:zq_mbedtls,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(zq_psa_random PRIVATE _DEFAULT_SOURCE
    $<TARGET_PROPERTY:zq_mbedtls,INTERFACE_COMPILE_DEFINITIONS>)
  target_link_libraries(zq_mbedtls INTERFACE zq_psa_random)
endfunction()

# The x.y.z of an mbedTLS tree or installation, from its build_info.h (both versions keep
# MBEDTLS_VERSION_STRING there).
function(zq_mbedtls_version build_info out)
  file(STRINGS "${build_info}" line REGEX "^#define MBEDTLS_VERSION_STRING +\"[0-9.]+\"")
  string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" version "${line}")
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

if(ZQ_MBEDTLS4_PREFIX)
  include(${CMAKE_CURRENT_LIST_DIR}/mbedtls4.cmake)
  return()
endif()

if(NOT ZQ_MBEDTLS_SOURCE_DIR AND DEFINED ENV{ZQ_MBEDTLS_SOURCE_DIR})
  set(ZQ_MBEDTLS_SOURCE_DIR "$ENV{ZQ_MBEDTLS_SOURCE_DIR}")
endif()
if(NOT ZQ_MBEDTLS_SOURCE_DIR)
  set(ZQ_MBEDTLS_SOURCE_DIR "${PROJECT_SOURCE_DIR}/.deps/mbedtls")
endif()
set(ZQ_MBEDTLS_SOURCE_DIR "${ZQ_MBEDTLS_SOURCE_DIR}" CACHE PATH "mbedTLS 3.6 source tree")

set(_zq_mbedtls_build_info "${ZQ_MBEDTLS_SOURCE_DIR}/include/mbedtls/build_info.h")
if(NOT EXISTS "${_zq_mbedtls_build_info}")
  message(FATAL_ERROR
    "No mbedTLS source tree at ${ZQ_MBEDTLS_SOURCE_DIR}.\n"
    "Run scripts/setup (it fetches Debian's mbedTLS 3.6 source package), or point "
    "-DZQ_MBEDTLS_SOURCE_DIR=... at an mbedTLS 3.6 tree.")
endif()
zq_mbedtls_version("${_zq_mbedtls_build_info}" ZQ_MBEDTLS_VERSION)
if(ZQ_MBEDTLS_VERSION VERSION_LESS 3.6.0 OR ZQ_MBEDTLS_VERSION VERSION_GREATER_EQUAL 3.7.0)
  message(FATAL_ERROR "zq needs mbedTLS 3.6 LTS; ${ZQ_MBEDTLS_SOURCE_DIR} is ${ZQ_MBEDTLS_VERSION}")
endif()
if(ZQ_MBEDTLS_VERSION VERSION_LESS 3.6.6)
  message(WARNING "mbedTLS ${ZQ_MBEDTLS_VERSION} cannot reassemble a ClientHello split over "
                  "several records (2026 browsers send one); use 3.6.6 or later")
endif()
message(STATUS "mbedTLS ${ZQ_MBEDTLS_VERSION} from ${ZQ_MBEDTLS_SOURCE_DIR}")

file(GLOB _zq_mbedtls_sources "${ZQ_MBEDTLS_SOURCE_DIR}/library/*.c")
add_library(zq_mbedtls STATIC ${_zq_mbedtls_sources})
target_include_directories(zq_mbedtls SYSTEM PUBLIC
  "${ZQ_MBEDTLS_SOURCE_DIR}/include" "${PROJECT_SOURCE_DIR}/config")
target_include_directories(zq_mbedtls PRIVATE "${ZQ_MBEDTLS_SOURCE_DIR}/library")
set(ZQ_MBEDTLS_CONFIG "zq_mbedtls_config.h" CACHE STRING
    "mbedTLS configuration header in config/ (the lwIP firmware: zq_mbedtls_lwip_config.h)")
target_compile_definitions(zq_mbedtls PUBLIC MBEDTLS_CONFIG_FILE="${ZQ_MBEDTLS_CONFIG}")
# What the tests and tools need (MD5 for RFC 5769's long-term credentials, readable errors, PEM):
# wherever they are built, natively or for a qemu target (scripts/qemu-test), never on a device.
if(ZQ_HOST)
  target_compile_definitions(zq_mbedtls PUBLIC ZQ_MBEDTLS_HOST)
  # What browsers and servers on the internet send: 16 KiB records in, Certificate messages of
  # 4 KiB out, at 17,664 B more of arena for every TLS and DTLS session of the process
  # (config/zq_mbedtls_tls.h). On for the host's programs; a device build never has it.
  option(ZQ_TLS_FULL_RECORDS "TLS and DTLS buffers for 16 KiB records in, 4 KiB out" ON)
  if(ZQ_TLS_FULL_RECORDS)
    target_compile_definitions(zq_mbedtls PUBLIC ZQ_TLS_FULL_RECORDS)
  endif()
endif()
# Third-party code: build it with its own expectations, not zq's warning flags.
set_target_properties(zq_mbedtls PROPERTIES C_STANDARD 99 COMPILE_OPTIONS "-w")
zq_mbedtls_add_host_rng()
