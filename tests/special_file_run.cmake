# special_file_run.cmake: the vector runner on files that are not regular
# files, or too big, must answer at once with one line and exit 2.
#   cmake -DRUNNER=prog -DWORK_DIR=dir -DCASE=name -DGOOD=file.json
#         [-DEXPECT_EXIT=2] -DEXPECT_ERROR=regex -P special_file_run.cmake
# CASE:
#   fifo             a FIFO named x.json given by name (must not block)
#   fifo_in_folder   a folder holding GOOD and a FIFO named x.json
#   non_vector_fifo_in_folder  GOOD and a FIFO named x.txt (not a vector name: ignored)
#   oversized_file   a sparse regular file of 64 MiB + 1 byte named big.json
# WORK_DIR is made afresh and removed again whatever the outcome; the runner
# is killed after 10 s (a blocked open would otherwise hang the test).
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 2)
endif()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(arg "${WORK_DIR}")
if(CASE STREQUAL "fifo")
  set(special "${WORK_DIR}/x.json")
  set(arg "${special}")
elseif(CASE STREQUAL "fifo_in_folder")
  set(special "${WORK_DIR}/x.json")
  file(COPY "${GOOD}" DESTINATION "${WORK_DIR}")
elseif(CASE STREQUAL "non_vector_fifo_in_folder")
  set(special "${WORK_DIR}/x.txt")
  file(COPY "${GOOD}" DESTINATION "${WORK_DIR}")
elseif(CASE STREQUAL "oversized_file")
  set(arg "${WORK_DIR}/big.json")
  execute_process(COMMAND truncate -s 67108865 "${arg}" RESULT_VARIABLE made)
else()
  message(FATAL_ERROR "unknown CASE '${CASE}'")
endif()
if(DEFINED special)
  execute_process(COMMAND mkfifo "${special}" RESULT_VARIABLE made)
endif()
if(NOT made STREQUAL "0")
  file(REMOVE_RECURSE "${WORK_DIR}")
  message(FATAL_ERROR "could not make the test file: ${made}")
endif()
execute_process(COMMAND "${RUNNER}" "${arg}" RESULT_VARIABLE code OUTPUT_VARIABLE out
                ERROR_VARIABLE err TIMEOUT 10)
file(REMOVE_RECURSE "${WORK_DIR}")
message("${out}${err}")
if(NOT "${code}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "expected exit ${EXPECT_EXIT}, got '${code}'")
endif()
if(EXPECT_EXIT STREQUAL "2" AND NOT "${err}" MATCHES "^[^\n]+\n$")
  message(FATAL_ERROR "expected one line on stderr")
endif()
if(NOT "${err}" MATCHES "${EXPECT_ERROR}")
  message(FATAL_ERROR "stderr does not match '${EXPECT_ERROR}'")
endif()
