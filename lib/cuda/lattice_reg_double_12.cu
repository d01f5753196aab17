/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Register lattice kernels in double for codewords of up to 12 bits.

#include "lattice_kernel_reg.cuh"

BSID_LATTICE_REG_TABLE(double, 12)
