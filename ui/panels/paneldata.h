// SPDX-License-Identifier: MIT
#pragma once

// PanelData is produced by the SessionDocument (ui/session); the panels include it from here.
#include "ui/session/paneldata.h"
