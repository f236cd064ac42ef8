# expect_run.cmake: runs a command and checks its exit code and output.
#   cmake -DCOMMAND="prog;arg;..." -DEXPECT_EXIT=N [-DEXPECT_OUTPUT=regex]
#         [-DENV="NAME=value"] -P expect_run.cmake
# Unlike WILL_FAIL, a crash (signal) never counts as the expected failure.
if(ENV)
  string(REPLACE "=" ";" _env "${ENV}")
  list(GET _env 0 _name)
  list(GET _env 1 _value)
  set(ENV{${_name}} "${_value}")
endif()
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${code}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "expected exit ${EXPECT_EXIT}, got '${code}'")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT "${out}${err}" MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "output does not match '${EXPECT_OUTPUT}'")
endif()
