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
    return add(pid, std::string(payload), std::move(label), names);
}

std::string LaunchAssembler::add(int64_t pid, std::string&& payload, std::string label, std::string_view names)
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
    if (!p.payloads.emplace(rec.part, std::move(payload)).second)
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
    // Each part: its warps' event counts and events. Checked, and each warp's count summed, before
    // anything is copied: the events then go straight to their place in the launch.
    struct Piece {
        uint32_t firstWarp;
        std::vector<uint32_t> stored;
        const char* events;
    };
    std::vector<Piece> pieces;
    pieces.reserve(p.payloads.size());
    std::vector<uint64_t> received(head.launch.totalWarps, 0);
    uint64_t total = 0;
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
        Piece piece {rec.firstWarp, std::vector<uint32_t>(rec.warpCount), nullptr};
        if (storedBytes > 0)
            std::memcpy(piece.stored.data(), tail.data(), storedBytes);
        tail.remove_prefix(storedBytes);
        uint64_t inPart = 0;
        for (const uint32_t n : piece.stored)
            inPart += n;
        if (tail.size() != inPart * kEventBytes)
            return "in-kernel trace part " + std::to_string(index) + ": its counts add up to " + std::to_string(inPart)
                + " events but " + std::to_string(tail.size()) + " bytes follow";
        for (uint32_t i = 0; i < rec.warpCount; ++i)
            received[rec.firstWarp + i] += piece.stored[i];
        total += inPart;
        piece.events = tail.data();
        pieces.push_back(std::move(piece));
    }
    // The header and counts parsed as a single-frame launch would be; every warp's events, in
    // warp order and part order within a warp, must then be what the counts announce (a part
    // that lost some shows up here, naming the launch).
    std::string single(reinterpret_cast<const char*>(&head.launch), sizeof(head.launch));
    single.append(first.substr(sizeof(raw::IketLaunchPartRecord), countsBytes));
    std::string error = parseLaunchHead(single, p.label, p.names, out);
    if (error.empty()) {
        const uint64_t expected = out.firstEvent.empty() ? 0 : out.firstEvent.back() + out.stored(out.totalWarps() - 1);
        error = eventBytesMismatch(expected, total * kEventBytes);
    }
    for (uint32_t w = 0; error.empty() && w < head.launch.totalWarps; ++w) {
        if (received[w] != out.stored(w))
            error = "in-kernel trace record: warp " + std::to_string(w) + " holds " + std::to_string(received[w])
                + " events where its count says " + std::to_string(out.stored(w));
    }
    if (!error.empty())
        return error + " (after joining " + std::to_string(p.parts) + " parts, " + std::to_string(total) + " events)";
    // Where each warp's events start: the events of all warps back to back, as parseLaunch
    // would read them from one frame.
    std::vector<uint64_t> at(head.launch.totalWarps);
    uint64_t next = 0;
    for (uint32_t w = 0; w < head.launch.totalWarps; ++w) {
        at[w] = next;
        next += received[w];
    }
    out.events.resize(total);
    for (const Piece& piece : pieces) {
        const char* events = piece.events;
        for (size_t i = 0; i < piece.stored.size(); ++i) {
            const uint64_t n = piece.stored[i];
            if (n > 0)
                std::memcpy(out.events.data() + at[piece.firstWarp + i], events, n * kEventBytes);
            at[piece.firstWarp + i] += n;
            events += n * kEventBytes;
        }
    }
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
