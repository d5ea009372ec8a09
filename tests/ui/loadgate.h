// SPDX-License-Identifier: MIT
#pragma once

// Holds every session load at SessionDocument's test hook (after the file is open, before its
// lanes are read) until that load's Cancel arrives, so a Cancel test always cancels a running
// load instead of racing it. Released (hook removed) when the gate goes out of scope.
#include "ui/session/sessiondocument.h"

#include <QThread>

#include <atomic>
#include <chrono>
#include <memory>

namespace ws::test {

class LoadGate {
public:
    LoadGate()
    {
        SessionDocument::setLoadHookForTests([state = m_state](const CancellationToken& cancel) {
            state->reached = true;
            // Bounded, so a test that never cancels fails on its own timeout instead of hanging.
            const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
            while (!cancel.isCancelled() && std::chrono::steady_clock::now() < until)
                QThread::msleep(1);
        });
    }
    ~LoadGate() { SessionDocument::setLoadHookForTests({}); }
    LoadGate(const LoadGate&) = delete;
    LoadGate& operator=(const LoadGate&) = delete;

    // Whether a load is (or was) held at the gate.
    bool reached() const { return m_state->reached; }

private:
    struct State {
        std::atomic<bool> reached {false};
    };
    std::shared_ptr<State> m_state = std::make_shared<State>();
};

} // namespace ws::test
