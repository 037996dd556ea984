# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS): the Depends of sawtooth-recorder, computed by
# dpkg-shlibdeps over the staged sawtooth-record and every bundled library, as CPack does for the
# sawtooth package. CPack's own run cannot be used: it would stop at the libraries that link the
# NVIDIA driver's libcuda.so.1 (LibTorch's NVRTC wrapper), which no Debian package provides (the
# driver comes from NVIDIA, and the recorder runs on the CPU without it). Those are left out here;
# what they need besides libcuda.so.1 is the C library, which the others need too. So are NVSHMEM's
# bootstrap plugins for MPI, OpenSHMEM and PMIx (nvidia-nvshmem wheel): NVSHMEM loads one only when
# a job is launched by that runtime, which brings its own libmpi / liboshmem / libpmix.
# (CPack runs this without a project's policies: no IN_LIST, list(FIND) instead.)
list(FIND CPACK_COMPONENTS_ALL recorder _packaged)
if(NOT CPACK_GENERATOR STREQUAL "DEB" OR _packaged EQUAL -1)
  return()
endif()
set(_root "${CPACK_TEMPORARY_DIRECTORY}/recorder")
if(NOT EXISTS "${_root}")
  message(FATAL_ERROR "recorder_depends.cmake: no staged recorder in ${_root}")
endif()
find_program(_shlibdeps dpkg-shlibdeps REQUIRED)
find_program(_readelf readelf REQUIRED)

file(GLOB_RECURSE _candidates LIST_DIRECTORIES false "${_root}/*/bin/*" "${_root}/*.so" "${_root}/*.so.*")
set(_elf "")
set(_dirs "")
set(_left_out "")
foreach(_f IN LISTS _candidates)
  execute_process(COMMAND "${_readelf}" -d "${_f}" OUTPUT_VARIABLE _dynamic ERROR_QUIET RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    continue()
  endif()
  if(_dynamic MATCHES "Shared library: \\[libcuda\\.so\\.1\\]" OR
     _dynamic MATCHES "Shared library: \\[(libmpi|liboshmem|libpmix)\\.so[^]]*\\]")
    list(APPEND _left_out "${_f}")
    continue()
  endif()
  list(APPEND _elf "${_f}")
  get_filename_component(_d "${_f}" DIRECTORY)
  list(APPEND _dirs "-l${_d}")
endforeach()
list(REMOVE_DUPLICATES _dirs)

# dpkg-shlibdeps wants a debian/control in its working folder and a DEBIAN folder above the files
# (the package root, to resolve $ORIGIN); both are made and removed here, as CPack does.
set(_work "${CPACK_TOPLEVEL_DIRECTORY}/recorder-shlibdeps")
file(MAKE_DIRECTORY "${_work}/debian" "${_root}/DEBIAN")
file(TOUCH "${_work}/debian/control")
execute_process(COMMAND "${_shlibdeps}" ${_dirs} --ignore-missing-info -O ${_elf}
                WORKING_DIRECTORY "${_work}" OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
file(REMOVE_RECURSE "${_work}" "${_root}/DEBIAN")
if(NOT _rc EQUAL 0 OR NOT _out MATCHES "shlibs:Depends=([^\n]*)")
  message(FATAL_ERROR "recorder_depends.cmake: dpkg-shlibdeps failed (${_rc}): ${_err}")
endif()
set(CPACK_DEBIAN_RECORDER_PACKAGE_DEPENDS "${CMAKE_MATCH_1}")
list(LENGTH _elf _n)
message(STATUS "sawtooth-recorder Depends (dpkg-shlibdeps over ${_n} files; without ${_left_out}): ${CMAKE_MATCH_1}")
