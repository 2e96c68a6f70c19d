// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The tests of usdt/fsp.h against probe ABI v1 (-DFSP_ABI_V1): the header as
 * every feature library built with it sees it. */
#define FSP_ABI_V1 1
#define FSP_TEST_GROUP "fsp_header_v1"
#include "test_fsp_header.c"
