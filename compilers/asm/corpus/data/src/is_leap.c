/* archsim asm corpus; written for archsim, BSD-2-Clause. */
long is_leap(long u) { return (u % 4 == 0 && u % 100 != 0) || u % 400 == 0; }
