// OpenMP settings that the runtimes would refuse with an assertion (LLVM's
// libomp aborts on an empty or negative OMP_NUM_THREADS), answer with a
// warning of their own (GNU libgomp), or accept and then fail on late (a
// thread that cannot be created, a stack that overflows, a CPU that is not
// there): checked against this machine before any runtime reads them.
//
// libgomp reads its environment in its library constructor, before main()
// and before any C++ constructor of the program. Only a function in the
// executable's .preinit_array runs earlier, and there neither the C++
// library nor stdio nor getenv (libc has not set `environ` yet) may be
// relied on: hence plain C here, the environment the loader passes, system
// calls (sched_getaffinity, getrlimit, open/read of /proc) and write(2)
// (write_stderr_now).
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <strings.h>

#include "common/io/output_file.hpp"

namespace {

// ---- What this machine allows -------------------------------------------

// The first number in a small file such as /proc/sys/kernel/threads-max, or
// `fallback` where it cannot be read or says "max" (cgroup v2's pids.max).
long number_in_file(const char* path, long fallback) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fallback;
  char text[64] = {};
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  char* end = nullptr;
  const long value = n > 0 ? std::strtol(text, &end, 10) : 0;
  return n > 0 && end != text && value > 0 ? value : fallback;
}

// The CPUs this process may run on (its affinity mask, sched_getaffinity(2)).
long cpus_in_mask() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  return sched_getaffinity(0, sizeof mask, &mask) == 0 && CPU_COUNT(&mask) > 0 ? CPU_COUNT(&mask) : 1;
}

// The most threads a level may have: 64 per CPU of the affinity mask (with
// GNU libgomp on 16 CPUs, 5000 threads made `ompref check` run past 90 s and
// 100000 ended in SIGSEGV before the first region: its team start keeps
// per-thread data on the main stack), and never more than the kernel's
// system-wide limit, the per-user limit (RLIMIT_NPROC counts threads,
// getrlimit(2)) or the cgroup's (pids.max, the kernel's cgroup-v2 documentation).
long thread_capacity() {
  long most = 64 * cpus_in_mask();
  const long system = number_in_file("/proc/sys/kernel/threads-max", most);
  if (system < most) most = system;
  struct rlimit r {};
  if (getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY && long(r.rlim_cur) < most) most = long(r.rlim_cur);
  const long cgroup = number_in_file("/sys/fs/cgroup/pids.max", most);
  return cgroup < most ? cgroup : most;
}

// The machine's memory in bytes (MemTotal of /proc/meminfo, in kB there).
unsigned long long memory_bytes() {
  const int fd = open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 1ULL << 50;
  char text[128] = {};
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  const char* colon = n > 0 ? std::strchr(text, ':') : nullptr;
  const unsigned long long kb = colon ? std::strtoull(colon + 1, nullptr, 10) : 0;
  return kb > 0 ? kb * 1024 : 1ULL << 50;
}

// ---- Reading values ------------------------------------------------------

// A decimal integer at v (leading spaces allowed), in [lo, hi]; *end after it.
bool read_long(const char* v, long lo, long hi, long& out, const char** end) {
  char* stop = nullptr;
  errno = 0;
  out = std::strtol(v, &stop, 10);
  *end = stop;
  return stop != v && errno == 0 && out >= lo && out <= hi;
}

// One of `words` (case-insensitive), the whole of [v, end).
bool is_word(const char* v, const char* end, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (std::size_t(end - v) == std::strlen(w) && strncasecmp(v, w, std::size_t(end - v)) == 0) return true;
  return false;
}
bool is_word(const char* v, std::initializer_list<const char*> words) { return is_word(v, v + std::strlen(v), words); }

bool is_integer(const char* v, long lo, long hi) {
  long n = 0;
  const char* end = nullptr;
  return read_long(v, lo, hi, n, &end) && *end == '\0';
}

