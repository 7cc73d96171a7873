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

set(ZQ_MBEDTLS_CONFIG "zq_mbedtls_lwip_config.h" CACHE STRING "" FORCE)
set(ZQ_WERROR ON CACHE BOOL "" FORCE)
add_subdirectory(${ZQ_ROOT} zq EXCLUDE_FROM_ALL)
get_target_property(ZQ_FW_SOURCES zq_core ZQ_SOURCES)
# mbedTLS's own arena (MBEDTLS_MEMORY_BUFFER_ALLOC_C) is not built: port/lwip gives it zq's.
list(FILTER ZQ_FW_SOURCES EXCLUDE REGEX "/stack/dtls/dtls_arena\\.c$")
get_target_property(ZQ_FW_OPTIONS zq_core ZQ_COMPILE_OPTIONS)
# The host (host/host.c: its own target, zq_host, in the host build) and the port.
file(GLOB ZQ_FW_PORT_SOURCES ${ZQ_ROOT}/host/*.c ${ZQ_ROOT}/port/lwip/*.c ${ZQ_ROOT}/port/ws/*.c)
list(APPEND ZQ_FW_PORT_SOURCES ${ZQ_ROOT}/port/arena/arena.c)

# zq_fw_image(name peers): the executable @p name; peers "" keeps firmware_config.h's 4.
function(zq_fw_image name peers)
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
  target_link_libraries(${core} PUBLIC zq_mbedtls zq_lwip)

  set(exe ${name})
  add_executable(${exe} ${CMAKE_CURRENT_SOURCE_DIR}/main.c)
  target_compile_options(${exe} PRIVATE ${ZQ_FW_OPTIONS} -g)
  target_link_libraries(${exe} PRIVATE ${core} zq_board)
  zq_board_link(${exe})
endfunction()

zq_fw_image(zq_firmware "")
zq_fw_image(zq_firmware_1 1)
zq_fw_image(zq_firmware_2 2)
