"""The bytes the shim sends to sawtooth-record: the same format as inject/wire.h (read it first)."""
import struct

HEADER = struct.Struct("<IHBB")      # payload length, frame type, stream, flags
RECORD = struct.Struct("<qQqQIhBB")  # t_ns, addr, size, stream, stack, device, action, kind
TIME = struct.Struct("<q")
MAX_PAYLOAD = 8 << 20
RECORDS_PER_FRAME = (MAX_PAYLOAD // 2) // RECORD.size

# Frame types
HELLO, META, RECORDS, FRAMES, STACKS, NAMES, KERNELS, WATERMARK, IDLE, NOTICE, BYE = range(1, 12)

# Record kinds
ALLOCATOR, DRIVER, SAMPLE, TAG, PHASE_BEGIN, PHASE_END, ANNOTATION_BEGIN, ANNOTATION_END = range(8)
NO_STACK = 0xFFFFFFFF
MAX_STACK_DEPTH = 256

# sawtooth::Action, by the names PyTorch's snapshots use
ACTIONS = {"alloc": 0, "free_requested": 1, "free_completed": 2, "segment_alloc": 3, "segment_free": 4,
           "segment_map": 5, "segment_unmap": 6, "oom": 7, "snapshot": 8}
ALLOC, FREE_COMPLETED, OOM = 0, 2, 7

# sawtooth::Category
PARAMETER, GRADIENT, OPTIMIZER_STATE, INPUT = 1, 2, 3, 4

# The shim's streams on its connection: markers and tags as they happen; CPU allocations and
# PyTorch's history (the portable path) in batches, each closed by a watermark.
LIVE, CPU, CUDA_HISTORY = 0, 1, 2

CPU_DEVICE = -1


def frame(frame_type, payload, stream=0):
    return HEADER.pack(len(payload), frame_type, stream, 0) + payload
