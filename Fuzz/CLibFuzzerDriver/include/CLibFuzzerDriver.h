#ifndef C_LIBFUZZER_DRIVER_H
#define C_LIBFUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for programs that have a main of their own (SwiftPM executables do).
/// Defined by libFuzzer: link with -sanitize=fuzzer.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
