/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long swap_pair(long *p, long *q) { long t = *p; *p = *q; *q = t; return t; }
