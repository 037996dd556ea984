"""A callback once a module's import has finished, without importing it first."""
import importlib.abc
import importlib.util
import sys


class ImportWatcher(importlib.abc.MetaPathFinder):
    """Calls on_import(module) once `import name` has finished (sys.meta_path's first finder until
    then). The import itself is the program's: what it raises reaches the program as it would."""

    def __init__(self, name, on_import):
        self.name = name
        self.on_import = on_import

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        try:
            sys.meta_path.remove(self)
        except ValueError:
            return None
        try:
            spec = importlib.util.find_spec(name)
        except Exception:  # the import system's own finders say it again, to the program
            return None
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module
        on_import = self.on_import

        def exec_and_report(module):
            exec_module(module)  # the program's import: what it raises is the program's
            on_import(module)    # guarded by whoever made the watcher

        try:
            spec.loader.exec_module = exec_and_report
        except Exception:
            return None
        return spec
