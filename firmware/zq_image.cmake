# zq's side of the firmware image (included by firmware/CMakeLists.txt once the board's and
# lwIP's libraries exist): the portable core, node, broker and app/ compiled from zq_core's own
# source list and options (as tools/footprint does), port/lwip, port/ws and port/arena, and
# firmware/main.c, over mbedTLS 3.6 configured for the board (config/zq_mbedtls_lwip_config.h:
# calloc and free bound to the arena at compile time).
#
# Images (ELF and map in the build directory):
#   zq_firmware      4 peers (firmware/firmware_config.h: the footprint images' device
#                    configuration), what scripts/firmware run boots
#   zq_firmware_1    the same with ZQ_NODE_MAX_PEERS=1 } subtracted from each other: what one
#   zq_firmware_2    the same with ZQ_NODE_MAX_PEERS=2 } more peer costs (scripts/firmware report)
#   zq_firmware_wss  zq_firmware with TLS in mbedTLS (ZQ_MBEDTLS_WITH_TLS: config/zq_mbedtls_tls.h),
#                    a larger arena, and TURN over TCP and TLS (ZQ_FIRMWARE_WSS:
#                    firmware_config.h): wss:// signalling and turns:; subtracted from
#                    zq_firmware, what they cost a device

set(ZQ_MBEDTLS_CONFIG "zq_mbedtls_lwip_config.h" CACHE STRING "" FORCE)
set(ZQ_WERROR ON CACHE BOOL "" FORCE)
add_subdirectory(${ZQ_ROOT} zq EXCLUDE_FROM_ALL)
get_target_property(ZQ_FW_SOURCES zq_core ZQ_SOURCES)
# mbedTLS's own arena (MBEDTLS_MEMORY_BUFFER_ALLOC_C) is not built: port/lwip gives it zq's.
list(FILTER ZQ_FW_SOURCES EXCLUDE REGEX "/stack/dtls/dtls_arena\\.c$")
get_target_property(ZQ_FW_OPTIONS zq_core ZQ_COMPILE_OPTIONS)
# The host (host/host.c: its own target, zq_host, in the host build) and the port.
file(GLOB ZQ_FW_PORT_SOURCES ${ZQ_ROOT}/host/*.c ${ZQ_ROOT}/port/lwip/*.c ${ZQ_ROOT}/port/ws/*.c
     ${ZQ_ROOT}/port/relay/*.c ${ZQ_ROOT}/port/address/*.c)
list(APPEND ZQ_FW_PORT_SOURCES ${ZQ_ROOT}/port/arena/arena.c)

# mbedTLS once more, with TLS: zq_mbedtls's sources, include directories and configuration,
# and ZQ_MBEDTLS_WITH_TLS for it and for everything that includes its headers.
get_target_property(ZQ_FW_MBEDTLS_SOURCES zq_mbedtls SOURCES)
get_target_property(ZQ_FW_MBEDTLS_INCLUDES zq_mbedtls INCLUDE_DIRECTORIES)
get_target_property(ZQ_FW_MBEDTLS_PUBLIC_INCLUDES zq_mbedtls INTERFACE_INCLUDE_DIRECTORIES)
get_target_property(ZQ_FW_MBEDTLS_DEFINES zq_mbedtls INTERFACE_COMPILE_DEFINITIONS)
add_library(zq_mbedtls_wss STATIC ${ZQ_FW_MBEDTLS_SOURCES})
target_include_directories(zq_mbedtls_wss PRIVATE ${ZQ_FW_MBEDTLS_INCLUDES})
target_include_directories(zq_mbedtls_wss SYSTEM INTERFACE ${ZQ_FW_MBEDTLS_PUBLIC_INCLUDES})
target_compile_definitions(zq_mbedtls_wss PUBLIC ${ZQ_FW_MBEDTLS_DEFINES} ZQ_MBEDTLS_WITH_TLS)
set_target_properties(zq_mbedtls_wss PROPERTIES C_STANDARD 99 COMPILE_OPTIONS "-w")

# What a wss:// image's arena holds beyond zq_firmware's 40 KiB: the TLS session while open
# (~5 KiB with the device's records) and its handshake (an RSA-2048 chain: ~14 KiB more).
set(ZQ_FW_WSS_ARENA 65536)
# Its RAM region: zq_firmware's and what TLS adds (that arena's 24 KiB more, the session's
# ~9 KiB in the WebSocket, the trust store's configuration).
math(EXPR ZQ_FW_WSS_RAM_BYTES "${ZQ_BOARD_RAM_BYTES} + 36864 + 16384") # + the TURN stream's

# zq_fw_image(name peers [WSS]): the executable @p name; peers "" keeps firmware_config.h's 4;
# WSS links zq_mbedtls_wss and gives the arena ZQ_FW_WSS_ARENA bytes.
function(zq_fw_image name peers)
  cmake_parse_arguments(PARSE_ARGV 2 arg "WSS" "" "")
  set(mbedtls zq_mbedtls)
  if(arg_WSS)
    set(mbedtls zq_mbedtls_wss)
  endif()
  set(core ${name}_core)
  add_library(${core} STATIC ${ZQ_FW_SOURCES} ${ZQ_FW_PORT_SOURCES})
  target_include_directories(${core} PUBLIC ${ZQ_ROOT}/include ${ZQ_ROOT})
  target_compile_definitions(${core} PUBLIC ZQ_CONFIG_FILE="firmware/firmware_config.h")
  if(peers)
    # On the command line, so every translation unit agrees (zq_device_config.h defers to it).
    target_compile_definitions(${core} PUBLIC ZQ_NODE_MAX_PEERS=${peers})
  endif()
  # -g: no effect on code or data; scripts/firmware report names symbols' files (nm -l).
  target_compile_options(${core} PRIVATE ${ZQ_FW_OPTIONS} -g)
  target_link_libraries(${core} PUBLIC ${mbedtls} zq_lwip)
  if(arg_WSS)
    target_compile_definitions(${core} PUBLIC ZQ_LWIP_MBEDTLS_ARENA=${ZQ_FW_WSS_ARENA}
                                              ZQ_FIRMWARE_WSS)
  endif()

  set(exe ${name})
  add_executable(${exe} ${CMAKE_CURRENT_SOURCE_DIR}/main.c)
  target_compile_options(${exe} PRIVATE ${ZQ_FW_OPTIONS} -g)
  target_link_libraries(${exe} PRIVATE ${core} zq_board)
  if(arg_WSS)
    zq_board_link(${exe} ${ZQ_FW_WSS_RAM_BYTES})
  else()
    zq_board_link(${exe})
  endif()
endfunction()

zq_fw_image(zq_firmware "")
zq_fw_image(zq_firmware_1 1)
zq_fw_image(zq_firmware_2 2)
zq_fw_image(zq_firmware_wss "" WSS)
