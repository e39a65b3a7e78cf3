/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long matvec2(long *p, long *q) { long a = p[0] * q[0] + p[1] * q[1]; long b = p[2] * q[0] + p[3] * q[1]; q[2] = a; q[3] = b; return a - b; }
