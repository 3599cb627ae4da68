"""The exceptions of polyfuse: every error the package raises is a polyfuse.Error."""

import re

__all__ = ["Error", "SourceError", "CompileError", "ArgumentError", "CudaError", "NoDeviceError", "EmulatorError"]


class Error(Exception):
    """Base of every polyfuse exception; str() is a complete message."""


class SourceError(Error):
    """The .tc program or an option is wrong.

    str() holds every diagnostic as "file:line:col: error: message" with the source line and a
    caret; file, line and column are those of the first (None for an option error).
    """

    _LOCATION = re.compile(r"^(.*?):(\d+):(\d+): error: ", re.MULTILINE)

    def __init__(self, message: str):
        super().__init__(message)
        match = self._LOCATION.search(message)
        self.file = match.group(1) if match else None
        self.line = int(match.group(2)) if match else None
        self.column = int(match.group(3)) if match else None


class CompileError(Error):
    """NVRTC (or, on emu, the host compiler) rejected the generated source."""


class ArgumentError(Error):
    """The arguments of a call do not match the def: count, dtype, rank, shape, strides, device."""


class CudaError(Error):
    """A CUDA driver call failed."""


class NoDeviceError(Error):
    """There is no usable CUDA device (backend="cuda" launched on a machine without one)."""


class EmulatorError(Error):
    """The emulator found a bad access, a divergent barrier or a deadlock."""
