"""sawtooth-record --rung: one rung of the seed's ladder applied to an unmodified program, so that a
recording measures what the ladder predicted (sawtooth-trace ladder --measured).

  bf16                     autocast (bfloat16) around the root module's forward, on its device
  checkpoint[:every=N]     torch.utils.checkpoint (non-reentrant) around every N-th block of the
                           model's repeated ModuleList (N = 1: every block); ...:reentrant for the
                           reentrant form (keyword arguments are then passed as constants)
  compile                  the root module compiled in place (Module.compile: the calls after the first)

The root module is the first module with parameters the program calls from outside any module (the
module the shim's phases already watch). A rung that cannot be applied — no repeated blocks, a model
already under autocast or already checkpointing or compiled, a torch without Module.compile — is
told to the recorder (its notice on sawtooth-record's stderr) and the program runs unchanged; the
file's meta says `rung` (the LadderRow id it measures) only when it was applied, else
`rung_not_applied` with the reason. Nothing here keeps a reference to the program's objects: the
hooks belong to the module, and the rung keeps only its own state.
"""
import functools

SPECS = ("bf16", "checkpoint", "compile")


def parse(spec):
    """'bf16', 'compile', 'checkpoint', 'checkpoint:every=N', 'checkpoint:every=N:reentrant' ->
    (kind, every, reentrant, canonical id); ValueError for anything else."""
    parts = spec.split(":")
    kind = parts[0]
    if kind in ("bf16", "compile") and len(parts) == 1:
        return kind, 0, False, kind
    if kind != "checkpoint":
        raise ValueError(f"unknown rung '{spec}': choose bf16, checkpoint[:every=N][:reentrant] or compile")
    every, reentrant = 1, False
    for p in parts[1:]:
        if p == "reentrant":
            reentrant = True
        elif p.startswith("every=") and p[6:].isdigit() and int(p[6:]) >= 1:
            every = int(p[6:])
        else:
            raise ValueError(f"rung '{spec}': '{p}' is neither every=N (N >= 1) nor reentrant")
    return kind, every, reentrant, f"checkpoint:every={every}" + (":reentrant" if reentrant else "")


def repeated_blocks(torch, root):
    """The root's ModuleList (or Sequential) of >= 2 modules of one class with the most parameters:
    (qualified name, modules), or None."""
    best = None
    for name, m in root.named_modules():
        if not isinstance(m, (torch.nn.ModuleList, torch.nn.Sequential)) or len(m) < 2:
            continue
        children = list(m)
        if len({type(c) for c in children}) != 1:
            continue
        params = sum(p.numel() for c in children for p in c.parameters())
        if params and (best is None or params > best[0]):
            best = (params, name, children)
    return (best[1], best[2]) if best else None


def _autocast_enabled(torch, device):
    try:
        return torch.is_autocast_enabled(device)
    except TypeError:  # torch before 2.4: one flag for CUDA, another for the CPU
        return torch.is_autocast_enabled() if device == "cuda" else torch.is_autocast_cpu_enabled()


class ModelWatch:
    """Each new top-level module: the first with parameters is the model. Its autocast state when
    it is first called goes into the meta (`program_autocast`: the ladder predicts bf16 only for a
    model not already under it), and a --rung, if any, is applied to it."""

    def __init__(self, torch, channel, rung=None):
        self.torch = torch
        self.ch = channel
        self.rung = rung
        self.seen = False

    def __call__(self, module):
        try:
            if self.seen or next(iter(module.parameters()), None) is None:
                return
            self.seen = True
            device = next(iter(module.parameters())).device.type
            dtype = "off"
            if _autocast_enabled(self.torch, device):
                try:
                    dtype = str(self.torch.get_autocast_dtype(device)).replace("torch.", "")
                except (AttributeError, TypeError):
                    dtype = "on"
            self.ch.meta({"program_autocast": dtype})
            if self.rung is not None:
                self.rung.on_top_module(module)
        except Exception as e:  # never the program's problem
            self.ch.notice("warning", f"watching the model failed ({type(e).__name__}: {e})")


