# cmake/check_layers.cmake against tests/layers/tree/, whose files each break one rule of the
# layering or keep it: the check must fail, name each broken rule's file, line and include,
# and name nothing else (the files that keep the rules, the tests).
#
#   cmake -P tests/layers/test_check_layers.cmake        (ctest: layer_check_names_...)
cmake_minimum_required(VERSION 3.20)
set(root "${CMAKE_CURRENT_LIST_DIR}/../..")
execute_process(
  COMMAND "${CMAKE_COMMAND}" -DZQ_ROOT=${CMAKE_CURRENT_LIST_DIR}/tree
          -P "${root}/cmake/check_layers.cmake"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(APPEND out "${err}")

set(expected
  "core/reaches_up.h:3: #include \"node/node.h\": base may not include node"
  "stack/ice/sideways.c:3: #include \"stack/dtls/dtls.h\": ice may not include dtls"
  "stack/sctp/up.c:4: #include \"broker/brk.h\": sctp may not include broker"
  "app/unknown_folder.c:3: #include \"newlayer/thing.h\": newlayer/thing.h is in no layer"
  "port/posix/reaches_program.c:3: #include \"cli/cli.h\": posix may not include cli"
  "5 include(s) against the layering")
set(unexpected broker/fine.c test_anything.c "no longer needed")

set(failed "")
if(rc EQUAL 0)
  list(APPEND failed "the check passed")
endif()
foreach(line IN LISTS expected)
  string(FIND "${out}" "${line}" at)
  if(at EQUAL -1)
    list(APPEND failed "not said: ${line}")
  endif()
endforeach()
foreach(word IN LISTS unexpected)
  string(FIND "${out}" "${word}" at)
  if(NOT at EQUAL -1)
    list(APPEND failed "said, and should not be: ${word}")
  endif()
endforeach()
if(failed)
  list(JOIN failed "\n" text)
  message(FATAL_ERROR "${text}\n--- the check said:\n${out}")
endif()
message(STATUS "the check named the 5 includes against the layering, and nothing else")
