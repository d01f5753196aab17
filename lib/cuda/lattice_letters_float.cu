/*
 * Copyright 2026 gr-bsid authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The letters lattice kernels in float (lattice_kernels.cuh, letters_fit).

#include "lattice_kernel_reg.cuh"

BSID_LATTICE_LETTERS_TABLE(float)
