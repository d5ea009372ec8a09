// SPDX-License-Identifier: MIT
#pragma once

// The in-kernel events at their raw positions — where the GPU's own timer put them, before
// ingest shifted each launch into its kernel's CUPTI interval (raw = stored - the launch's shift
// from meta iket_kernel_shifts_ns). "Every event inside its kernel" holds after the shift by
// construction; what can fail is this: the raw events of a kernel span no more than the kernel
// itself, nothing is left outside, and ingest's count of moved events is what the raw positions
// say.
#include "core/model/sessiondata.h"

#include <QString>
#include <QStringList>
#include <QtTest>

#include <map>

namespace ws::test {

inline void checkRawPositions(const SessionData& s)
{
    QCOMPARE(s.meta.at("iket_events_outside_kernel"), std::string("0"));
    std::map<int64_t, int64_t> shift;
    for (const QString& item :
        QString::fromStdString(s.meta.at("iket_kernel_shifts_ns")).split(',', Qt::SkipEmptyParts)) {
        const QStringList kv = item.split(':');
        QCOMPARE(kv.size(), 2);
        shift[kv[0].toLongLong()] = kv[1].toLongLong();
    }
    std::map<int64_t, const KernelRecord*> kernels;
    for (const auto& k : s.kernels)
        kernels[k.id] = &k;
    std::map<int64_t, std::pair<TimeNs, TimeNs>> span; // kernel -> raw (earliest begin, latest end)
    uint64_t moved = 0;
    for (const auto& e : s.warpEvents) {
        QVERIFY2(shift.count(e.kernelId), "every traced kernel has its shift in meta");
        QVERIFY(kernels.count(e.kernelId));
        const KernelRecord& k = *kernels[e.kernelId];
        const TimeNs begin = e.begin - shift[e.kernelId];
        const TimeNs end = e.end - shift[e.kernelId];
        QVERIFY(begin <= end);
        moved += begin < k.start || end > k.end ? 1 : 0;
        auto [it, fresh] = span.try_emplace(e.kernelId, begin, end);
        if (!fresh)
            it->second = {std::min(it->second.first, begin), std::max(it->second.second, end)};
    }
    QCOMPARE(s.meta.at("iket_events_moved_into_kernel"), std::to_string(moved));
    for (const auto& [id, range] : span) {
        const KernelRecord& k = *kernels[id];
        QVERIFY2(range.second - range.first <= k.end - k.start,
            qPrintable(QStringLiteral("kernel #%1: raw events span %2 ns, the kernel %3 ns")
                           .arg(id)
                           .arg(range.second - range.first)
                           .arg(k.end - k.start)));
        qInfo("kernel #%lld: raw events span %lld of %lld ns, shifted by %lld ns", static_cast<long long>(id),
            static_cast<long long>(range.second - range.first), static_cast<long long>(k.end - k.start),
            static_cast<long long>(shift[id]));
    }
}

} // namespace ws::test
