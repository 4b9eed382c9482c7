//go:build godlpack_python

/* capsule.c: the capsule names of the DLPack protocol, defined once for the process
 * (gd_python.h declares them): the godlpack module names its exports with these very
 * pointers, so its import's fast path matches its own capsules by address. */
#include "gd_python.h"

const char *const gd_name_versioned = "dltensor_versioned";
const char *const gd_name_legacy = "dltensor";
const char *const gd_name_used_versioned = "used_dltensor_versioned";
const char *const gd_name_used_legacy = "used_dltensor";
const char *const gd_name_exchange_api = "dlpack_exchange_api";
