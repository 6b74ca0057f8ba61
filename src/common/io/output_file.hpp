#pragma once
// Output files written whole or not at all. `-` names standard output.
//
// A path is checked before any run (check_output_path): it must be a regular
// file or not exist yet, in a directory that exists, on a file system that
// holds files, with a name short enough for its temporary file; FIFOs, devices
// and directories are refused (writing to a FIFO would block). A symbolic link
// is followed: its target is written, the link stays.
//
// write_output writes a temporary file in the target's directory, flushes and
// syncs it, closes it, checking each step, then renames it over the target:
// a reader sees the old file or the new one, never a truncated one, and an
// error (a full disk, say) leaves the old file intact. Errors throw IoError.
#include <csignal>
#include <string>
#include <vector>

#include "common/io/io_error.hpp"

namespace ompref {

// The file a path finally names, symbolic links followed (the path itself
// when it does not exist yet).
std::string resolve_output_path(const std::string& path);
void check_output_path(const std::string& path, const std::string& option);
// Whether two paths name the same file (by identity, not by spelling: a hard
// link, a symbolic link and ./x are the file x).
bool same_output(const std::string& a, const std::string& b);
// The temporary file write_output writes first, beside the target:
// ".<name>.tmp.XXXXXX" (12 characters longer than the name).
std::string temporary_name(const std::string& file_name);
// A folder that outputs go into, created if missing, with `entries` the
// longest names written inside it (a results folder and its files, each
// level's name in `entries` in order): checked before any work for each name's
// length (the file system's limit), the path's length, a file system that holds
// files (not /proc, /sys and their kind), and a probe that creates and removes
// a folder and a file in the deepest existing ancestor. Throws IoError
// naming `option`.
void check_output_folder(const std::string& path, const std::string& option,
                         const std::vector<std::string>& entries);
// Each output against each input: an output may not be an input (by identity)
// nor lie inside one; throws IoError naming both options.
struct NamedPath {
  std::string path;
  std::string option;
};
void check_outputs_spare_inputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);
void write_output(const std::string& path, const std::string& text, const std::string& what);
// write_output in two steps, for a set of files that must change together (the
// results folder's three): stage each (its temporary file written and synced;
// throws IoError, leaving the target unchanged), then commit each (a rename)
// or discard it. Staged files count as pending for remove_pending_output().
struct StagedOutput {
  int slot;
  std::string temp, target, what, path;
};
StagedOutput stage_output(const std::string& path, const std::string& text, const std::string& what);
void commit_output(const StagedOutput& staged);
void discard_output(const StagedOutput& staged) noexcept;
// Removes the temporary file of a write in progress, if any: safe to call
// from a signal handler (an interrupted program leaves no stray file).
void remove_pending_output() noexcept;
// Writes `text` to standard error as a signal handler or a process about to
// _exit may: write(2) alone, nothing allocated; a failed write is passed over
// (there is nowhere left to report it).
void write_stderr_now(const char* text) noexcept;
// A temporary file of another writer (a cache entry before its rename) that
// remove_pending_output() removes too: mkstemp on `name_template` (its
// XXXXXX replaced in place), marked pending before it exists. Returns the
// descriptor, or -1 with errno set; `slot` is what release_pending_file takes
// once the file is renamed or removed.
int create_pending_file(std::string& name_template, int& slot);
void release_pending_file(int slot) noexcept;
// For commands without a signal handler of their own (compare, report): the
// signals that end a process by default remove the pending temporary files,
// then end it as the signal would. The SIGXFSZ of a file-size limit is
// passed over instead, so that the write beyond it fails with EFBIG and is
// reported as a write error (for every command: call it first).
void remove_pending_output_on_signals();
// Whether a SIGXFSZ is the kernel's for a write beyond the file-size limit
// (which the kernel sends as from the process itself), not one another
// process sent (kill -XFSZ, which ends the command as other signals do).
bool file_size_limit(const siginfo_t* info);
// Standard output that never stops a command: from here on `stdout` writes
// to descriptor 1 through a stream whose writes do not fail; the first error
// (a full disk, EIO) is kept and what follows it is dropped, so that a
// command finishes its work and writes its named files, then says so
// (standard_output_error). A closed pipe still raises SIGPIPE.
void guard_standard_output();
// The first error (an errno) writing standard output, after flushing it; 0 when none.
int standard_output_error();

}  // namespace ompref
