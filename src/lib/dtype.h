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

enum dist { DIST_NORMAL, DIST_UNIFORM, DIST_HEAVY, DIST_RANDINT, DIST_TIES, DIST_COUNT };

/* what a call's outputs hold before it: all bits set (NaN, -1), zeros,
 * 0x7F bytes (huge or NaN), random bytes, or the previous call's outputs
 * in the same buffers left as they are */
enum poison { POISON_ONES, POISON_ZERO, POISON_HUGE, POISON_RANDOM, POISON_KEEP, POISON_COUNT };

/* how one tensor is drawn: a distribution, its range, specials, and an
 * affine map of every value (scale, then offset; 1 and 0 leave it);
 * fast: to float precision (draw.h rt_fastvalue: bench's) */
struct rt_dist {
	int dist, special;
	double lo, hi;
	double off, scale;
	int fast;
};

#endif
