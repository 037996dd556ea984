# Finds LibTorch for sawtooth-record. Order:
#   1. whatever CMAKE_PREFIX_PATH / Torch_DIR already point at (the GPU machine passes its own);
#   2. the per-user virtual environment that scripts/setup.sh creates (scripts/torch-venv-path.sh).
# Sets Torch_FOUND. The GUI and sawtooth-trace never need it.
# We compile no CUDA code: name the architecture rather than let Caffe2's config probe the GPU
# with a CUDA try_run (which also fails under CMAKE_CXX_STANDARD 20 with CMake 3.25).
if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
  set(TORCH_CUDA_ARCH_LIST "9.0")
endif()
find_package(Torch QUIET)
if(NOT Torch_FOUND)
  execute_process(COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/torch-venv-path.sh
                  OUTPUT_VARIABLE _sawtooth_venv OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  set(SAWTOOTH_TORCH_PYTHON "${_sawtooth_venv}/bin/python" CACHE FILEPATH "Python whose torch provides LibTorch")
  if(EXISTS "${SAWTOOTH_TORCH_PYTHON}")
    execute_process(COMMAND "${SAWTOOTH_TORCH_PYTHON}" -W ignore -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
                    OUTPUT_VARIABLE _torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc ERROR_QUIET)
    if(_rc EQUAL 0)
      list(APPEND CMAKE_PREFIX_PATH "${_torch_prefix}")
      find_package(Torch QUIET)
    endif()
  endif()
endif()
set_package_properties(Torch PROPERTIES TYPE OPTIONAL
  DESCRIPTION "LibTorch, from the pinned torch wheel (scripts/setup.sh)"
  PURPOSE "sawtooth-record and the built-in workloads")
if(Torch_FOUND)
  message(STATUS "LibTorch ${Torch_VERSION} from ${Torch_DIR}")
endif()
