/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The wide register lattice kernels in double (launch_plan.h, wide_slot).

#include "lattice_kernel_reg.cuh"

BSID_LATTICE_WIDE_TABLE(double)
