# zq_mbedtls over an installed mbedTLS 4 (included by mbedtls.cmake when ZQ_MBEDTLS4_PREFIX is
# set). The installed libraries must have been built with zq's configuration headers; the same
# headers are given to zq's code here, and the version is checked, so a mismatch fails early.
set(_zq_m4 "${ZQ_MBEDTLS4_PREFIX}")
set(_zq_m4_info "${_zq_m4}/include/mbedtls/build_info.h")
if(NOT EXISTS "${_zq_m4_info}")
  message(FATAL_ERROR "ZQ_MBEDTLS4_PREFIX=${_zq_m4} has no include/mbedtls/build_info.h")
endif()
zq_mbedtls_version("${_zq_m4_info}" ZQ_MBEDTLS_VERSION)
if(ZQ_MBEDTLS_VERSION VERSION_LESS 4.0.0 OR ZQ_MBEDTLS_VERSION VERSION_GREATER_EQUAL 5.0.0)
  message(FATAL_ERROR "ZQ_MBEDTLS4_PREFIX: expected mbedTLS 4.x, found ${ZQ_MBEDTLS_VERSION}")
endif()
if(ZQ_MBEDTLS_VERSION VERSION_LESS 4.1.0)
  # Measured (port/esp32/README.md, "mbedTLS 4"): 4.0.0 fails every handshake in which zq is
  # the DTLS server and the client fragments its ClientHello (Chromium does); 4.1.0 reassembles.
  message(WARNING "mbedTLS ${ZQ_MBEDTLS_VERSION} cannot reassemble a ClientHello split over "
                  "several records (2026 browsers send one); use 4.1.0 or later")
endif()
message(STATUS "mbedTLS ${ZQ_MBEDTLS_VERSION} (installed) from ${_zq_m4}")

add_library(zq_mbedtls INTERFACE)
target_include_directories(zq_mbedtls SYSTEM INTERFACE "${_zq_m4}/include"
                                                       "${PROJECT_SOURCE_DIR}/config")
target_compile_definitions(zq_mbedtls INTERFACE
  MBEDTLS_CONFIG_FILE="zq_mbedtls4_config.h" TF_PSA_CRYPTO_CONFIG_FILE="zq_tfpsa_config.h")
if(ZQ_HOST)
  target_compile_definitions(zq_mbedtls INTERFACE ZQ_MBEDTLS_HOST)
endif()
# Order matters for static libraries: TLS, then X.509, then the crypto both use.
foreach(lib mbedtls mbedx509 tfpsacrypto)
  find_library(_zq_m4_${lib} NAMES ${lib} PATHS "${_zq_m4}/lib" NO_DEFAULT_PATH REQUIRED)
  target_link_libraries(zq_mbedtls INTERFACE "${_zq_m4_${lib}}")
endforeach()
zq_mbedtls_add_host_rng()
