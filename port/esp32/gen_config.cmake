# Generates zq_idf_config.h, zq's ZQ_CONFIG_FILE on ESP-IDF, from this component's Kconfig:
# every integer symbol ZQ_<NAME> (not ZQ_ESP32_<NAME>, the port's own settings) becomes
#
#   #ifdef CONFIG_ZQ_<NAME>
#   #define ZQ_<NAME> CONFIG_ZQ_<NAME>
#   #endif
#
# so menuconfig's values reach zq's capacities (include/zq/config.h reads ZQ_CONFIG_FILE before
# any default), and a symbol menuconfig leaves out keeps zq's default. Every bool symbol
# ZQ_<NAME> (a feature switch, menu "Features") becomes
#
#   #ifdef CONFIG_ZQ_<NAME>
#   #define ZQ_<NAME> 1
#   #else
#   #define ZQ_<NAME> 0
#   #endif
#
# because kconfig writes a bool set to n as nothing at all in sdkconfig.h: an absent symbol
# is a switch turned off, not zq's default. One list, the Kconfig: adding a capacity or a
# switch there is all it takes.
#
# Used two ways:
#   include(gen_config.cmake) + zq_esp32_gen_config(<Kconfig> <header>)   (CMakeLists.txt)
#   cmake -DZQ_KCONFIG=<Kconfig> -DZQ_OUT=<header> -P gen_config.cmake    (scripts/esp32-check)

function(zq_esp32_gen_config kconfig out)
  # Only the lines that matter: "config ZQ_..." and the type line with its prompt after it.
  file(STRINGS "${kconfig}" lines
       REGEX "^[ \t]*(config[ \t]+ZQ_[A-Z0-9_]+[ \t]*$|(int|bool|string|hex)[ \t]+\")")
  set(text "/* Generated from ${kconfig} by port/esp32/gen_config.cmake: do not edit. */\n")
  string(APPEND text "#ifndef ZQ_IDF_CONFIG_H\n#define ZQ_IDF_CONFIG_H\n\n")
  string(APPEND text "#include \"sdkconfig.h\"\n")
  set(symbol "")
  set(count 0)
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*config[ \t]+(ZQ_[A-Z0-9_]+)")
      set(symbol "${CMAKE_MATCH_1}")
    elseif(symbol AND line MATCHES "^[ \t]*int[ \t]" AND NOT symbol MATCHES "^ZQ_ESP32_")
      string(APPEND text "\n#ifdef CONFIG_${symbol}\n#define ${symbol} CONFIG_${symbol}\n#endif\n")
      math(EXPR count "${count} + 1")
      set(symbol "")
    elseif(symbol AND line MATCHES "^[ \t]*bool[ \t]" AND NOT symbol MATCHES "^ZQ_ESP32_")
      string(APPEND text "\n#ifdef CONFIG_${symbol}\n#define ${symbol} 1\n#else\n"
                         "#define ${symbol} 0\n#endif\n")
      math(EXPR count "${count} + 1")
      set(symbol "")
    else()
      set(symbol "")
    endif()
  endforeach()
  string(APPEND text "\n#endif /* ZQ_IDF_CONFIG_H */\n")
  if(count EQUAL 0)
    message(FATAL_ERROR "gen_config: no ZQ_ integer or bool symbol in ${kconfig}")
  endif()
  # Rewritten only when it changes, so a reconfigure does not rebuild all of zq.
  file(WRITE "${out}.tmp" "${text}")
  configure_file("${out}.tmp" "${out}" COPYONLY)
  file(REMOVE "${out}.tmp")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE AND ZQ_KCONFIG AND ZQ_OUT)
  zq_esp32_gen_config("${ZQ_KCONFIG}" "${ZQ_OUT}")
endif()
