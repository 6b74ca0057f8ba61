#pragma once
// Output files written whole or not at all. `-` names standard output.
//
// A path is checked before any run (check_output_path): it must be a regular
// file or not exist yet, in a directory that exists; FIFOs, devices and
// directories are refused (writing to a FIFO would block). A symbolic link is
// followed: its target is written, the link stays.
//
// write_output writes a temporary file in the target's directory, flushes and
// syncs it, closes it, checking each step, then renames it over the target:
// a reader sees the old file or the new one, never a truncated one, and an
// error (a full disk, say) leaves the old file intact. Errors throw UsageError.
#include <string>

namespace ompref {

// The file a path finally names, symbolic links followed (the path itself
// when it does not exist yet).
std::string resolve_output_path(const std::string& path);
void check_output_path(const std::string& path, const std::string& option);
// Whether two output paths name the same file (by identity, not by spelling).
bool same_output(const std::string& a, const std::string& b);
void write_output(const std::string& path, const std::string& text, const std::string& what);
// Removes the temporary file of a write in progress, if any: safe to call
// from a signal handler (an interrupted program leaves no stray file).
void remove_pending_output() noexcept;

}  // namespace ompref
