# Pinned versions shared by the set-up scripts and CMake (cmake/SawtoothTorch.cmake asks
# torch-venv-path.sh). The GPU machine runs the same torch.
TORCH_VERSION=2.11.0
# The CUDA toolkit torch 2.11.0's Linux wheel was built with: the wheel requires
# cuda-toolkit[cublas,cudart,...]==13.0.2 (NVIDIA's metapackage on PyPI). The same metapackage's
# nvcc, crt, cccl and nvvm extras add the compiler and headers that LibTorch's CMake config needs,
# at exactly the versions of the runtime libraries torch loads.
CUDA_TOOLKIT_VERSION=13.0.2
CUDA_TOOLKIT_EXTRAS=nvcc,crt,cccl,nvvm
# Everything the LibTorch environment holds; setup.sh writes this line into the environment's
# marker, so an environment made from another line (an older set-up) is completed, not trusted.
TORCH_ENV_REQUIREMENTS="torch==$TORCH_VERSION cuda-toolkit[$CUDA_TOOLKIT_EXTRAS]==$CUDA_TOOLKIT_VERSION numpy"