class Rung:
    def __init__(self, torch, channel, spec):
        self.torch = torch
        self.ch = channel
        self.spec = spec
        self.kind, self.every, self.reentrant, self.id = parse(spec)
        self.done = False
        self._autocasts = []  # the autocast contexts entered by the bf16 pre-hook, innermost last

    def on_top_module(self, module):
        """Called by the phases for each new top-level module; the first with parameters is the model."""
        if self.done:
            return
        if next(iter(module.parameters()), None) is None:
            return  # a loss or a helper without parameters: not the model
        self.done = True
        try:
            what = getattr(self, "_apply_" + self.kind)(module)
        except Exception as e:  # never the program's problem
            what = (False, f"{type(e).__name__}: {e}")
        applied, detail = what
        name = type(module).__name__
        if applied:
            self.ch.meta({"rung": self.id, "rung_root": name})
            self.ch.notice("info", f"--rung {self.spec}: {detail}")
        else:
            self.ch.meta({"rung_not_applied": f"{self.id}: {detail}"})
            self.ch.notice("warning", f"--rung {self.spec} not applied to {name}: {detail}; the program runs unchanged")

    # -- bf16 ------------------------------------------------------------------------------------
    def _apply_bf16(self, root):
        torch = self.torch
        device = next(iter(root.parameters())).device.type
        if _autocast_enabled(torch, device):
            return False, "the model already runs under autocast"

        def enter(mod, args):
            try:
                ctx = torch.autocast(device, dtype=torch.bfloat16)
                ctx.__enter__()
                self._autocasts.append(ctx)
            except Exception as e:  # never the program's problem
                self.ch.notice("warning", f"--rung bf16: entering autocast failed ({type(e).__name__}: {e})")

        def leave(mod, args, output):
            try:
                if self._autocasts:
                    self._autocasts.pop().__exit__(None, None, None)
            except Exception as e:
                self.ch.notice("warning", f"--rung bf16: leaving autocast failed ({type(e).__name__}: {e})")

        root.register_forward_pre_hook(enter)
        try:
            root.register_forward_hook(leave, always_call=True)
        except TypeError:  # torch before 2.1: no always_call
            root.register_forward_hook(leave)
        # This first call has already gathered its pre-hooks (the phases' global hook is where we
        # are): it enters autocast here, and the forward hook, which it does run, leaves it.
        enter(root, ())
        return True, f"autocast (bfloat16, {device}) around {type(root).__name__}.forward"

    # -- checkpoint ------------------------------------------------------------------------------
    def _apply_checkpoint(self, root):
        torch = self.torch
        if getattr(root, "is_gradient_checkpointing", False):
            return False, "the model already checkpoints (gradient_checkpointing is on)"
        found = repeated_blocks(torch, root)
        if not found:
            return False, "no repeated blocks (a ModuleList of two or more modules of one class with parameters)"
        name, blocks = found
        from torch.utils.checkpoint import checkpoint
        reentrant = self.reentrant
        wrapped = 0
        for i, block in enumerate(blocks):
            if i % self.every:
                continue

            def forward(*args, _original=block.forward, **kwargs):
                if not torch.is_grad_enabled():
                    return _original(*args, **kwargs)
                if reentrant:
                    return checkpoint(functools.partial(_original, **kwargs), *args, use_reentrant=True)
                return checkpoint(_original, *args, use_reentrant=False, **kwargs)

            block.forward = forward
            wrapped += 1
        return True, (f"torch.utils.checkpoint ({'reentrant' if reentrant else 'non-reentrant'}) around {wrapped} of the "
                      f"{len(blocks)} blocks of {name or 'the root'} ({type(blocks[0]).__name__})")

    # -- compile ---------------------------------------------------------------------------------
    def _apply_compile(self, root):
        if getattr(root, "_compiled_call_impl", None) is not None:
            return False, "the model is already compiled"
        if not hasattr(root, "compile"):
            return False, f"torch {self.torch.__version__} has no Module.compile"
        root.compile()
        return True, f"{type(root).__name__} compiled in place (torch.compile; from its second call on)"
