# ctest check (test suite.complete): the suite holds tests for every part this build promises, so
# that CI cannot pass with the app or the recorder silently left out. A run of the whole suite
# runs them; ctest's label summary at the end shows how many ran per label.
#   cmake -DCTEST=ctest -DBUILD_DIR=build/ci -DLABELS=gui,packaging,recorder -P CheckTestSuite.cmake
string(REPLACE "," ";" LABELS "${LABELS}")
set(failed "")
foreach(label IN LISTS LABELS)
  execute_process(COMMAND "${CTEST}" --test-dir "${BUILD_DIR}" -N -L "^${label}$"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "Total Tests: ([0-9]+)")
    message(SEND_ERROR "ctest -N -L ${label} failed in ${BUILD_DIR}: ${err}")
    list(APPEND failed ${label})
  elseif(CMAKE_MATCH_1 EQUAL 0)
    message(SEND_ERROR "no tests labelled '${label}' in ${BUILD_DIR}: this build promises them")
    list(APPEND failed ${label})
  else()
    message(STATUS "label ${label}: ${CMAKE_MATCH_1} tests")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "the test suite is missing: ${failed}")
endif()
