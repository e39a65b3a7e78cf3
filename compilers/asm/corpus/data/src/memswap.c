/* archsim asm corpus; written for archsim, BSD-2-Clause. */
static void swap1(long *a, long *b) { long t = *a; *a = *b; *b = t; }
long memswap(long *p, long *q, long n) { for (long i = 0; i < n; i++) swap1(p + i, q + i); return n; }
