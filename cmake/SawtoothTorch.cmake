# Finds LibTorch for sawtooth-record. Order:
#   1. whatever CMAKE_PREFIX_PATH / Torch_DIR already point at (the GPU machine passes its own,
#      with its system CUDA);
#   2. the per-user virtual environment that scripts/setup.sh creates (scripts/torch-venv-path.sh),
#      with the CUDA toolkit folder setup.sh assembled there from NVIDIA's wheels (`cuda/`): it is
#      used in preference to any system CUDA, so a build here is the build of a machine without one.
# Sets Torch_FOUND, and SAWTOOTH_TORCH_MISSING to what a user must do when it is not found.
# The GUI and sawtooth-trace never need it.
# We compile no CUDA code: name the architecture rather than let Caffe2's config probe the GPU
# with a CUDA try_run (which also fails under CMAKE_CXX_STANDARD 20 with CMake 3.25).
if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
  set(TORCH_CUDA_ARCH_LIST "9.0")
endif()
set(SAWTOOTH_TORCH_MISSING "")
find_package(Torch QUIET)
if(NOT Torch_FOUND)
  execute_process(COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/scripts/torch-venv-path.sh
                  OUTPUT_VARIABLE _sawtooth_venv OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _rc ERROR_QUIET)
  set(SAWTOOTH_TORCH_PYTHON "${_sawtooth_venv}/bin/python" CACHE FILEPATH "Python whose torch provides LibTorch")
  get_filename_component(_sawtooth_venv "${SAWTOOTH_TORCH_PYTHON}" DIRECTORY)
  get_filename_component(_sawtooth_venv "${_sawtooth_venv}" DIRECTORY)
  set(SAWTOOTH_CUDA_ROOT "${_sawtooth_venv}/cuda" CACHE PATH "CUDA toolkit folder for LibTorch (setup.sh assembles it from NVIDIA's wheels)")
  if(NOT EXISTS "${SAWTOOTH_TORCH_PYTHON}")
    set(SAWTOOTH_TORCH_MISSING "no LibTorch environment at ${_sawtooth_venv}: run ./scripts/setup.sh")
  elseif(NOT EXISTS "${SAWTOOTH_CUDA_ROOT}/bin/nvcc")
    string(CONCAT SAWTOOTH_TORCH_MISSING "LibTorch's CMake config needs the CUDA compiler and headers, and "
           "${SAWTOOTH_CUDA_ROOT} has none (an environment made by an older set-up): run ./scripts/setup.sh to complete it")
  else()
    execute_process(COMMAND "${SAWTOOTH_TORCH_PYTHON}" -W ignore -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
                    OUTPUT_VARIABLE _torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
                    ERROR_VARIABLE _torch_error RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
      set(SAWTOOTH_TORCH_MISSING "${SAWTOOTH_TORCH_PYTHON} cannot import torch (${_torch_error}): run ./scripts/setup.sh")
    else()
      # Torch's config finds CUDA twice (FindCUDA, then FindCUDAToolkit) and enables the CUDA
      # language: point all three at the same folder, ahead of CUDA_HOME or nvcc on the PATH.
      set(CUDA_TOOLKIT_ROOT_DIR "${SAWTOOTH_CUDA_ROOT}" CACHE PATH "Toolkit location.")
      set(CMAKE_CUDA_COMPILER "${SAWTOOTH_CUDA_ROOT}/bin/nvcc" CACHE FILEPATH "CUDA compiler")
      set(CUDAToolkit_ROOT "${SAWTOOTH_CUDA_ROOT}")
      list(APPEND CMAKE_PREFIX_PATH "${_torch_prefix}")
      find_package(Torch QUIET)
      if(NOT Torch_FOUND)
        set(SAWTOOTH_TORCH_MISSING "LibTorch's CMake config in ${_torch_prefix} failed (see the messages above)")
      endif()
    endif()
  endif()
endif()
set_package_properties(Torch PROPERTIES TYPE OPTIONAL
  DESCRIPTION "LibTorch, from the pinned torch wheel (scripts/setup.sh)"
  PURPOSE "sawtooth-record and the built-in workloads")
if(Torch_FOUND)
  message(STATUS "LibTorch ${Torch_VERSION} from ${Torch_DIR}, CUDA ${CUDA_VERSION} from ${CUDA_TOOLKIT_ROOT_DIR}")
endif()
