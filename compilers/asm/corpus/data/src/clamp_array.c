/* archsim asm corpus; written for archsim, BSD-2-Clause. */
static long clamp1(long x, long lo, long hi) { return x < lo ? lo : (x > hi ? hi : x); }
long clamp_array(long *p, long n, long x) { for (long i = 0; i < n; i++) p[i] = clamp1(p[i], -x, x); return n; }