// "4" or "4,2": each level's thread count, from 1 to `most`.
bool is_count_list(const char* v, long most) {
  if (*v == '\0') return false;
  while (true) {
    long n = 0;
    const char* end = nullptr;
    if (!read_long(v, 1, most, n, &end)) return false;
    if (*end == '\0') return true;
    if (*end != ',') return false;
    v = end + 1;
  }
}

bool is_proc_bind(const char* v) {  // true, false, or a list of primary/master/close/spread
  if (is_word(v, {"true", "false"})) return true;
  while (true) {
    const char* comma = std::strchr(v, ',');
    const char* end = comma ? comma : v + std::strlen(v);
    if (!is_word(v, end, {"primary", "master", "close", "spread"})) return false;
    if (!comma) return true;
    v = comma + 1;
  }
}

// A stack size in bytes: a positive number, then optionally B, K, M or G
// (T as well for libomp), `unit` bytes without one (K for OMP_STACKSIZE and
// GOMP_STACKSIZE by the OpenMP specification, bytes for libomp's
// KMP_STACKSIZE); 0 where it does not parse or overflows.
unsigned long long stack_bytes(const char* v, unsigned long long unit) {
  while (*v == ' ') ++v;
  long n = 0;
  const char* end = nullptr;
  if (!read_long(v, 1, 1L << 40, n, &end)) return 0;
  while (*end == ' ') ++end;
  const char* units = "bkmgt";
  if (*end != '\0') {
    const char* u = std::strchr(units, *end | 0x20);
    if (u == nullptr) return 0;
    unit = 1ULL << (10 * (u - units));
    ++end;
  }
  while (*end == ' ') ++end;
  if (*end != '\0' || (unsigned long long)(n) > (1ULL << 62) / unit) return 0;
  return (unsigned long long)(n) * unit;
}

// ---- Places --------------------------------------------------------------

// Every CPU that a place list names is one this process may run on: an
// explicit list ({0:4},{4:4}, {0,1}:2:2, !{3}) of the OpenMP specification's
// grammar, each number checked against `mask`. Sets *bad to the first number
// outside it. An abstract name (threads, cores, ...) with an optional (count)
// is left to the runtime, which fits it to the machine.
bool cpu_ok(long cpu, const cpu_set_t& mask) { return cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &mask); }

// One "{...}" place: numbers, intervals lo:len[:stride], an optional leading !
// on a number. On success, *first/*last/*count hold its CPUs' bounds for a
// replicated place interval and every CPU it names is in the mask.
bool check_place(const char*& v, const cpu_set_t& mask, long shift, long& bad) {
  if (*v != '{') return false;
  ++v;
  while (true) {
    if (*v == '!') ++v;
    long lo = 0, len = 1, stride = 1;
    const char* end = nullptr;
    if (!read_long(v, 0, 1L << 20, lo, &end)) return false;
    v = end;
    if (*v == ':') {
      if (!read_long(v + 1, 1, 1L << 20, len, &end)) return false;
      v = end;
      if (*v == ':') {
        if (!read_long(v + 1, -(1L << 20), 1L << 20, stride, &end)) return false;
        v = end;
      }
    }
    for (long i = 0; i < len; ++i)
      if (!cpu_ok(lo + i * stride + shift, mask)) {
        bad = lo + i * stride + shift;
        return false;
      }
    if (*v == '}') break;
    if (*v != ',') return false;
    ++v;
  }
  ++v;
  return true;
}

bool is_places(const char* v, const cpu_set_t& mask, long& bad) {
  bad = -1;
  const char* open = std::strchr(v, '(');
  const char* end = open ? open : v + std::strlen(v);
  if (is_word(v, end, {"threads", "cores", "sockets", "ll_caches", "numa_domains"})) {
    if (!open) return true;
    long n = 0;
    const char* close = nullptr;
    return read_long(open + 1, 1, 1L << 20, n, &close) && close[0] == ')' && close[1] == '\0';
  }
  while (true) {
    if (*v == '!') ++v;
    const char* place = v;
    if (!check_place(v, mask, 0, bad)) return false;
    if (*v == ':') {  // {place}:count[:stride]: the place, shifted by stride, count times
      long count = 0, stride = 1;
      const char* stop = nullptr;
      if (!read_long(v + 1, 1, 1L << 20, count, &stop)) return false;
      v = stop;
      if (*v == ':') {
        if (!read_long(v + 1, -(1L << 20), 1L << 20, stride, &stop)) return false;
        v = stop;
      }
      for (long k = 1; k < count; ++k) {
        const char* again = place;
        if (!check_place(again, mask, k * stride, bad)) return false;
      }
    }
    if (*v == '\0') return true;
    if (*v != ',') return false;
    ++v;
  }
}

