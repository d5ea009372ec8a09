// SPDX-License-Identifier: MIT
#pragma once

// The precompiled header of every test suite (tests/CMakeLists.txt, one per test directory):
// QtTest and the standard headers nearly every suite includes. Parsed once per directory instead
// of once per suite, it takes about a third off each suite's compile: the suites were half of a
// cold build's CPU time. Nothing of ours goes here, so a change to the project's headers does not
// rebuild the header of every suite.
#include <QtTest>
#ifdef QT_WIDGETS_LIB
#include <QtWidgets>
#endif
#include <QSignalSpy>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>
