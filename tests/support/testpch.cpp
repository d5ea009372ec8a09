// SPDX-License-Identifier: MIT
// The translation unit that builds a test directory's precompiled header (testpch.h).
