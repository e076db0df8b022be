/*
 * dtype.h - the dtype and distribution numbers: the one list that the
 * host's table (tensor.c), the input generator (draw.h, on the CPU and the
 * GPU) and the harness share. Plain C, no library.
 */
#ifndef RETORT_DTYPE_H
#define RETORT_DTYPE_H

enum dtype {
	DT_F64, DT_F32, DT_F16, DT_BF16, DT_F8E4M3, DT_F8E5M2,
	DT_I8, DT_U8, DT_I16, DT_I32, DT_I64, DT_COUNT
};

enum dist { DIST_NORMAL, DIST_UNIFORM, DIST_HEAVY, DIST_RANDINT, DIST_COUNT };

#endif
