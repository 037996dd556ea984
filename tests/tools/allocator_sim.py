#!/usr/bin/env python3
"""A model of PyTorch 2.11's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp), written
from its rules with the standard library only, that records the trace and dumps memory snapshots
shaped exactly like `torch.cuda.memory._dump_snapshot()` writes them.

It exists for fixtures a machine without a GPU cannot record (expandable segments, several
streams, frees held back by record_stream, trace windows that start mid-run, power-of-two
rounding, max_split_size) and as the independent reading that the C++ replay is checked against:
the model knows the true size of every block and PyTorch's own `allocated_bytes` counter.
Real snapshots recorded on the GPU machine (bench/gpu/stages/allocator.sh) check the model.

Rules kept (2.11): round_size with roundup_power2_divisions; small pool for rounded sizes up to
1 MiB; segment sizes 2 MiB / large_segment_size (20 MiB) / rounded up to 2 MiB; best fit by
(stream, size, address); should_split (small or expandable: remainder >= 512; large: request
below max_split_size and remainder > 1 MiB); oversize blocks only for requests within
max_non_split_rounding of them; free merges with free neighbours of the same segment; on failure
release oversize blocks, then every unsplit cached block, then OOM; expandable segments map
pages (2 MiB small, 20 MiB large) at the lowest address that fits and unmap whole free pages.
"""
import bisect
import pickle

MIN_BLOCK = 512
SMALL_SIZE = 1 << 20
SMALL_BUFFER = 2 << 20
MIN_LARGE_ALLOC = 10 << 20
ROUND_LARGE = 2 << 20
MB = 1 << 20
UNLIMITED = (1 << 64) - 1


class OutOfMemory(Exception):
    pass


class Settings:
    def __init__(self, expandable=False, max_split_size_mb=None, roundup=None, large_segment_size_mb=20,
                 max_non_split_rounding_mb=None):
        self.expandable = expandable
        self.max_split_size = UNLIMITED if max_split_size_mb is None else max_split_size_mb * MB
        self.roundup = roundup or [0] * 16  # divisions for [1,2) MiB, [2,4) MiB, ..., >= 32 GiB
        self.large_segment_size = large_segment_size_mb * MB
        self.max_non_split_rounding = (max_non_split_rounding_mb * MB if max_non_split_rounding_mb is not None
                                       else self.large_segment_size)

    def conf_string(self):
        parts = []
        if self.max_split_size != UNLIMITED:
            parts.append(f"max_split_size_mb:{self.max_split_size // MB}")
        if any(self.roundup):
            parts.append("roundup_power2_divisions:[" + ",".join(
                f"{1 << i}:{d}" for i, d in enumerate(self.roundup[:-1]) if d) + f",>:{self.roundup[-1]}]")
        if self.expandable:
            parts.append("expandable_segments:True")
        if self.large_segment_size != 20 * MB:
            parts.append(f"large_segment_size_mb:{self.large_segment_size // MB}")
        return ",".join(parts)

    def divisions(self, size):
        index = max(0, size.bit_length() - 1 - 20)
        return self.roundup[min(index, 15)]

    def as_dict(self):
        return {
            "PYTORCH_CUDA_ALLOC_CONF": self.conf_string(),
            "max_split_size": -1 if self.max_split_size == UNLIMITED else self.max_split_size,
            "garbage_collection_threshold": 0.0,
            "expandable_segments": self.expandable,
            "pinned_num_register_threads": 1,
            "release_lock_on_cudamalloc": False,
            "pinned_use_cuda_host_register": False,
            "graph_capture_record_stream_reuse": False,
            "roundup_power2_divisions": {str(1 << i): d for i, d in enumerate(self.roundup)},
        }


