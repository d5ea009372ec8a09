// SPDX-License-Identifier: MIT
#pragma once

namespace ws::inject::iketsubmit {

// At exit, before the raw file closes: how many in-kernel traced launches ended while the
// recorder was not capturing (each was refused by warpscope_iket_submit), as one warning.
void shutdown();

} // namespace ws::inject::iketsubmit
