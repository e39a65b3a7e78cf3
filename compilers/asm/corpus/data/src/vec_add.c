/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long vec_add(long *p, long *q, long n) { for (long i = 0; i < n; i++) p[i] += q[i]; return n; }
