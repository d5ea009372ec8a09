// SPDX-License-Identifier: MIT
#pragma once

#include <cupti.h>

namespace ws::inject {

class Recorder;

// Cross-stream dependencies: event records, stream waits and event synchronisations, taken
// from CUPTI's callback API with the event and stream handles (raw/streamevent.h). On by
// default (they are rare next to launches); the activity API's records of these calls carry
// no handles, so they are not what the timeline's arrows are built from.
namespace streamevents {

// Turns on the callbacks of the recorded calls (runtime and driver entry points, _ptsz too).
void enable(CUpti_SubscriberHandle subscriber, Recorder& recorder);

// True for the callbacks enable() turned on; onCallback writes their records.
bool handles(CUpti_CallbackDomain domain, CUpti_CallbackId cbid);

// While one exists on a thread, that thread's event calls are the recorder's own (--nvtx-timing
// brackets ranges with events) and are not recorded as the program's.
class OwnCalls {
public:
    OwnCalls();
    ~OwnCalls();
    OwnCalls(const OwnCalls&) = delete;
    OwnCalls& operator=(const OwnCalls&) = delete;
};
void onCallback(Recorder& recorder, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& cb);

} // namespace streamevents
} // namespace ws::inject
