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
}

}  // namespace

// Run by the dynamic loader before the shared libraries' constructors.
__attribute__((section(".preinit_array"), used)) void (*const ompref_preinit_openmp_environment)(int, char**,
                                                                                                 char**) =
    check_openmp_environment;
