#pragma once
// lbm's reference states kept across processes, where OMPREF_CACHE names a
// folder: at the paper size one reference run costs the host minutes, the
// device variants it checks a second. An entry is trusted only by the very
// binary that wrote it (its bytes hashed into the key: another build, another
// version of the reference, is another key), for the same parameters, step
// count and CPU model, and only whole (a checksum over the state).
#include <string>

namespace ompref::lbm {

class LbmInstance;

// The folder (OMPREF_CACHE), or empty: no cache.
std::string reference_cache_dir();
// Before any work: a cache folder that others could write into (or that is
// not this user's) is refused with a UsageError, as ssh refuses such files.
// The same is checked again on each use, and of each entry (a regular file
// of this user that only this user writes: a planted entry, a link or a FIFO
// is not read, said in one line, and the reference state is computed).
void check_reference_cache();
// Reads the reference state after `steps` steps of `s` into `pop` (a lattice
// of Q * stride doubles) when the cache holds it whole; false otherwise, with
// `overwritten` set when `pop` no longer holds what it held (an entry that
// matched but was cut short or failed its checksum).
bool load_reference_state(const LbmInstance& s, long steps, double* pop, bool& overwritten);
// Keeps it (a temporary file renamed over the entry); a cache that cannot
// take it is said in one line on standard error, and the run goes on.
void store_reference_state(const LbmInstance& s, long steps, const double* pop);

}  // namespace ompref::lbm
