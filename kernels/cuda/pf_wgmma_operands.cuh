// polyfuse device helpers, Hopper: the operand lists of the wgmma.mma_async inline-PTX
// statements (pf_wgmma.cuh), one per N of m64nNk16 (N = 8, 16, ..., 256: N/2 f32 accumulator
// registers per thread, PTX ISA 9.7.15.5.2). An asm statement needs its operand numbers as
// string literals, so they are spelled out here once: the accumulators are operands
// %0 .. %(N/2 - 1) ("+f", read and written), the operands after them are numbered from N/2.
// tests/kernels_cuda/wgmma_operand_table_test.cc compares every list with one it builds.
#pragma once

// Four accumulator registers each: %4k .. %4k+3 and their operands d[4k] .. d[4k+3].
#define PF_WG_D4_0 "%0, %1, %2, %3"
#define PF_WG_D4_1 "%4, %5, %6, %7"
#define PF_WG_D4_2 "%8, %9, %10, %11"
#define PF_WG_D4_3 "%12, %13, %14, %15"
#define PF_WG_D4_4 "%16, %17, %18, %19"
#define PF_WG_D4_5 "%20, %21, %22, %23"
#define PF_WG_D4_6 "%24, %25, %26, %27"
#define PF_WG_D4_7 "%28, %29, %30, %31"
#define PF_WG_D4_8 "%32, %33, %34, %35"
#define PF_WG_D4_9 "%36, %37, %38, %39"
#define PF_WG_D4_10 "%40, %41, %42, %43"
#define PF_WG_D4_11 "%44, %45, %46, %47"
#define PF_WG_D4_12 "%48, %49, %50, %51"
#define PF_WG_D4_13 "%52, %53, %54, %55"
#define PF_WG_D4_14 "%56, %57, %58, %59"
#define PF_WG_D4_15 "%60, %61, %62, %63"
#define PF_WG_D4_16 "%64, %65, %66, %67"
#define PF_WG_D4_17 "%68, %69, %70, %71"
#define PF_WG_D4_18 "%72, %73, %74, %75"
#define PF_WG_D4_19 "%76, %77, %78, %79"
#define PF_WG_D4_20 "%80, %81, %82, %83"
#define PF_WG_D4_21 "%84, %85, %86, %87"
#define PF_WG_D4_22 "%88, %89, %90, %91"
#define PF_WG_D4_23 "%92, %93, %94, %95"
#define PF_WG_D4_24 "%96, %97, %98, %99"
#define PF_WG_D4_25 "%100, %101, %102, %103"
#define PF_WG_D4_26 "%104, %105, %106, %107"
#define PF_WG_D4_27 "%108, %109, %110, %111"
#define PF_WG_D4_28 "%112, %113, %114, %115"
#define PF_WG_D4_29 "%116, %117, %118, %119"
#define PF_WG_D4_30 "%120, %121, %122, %123"
#define PF_WG_D4_31 "%124, %125, %126, %127"
#define PF_WG_O4_0 "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
#define PF_WG_O4_1 "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define PF_WG_O4_2 "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11])
#define PF_WG_O4_3 "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
#define PF_WG_O4_4 "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19])
#define PF_WG_O4_5 "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23])
#define PF_WG_O4_6 "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27])
#define PF_WG_O4_7 "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define PF_WG_O4_8 "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35])
#define PF_WG_O4_9 "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
#define PF_WG_O4_10 "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43])
#define PF_WG_O4_11 "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
#define PF_WG_O4_12 "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51])
#define PF_WG_O4_13 "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
#define PF_WG_O4_14 "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59])
#define PF_WG_O4_15 "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define PF_WG_O4_16 "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67])
#define PF_WG_O4_17 "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
#define PF_WG_O4_18 "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75])
#define PF_WG_O4_19 "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
#define PF_WG_O4_20 "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83])
#define PF_WG_O4_21 "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
#define PF_WG_O4_22 "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91])
#define PF_WG_O4_23 "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define PF_WG_O4_24 "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99])
#define PF_WG_O4_25 "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103])
#define PF_WG_O4_26 "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107])
#define PF_WG_O4_27 "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111])
#define PF_WG_O4_28 "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115])
#define PF_WG_O4_29 "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119])
#define PF_WG_O4_30 "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123])
#define PF_WG_O4_31 "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// The accumulator list of m64n(8j)k16: 4j registers.
#define PF_WG_D_1 PF_WG_D4_0
#define PF_WG_O_1 PF_WG_O4_0
#define PF_WG_D_2 PF_WG_D_1 ", " PF_WG_D4_1
#define PF_WG_O_2 PF_WG_O_1, PF_WG_O4_1
#define PF_WG_D_3 PF_WG_D_2 ", " PF_WG_D4_2
#define PF_WG_O_3 PF_WG_O_2, PF_WG_O4_2
#define PF_WG_D_4 PF_WG_D_3 ", " PF_WG_D4_3
#define PF_WG_O_4 PF_WG_O_3, PF_WG_O4_3
#define PF_WG_D_5 PF_WG_D_4 ", " PF_WG_D4_4
#define PF_WG_O_5 PF_WG_O_4, PF_WG_O4_4
#define PF_WG_D_6 PF_WG_D_5 ", " PF_WG_D4_5
#define PF_WG_O_6 PF_WG_O_5, PF_WG_O4_5
#define PF_WG_D_7 PF_WG_D_6 ", " PF_WG_D4_6
#define PF_WG_O_7 PF_WG_O_6, PF_WG_O4_6
#define PF_WG_D_8 PF_WG_D_7 ", " PF_WG_D4_7
#define PF_WG_O_8 PF_WG_O_7, PF_WG_O4_7
#define PF_WG_D_9 PF_WG_D_8 ", " PF_WG_D4_8
#define PF_WG_O_9 PF_WG_O_8, PF_WG_O4_8
#define PF_WG_D_10 PF_WG_D_9 ", " PF_WG_D4_9
#define PF_WG_O_10 PF_WG_O_9, PF_WG_O4_9
#define PF_WG_D_11 PF_WG_D_10 ", " PF_WG_D4_10
#define PF_WG_O_11 PF_WG_O_10, PF_WG_O4_10
#define PF_WG_D_12 PF_WG_D_11 ", " PF_WG_D4_11
#define PF_WG_O_12 PF_WG_O_11, PF_WG_O4_11
#define PF_WG_D_13 PF_WG_D_12 ", " PF_WG_D4_12
#define PF_WG_O_13 PF_WG_O_12, PF_WG_O4_12
#define PF_WG_D_14 PF_WG_D_13 ", " PF_WG_D4_13
#define PF_WG_O_14 PF_WG_O_13, PF_WG_O4_13
#define PF_WG_D_15 PF_WG_D_14 ", " PF_WG_D4_14
#define PF_WG_O_15 PF_WG_O_14, PF_WG_O4_14
#define PF_WG_D_16 PF_WG_D_15 ", " PF_WG_D4_15
#define PF_WG_O_16 PF_WG_O_15, PF_WG_O4_15
#define PF_WG_D_17 PF_WG_D_16 ", " PF_WG_D4_16
#define PF_WG_O_17 PF_WG_O_16, PF_WG_O4_16
#define PF_WG_D_18 PF_WG_D_17 ", " PF_WG_D4_17
#define PF_WG_O_18 PF_WG_O_17, PF_WG_O4_17
#define PF_WG_D_19 PF_WG_D_18 ", " PF_WG_D4_18
#define PF_WG_O_19 PF_WG_O_18, PF_WG_O4_18
#define PF_WG_D_20 PF_WG_D_19 ", " PF_WG_D4_19
#define PF_WG_O_20 PF_WG_O_19, PF_WG_O4_19
#define PF_WG_D_21 PF_WG_D_20 ", " PF_WG_D4_20
#define PF_WG_O_21 PF_WG_O_20, PF_WG_O4_20
#define PF_WG_D_22 PF_WG_D_21 ", " PF_WG_D4_21
#define PF_WG_O_22 PF_WG_O_21, PF_WG_O4_21
#define PF_WG_D_23 PF_WG_D_22 ", " PF_WG_D4_22
#define PF_WG_O_23 PF_WG_O_22, PF_WG_O4_22
#define PF_WG_D_24 PF_WG_D_23 ", " PF_WG_D4_23
#define PF_WG_O_24 PF_WG_O_23, PF_WG_O4_23
#define PF_WG_D_25 PF_WG_D_24 ", " PF_WG_D4_24
#define PF_WG_O_25 PF_WG_O_24, PF_WG_O4_24
#define PF_WG_D_26 PF_WG_D_25 ", " PF_WG_D4_25
#define PF_WG_O_26 PF_WG_O_25, PF_WG_O4_25
#define PF_WG_D_27 PF_WG_D_26 ", " PF_WG_D4_26
#define PF_WG_O_27 PF_WG_O_26, PF_WG_O4_26
#define PF_WG_D_28 PF_WG_D_27 ", " PF_WG_D4_27
#define PF_WG_O_28 PF_WG_O_27, PF_WG_O4_27
#define PF_WG_D_29 PF_WG_D_28 ", " PF_WG_D4_28
#define PF_WG_O_29 PF_WG_O_28, PF_WG_O4_28
#define PF_WG_D_30 PF_WG_D_29 ", " PF_WG_D4_29
#define PF_WG_O_30 PF_WG_O_29, PF_WG_O4_29
#define PF_WG_D_31 PF_WG_D_30 ", " PF_WG_D4_30
#define PF_WG_O_31 PF_WG_O_30, PF_WG_O4_30
#define PF_WG_D_32 PF_WG_D_31 ", " PF_WG_D4_31
#define PF_WG_O_32 PF_WG_O_31, PF_WG_O4_31

