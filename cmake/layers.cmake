# zq's layers (docs/design.md), bottom up, in one table that both the build and the include
# check read: each layer's folders, and the layers it builds on directly (with theirs, in
# turn). A file may include the headers of its own layer and of every layer it builds on;
# anything else is an include that points up a layer, or sideways where the design has none,
# and cmake/check_layers.cmake fails the build naming it.
#
#   base    core/, include/zq/: what every layer shares
#   stack   ice, dtls and sctp, none of which knows another; sdp, which writes ICE candidates
#           and DTLS fingerprints; peer, which composes them all
#   turn    TURN client allocations (stack/turn), on ice's STUN messages
#   tls     TLS 1.2 (stack/tls): the wss:// and turns: client, zq signal's server; knows no other
#           stack layer
#   nats    a NATS client's protocol (stack/nats): what `zq signal --cluster` speaks to NATS
#   mqtt    an MQTT 3.1.1 and 5 client's protocol (stack/mqtt): what `zq bridge` speaks
#   signal  the signalling client, WebSocket, HTTP, the room router
#   node    a room's peers; broker above it; app/ (the demo devices) above that
#   host    node + broker + signalling link, sans-IO, what every port runs (its own target,
#           zq_host, in host/CMakeLists.txt; only checked here)
#   port    the port contract, port/bsd, port/ws, port/relay, port/address and port/arena;
#           port/posix, port/esp32 and port/lwip (with its boards, board/) on it, none on
#           another;
#           the programs (server/, cli/) on port/posix
#
# The portable layers (ZQ_CORE_LAYERS) are built here, a static library each (zq_add_core);
# port/ and the programs have CMakeLists.txt files of their own and are only checked.

set(ZQ_LAYERS_ROOT "${CMAKE_CURRENT_LIST_DIR}/..")
get_filename_component(ZQ_LAYERS_ROOT "${ZQ_LAYERS_ROOT}" ABSOLUTE)

set(ZQ_CORE_LAYERS base ice turn dtls tls nats mqtt sctp sdp peer signal node broker bridge app)
set(ZQ_TOP_LAYERS host port posix esp32 lwip server cli)

set(ZQ_LAYER_base_DIRS core include/zq)
set(ZQ_LAYER_base_USES "")
set(ZQ_LAYER_ice_DIRS stack/ice)
set(ZQ_LAYER_ice_USES base)
set(ZQ_LAYER_turn_DIRS stack/turn)
set(ZQ_LAYER_turn_USES ice)
set(ZQ_LAYER_dtls_DIRS stack/dtls)
set(ZQ_LAYER_dtls_USES base)
set(ZQ_LAYER_tls_DIRS stack/tls)
set(ZQ_LAYER_tls_USES base)
set(ZQ_LAYER_nats_DIRS stack/nats)
set(ZQ_LAYER_nats_USES base)
set(ZQ_LAYER_mqtt_DIRS stack/mqtt)
set(ZQ_LAYER_mqtt_USES base)
set(ZQ_LAYER_sctp_DIRS stack/sctp)
set(ZQ_LAYER_sctp_USES base)
set(ZQ_LAYER_sdp_DIRS stack/sdp)
set(ZQ_LAYER_sdp_USES ice dtls)
set(ZQ_LAYER_peer_DIRS stack/peer)
set(ZQ_LAYER_peer_USES ice turn dtls sctp sdp)
set(ZQ_LAYER_signal_DIRS signal)
set(ZQ_LAYER_signal_USES peer tls)
set(ZQ_LAYER_node_DIRS node)
set(ZQ_LAYER_node_USES signal)
set(ZQ_LAYER_broker_DIRS broker)
set(ZQ_LAYER_broker_USES node)
set(ZQ_LAYER_bridge_DIRS bridge)
set(ZQ_LAYER_bridge_USES broker mqtt)
set(ZQ_LAYER_app_DIRS app)
set(ZQ_LAYER_app_USES broker)

set(ZQ_LAYER_host_DIRS host)
set(ZQ_LAYER_host_USES broker)
set(ZQ_LAYER_port_DIRS port/zq_port.h port/bsd port/ws port/relay port/address port/arena)
set(ZQ_LAYER_port_USES app host)
set(ZQ_LAYER_posix_DIRS port/posix)
set(ZQ_LAYER_posix_USES port)
set(ZQ_LAYER_esp32_DIRS port/esp32)
set(ZQ_LAYER_esp32_USES port)
set(ZQ_LAYER_lwip_DIRS port/lwip board firmware)
set(ZQ_LAYER_lwip_USES port)
set(ZQ_LAYER_server_DIRS server)
set(ZQ_LAYER_server_USES posix nats)
set(ZQ_LAYER_cli_DIRS cli)
set(ZQ_LAYER_cli_USES server bridge)

# Tests, benches, tools and examples may include anything; nothing may include them.
set(ZQ_LAYER_tests_DIRS tests bench tools examples port/posix/tests server/tests cli/tests)

# Includes the layering forbids that stay until the code they need moves, each as
# "file|include|why" (none left). The check says when one is no longer there, so it goes too.
set(ZQ_LAYER_EXCEPTIONS)

