// OpenMP settings that the runtimes would refuse with an assertion (LLVM's
// libomp aborts on an empty or negative OMP_NUM_THREADS) or answer with a
// warning of their own (GNU libgomp): checked before any runtime reads them.
//
// libgomp reads its environment in its library constructor, before main()
// and before any C++ constructor of the program. Only a function in the
// executable's .preinit_array runs earlier, and there neither the C++
// library nor stdio nor getenv (libc has not set `environ` yet) may be
// relied on: hence plain C here, the environment the loader passes, and write(2).
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <strings.h>

namespace {

bool is_count_list(const char* v) {  // "4" or "4,2": positive integers
  if (*v == '\0') return false;
  while (true) {
    char* end = nullptr;
    const long n = std::strtol(v, &end, 10);
    if (end == v || n < 1 || n > (1L << 24)) return false;
    if (*end == '\0') return true;
    if (*end != ',') return false;
    v = end + 1;
  }
}

bool is_device_number(const char* v) {
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && n >= 0 && n < (1L << 20);
}

// One of `words` (case-insensitive), the whole of [v, end).
bool is_word(const char* v, const char* end, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (std::size_t(end - v) == std::strlen(w) && strncasecmp(v, w, std::size_t(end - v)) == 0) return true;
  return false;
}

bool is_proc_bind(const char* v) {  // true, false, or a list of primary/master/close/spread
  if (is_word(v, v + std::strlen(v), {"true", "false"})) return true;
  while (true) {
    const char* comma = std::strchr(v, ',');
    const char* end = comma ? comma : v + std::strlen(v);
    if (!is_word(v, end, {"primary", "master", "close", "spread"})) return false;
    if (!comma) return true;
    v = comma + 1;
  }
}

bool is_stack_size(const char* v) {  // a positive size, optionally with B, K, M or G
  while (*v == ' ') ++v;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end == v || n < 1) return false;
  while (*end == ' ') ++end;
  if (*end != '\0' && std::strchr("bBkKmMgG", *end) != nullptr) ++end;
  while (*end == ' ') ++end;
  return *end == '\0';
}

bool is_places(const char* v) {  // an abstract name with an optional (count), or an explicit list
  const char* open = std::strchr(v, '(');
  const char* end = open ? open : v + std::strlen(v);
  if (is_word(v, end, {"threads", "cores", "sockets", "ll_caches", "numa_domains"})) {
    if (!open) return true;
    char* close = nullptr;
    const long n = std::strtol(open + 1, &close, 10);
    return close != open + 1 && n >= 1 && close[0] == ')' && close[1] == '\0';
  }
  if (*v != '{' && *v != '!') return false;
  int depth = 0;
  for (const char* c = v; *c != '\0'; ++c) {
    if (*c == '{') ++depth;
    else if (*c == '}') --depth;
    else if (std::strchr("0123456789,:!- ", *c) == nullptr) return false;
    if (depth < 0 || depth > 1) return false;
  }
  return depth == 0;
}

bool is_offload_policy(const char* v) {
  return strcasecmp(v, "mandatory") == 0 || strcasecmp(v, "disabled") == 0 || strcasecmp(v, "default") == 0;
}

[[noreturn]] void refuse(const char* name, const char* value, const char* accepted) {
  const char* parts[] = {"ompref: ", name, "='", value, "' is not accepted (accepted: ", accepted, ")\n"};
  for (const char* p : parts) {
    [[maybe_unused]] ssize_t n = write(STDERR_FILENO, p, std::strlen(p));
  }
  _exit(2);
}

const char* lookup(char** envp, const char* name) {
  const std::size_t length = std::strlen(name);
  for (char** e = envp; e != nullptr && *e != nullptr; ++e)
    if (std::strncmp(*e, name, length) == 0 && (*e)[length] == '=') return *e + length + 1;
  return nullptr;
}

void check_openmp_environment(int, char**, char** envp) {
  const char* counts = "positive integers, comma-separated for nested levels";
  for (const char* name : {"OMP_NUM_THREADS", "OMP_THREAD_LIMIT", "OMP_TEAMS_THREAD_LIMIT", "OMP_NUM_TEAMS"})
    if (const char* v = lookup(envp, name); v != nullptr && !is_count_list(v)) refuse(name, v, counts);
  if (const char* v = lookup(envp, "OMP_DEFAULT_DEVICE"); v != nullptr && !is_device_number(v))
    refuse("OMP_DEFAULT_DEVICE", v, "a device number 0, 1, ...");
  if (const char* v = lookup(envp, "OMP_TARGET_OFFLOAD"); v != nullptr && !is_offload_policy(v))
    refuse("OMP_TARGET_OFFLOAD", v, "MANDATORY, DISABLED or DEFAULT");
  if (const char* v = lookup(envp, "OMP_PROC_BIND"); v != nullptr && !is_proc_bind(v))
    refuse("OMP_PROC_BIND", v, "true, false, or a comma-separated list of primary, master, close, spread");
  if (const char* v = lookup(envp, "OMP_PLACES"); v != nullptr && !is_places(v))
    refuse("OMP_PLACES", v, "threads, cores, sockets, ll_caches or numa_domains, optionally (N), or a list such as {0:4},{4:4}");
  if (const char* v = lookup(envp, "OMP_STACKSIZE"); v != nullptr && !is_stack_size(v))
    refuse("OMP_STACKSIZE", v, "a positive size, optionally followed by B, K, M or G");
  for (const char* name : {"OMP_DYNAMIC", "OMP_NESTED"})
    if (const char* v = lookup(envp, name); v != nullptr && !is_word(v, v + std::strlen(v), {"true", "false"}))
      refuse(name, v, "true or false");
  if (const char* v = lookup(envp, "OMP_WAIT_POLICY");
      v != nullptr && !is_word(v, v + std::strlen(v), {"active", "passive"}))
    refuse("OMP_WAIT_POLICY", v, "active or passive");
}

}  // namespace

// Run by the dynamic loader before the shared libraries' constructors.
__attribute__((section(".preinit_array"), used)) void (*const ompref_preinit_openmp_environment)(int, char**,
                                                                                                 char**) =
    check_openmp_environment;
