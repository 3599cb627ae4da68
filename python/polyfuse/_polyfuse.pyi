# Typed stubs of the extension polyfuse._polyfuse (python/src/module.cc).
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

class Options:
    backend: str
    arch: Optional[str]
    block: Optional[str]
    warp: Optional[str]
    mma: Optional[str]
    consumer_schedule: Optional[str]
    f32_matmul: Optional[str]
    cluster: Optional[str]
    split_k: int
    stages: int
    group: Optional[int]
    fast_math: bool
    line_info: bool
    use_cache: bool
    autotune: bool
    threads: Optional[int]
    constant_inputs: List[str]
    cpu_block: Optional[str]
    min_parallel_flops: Optional[int]
    def __init__(self) -> None: ...

class CompiledKernel:
    backend: str
    source: str
    ptx: str
    cubin: bytes
    log: str
    metadata_json: str
    cache_status: str
    plan: str
    kernel_count: int
    workspace_bytes: int
    name: str
    parameters: List[Tuple[str, str, str, List[str]]]
    def launch(self, buffers: Sequence[Tuple[int, int]], stream: int = 0) -> Dict[str, int]: ...
    def forget_constants(self) -> None: ...

def compile(text: str, name: str, sizes: Mapping[str, int], def_: str, options: Options) -> CompiledKernel: ...
def signature(text: str, name: str, sizes: Mapping[str, int], def_: str) -> List[Tuple[str, str, str, List[str]]]: ...
def defs(text: str, name: str) -> List[str]: ...
def cuda_device_available() -> bool: ...
def cuda_device_description() -> str: ...
def version() -> str: ...
def array_info(array: object) -> Tuple[int, List[int], List[int], Tuple[int, int], Tuple[int, int]]: ...
