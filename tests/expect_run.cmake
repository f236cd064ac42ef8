# expect_run.cmake: runs a command and checks its exit code and output.
#   cmake -DCOMMAND="prog;arg;..." -DEXPECT_EXIT=N [-DEXPECT_OUTPUT=regex]
#         [-DENV="NAME=value"] [-DTIMEOUT=seconds] [-DONE_ERROR_LINE=ON]
#         -P expect_run.cmake
# Unlike WILL_FAIL, a crash (signal) never counts as the expected failure.
# TIMEOUT kills the command itself (a test's TIMEOUT property would leave it
# running); ONE_ERROR_LINE requires exactly one line on stderr.
if(ENV)
  string(REPLACE "=" ";" _env "${ENV}")
  list(GET _env 0 _name)
  list(GET _env 1 _value)
  set(ENV{${_name}} "${_value}")
endif()
set(_timeout)
if(TIMEOUT)
  set(_timeout TIMEOUT ${TIMEOUT})
endif()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err
                ${_timeout})
message("${out}${err}")
if(NOT "${code}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "expected exit ${EXPECT_EXIT}, got '${code}'")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT "${out}${err}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "output does not match '${EXPECT_OUTPUT}'")
endif()
if(ONE_ERROR_LINE AND NOT "${err}" MATCHES "^[^\n]+\n$")
  message(FATAL_ERROR "expected one line on stderr")
endif()
