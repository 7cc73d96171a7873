# Compile definitions for the code built on the POSIX port (port/posix, server/, cli/), each
# folder includes this file: directory scope, so zq_core and the tests keep the plain C11 view.

# -std=c11 hides POSIX and Linux declarations (getrandom, getifaddrs, sigaction...); the port is
# the one part of zq that wants them.
add_compile_definitions(_DEFAULT_SOURCE ZQ_VERSION="${PROJECT_VERSION}")
# A 64-bit time_t (and off_t) on 32-bit Linux too (glibc 2.34+; no effect on 64-bit): the
# wall clock in envelopes' timestamps must not wrap in 2038 on an armhf gateway.
add_compile_definitions(_TIME_BITS=64 _FILE_OFFSET_BITS=64)
# OS errors (a port already in use, a family the host lacks) are what a user of the program
# needs to read, so the port's own log calls keep warnings unless a config file decides.
if(NOT ZQ_CONFIG_FILE)
  add_compile_definitions(ZQ_LOG_LEVEL=2)
endif()
