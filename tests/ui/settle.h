// SPDX-License-Identifier: MIT
#pragma once

// For checks that something did NOT happen ("the stale result was dropped", "exactly one
// update"): instead of sleeping a guessed time, wait until the worker pools that could still
// produce it are idle, then deliver what they posted. After settle() nothing started before it
// can arrive, so the count that follows is a check, not a race.
#include "ui/session/backgroundjob.h"

#include <QCoreApplication>
#include <QThreadPool>

#include <initializer_list>

namespace ws::test {

// The pools by BackgroundJob::pool's name and thread count (the same as the code that owns them,
// since the first call creates the pool).
struct PoolName {
    const char* name;
    int threads;
};

inline bool settle(std::initializer_list<PoolName> pools, int ms = 60000)
{
    // Twice: a delivered result may start work on another pool (a load starts the panel read).
    for (int round = 0; round < 2; ++round) {
        for (const PoolName& p : pools)
            if (!BackgroundJob::pool(p.name, p.threads)->waitForDone(ms))
                return false;
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }
    return true;
}

} // namespace ws::test
