// SPDX-License-Identifier: MIT
#include "core/iket/launchassembler.h"

#include <algorithm>
#include <cstring>

namespace ws::iket {

namespace {

constexpr uint64_t kEventBytes = sizeof(raw::IketEvent);

} // namespace

std::string LaunchAssembler::add(int64_t pid, std::string_view payload, std::string label, std::string_view names)
{
    if (payload.size() < sizeof(raw::IketLaunchPartRecord))
        return "in-kernel trace part record too short (" + std::to_string(payload.size()) + " bytes)";
    const auto rec = raw::readPayload<raw::IketLaunchPartRecord>(payload);
    if (rec.parts == 0 || rec.part >= rec.parts)
        return "in-kernel trace part " + std::to_string(rec.part) + " of " + std::to_string(rec.parts)
            + " is out of range";
    Pending& p = m_pending[{pid, rec.serial}];
    if (p.payloads.empty()) {
        p.order = m_next++;
        p.parts = rec.parts;
    }
    if (p.parts != rec.parts)
        return "in-kernel trace launch " + std::to_string(rec.serial) + ": its parts disagree on how many there are ("
            + std::to_string(p.parts) + " and " + std::to_string(rec.parts) + ")";
    if (!p.payloads.emplace(rec.part, std::string(payload)).second)
        return "in-kernel trace launch " + std::to_string(rec.serial) + ": part " + std::to_string(rec.part)
            + " appears twice";
    if (rec.part == 0) {
        p.label = std::move(label);
        p.names = std::string(names);
    }
    return {};
}

std::string LaunchAssembler::assemble(const Pending& p, LaunchBuffer& out) const
{
    const std::string_view first = p.payloads.at(0);
    const auto head = raw::readPayload<raw::IketLaunchPartRecord>(first);
    // The single-frame layout with part 0's counts and no events parses the launch's header and
    // checks grid against warps; the events are then filled in from every part.
    const uint64_t countsBytes = uint64_t {head.launch.totalWarps} * sizeof(uint32_t);
    if (first.size() < sizeof(raw::IketLaunchPartRecord) + countsBytes)
        return "in-kernel trace part 0 is shorter than its " + std::to_string(head.launch.totalWarps) + " counts";
    std::string single(reinterpret_cast<const char*>(&head.launch), sizeof(head.launch));
    single.append(first.substr(sizeof(raw::IketLaunchPartRecord), countsBytes));
    std::vector<std::vector<raw::IketEvent>> perWarp(head.launch.totalWarps);
    for (const auto& [index, payload] : p.payloads) {
        const auto rec = raw::readPayload<raw::IketLaunchPartRecord>(payload);
        std::string_view tail = std::string_view(payload).substr(sizeof(raw::IketLaunchPartRecord));
        if (index == 0)
            tail.remove_prefix(countsBytes);
        const uint64_t storedBytes = uint64_t {rec.warpCount} * sizeof(uint32_t);
        if (uint64_t {rec.firstWarp} + rec.warpCount > head.launch.totalWarps || storedBytes > tail.size())
            return "in-kernel trace part " + std::to_string(index) + " names warps " + std::to_string(rec.firstWarp)
                + ".." + std::to_string(uint64_t {rec.firstWarp} + rec.warpCount) + " of "
                + std::to_string(head.launch.totalWarps);
        std::vector<uint32_t> stored(rec.warpCount);
        if (storedBytes > 0)
            std::memcpy(stored.data(), tail.data(), storedBytes);
        tail.remove_prefix(storedBytes);
        uint64_t total = 0;
        for (const uint32_t n : stored)
            total += n;
        if (tail.size() != total * kEventBytes)
            return "in-kernel trace part " + std::to_string(index) + ": its counts add up to " + std::to_string(total)
                + " events but " + std::to_string(tail.size()) + " bytes follow";
        for (uint32_t i = 0; i < rec.warpCount; ++i) {
            auto& dst = perWarp[rec.firstWarp + i];
            const size_t at = dst.size();
            dst.resize(at + stored[i]);
            if (stored[i] > 0)
                std::memcpy(dst.data() + at, tail.data(), stored[i] * kEventBytes);
            tail.remove_prefix(stored[i] * kEventBytes);
        }
    }
    uint64_t total = 0;
    for (const auto& w : perWarp)
        total += w.size();
    for (const auto& w : perWarp)
        for (const auto& e : w)
            single.append(reinterpret_cast<const char*>(&e), sizeof(e));
    // parseLaunch checks that every warp holds min(count, eventsPerWarp) events: a part that
    // lost some shows up there, naming the launch.
    std::string error = parseLaunch(single, p.label, p.names, out);
    if (!error.empty())
        return error + " (after joining " + std::to_string(p.parts) + " parts, " + std::to_string(total) + " events)";
    return {};
}

std::vector<LaunchBuffer> LaunchAssembler::takeComplete(std::vector<std::string>& errors)
{
    std::vector<std::pair<size_t, LaunchBuffer>> done;
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (it->second.payloads.size() != it->second.parts) {
            ++it;
            continue;
        }
        LaunchBuffer b;
        const std::string error = assemble(it->second, b);
        if (error.empty()) {
            b.pid = it->first.first;
            done.emplace_back(it->second.order, std::move(b));
        } else {
            errors.push_back(error);
        }
        it = m_pending.erase(it);
    }
    std::sort(done.begin(), done.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<LaunchBuffer> out;
    out.reserve(done.size());
    for (auto& d : done)
        out.push_back(std::move(d.second));
    return out;
}

std::vector<std::string> LaunchAssembler::incomplete(uint64_t& lostEvents) const
{
    std::vector<std::string> out;
    for (const auto& [key, p] : m_pending) {
        uint64_t present = 0;
        for (const auto& [index, payload] : p.payloads) {
            (void)index;
            const auto rec = raw::readPayload<raw::IketLaunchPartRecord>(payload);
            present += (payload.size() - sizeof(raw::IketLaunchPartRecord) - uint64_t {rec.warpCount} * sizeof(uint32_t)
                           - (index == 0 ? uint64_t {rec.launch.totalWarps} * sizeof(uint32_t) : 0))
                / kEventBytes;
        }
        uint64_t expected = present;
        if (const auto zero = p.payloads.find(0); zero != p.payloads.end()) {
            const auto head = raw::readPayload<raw::IketLaunchPartRecord>(zero->second);
            const std::string_view counts = std::string_view(zero->second).substr(sizeof(raw::IketLaunchPartRecord));
            expected = 0;
            for (uint64_t w = 0; w < head.launch.totalWarps && (w + 1) * sizeof(uint32_t) <= counts.size(); ++w) {
                uint32_t n = 0;
                std::memcpy(&n, counts.data() + w * sizeof(uint32_t), sizeof(n));
                expected += std::min(n, head.launch.eventsPerWarp);
            }
        }
        lostEvents += expected > present ? expected - present : 0;
        out.push_back("in-kernel trace launch " + std::to_string(key.second) + " of process "
            + std::to_string(key.first) + ": " + std::to_string(p.payloads.size()) + " of " + std::to_string(p.parts)
            + " parts arrived; "
            + (p.payloads.count(0) ? std::to_string(expected - std::min(expected, present))
                                   : std::string("an unknown number of"))
            + " events lost, the launch is left out");
    }
    return out;
}

} // namespace ws::iket
