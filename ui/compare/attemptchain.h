// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

namespace ws {

// The attempts of one investigation: a session re-run with "Run again" (warpscope-cli rerun)
// names the session it was re-run from in its meta (metakey::kPredecessor), so C ← B ← A can be
// stepped through pair by pair in the compare window. Read from the files' meta only; a
// predecessor that is missing or unreadable ends the chain with the reason, never an error.
struct AttemptChain {
    struct Attempt {
        QString path;  // absolute, as the successor names it
        QString error; // why it cannot be read ("missing"); "" when it can
        bool ok() const { return error.isEmpty(); }
    };
    std::vector<Attempt> attempts; // newest first; only the last may be unreadable

    // Follows the predecessors of `newest` (at most kMaxAttempts; a loop ends the chain). Reads
    // files: call it on a worker thread.
    static AttemptChain resolve(const QString& newest);
    static constexpr int kMaxAttempts = 1000;

    int size() const { return static_cast<int>(attempts.size()); }
    // Index of a session in the chain (newest = 0), -1 when it is not in it.
    int indexOf(const QString& path) const;
    // "attempt 3 of 3: C.wscope ← B.wscope ← A.wscope", with "(missing)" after an unreadable
    // one; `current` (an index) is the attempt shown as B. Empty for a chain of one.
    QString describe(int current) const;
    // Whether the pair (attempts[index + 1], attempts[index]) can be compared.
    bool hasPair(int index) const;
};

} // namespace ws
