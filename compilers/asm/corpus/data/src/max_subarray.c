/* archsim asm corpus; written for archsim, BSD-2-Clause. */
static long max2(long x, long y) { return x > y ? x : y; }
long max_subarray(long *p, long n) { if (n <= 0) return 0; long best = p[0], cur = p[0]; for (long i = 1; i < n; i++) { cur = max2(p[i], cur + p[i]); best = max2(best, cur); } return best; }
