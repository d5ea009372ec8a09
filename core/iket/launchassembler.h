// SPDX-License-Identifier: MIT
#pragma once

#include "core/iket/iketlaunch.h"
#include "core/raw/iketformat.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ws::iket {

// Puts the parts of split launches back together in ingest, in any order and interleaved with
// other launches' parts. A launch whose parts are not all there (the process died while writing)
// is reported, with what it lost, never presented as whole.
class LaunchAssembler {
public:
    // One type-51 payload of process `pid`; `label`/`names` already resolved. A malformed part
    // is an error (the caller names the file); it does not stop the others.
    std::string add(int64_t pid, std::string_view payload, std::string label, std::string_view names);
    // The same, keeping `payload` itself rather than a copy (a launch can be hundreds of MB).
    std::string add(int64_t pid, std::string&& payload, std::string label, std::string_view names);
    // The launches whose parts all arrived, in the order their first part did; a launch whose
    // joined parts do not add up goes to `errors` instead.
    std::vector<LaunchBuffer> takeComplete(std::vector<std::string>& errors);
    // After takeComplete(): one line per launch still missing parts, and the events those parts
    // would have held where part 0 says (else unknown, counted as 0).
    std::vector<std::string> incomplete(uint64_t& lostEvents) const;

private:
    struct Pending {
        size_t order = 0;
        uint32_t parts = 0;
        std::map<uint32_t, std::string> payloads; // part -> payload
        std::string label;
        std::string names;
    };
    std::string assemble(const Pending& p, LaunchBuffer& out) const;
    std::map<std::pair<int64_t, uint64_t>, Pending> m_pending;
    size_t m_next = 0;
};

} // namespace ws::iket
