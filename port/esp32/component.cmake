# zq as an ESP-IDF component, included by the repository's top-level CMakeLists.txt when ESP-IDF
# builds it (ESP_PLATFORM): the repository's root is the component "zq" (its Kconfig and
# idf_component.yml are there), so a git dependency brings the whole tree. It holds the
# portable core (the top-level CMakeLists.txt's zq_core source list: core/ stack/ broker/
# signal/ node/ app/), the host every port runs (host/) and this port, built with ESP-IDF's
# mbedTLS and configured from menuconfig (Kconfig -> zq_idf_config.h, zq's ZQ_CONFIG_FILE).
#
# A project gets it from its main/idf_component.yml, as a git dependency or a local path
# (port/esp32/README.md, examples/esp32-sensor/main/idf_component.yml). The POSIX build never
# comes here: the top-level CMakeLists.txt adds port/posix only.
if(NOT ESP_PLATFORM)
  message(FATAL_ERROR "port/esp32 is an ESP-IDF component: build it from an ESP-IDF project "
                      "(idf.py, see examples/esp32-sensor). The host build is the top-level "
                      "CMakeLists.txt.")
endif()

# ESP-IDF names a component after its directory (tools/cmake/component.cmake, __component_add,
# v5.5.5 and v6.0.2), and the component manager adds "zq", the dependency's key, to the
# requirements of the component that names it: a clone in a directory of another name would
# fail later with "Failed to resolve component 'zq'". Say why, here.
if(NOT COMPONENT_NAME STREQUAL "zq")
  message(FATAL_ERROR "zq's component is named after its directory, here '${COMPONENT_NAME}' "
                      "(${COMPONENT_DIR}): clone or link this repository as a directory named "
                      "zq (port/esp32/README.md, \"The component's name\").")
endif()

get_filename_component(ZQ_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(_zq_port "${CMAKE_CURRENT_LIST_DIR}")

file(GLOB_RECURSE zq_core_srcs
  "${ZQ_ROOT}/core/*.c" "${ZQ_ROOT}/stack/*.c" "${ZQ_ROOT}/broker/*.c" "${ZQ_ROOT}/signal/*.c"
  "${ZQ_ROOT}/node/*.c" "${ZQ_ROOT}/app/*.c" "${ZQ_ROOT}/host/*.c")
# mbedTLS's own static arena (MBEDTLS_MEMORY_BUFFER_ALLOC_C) is not in ESP-IDF's mbedTLS: the
# port gives mbedTLS its own (mbedtls_arena.c over arena.c) with CONFIG_MBEDTLS_CUSTOM_MEM_ALLOC.
list(FILTER zq_core_srcs EXCLUDE REGEX "/stack/dtls/dtls_arena\\.c$")

idf_component_register(
  SRCS ${zq_core_srcs}
       # port/bsd: the BSD-socket code port/posix shares, over lwIP (bsd_lwip.c: lwIP's ways)
       "${ZQ_ROOT}/port/bsd/sockaddr.c" "${ZQ_ROOT}/port/bsd/port_udp.c"
       "${ZQ_ROOT}/port/bsd/port_tcp.c" "${ZQ_ROOT}/port/ws/ws_socket.c"
       "${ZQ_ROOT}/port/ws/ws_link.c" "${ZQ_ROOT}/port/ws/ws_device.c"
       "${ZQ_ROOT}/port/relay/relay_link.c" "${ZQ_ROOT}/port/address/follow.c"
       "${ZQ_ROOT}/port/arena/arena.c" "${_zq_port}/bsd_lwip.c" "${_zq_port}/identity.c"
       "${_zq_port}/mbedtls_arena.c" "${_zq_port}/port_netif.c" "${_zq_port}/port_sys.c"
       "${_zq_port}/runner.c"
  INCLUDE_DIRS "${_zq_port}/include" "${ZQ_ROOT}/include" "${ZQ_ROOT}"
  REQUIRES esp_hw_support esp_netif esp_timer freertos log lwip mbedtls
  PRIV_REQUIRES heap nvs_flash)

if(NOT CMAKE_BUILD_EARLY_EXPANSION)
  include("${CMAKE_CURRENT_LIST_DIR}/gen_config.cmake")
  set(zq_config_dir "${CMAKE_CURRENT_BINARY_DIR}/zq_config")
  zq_esp32_gen_config("${ZQ_ROOT}/Kconfig" "${zq_config_dir}/zq_idf_config.h")
  target_include_directories(${COMPONENT_LIB} PUBLIC "${zq_config_dir}")
  # PUBLIC: the application's files that include zq headers must see the same capacities.
  target_compile_definitions(${COMPONENT_LIB} PUBLIC ZQ_CONFIG_FILE="zq_idf_config.h")
  # wss://: ESP-IDF's mbedTLS has what stack/tls needs (its TLS client, X.509, RFC 6066's
  # max_fragment_length); ZQ_MBEDTLS_TLS is the mark zq's own configuration sets
  # (config/zq_mbedtls_tls.h). PUBLIC: the runner's structure holds the trust store.
  if(CONFIG_ZQ_ESP32_WSS)
    target_compile_definitions(${COMPONENT_LIB} PUBLIC ZQ_MBEDTLS_TLS=1)
  endif()
  target_compile_options(${COMPONENT_LIB} PRIVATE -Wall -Wextra -Wshadow -Wvla -Wformat=2
                                                  -Wno-sign-conversion)
endif()
