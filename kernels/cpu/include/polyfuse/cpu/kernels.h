// Everything generated C++ needs from kernels/cpu: #include "polyfuse/cpu/kernels.h".
#pragma once

#include "polyfuse/cpu/brgemm.h"
#include "polyfuse/cpu/elementwise.h"
#include "polyfuse/cpu/isa.h"
#include "polyfuse/cpu/memory.h"
#include "polyfuse/cpu/optimizer.h"
#include "polyfuse/cpu/reduce.h"
#include "polyfuse/cpu/tensor_operation.h"
#include "polyfuse/cpu/types.h"