// GOMP_CPU_AFFINITY: CPUs, ranges a-b and a-b:stride, separated by spaces or commas.
bool is_cpu_affinity(const char* v, const cpu_set_t& mask, long& bad) {
  bad = -1;
  bool any = false;
  while (true) {
    while (*v == ' ' || *v == ',' || *v == '\t') ++v;
    if (*v == '\0') return any;
    long lo = 0, hi = 0, stride = 1;
    const char* end = nullptr;
    if (!read_long(v, 0, 1L << 20, lo, &end)) return false;
    v = end;
    hi = lo;
    if (*v == '-') {
      if (!read_long(v + 1, lo, 1L << 20, hi, &end)) return false;
      v = end;
      if (*v == ':' && !read_long(v + 1, 1, 1L << 20, stride, &end)) return false;
      if (*v == ':') v = end;
    }
    for (long c = lo; c <= hi; c += stride)
      if (!cpu_ok(c, mask)) {
        bad = c;
        return false;
      }
    any = true;
  }
}

// KMP_AFFINITY's proclist=[...]: the CPUs it names (numbers and ranges a-b).
bool is_kmp_proclist(const char* v, const cpu_set_t& mask, long& bad) {
  bad = -1;
  const char* list = std::strstr(v, "proclist=[");
  if (list == nullptr) return true;
  v = list + std::strlen("proclist=[");
  while (*v != ']') {
    if (*v == ',' || *v == '{' || *v == '}') {
      ++v;
      continue;
    }
    long lo = 0, hi = 0;
    const char* end = nullptr;
    if (!read_long(v, 0, 1L << 20, lo, &end)) return false;
    v = end;
    hi = lo;
    if (*v == '-' && !read_long(v + 1, lo, 1L << 20, hi, &end)) return false;
    if (*v == '-') v = end;
    for (long c = lo; c <= hi; ++c)
      if (!cpu_ok(c, mask)) {
        bad = c;
        return false;
      }
  }
  return true;
}

// ---- Refusal ---------------------------------------------------------------

// Decimal text of n into buf (at least 24 bytes): no stdio here.
const char* decimal(unsigned long long n, char* buf) {
  char* p = buf + 23;
  *p = '\0';
  do *--p = char('0' + n % 10); while ((n /= 10) != 0);
  return p;
}

[[noreturn]] void refuse(const char* name, const char* value, const char* accepted, const char* why = "",
                         const char* number = "", const char* after = "") {
  const char* parts[] = {"ompref: ", name, "='", value, "' is not accepted (accepted: ", accepted, why, number, after,
                         ")\n"};
  for (const char* p : parts) ompref::write_stderr_now(p);
  _exit(2);
}

const char* lookup(char** envp, const char* name) {
  const std::size_t length = std::strlen(name);
  for (char** e = envp; e != nullptr && *e != nullptr; ++e)
    if (std::strncmp(*e, name, length) == 0 && (*e)[length] == '=') return *e + length + 1;
  return nullptr;
}

// ---- The variables ---------------------------------------------------------

// The smallest thread stack accepted: glibc's PTHREAD_STACK_MIN on x86-64,
// below which pthread_attr_setstacksize fails and libgomp falls back to its
// default with a warning ("Stack size less than minimum of 16k"); ompref's
// stream and check ran with 16 K stacks.
constexpr unsigned long long min_stack_bytes = 16 << 10;
#define STACK_MIN_TEXT "16 K"

