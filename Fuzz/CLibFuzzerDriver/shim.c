// LLVMFuzzerRunDriver is declared in the header and defined by libFuzzer; nothing to compile here.
#include "CLibFuzzerDriver.h"
