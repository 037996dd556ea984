# Pinned versions shared by the set-up scripts and CMake (cmake/SawtoothTorch.cmake asks
# torch-venv-path.sh). The GPU machine runs the same torch.
TORCH_VERSION=2.11.0
