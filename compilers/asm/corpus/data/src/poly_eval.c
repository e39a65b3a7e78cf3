/* archsim asm corpus; written for archsim, BSD-2-Clause. */
static long horner(long *c, long n, long x) { long r = 0; for (long i = n - 1; i >= 0; i--) r = r * x + c[i]; return r; }
long poly_eval(long *p, long n, long x) { return horner(p, n, x) - horner(p, n, -x); }
