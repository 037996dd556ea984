#pragma once
// A line of a Python program read as the expression it evaluates, for the ladder's bf16 rung: in
// what order its tensor ops allocate, and which of them is the first on autocast's float32 list.

#include <optional>
#include <string>
#include <string_view>

namespace sawtooth {

// How many blocks a line makes before its first float32-list op (or cast to float32), in Python's
// order of evaluation: GPT-2's GELU `0.5 * input * (1.0 + torch.tanh(... torch.pow(input, 3.0)))`
// makes `0.5 * input` first, which does not see pow's fp32 result and stays 2-byte; everything
// after it is promoted. nullopt where the line is not an expression this reads with confidence
// (a call of the program's own function or a module, a statement it does not know, no float32 op):
// the caller then takes the line whole.
std::optional<int> blocksBeforeFloat32Op(std::string_view line);

// The name of a line's first float32-list op in Python's order ("pow"; "float" for a cast to
// float32), where the line is read as blocksBeforeFloat32Op reads it; nullopt otherwise.
std::optional<std::string> firstFloat32Op(std::string_view line);

// Whether an op on autocast's float32 list keeps its input for backward (pow, log, layer_norm, ...):
// given a 2-byte input, what it keeps is the 4-byte copy autocast made, not the input.
bool float32OpSavesItsInput(std::string_view name);

// Whether a method, torch function or torch.nn.functional function of this name is on autocast's
// float32 list (PyTorch's "CUDA ops that can autocast to float32").
bool isFloat32ListOp(std::string_view name);

}  // namespace sawtooth
