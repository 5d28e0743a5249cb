/* rvs.h - everything libformat offers */
#ifndef RVS_H
#define RVS_H
#include "rvs_status.h"
#include "rvs_csr.h"
#include "rvs_mm.h"
#include "rvs_edges.h"
#include "rvs_pmf.h"
#include "rvs_partition.h"
#include "rvs_format.h"
#include "rvs_stream.h"
#include "rvs_mem.h"
#include "rvs_source.h"
#define RVSKIT_VERSION "0.1.0"
#endif
