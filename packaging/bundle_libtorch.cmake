# Install-time script (component recorder): copies the LibTorch that sawtooth-record was built
# against, and the CUDA libraries LibTorch loads, from the torch wheel's site-packages into
# <prefix>/${SAWTOOTH_PRIVATE_DIR}, keeping the wheel's layout (torch/lib, nvidia/cu13/lib,
# nvidia/cudnn/lib, ...) so that the RPATHs the wheel's libraries carry
# ($ORIGIN/../../nvidia/cu13/lib, ...) still find each other. Also installs their licences.
#
# Which folders: every site-packages folder that a library sawtooth-record needs resolves into
# (the closure of DT_NEEDED). Which files there: every shared library, because LibTorch and the
# CUDA libraries also dlopen() siblings that no DT_NEEDED names (cuDNN's engines, NVRTC's
# builtins, libtorch_cuda_linalg, libcaffe2_nvrtc), except those no C++ program of ours can load:
set(_not_for_us
  libtorch_python.so libshm.so libtorch_global_deps.so  # torch's Python extension and helpers
  libnvvm.so.4                                          # nvcc's device compiler (build time only)
  libnvblas.so.13 libcufftw.so.12 libcusolverMg.so.12   # drop-in BLAS/FFTW and multi-GPU solver
  libnvperf_host.so libnvperf_target.so libpcsamplingutil.so  # CUPTI's profiling and PC sampling
  libcheckpoint.so                                      # cuda-checkpoint
  libcufile_rdma.so.1)                                  # GPUDirect Storage over RDMA (libibverbs)
# and the NVRTC "alt" builds and NVSHMEM's network transports (InfiniBand, libfabric, UCX), which
# need RDMA libraries that a desktop does not have and serve only multi-node runs.
set(_not_for_us_regex "\\.alt\\.so|^nvshmem_transport_")

foreach(_v SAWTOOTH_RECORDER SAWTOOTH_SITE_PACKAGES SAWTOOTH_PRIVATE_DIR SAWTOOTH_LICENSE_DIR)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "bundle_libtorch.cmake: ${_v} is not set")
  endif()
endforeach()
file(REAL_PATH "${SAWTOOTH_SITE_PACKAGES}" _site)

file(GET_RUNTIME_DEPENDENCIES
  EXECUTABLES "${SAWTOOTH_RECORDER}"
  RESOLVED_DEPENDENCIES_VAR _resolved
  UNRESOLVED_DEPENDENCIES_VAR _unresolved)
set(_folders "")
foreach(_lib IN LISTS _resolved)
  file(REAL_PATH "${_lib}" _real)
  cmake_path(IS_PREFIX _site "${_real}" NORMALIZE _inside)
  if(_inside)
    get_filename_component(_dir "${_real}" DIRECTORY)
    list(APPEND _folders "${_dir}")
  endif()
endforeach()
list(REMOVE_DUPLICATES _folders)
if(NOT _folders)
  message(FATAL_ERROR "bundle_libtorch.cmake: none of the libraries of ${SAWTOOTH_RECORDER} is in ${_site}")
endif()
if(_unresolved)
  message(FATAL_ERROR "bundle_libtorch.cmake: ${SAWTOOTH_RECORDER} needs libraries that cannot be found: ${_unresolved}")
endif()

set(_bundled "")
foreach(_dir IN LISTS _folders)
  file(RELATIVE_PATH _rel "${_site}" "${_dir}")
  file(GLOB _candidates LIST_DIRECTORIES false "${_dir}/*.so" "${_dir}/*.so.*")
  set(_files "")
  foreach(_f IN LISTS _candidates)
    get_filename_component(_name "${_f}" NAME)
    list(FIND _not_for_us "${_name}" _listed)  # (no IN_LIST: install scripts run without the project's policies)
    if(NOT _listed EQUAL -1 OR _name MATCHES "${_not_for_us_regex}")
      continue()
    endif()
    list(APPEND _files "${_f}")
    list(APPEND _bundled "${_rel}/${_name}")
  endforeach()
  file(INSTALL ${_files} DESTINATION "${CMAKE_INSTALL_PREFIX}/${SAWTOOTH_PRIVATE_DIR}/${_rel}"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ FOLLOW_SYMLINK_CHAIN)
endforeach()

# Licences: each wheel's RECORD lists its files; a wheel that provided a bundled file has its
# licence files (LICENSE, NOTICE, License.txt, wherever the wheel keeps them) installed.
file(GLOB _records "${_site}/*.dist-info/RECORD")
foreach(_record IN LISTS _records)
  file(STRINGS "${_record}" _entries)
  set(_provides FALSE)
  set(_licences "")
  foreach(_entry IN LISTS _entries)
    string(REGEX REPLACE ",.*" "" _path "${_entry}")
    list(FIND _bundled "${_path}" _index)
    if(NOT _index EQUAL -1)
      set(_provides TRUE)
    endif()
    get_filename_component(_name "${_path}" NAME)
    if(_name MATCHES "^(LICENSE|LICENCE|License|NOTICE|COPYING)")
      list(APPEND _licences "${_site}/${_path}")
    endif()
  endforeach()
  if(_provides)
    get_filename_component(_dist "${_record}" DIRECTORY)
    get_filename_component(_dist "${_dist}" NAME)
    string(REGEX REPLACE "\\.dist-info$" "" _dist "${_dist}")
    if(NOT _licences)
      message(FATAL_ERROR "bundle_libtorch.cmake: the wheel ${_dist} has no licence file")
    endif()
    file(INSTALL ${_licences} DESTINATION "${CMAKE_INSTALL_PREFIX}/${SAWTOOTH_LICENSE_DIR}/${_dist}"
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  endif()
endforeach()