def round_size(size, settings):
    if size < MIN_BLOCK:
        return MIN_BLOCK
    divisions = settings.divisions(size)
    if divisions > 1 and size > MIN_BLOCK * divisions:
        if size & (size - 1) == 0:
            return size
        floor = 1 << (size.bit_length() - 1)
        step = floor >> (divisions.bit_length() - 1)
        if step == 0:
            return floor << 1
        low = size & ~(step - 1)
        return size if low == size else low + step
    return -(-size // MIN_BLOCK) * MIN_BLOCK


class Block:
    __slots__ = ("addr", "size", "requested", "stream", "small", "allocated", "pending", "prev", "next",
                 "mapped", "reservation", "frames", "segment_frames")

    def __init__(self, addr, size, stream, small, reservation=None, mapped=True):
        self.addr, self.size, self.stream, self.small = addr, size, stream, small
        self.requested = 0
        self.allocated = False
        self.pending = False
        self.prev = self.next = None
        self.mapped = mapped
        self.reservation = reservation
        self.frames = None
        self.segment_frames = None

    def key(self):
        return (self.stream, self.size, self.addr)

    def is_split(self):
        return self.prev is not None or self.next is not None


class Reservation:
    """The virtual address range of one expandable segment."""

    def __init__(self, base, page, pages):
        self.base, self.page, self.pages = base, page, pages


class Allocator:
    def __init__(self, settings, device_bytes=8 << 30, device=0, clock_us=1_700_000_000_000_000):
        self.s = settings
        self.device = device
        self.device_bytes = device_bytes
        self.used = 0  # bytes handed out by cudaMalloc / mapped
        self.free_blocks = {True: [], False: []}  # small? -> sorted [(stream, size, addr, block)]
        self.unmapped = {True: [], False: []}  # small? -> sorted [(stream, addr, block)]
        self.active = set()
        self.trace = []
        self.clock = clock_us
        self.next_va = 0x7F00_0000_0000
        self.va_step = 0
        self.allocated_bytes = 0  # PyTorch's stats.allocated_bytes (block sizes, at alloc / free)
        self.peak_allocated_bytes = 0
        self.frames = None  # the frames the next events carry

    # --- bookkeeping -------------------------------------------------------------------------
    def record(self, action, addr, size, stream):
        self.clock += 3
        entry = {"action": action, ("device_free" if action == "oom" else "addr"): addr, "size": size,
                 "stream": stream, "time_us": self.clock, "compile_context": "N/A", "user_metadata": ""}
        if self.frames:
            entry["frames"] = self.frames
        self.trace.append(entry)

    def reset_peak(self):
        self.peak_allocated_bytes = self.allocated_bytes

    def _insert_free(self, b):
        bisect.insort(self.free_blocks[b.small], (b.stream, b.size, b.addr, b))

    def _remove_free(self, b):
        lst = self.free_blocks[b.small]
        i = bisect.bisect_left(lst, (b.stream, b.size, b.addr))
        assert lst[i][3] is b
        del lst[i]

    def _insert_unmapped(self, b):
        bisect.insort(self.unmapped[b.small], (b.stream, b.addr, b))

    def _remove_unmapped(self, b):
        lst = self.unmapped[b.small]
        i = bisect.bisect_left(lst, (b.stream, b.addr))
        assert lst[i][2] is b
        del lst[i]

    def _new_va(self, size, align):
        # cudaMalloc addresses: usually right after the previous one, sometimes with a gap.
        self.va_step += 1
        if self.va_step % 3 == 0:
            self.next_va += 64 * MB
        addr = -(-self.next_va // align) * align
        self.next_va = addr + size
        return addr

    # --- allocation --------------------------------------------------------------------------
    def get_allocation_size(self, size):
        if size <= SMALL_SIZE:
            return SMALL_BUFFER
        if size < MIN_LARGE_ALLOC:
            return self.s.large_segment_size
        return -(-size // ROUND_LARGE) * ROUND_LARGE

    def should_split(self, block, size):
        remaining = block.size - size
        if block.small or self.s.expandable:
            return remaining >= MIN_BLOCK
        return size < self.s.max_split_size and remaining > SMALL_SIZE

    def get_free_block(self, size, stream, small):
        lst = self.free_blocks[small]
        i = bisect.bisect_left(lst, (stream, size, 0))
        if i == len(lst) or lst[i][0] != stream:
            return None
        if lst[i][3].reservation is not None:
            if self.s.expandable:
                def expandable_size(b):
                    return b.size + (b.next.size if b.next is not None and not b.next.mapped else 0)
                while (lst[i][3].reservation is not None and i + 1 < len(lst) and lst[i + 1][0] == stream
                       and expandable_size(lst[i + 1][3]) < expandable_size(lst[i][3])):
                    i += 1
            else:
                i += 1
                while i < len(lst) and lst[i][3].reservation is not None and lst[i][0] == stream:
                    i += 1
                if i == len(lst) or lst[i][0] != stream:
                    return None
        b = lst[i][3]
        if size < self.s.max_split_size and b.size >= self.s.max_split_size:
            return None
        if size >= self.s.max_split_size and b.size >= size + self.s.max_non_split_rounding:
            return None
        del lst[i]
        return b

    def alloc_block(self, size, stream, small):
        if self.s.expandable:
            return self.try_allocate_expandable_block(size, stream, small)
        alloc_size = self.get_allocation_size(size)
        if self.used + alloc_size > self.device_bytes:
            return None
        self.used += alloc_size
        b = Block(self._new_va(alloc_size, 2 * MB), alloc_size, stream, small)
        b.segment_frames = self.frames
        self.record("segment_alloc", b.addr, b.size, stream)
        return b

    def malloc(self, orig_size, stream=0):
        size = round_size(orig_size, self.s)
        small = size <= SMALL_SIZE
        b = self.get_free_block(size, stream, small)
        if b is None:
            b = self.alloc_block(size, stream, small)
        if b is None and self.release_available_cached_blocks(size, stream, small):
            b = self.alloc_block(size, stream, small)
        if b is None:
            self.release_cached_blocks()
            b = self.alloc_block(size, stream, small)
        if b is None:
            self.record("oom", self.device_bytes - self.used, size, stream)
            raise OutOfMemory(orig_size)
        if self.should_split(b, size):
            rest = b
            b = Block(rest.addr, size, stream, small, rest.reservation)
            b.prev = rest.prev
            if b.prev is not None:
                b.prev.next = b
            b.next = rest
            rest.prev = b
            rest.addr += size
            rest.size -= size
            self._insert_free(rest)
        b.allocated = True
        b.requested = orig_size
        b.frames = self.frames
        self.record("alloc", b.addr, orig_size, stream)
        self.active.add(b)
        self.allocated_bytes += b.size
        self.peak_allocated_bytes = max(self.peak_allocated_bytes, self.allocated_bytes)
        return b

    def free(self, b, used_on_other_stream=False):
        """used_on_other_stream: the block was record_stream'ed; it waits for complete_pending()."""
        b.allocated = False
        self.allocated_bytes -= b.size
        self.record("free_requested", b.addr, b.requested, b.stream)
        if used_on_other_stream:
            b.pending = True
        else:
            self.free_block(b)

    def complete_pending(self):
        for b in sorted((b for b in self.active if b.pending), key=lambda b: b.addr):
            b.pending = False
            self.free_block(b)

    def free_block(self, b):
        self.record("free_completed", b.addr, b.requested, b.stream)
        for other in (b.prev, b.next):
            self.try_merge(b, other)
        self.active.discard(b)
        self._insert_free(b)

    def try_merge(self, dst, src):
        if src is None or src.allocated or src.pending or src.mapped != dst.mapped:
            return 0
        if src.mapped:
            self._remove_free(src)
        else:
            self._remove_unmapped(src)
        if dst.prev is src:
            dst.addr = src.addr
            dst.prev = src.prev
            if dst.prev is not None:
                dst.prev.next = dst
        else:
            dst.next = src.next
            if dst.next is not None:
                dst.next.prev = dst
        dst.size += src.size
        return src.size

    # --- giving memory back --------------------------------------------------------------------
    def release_block(self, b):
        self.record("segment_free", b.addr, b.size, b.stream)
        self._remove_free(b)
        self.used -= b.size

    def release_available_cached_blocks(self, size, stream, small):
        if self.s.max_split_size == UNLIMITED:
            return False
        key = max(size, self.s.max_split_size)
        lst = self.free_blocks[small]
        i = bisect.bisect_left(lst, (stream, key, 0))
        if i == len(lst) or lst[i][0] != stream:
            if i == 0:
                return False
            released = 0
            i -= 1
            while released < key and i >= 0 and lst[i][1] >= self.s.max_split_size and lst[i][0] == stream:
                b = lst[i][3]
                released += b.size
                self.release_block(b)
                i -= 1
            return released >= key
        self.release_block(lst[i][3])
        return True

    def release_cached_blocks(self):
        self.complete_pending()
        for small in (False, True):
            to_unmap = []
            for entry in list(self.free_blocks[small]):
                b = entry[3]
                if b.reservation is not None:
                    to_unmap.append(b)
                elif b.prev is None and b.next is None:
                    self.release_block(b)
            for b in to_unmap:
                self.unmap_block(b)

    def empty_cache(self):
        self.release_cached_blocks()

    # --- expandable segments -----------------------------------------------------------------
    def find_expandable_block(self, size, stream, small):
        def allocatable(b):
            return b is not None and not b.allocated and not b.pending

        def room(b):
            total = 0
            while total < size and allocatable(b):
                total += b.size
                b = b.next
            return total >= size

        for s, _, c in self.unmapped[small]:
            if s != stream:
                continue
            if allocatable(c.prev):
                c = c.prev
            if room(c):
                return c
        page = SMALL_BUFFER if small else self.s.large_segment_size
        pages = -(-(self.device_bytes + self.device_bytes // 8) // page)
        r = Reservation(self._new_va(page * pages, page), page, pages)
        c = Block(r.base, page * pages, stream, small, r, mapped=False)
        self._insert_unmapped(c)
        return c

    def map_block(self, b, size):
        r = b.reservation
        begin = (b.addr - r.base) // r.page
        end = -(-(b.addr + size - r.base) // r.page)
        mapped = (end - begin) * r.page
        if self.used + mapped > self.device_bytes:
            return False
        self.used += mapped
        ptr = b.addr
        self._remove_unmapped(b)
        b.mapped = True
        if mapped < b.size:
            rest = Block(b.addr + mapped, b.size - mapped, b.stream, b.small, r, mapped=False)
            rest.prev, rest.next = b, b.next
            if b.next is not None:
                b.next.prev = rest
            b.next = rest
            self._insert_unmapped(rest)
            b.size = mapped
        self.try_merge(b, b.prev)
        self.try_merge(b, b.next)
        self._insert_free(b)
        self.record("segment_map", ptr, mapped, b.stream)
        return True

    def try_allocate_expandable_block(self, size, stream, small):
        c = self.find_expandable_block(size, stream, small)
        if not c.mapped and not self.map_block(c, min(c.size, size)):
            return None
        while c.size < size:
            nxt = c.next
            if not self.map_block(nxt, min(size - c.size, nxt.size)):
                return None
            c = nxt
        self._remove_free(c)
        return c

    def unmap_block(self, b):
        r = b.reservation
        begin = -(-(b.addr - r.base) // r.page)
        end = (b.addr + b.size - r.base) // r.page
        if begin >= end:
            return
        ptr, size = r.base + begin * r.page, (end - begin) * r.page
        self._remove_free(b)
        before = ptr - b.addr
        if before > 0:
            piece = Block(b.addr, before, b.stream, b.small, r)
            piece.prev, piece.next = b.prev, b
            if b.prev is not None:
                b.prev.next = piece
            b.prev = piece
            self._insert_free(piece)
        after = b.size - before - size
        if after > 0:
            piece = Block(ptr + size, after, b.stream, b.small, r)
            piece.prev, piece.next = b, b.next
            if b.next is not None:
                b.next.prev = piece
            b.next = piece
            self._insert_free(piece)
        b.addr, b.size, b.mapped = ptr, size, False
        self.try_merge(b, b.prev)
        self.try_merge(b, b.next)
        self._insert_unmapped(b)
        self.used -= size
        self.record("segment_unmap", ptr, size, b.stream)
        if b.prev is None and b.next is None:
            self._remove_unmapped(b)  # the whole reservation is free: give it back

    # --- the snapshot --------------------------------------------------------------------------
    def all_blocks(self):
        out = [e[3] for pool in self.free_blocks.values() for e in pool]
        return out + list(self.active)

    def segments(self):
        result = []
        for head in self.all_blocks():
            if head.prev is not None and head.prev.mapped:
                continue
            seg = {"device": self.device, "address": head.addr, "total_size": 0, "allocated_size": 0,
                   "active_size": 0, "requested_size": 0, "stream": head.stream,
                   "segment_type": "small" if head.small else "large", "segment_pool_id": (0, 0),
                   "is_expandable": head.reservation is not None, "frames": head.segment_frames or [],
                   "blocks": []}
            b, addr = head, head.addr
            while b is not None and b.mapped:
                state = "active_allocated" if b.allocated else ("active_pending_free" if b.pending else "inactive")
                block = {"address": addr, "size": b.size, "requested_size": b.requested, "state": state}
                if b.frames and state != "inactive":
                    block["frames"] = b.frames
                seg["blocks"].append(block)
                seg["total_size"] += b.size
                if b.allocated:
                    seg["allocated_size"] += b.size
                if b.allocated or b.pending:
                    seg["active_size"] += b.size
                    seg["requested_size"] += b.requested
                addr += b.size
                b = b.next
            result.append(seg)
        result.sort(key=lambda s: s["address"])
        return result

    def snapshot(self, first_entry=0, annotations=()):
        """The snapshot as _dump_snapshot writes it; the trace keeps entries from `first_entry` on
        (what a ring buffer of max_entries keeps when recording began mid-run)."""
        return {"segments": self.segments(), "device_traces": [self.trace[first_entry:]],
                "allocator_settings": self.s.as_dict(), "external_annotations": list(annotations)}


def frames_for(name, line, library=True):
    """A stack as PyTorch records it (innermost first): a library frame, then the user's."""
    user = [{"name": name, "filename": "/home/user/project/train.py", "line": line},
            {"name": "<module>", "filename": "/home/user/project/train.py", "line": 200}]
    if not library:
        return user
    return [{"name": "forward", "filename": "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py",
             "line": 125}] + user


def dump(snapshot, path):
    with open(path, "wb") as f:
        pickle.dump(snapshot, f, protocol=4)
