/* Any program of LLVM's OpenMP runtime: the runtime registers the process
   (a file in /dev/shm named by its pid) as it loads, before main. */
#include <stdio.h>

int main(void) {
  int threads = 0;
#pragma omp parallel reduction(+ : threads)
  threads += 1;
  printf("%d threads\n", threads);
  return 0;
}