// X(N, D list, D operands, then the numbers of the 7 operands after the accumulators, TYPE)
#define PF_WG_FOR_EACH_N(X, TYPE) \
  X(8, PF_WG_D_1, PF_WG_O_1, 4, 5, 6, 7, 8, 9, 10, TYPE) \
  X(16, PF_WG_D_2, PF_WG_O_2, 8, 9, 10, 11, 12, 13, 14, TYPE) \
  X(24, PF_WG_D_3, PF_WG_O_3, 12, 13, 14, 15, 16, 17, 18, TYPE) \
  X(32, PF_WG_D_4, PF_WG_O_4, 16, 17, 18, 19, 20, 21, 22, TYPE) \
  X(40, PF_WG_D_5, PF_WG_O_5, 20, 21, 22, 23, 24, 25, 26, TYPE) \
  X(48, PF_WG_D_6, PF_WG_O_6, 24, 25, 26, 27, 28, 29, 30, TYPE) \
  X(56, PF_WG_D_7, PF_WG_O_7, 28, 29, 30, 31, 32, 33, 34, TYPE) \
  X(64, PF_WG_D_8, PF_WG_O_8, 32, 33, 34, 35, 36, 37, 38, TYPE) \
  X(72, PF_WG_D_9, PF_WG_O_9, 36, 37, 38, 39, 40, 41, 42, TYPE) \
  X(80, PF_WG_D_10, PF_WG_O_10, 40, 41, 42, 43, 44, 45, 46, TYPE) \
  X(88, PF_WG_D_11, PF_WG_O_11, 44, 45, 46, 47, 48, 49, 50, TYPE) \
  X(96, PF_WG_D_12, PF_WG_O_12, 48, 49, 50, 51, 52, 53, 54, TYPE) \
  X(104, PF_WG_D_13, PF_WG_O_13, 52, 53, 54, 55, 56, 57, 58, TYPE) \
  X(112, PF_WG_D_14, PF_WG_O_14, 56, 57, 58, 59, 60, 61, 62, TYPE) \
  X(120, PF_WG_D_15, PF_WG_O_15, 60, 61, 62, 63, 64, 65, 66, TYPE) \
  X(128, PF_WG_D_16, PF_WG_O_16, 64, 65, 66, 67, 68, 69, 70, TYPE) \
  X(136, PF_WG_D_17, PF_WG_O_17, 68, 69, 70, 71, 72, 73, 74, TYPE) \
  X(144, PF_WG_D_18, PF_WG_O_18, 72, 73, 74, 75, 76, 77, 78, TYPE) \
  X(152, PF_WG_D_19, PF_WG_O_19, 76, 77, 78, 79, 80, 81, 82, TYPE) \
  X(160, PF_WG_D_20, PF_WG_O_20, 80, 81, 82, 83, 84, 85, 86, TYPE) \
  X(168, PF_WG_D_21, PF_WG_O_21, 84, 85, 86, 87, 88, 89, 90, TYPE) \
  X(176, PF_WG_D_22, PF_WG_O_22, 88, 89, 90, 91, 92, 93, 94, TYPE) \
  X(184, PF_WG_D_23, PF_WG_O_23, 92, 93, 94, 95, 96, 97, 98, TYPE) \
  X(192, PF_WG_D_24, PF_WG_O_24, 96, 97, 98, 99, 100, 101, 102, TYPE) \
  X(200, PF_WG_D_25, PF_WG_O_25, 100, 101, 102, 103, 104, 105, 106, TYPE) \
  X(208, PF_WG_D_26, PF_WG_O_26, 104, 105, 106, 107, 108, 109, 110, TYPE) \
  X(216, PF_WG_D_27, PF_WG_O_27, 108, 109, 110, 111, 112, 113, 114, TYPE) \
  X(224, PF_WG_D_28, PF_WG_O_28, 112, 113, 114, 115, 116, 117, 118, TYPE) \
  X(232, PF_WG_D_29, PF_WG_O_29, 116, 117, 118, 119, 120, 121, 122, TYPE) \
  X(240, PF_WG_D_30, PF_WG_O_30, 120, 121, 122, 123, 124, 125, 126, TYPE) \
  X(248, PF_WG_D_31, PF_WG_O_31, 124, 125, 126, 127, 128, 129, 130, TYPE) \
  X(256, PF_WG_D_32, PF_WG_O_32, 128, 129, 130, 131, 132, 133, 134, TYPE)