# The layers @p layer builds on, directly or through others, itself included, into @p out.
function(zq_layer_closure layer out)
  set(seen ${layer})
  set(todo ${ZQ_LAYER_${layer}_USES})
  while(todo)
    list(POP_FRONT todo next)
    if(NOT next IN_LIST seen)
      list(APPEND seen ${next})
      list(APPEND todo ${ZQ_LAYER_${next}_USES})
    endif()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# zq_add_core(<name> [CONFIG_FILE <header>] [OPTIONS <compile option>...])
# The portable core as one static library per layer, <name>_<layer>, each linked only to the
# layers it builds on, and <name>: an INTERFACE library of them all, what programs, tests
# and benches link. Its ZQ_SOURCES and ZQ_COMPILE_OPTIONS properties give every source and
# the options they are compiled with (tools/footprint compiles them into images of its own).
# Every layer library waits for the include check (zq_check_layers), where there is one.
function(zq_add_core name)
  cmake_parse_arguments(arg "" "CONFIG_FILE" "OPTIONS" ${ARGN})
  add_library(${name} INTERFACE)
  set(all_sources "")
  foreach(layer IN LISTS ZQ_CORE_LAYERS)
    set(globs "")
    foreach(dir IN LISTS ZQ_LAYER_${layer}_DIRS)
      list(APPEND globs "${ZQ_LAYERS_ROOT}/${dir}/*.c")
    endforeach()
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${globs})
    list(APPEND all_sources ${sources})
    set(lib ${name}_${layer})
    if(NOT sources)
      # A layer with no C file yet (headers only): nothing to compile, its uses still pass on.
      add_library(${lib} INTERFACE)
      foreach(use IN LISTS ZQ_LAYER_${layer}_USES)
        target_link_libraries(${lib} INTERFACE ${name}_${use})
      endforeach()
      continue()
    endif()
    add_library(${lib} STATIC ${sources})
    target_include_directories(${lib} PUBLIC ${ZQ_LAYERS_ROOT}/include ${ZQ_LAYERS_ROOT})
    target_compile_options(${lib} PRIVATE ${ZQ_WARNINGS} ${arg_OPTIONS})
    if(arg_CONFIG_FILE)
      target_compile_definitions(${lib} PUBLIC ZQ_CONFIG_FILE="${arg_CONFIG_FILE}")
    endif()
    foreach(use IN LISTS ZQ_LAYER_${layer}_USES)
      target_link_libraries(${lib} PUBLIC ${name}_${use})
    endforeach()
    if(TARGET zq_check_layers)
      add_dependencies(${lib} zq_check_layers)
    endif()
  endforeach()
  target_link_libraries(${name}_base PUBLIC zq_mbedtls) # include/zq/crypto.h is mbedTLS's
  # Every layer, not just the top one: nats, mqtt and bridge sit beside app, under no one.
  foreach(layer IN LISTS ZQ_CORE_LAYERS)
    target_link_libraries(${name} INTERFACE ${name}_${layer})
  endforeach()
  set(options ${ZQ_WARNINGS} ${arg_OPTIONS})
  set_target_properties(${name} PROPERTIES ZQ_SOURCES "${all_sources}"
                                           ZQ_COMPILE_OPTIONS "${options}")
endfunction()

# zq_check_layers: a target of ALL that runs cmake/check_layers.cmake whenever a checked file
# (or the table) changed; a stamp file records the last clean run.
function(zq_add_layer_check)
  set(files "")
  foreach(layer IN LISTS ZQ_CORE_LAYERS ZQ_TOP_LAYERS)
    foreach(dir IN LISTS ZQ_LAYER_${layer}_DIRS)
      if(IS_DIRECTORY "${ZQ_LAYERS_ROOT}/${dir}")
        file(GLOB_RECURSE found CONFIGURE_DEPENDS "${ZQ_LAYERS_ROOT}/${dir}/*.c"
                                                  "${ZQ_LAYERS_ROOT}/${dir}/*.h")
        list(APPEND files ${found})
      else()
        list(APPEND files "${ZQ_LAYERS_ROOT}/${dir}")
      endif()
    endforeach()
  endforeach()
  set(stamp "${CMAKE_BINARY_DIR}/zq_layers.stamp")
  add_custom_command(
    OUTPUT "${stamp}"
    COMMAND "${CMAKE_COMMAND}" -DZQ_ROOT=${ZQ_LAYERS_ROOT} -P
            "${ZQ_LAYERS_ROOT}/cmake/check_layers.cmake"
    COMMAND "${CMAKE_COMMAND}" -E touch "${stamp}"
    DEPENDS ${files} "${ZQ_LAYERS_ROOT}/cmake/layers.cmake"
            "${ZQ_LAYERS_ROOT}/cmake/check_layers.cmake"
    COMMENT "Checking that no include points up a layer (cmake/layers.cmake)"
    VERBATIM)
  add_custom_target(zq_check_layers ALL DEPENDS "${stamp}")
endfunction()