void check_threads(char** envp) {
  // A thread count this process cannot start ends in libgomp's "Thread
  // creation failed" (exit 1) or libomp's abort after the parse: refused here.
  const long capacity = thread_capacity();
  char most[24];
  for (const char* name : {"OMP_NUM_THREADS", "OMP_NUM_TEAMS"})
    if (const char* v = lookup(envp, name); v != nullptr && !is_count_list(v, capacity))
      refuse(name, v, "positive integers, comma-separated for nested levels, each at most ",
             decimal((unsigned long long)capacity, most), ", 64 per CPU of the affinity mask within threads-max, RLIMIT_NPROC and pids.max");
  for (const char* name : {"OMP_THREAD_LIMIT", "OMP_TEAMS_THREAD_LIMIT", "KMP_ALL_THREADS", "KMP_DEVICE_THREAD_LIMIT",
                           "KMP_TEAMS_THREAD_LIMIT"})
    if (const char* v = lookup(envp, name); v != nullptr && !is_count_list(v, 1L << 30))
      refuse(name, v, "a positive integer");
}

void check_stacks(char** envp, const char* threads) {
  // Too small: the runtime's own frames and the kernels' overflow (a signal);
  // too large: pthread_create fails after the parse (libgomp exits 1, libomp
  // aborts). A mapping larger than the machine's memory is refused by the
  // kernel whatever the overcommit policy (proc(5), overcommit_memory).
  const unsigned long long memory = memory_bytes();
  long count = 1;
  const char* end = nullptr;
  if (threads == nullptr || !read_long(threads, 1, 1L << 30, count, &end)) count = 1;
  char most[24];
  struct Row { const char* name; unsigned long long unit; };
  for (Row row : {Row{"OMP_STACKSIZE", 1024}, Row{"GOMP_STACKSIZE", 1024}, Row{"KMP_STACKSIZE", 1}})
    if (const char* v = lookup(envp, row.name)) {
      const unsigned long long bytes = stack_bytes(v, row.unit);
      if (bytes < min_stack_bytes || bytes > memory / (unsigned long long)count)
        refuse(row.name, v, row.unit == 1 ? "a size in bytes, or with B, K, M, G or T" : "a size in kilobytes, or with B, K, M or G",
               ", from " STACK_MIN_TEXT " to this machine's memory over the threads: ", decimal(memory / (unsigned long long)count / 1024, most), " K");
    }
}

void check_places(char** envp) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) return;  // the runtime will not bind either
  long bad = -1;
  char cpu[24];
  const char* where = "; the CPUs this process may run on are its affinity mask (taskset -p), which lacks CPU ";
  if (const char* v = lookup(envp, "OMP_PLACES"); v != nullptr && !is_places(v, mask, bad))
    refuse("OMP_PLACES", v, "threads, cores, sockets, ll_caches or numa_domains, optionally (N), or a list such as {0:4},{4:4}",
           bad >= 0 ? where : "", bad >= 0 ? decimal((unsigned long long)bad, cpu) : "");
  if (const char* v = lookup(envp, "GOMP_CPU_AFFINITY"); v != nullptr && !is_cpu_affinity(v, mask, bad))
    refuse("GOMP_CPU_AFFINITY", v, "CPUs and ranges such as 0 2-5 6-10:2", bad >= 0 ? where : "",
           bad >= 0 ? decimal((unsigned long long)bad, cpu) : "");
  if (const char* v = lookup(envp, "KMP_AFFINITY"); v != nullptr && !is_kmp_proclist(v, mask, bad))
    refuse("KMP_AFFINITY", v, "a proclist=[...] of CPUs and ranges", bad >= 0 ? where : "",
           bad >= 0 ? decimal((unsigned long long)bad, cpu) : "");
  if (const char* v = lookup(envp, "OMP_PROC_BIND"); v != nullptr && !is_proc_bind(v))
    refuse("OMP_PROC_BIND", v, "true, false, or a comma-separated list of primary, master, close, spread");
}

