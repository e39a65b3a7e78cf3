/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long sign(long x) { return (x > 0) - (x < 0); }
