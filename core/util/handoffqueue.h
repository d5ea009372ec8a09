// SPDX-License-Identifier: MIT
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace ws {

// Hands values from one thread to another. A value is moved in and moved out, so only one
// thread owns it at a time and nothing in it is shared. push() waits while `capacity` values
// wait, so a producer that runs ahead of its consumer cannot pile up memory; pop() waits for a
// value and returns nullopt once the queue is closed and empty.
template <typename T> class HandoffQueue {
public:
    explicit HandoffQueue(size_t capacity)
        : m_capacity(capacity > 0 ? capacity : 1)
    {
    }

    // False (and the value dropped) once the queue is closed: the consumer is gone.
    bool push(T value)
    {
        std::unique_lock lock(m_mutex);
        m_notFull.wait(lock, [&] { return m_closed || m_values.size() < m_capacity; });
        if (m_closed)
            return false;
        m_values.push_back(std::move(value));
        m_notEmpty.notify_one();
        return true;
    }

    std::optional<T> pop()
    {
        std::unique_lock lock(m_mutex);
        m_notEmpty.wait(lock, [&] { return m_closed || !m_values.empty(); });
        if (m_values.empty())
            return std::nullopt;
        T value = std::move(m_values.front());
        m_values.pop_front();
        m_notFull.notify_one();
        return value;
    }

    // No more pushes; pop() still hands out what waits, then nullopt.
    void close()
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
        m_notFull.notify_all();
        m_notEmpty.notify_all();
    }

private:
    const size_t m_capacity;
    std::mutex m_mutex;
    std::condition_variable m_notFull;
    std::condition_variable m_notEmpty;
    std::deque<T> m_values;
    bool m_closed = false;
};

} // namespace ws
