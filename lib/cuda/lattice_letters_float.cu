/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The letters lattice kernels in float (lattice_kernels.cuh, letters_fit),
// and pass L from their position table (lattice_kernel_table.cuh).

#include "lattice_kernel_reg.cuh"
#include "lattice_kernel_table.cuh"

BSID_LATTICE_LETTERS_TABLE(float)
BSID_LATTICE_TABLE_TABLE(float)
