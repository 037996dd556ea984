"""The bytes the shim sends to sawtooth-record: the wire contract of core/recording/wire.h (read it
first), with the values of core/model/action.h. A test (capture.wire_contract) compares every
constant here with the C++ ones and fails on any drift."""
import struct

MAGIC = b"SAWTWIRE"
PROTOCOL_VERSION = 3
HELLO_PREFIX = struct.Struct("<8sHH")  # magic, protocol version, reserved
HEADER = struct.Struct("<IHBB")      # payload length, frame type, stream, flags
RECORD = struct.Struct("<qQqQIhBBIB3x")  # t_ns, addr, size, stream, stack, device, action, kind, module, pass
KERNEL = struct.Struct("<qqIIhHI")   # begin_ns, end_ns, name, stream, device, reserved, reserved2
TIME = struct.Struct("<q")
MAX_PAYLOAD = 8 << 20
RECORDS_PER_FRAME = (MAX_PAYLOAD // 2) // RECORD.size

# Frame types (wire::FrameType)
FRAME_TYPES = {"hello": 1, "meta": 2, "records": 3, "frames": 4, "stacks": 5, "names": 6, "kernels": 7,
               "watermark": 8, "idle": 9, "notice": 10, "bye": 11, "modules": 12}
HELLO, META, RECORDS, FRAMES, STACKS, NAMES, KERNELS, WATERMARK, IDLE, NOTICE, BYE, MODULES = (
    FRAME_TYPES[k] for k in ("hello", "meta", "records", "frames", "stacks", "names", "kernels", "watermark", "idle",
                             "notice", "bye", "modules"))
MODULE = struct.Struct("<IIqHH")  # a Modules entry: id, parent, parameter bytes, name bytes, class bytes

# Record kinds (wire::RecordKind)
RECORD_KINDS = {"allocator": 0, "driver": 1, "sample": 2, "tag": 3, "phase_begin": 4, "phase_end": 5,
                "annotation_begin": 6, "annotation_end": 7, "module_enter": 8, "module_exit": 9}
(ALLOCATOR, DRIVER, SAMPLE, TAG, PHASE_BEGIN, PHASE_END, ANNOTATION_BEGIN, ANNOTATION_END, MODULE_ENTER,
 MODULE_EXIT) = (RECORD_KINDS[k] for k in ("allocator", "driver", "sample", "tag", "phase_begin", "phase_end",
                                           "annotation_begin", "annotation_end", "module_enter", "module_exit"))
NO_STACK = 0xFFFFFFFF
NO_MODULE = 0xFFFFFFFF
MAX_STACK_DEPTH = 256

# sawtooth::Action, by the names PyTorch's snapshots use
ACTIONS = {"alloc": 0, "free_requested": 1, "free_completed": 2, "segment_alloc": 3, "segment_free": 4,
           "segment_map": 5, "segment_unmap": 6, "oom": 7, "snapshot": 8}
ALLOC, FREE_COMPLETED, OOM = ACTIONS["alloc"], ACTIONS["free_completed"], ACTIONS["oom"]

# sawtooth::Category
CATEGORIES = {"unknown": 0, "parameter": 1, "gradient": 2, "optimizer_state": 3, "input": 4, "activation": 5,
              "temporary": 6, "autograd_detail": 7}
PARAMETER, GRADIENT, OPTIMIZER_STATE, INPUT = (CATEGORIES[k] for k in ("parameter", "gradient", "optimizer_state",
                                                                        "input"))

# sawtooth::Pass
PASSES = {"none": 0, "forward": 1, "backward": 2, "recompute": 3, "optimizer": 4}
NO_PASS, FORWARD, BACKWARD, RECOMPUTE, OPTIMIZER = (PASSES[k] for k in ("none", "forward", "backward", "recompute",
                                                                         "optimizer"))

# The shim's streams on its connection (wire::ShimStream): markers and tags as they happen; CPU
# allocations and PyTorch's history (the portable path) in batches, each closed by a watermark.
SHIM_STREAMS = {"live": 0, "cpu": 1, "cuda_history": 2}
LIVE, CPU, CUDA_HISTORY = SHIM_STREAMS["live"], SHIM_STREAMS["cpu"], SHIM_STREAMS["cuda_history"]

CPU_DEVICE = -1
SOCKET_ENV = "SAWTOOTH_SOCKET"


def frame(frame_type, payload, stream=0):
    return HEADER.pack(len(payload), frame_type, stream, 0) + payload


def hello(payload):
    """A hello frame: magic, version, then the JSON object's bytes."""
    return frame(HELLO, HELLO_PREFIX.pack(MAGIC, PROTOCOL_VERSION, 0) + payload)