void check_offload(char** envp) {
  if (const char* v = lookup(envp, "OMP_DEFAULT_DEVICE"); v != nullptr && !is_integer(v, 0, (1L << 20) - 1))
    refuse("OMP_DEFAULT_DEVICE", v, "a device number 0, 1, ...");
  if (const char* v = lookup(envp, "OMP_TARGET_OFFLOAD"); v != nullptr && !is_word(v, {"mandatory", "disabled", "default"}))
    refuse("OMP_TARGET_OFFLOAD", v, "MANDATORY, DISABLED or DEFAULT");
  // libomptarget reads these two with std::stoi (Shared/Debug.h): anything but
  // an int throws from its initialization, an abort.
  for (const char* name : {"LIBOMPTARGET_INFO", "LIBOMPTARGET_DEBUG"})
    if (const char* v = lookup(envp, name); v != nullptr && !is_integer(v, -2147483647L - 1, 2147483647L))
      refuse(name, v, "an integer (a bit mask)");
  // A device heap of 0 fails every device allocation; a stack beyond the
  // 512 KiB of local memory a CUDA thread may have (CUDA C++ Programming
  // Guide, technical specifications per compute capability) fails every launch.
  if (const char* v = lookup(envp, "LIBOMPTARGET_HEAP_SIZE"); v != nullptr && !is_integer(v, 1, 1L << 40))
    refuse("LIBOMPTARGET_HEAP_SIZE", v, "a positive number of bytes");
  if (const char* v = lookup(envp, "LIBOMPTARGET_STACK_SIZE"); v != nullptr && !is_integer(v, 1, 512L << 10))
    refuse("LIBOMPTARGET_STACK_SIZE", v, "bytes per device thread, 1 to 524288");
  if (const char* v = lookup(envp, "LIBOMPTARGET_JIT_OPT_LEVEL"); v != nullptr && !is_integer(v, 0, 3))
    refuse("LIBOMPTARGET_JIT_OPT_LEVEL", v, "0, 1, 2 or 3");
  if (const char* v = lookup(envp, "LIBOMPTARGET_JIT_REPLACEMENT_MODULE")) {
    const int fd = open(v, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) close(fd);
    if (fd < 0) refuse("LIBOMPTARGET_JIT_REPLACEMENT_MODULE", v, "a readable LLVM IR file");
  }
  // libomptarget writes its time trace there at exit, after the work ("Could
  // not open", exit 0): an output location, checked for creatability first.
  // An existing file is opened for writing without truncation; a new one is
  // created and removed again.
  if (const char* v = lookup(envp, "LIBOMPTARGET_PROFILE")) {
    int fd = open(v, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      close(fd);
      unlink(v);
    } else if ((fd = open(v, O_WRONLY | O_APPEND | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) >= 0) {
      struct stat st;
      const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
      close(fd);
      if (!regular) refuse("LIBOMPTARGET_PROFILE", v, "a regular file this process can create or write");
    } else {
      refuse("LIBOMPTARGET_PROFILE", v, "a regular file this process can create or write");
    }
  }
  for (const char* name : {"LIBOMPTARGET_NUM_INITIAL_STREAMS", "LIBOMPTARGET_NUM_INITIAL_EVENTS",
                           "LIBOMPTARGET_AMDGPU_NUM_HSA_QUEUES", "LIBOMPTARGET_AMDGPU_TEAMS_PER_CU",
                           "LIBOMPTARGET_NVPTX_MAX_BLOCKS"})
    if (const char* v = lookup(envp, name); v != nullptr && !is_integer(v, 1, 1L << 16))
      refuse(name, v, "a positive integer, at most 65536");
}

// OMP_SCHEDULE: [monotonic: | nonmonotonic:]static|dynamic|guided|auto[,chunk]
// (OpenMP 5.2, 6.1): libgomp warns and keeps its default for anything else.
bool is_schedule(const char* v) {
  char text[64];
  const std::size_t length = std::strlen(v);
  if (length == 0 || length >= sizeof text) return false;
  std::memcpy(text, v, length + 1);
  char* kind = text;
  if (char* colon = std::strchr(text, ':')) {
    *colon = '\0';
    if (!is_word(text, {"monotonic", "nonmonotonic"})) return false;
    kind = colon + 1;
  }
  char* comma = std::strchr(kind, ',');
  if (comma != nullptr) *comma = '\0';
  if (!is_word(kind, {"static", "dynamic", "guided", "auto"})) return false;
  return comma == nullptr || (!is_word(kind, {"auto"}) && is_integer(comma + 1, 1, 2147483647L));
}

void check_policies(char** envp) {
  for (const char* name : {"OMP_DYNAMIC", "OMP_NESTED"})
    if (const char* v = lookup(envp, name); v != nullptr && !is_word(v, {"true", "false"})) refuse(name, v, "true or false");
  if (const char* v = lookup(envp, "OMP_WAIT_POLICY"); v != nullptr && !is_word(v, {"active", "passive"}))
    refuse("OMP_WAIT_POLICY", v, "active or passive");
  if (const char* v = lookup(envp, "OMP_MAX_ACTIVE_LEVELS"); v != nullptr && !is_integer(v, 0, 2147483647L))
    refuse("OMP_MAX_ACTIVE_LEVELS", v, "a non-negative integer");
  if (const char* v = lookup(envp, "OMP_DISPLAY_ENV"); v != nullptr && !is_word(v, {"true", "false", "verbose"}))
    refuse("OMP_DISPLAY_ENV", v, "true, false or verbose");
  if (const char* v = lookup(envp, "GOMP_SPINCOUNT");
      v != nullptr && !is_word(v, {"infinite", "infinity"}) && stack_bytes(v, 1) == 0 && std::strcmp(v, "0") != 0)
    refuse("GOMP_SPINCOUNT", v, "a non-negative integer, optionally with k, M, G or T, or infinite");
  if (const char* v = lookup(envp, "GOMP_DEBUG"); v != nullptr && !is_integer(v, 0, 2147483647L))
    refuse("GOMP_DEBUG", v, "a non-negative integer");
  if (const char* v = lookup(envp, "KMP_BLOCKTIME"); v != nullptr && !is_word(v, {"infinite", "infinity"}) &&
                                                      !is_integer(v, 0, 2147483647L))
    refuse("KMP_BLOCKTIME", v, "milliseconds, a non-negative integer, or infinite");
  if (const char* v = lookup(envp, "OMP_CANCELLATION"); v != nullptr && !is_word(v, {"true", "false"}))
    refuse("OMP_CANCELLATION", v, "true or false");
  if (const char* v = lookup(envp, "OMP_SCHEDULE"); v != nullptr && !is_schedule(v))
    refuse("OMP_SCHEDULE", v, "static, dynamic, guided or auto, optionally after monotonic: or nonmonotonic:, and ,chunk");
  // The predefined allocators (OpenMP 5.2, 6.2): gcc 12's libgomp reads no
  // other form, and warns and keeps the default for anything else.
  if (const char* v = lookup(envp, "OMP_ALLOCATOR");
      v != nullptr && !is_word(v, {"omp_default_mem_alloc", "omp_large_cap_mem_alloc", "omp_const_mem_alloc",
                                   "omp_high_bw_mem_alloc", "omp_low_lat_mem_alloc", "omp_cgroup_mem_alloc",
                                   "omp_pteam_mem_alloc", "omp_thread_mem_alloc"}))
    refuse("OMP_ALLOCATOR", v, "a predefined allocator such as omp_default_mem_alloc");
  if (const char* v = lookup(envp, "KMP_LIBRARY"); v != nullptr && !is_word(v, {"serial", "turnaround", "throughput"}))
    refuse("KMP_LIBRARY", v, "serial, turnaround or throughput");
}

void check_openmp_environment(int, char**, char** envp) {
  check_threads(envp);
  check_stacks(envp, lookup(envp, "OMP_NUM_THREADS"));
  check_places(envp);
  check_offload(envp);
  check_policies(envp);
}

}  // namespace

// Run by the dynamic loader before the shared libraries' constructors.
__attribute__((section(".preinit_array"), used)) void (*const ompref_preinit_openmp_environment)(int, char**,
                                                                                                 char**) =
    check_openmp_environment;
