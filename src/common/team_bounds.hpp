#pragma once
// OMPREF_MAX_TEAM_THREADS(n): a clause for a `target teams` construct that
// compiles its kernel for teams of at most n threads. On an NVIDIA GPU the
// compiler then keeps each thread within 65536 / n registers (n = 512: 128),
// the trade a CUDA kernel makes with __launch_bounds__: fewer registers, more
// resident warps. It is clang's `ompx_attribute` extension (the kernel gets
// `.maxntid n`); clang-19 reads launch_bounds' second argument (blocks per
// multiprocessor) as a number of teams, so only the first is given. Other
// compilers get nothing: the construct is then the standard one. A team of
// more than n threads cannot be launched: thread_limit must stay <= n.
#if defined(__clang__) && !defined(__CUDACC__)
#define OMPREF_MAX_TEAM_THREADS(n) ompx_attribute(__attribute__((launch_bounds(n))))
#else
#define OMPREF_MAX_TEAM_THREADS(n)
#endif
