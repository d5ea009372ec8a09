// SPDX-License-Identifier: MIT
#pragma once

// When the program a collector is loaded into crashes, the user sees only "killed by signal 11"
// and cannot tell their bug from ours. The report says, on the program's stderr, what the
// collector was doing (the activity noted last) and the stack with each frame's library and
// offset (addr2line -e LIB OFFSET names the line), then hands the signal on unchanged: to the
// program's own handler if it had one, otherwise to the default action (core dump, exit status).
// A program with a handler of its own may take the signal on purpose (guard pages, a runtime's
// null checks): then only a crash inside one of the collector's callbacks is reported.
namespace ws::crash {

// Installs the report for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT. `tool` prefixes every
// line ("warpscope-profile"). Idempotent; the first call wins. With WS_CRASH_DIR set (the
// launcher sets it to its work directory), the report is also written to
// $WS_CRASH_DIR/crash-<pid>.txt, which crashReportAt() reads back.
// `tracksActivity`: the collector notes its callbacks (noteActivity), so a crash without a note
// is the program's own; a collector that does not (the recorder: its callbacks are per launch
// and must cost nothing) says so instead.
void installReport(const char* tool, bool tracksActivity = true);

// What the collector is doing now, shown in the report; `what` is copied (truncated to 255
// bytes), nullptr or "" clears it. One note per process: the collectors note their own
// callbacks, which the driver serialises per context.
void noteActivity(const char* what);

// Clears the note when the callback that made it returns.
struct ActivityScope {
    ActivityScope() = default;
    ActivityScope(const ActivityScope&) = delete;
    ActivityScope& operator=(const ActivityScope&) = delete;
    ~ActivityScope() { noteActivity(nullptr); }
};

} // namespace ws::crash
